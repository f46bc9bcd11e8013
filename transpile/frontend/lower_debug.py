"""Lowering of print's text, of ``assert`` and of ``kdsl.assume``.

A string or f-string argument of ``print`` becomes a ``printf.Text`` (the
built-in formats it, ``builtins/printing.py``).  An ``assert`` is compiled
only in a debug build (``Context.debug``: ``KDSL_DEBUG=1`` or
``@kdsl.kernel(debug=True)``); in a release build it is left out like under
``python -O``: neither its condition nor its message is evaluated.  In a
debug build it becomes an :class:`ir.Assert` numbered from 1 in the
instance (``Context.assertions`` maps the number to its place and message).
A function with an assertion, or calling a device function that has one,
takes the launch's assertion record as its last parameter.

``kdsl.assume(cond)`` becomes an :class:`ir.Assume` in every build (the
range analysis reads it, the interpreter checks it); a debug build follows
it with an assertion of the same condition, so the GPU checks it too.  Its
condition is a comparison of integers or comparisons joined by ``and``; a
compile-time condition is checked here.
"""

from __future__ import annotations

import ast

import libcst as cst

from kdsl.transpile import ir
from kdsl.transpile.builtins.printing import static_text
from kdsl.transpile.core.printf import Field, Text
from kdsl.transpile.core.types import Boolean, Int32, Numeric, NumericMeta
from kdsl.transpile.errors import error
from kdsl.transpile.frontend.state import Lowering

RECORD = ir.PointerType(Int32)  # the assertion record's type
RECORD_NAME = "kdsl_assert"


class DebugLowerer(Lowering):
    """The print-text and assert half of ``lower.Lowerer`` (a mixin)."""

    # -- text ------------------------------------------------------------------------
    def text(self, node):
        """An argument of print: a string or f-string as a ``Text``, anything
        else as its value."""
        if isinstance(node, cst.SimpleString):
            value = node.evaluated_value
            if isinstance(value, bytes):
                raise error(
                    "print-argument",
                    got="a bytes string",
                    instead="print a str",
                    span=self.state.parsed.span(node),
                )
            return Text((value,))
        if isinstance(node, cst.ConcatenatedString):
            left, right = self.text(node.left), self.text(node.right)
            return left + right
        if isinstance(node, cst.FormattedString):
            return self._formatted(node)
        return self.expr(node)

    def _formatted(self, node: cst.FormattedString) -> Text:
        parts = []
        for part in node.parts:
            if isinstance(part, cst.FormattedStringText):
                parts.append(_decoded(node, part.value))
                continue
            span = self.state.parsed.span(part)
            code = self.state.parsed.code(part)
            pieces = part.format_spec or ()
            unsupported = (
                f"the conversion '!{part.conversion}'"
                if part.conversion is not None
                else (
                    "a computed part"
                    if any(not isinstance(p, cst.FormattedStringText) for p in pieces)
                    else None
                )
            )
            if unsupported is not None:
                raise error("print-format-spec", spec=code, part=unsupported, span=span)
            spec = "".join(piece.value for piece in pieces)
            if part.equal is not None:  # f"{x=}": the expression, then its value
                eq = part.equal
                parts.append(
                    part.whitespace_before_expression.value
                    + self.state.parsed.code(part.expression)
                    + part.whitespace_after_expression.value
                    + eq.whitespace_before.value
                    + "="
                    + eq.whitespace_after.value
                )
            value = self.expr(part.expression)
            parts.append(Field(value, spec, self.state.parsed.span(part.expression)))
        return Text(tuple(parts))

    # -- assert --------------------------------------------------------------------------
    def small_Assert(self, node):
        message = self._assert_message(node)
        if not self.state.ctx.debug:
            return
        cond = self.condition(self.expr(node.test), "an assert condition")
        if cond.is_static():
            if bool(cond):
                return
            if self._reached_by_every_thread():
                raise error("assert-always-fails", message=message)
        site = len(self.state.ctx.assertions) + 1
        span = self.state.parsed.span(node)
        self.state.ctx.assertions.append((span, message))
        record = self.assert_record()
        self.emit(ir.Assert(cond.ir_value(), record, site, message, span=span))

    # -- kdsl.assume ---------------------------------------------------------------------
    def assume(self, entry, cond):
        node = self.state.statements[-1]
        if isinstance(node, cst.Expr) and isinstance(node.value, cst.Call):
            node = node.value
        text = " ".join(self.state.parsed.code(node).split())
        span = self.state.parsed.span(node)
        if isinstance(cond, bool) or isinstance(cond, Numeric) and cond.is_static():
            if not isinstance(cond, bool) and type(cond) is not Boolean:
                raise error("assume-condition", callee=text, got=self.describe(cond))
            if not bool(cond):
                raise error("assume-always-false", text=text)
            return  # true whatever runs: nothing to state
        if not isinstance(cond, Numeric) or type(cond) is not Boolean:
            raise error("assume-condition", callee=text, got=self.describe(cond))
        value = cond.ir_value()
        _check_fact(value, text)
        names, values = [], []
        spelled = {b.cvar: n for n, b in self.state.env.items() if b.cvar}
        for e in ir.walk(value):
            if isinstance(e, ir.Var) and e.name not in {v.name for v in values}:
                names.append(spelled.get(e.name, e.name))
                values.append(e)
        self.emit(ir.Assume(value, text, tuple(names), tuple(values), span=span))
        if self.state.ctx.debug:
            site = len(self.state.ctx.assertions) + 1
            message = f"{text} is false"
            self.state.ctx.assertions.append((span, message))
            record = self.assert_record()
            self.emit(ir.Assert(value, record, site, message, span=span))

    def _assert_message(self, node) -> str:
        """The assert's message (its condition's source when it has none);
        in a release build only its form is checked."""
        if node.msg is None:
            return " ".join(self.state.parsed.code(node.test).split())
        strings = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)
        if not isinstance(node.msg, strings):
            code = " ".join(self.state.parsed.code(node.msg).split())
            raise error("assert-message", got=f"'{code}'")
        if not self.state.ctx.debug:
            return ""
        value = self.text(node.msg)
        text = static_text(self, value)
        if text is None:
            raise error("assert-message", got="an f-string of run-time values")
        return text

    def _reached_by_every_thread(self) -> bool:
        """Whether every thread of every launch runs the statement being
        lowered: in the kernel itself, outside run-time control flow, after
        no return under a run-time condition."""
        state = self.state
        return (
            not state.returns_allowed
            and state.dynamic_depth == 0
            and not state.bare_returns
        )

    def assert_record(self) -> ir.Var:
        """This function's assertion record parameter (declared on first use)."""
        if self.state.record is None:
            name = self.state.names.declare(RECORD_NAME, own=True)
            self.state.record = ir.Var(RECORD, name)
        return self.state.record

    def record_params(self) -> tuple:
        """The assertion record parameter, if this function has one: its
        last parameter."""
        record = self.state.record
        return () if record is None else (ir.Param(record.name, RECORD),)


def _decoded(node: cst.FormattedString, text: str) -> str:
    """A piece of an f-string's text as the string it stands for."""
    text = text.replace("{{", "{").replace("}}", "}")
    if "r" in node.prefix.lower():
        return text
    quote = node.quote
    return ast.literal_eval(quote + text + quote)


_COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")


def _check_fact(e, text: str) -> None:
    """``e`` is comparisons of integers joined by ``&&`` (E351, E352)."""
    if isinstance(e, ir.Logical) and e.op == "&&":
        _check_fact(e.lhs, text)
        _check_fact(e.rhs, text)
        return
    if isinstance(e, ir.Const) and e.type is Boolean:  # a part known here
        if not e.value:
            raise error("assume-always-false", text=text)
        return
    if not (isinstance(e, ir.BinOp) and e.op in _COMPARISONS):
        what = (
            "'or'" if isinstance(e, ir.Logical) else "a Boolean that is no comparison"
        )
        raise error("assume-condition", callee=text, got=what)
    t = e.lhs.type
    if not (isinstance(t, NumericMeta) and t.kind == "int"):
        raise error("assume-operand", text=text, op=e.op, type=t.__name__)
