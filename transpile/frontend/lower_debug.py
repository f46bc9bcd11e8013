"""Lowering of print's text and of ``assert``.

A string or f-string argument of ``print`` becomes a ``printf.Text`` (the
built-in formats it, ``builtins/printing.py``).  An ``assert`` is compiled
only in a debug build (``Context.debug``: ``KDSL_DEBUG=1`` or
``@kdsl.kernel(debug=True)``); in a release build it is left out like under
``python -O``: neither its condition nor its message is evaluated.  In a
debug build it becomes an :class:`ir.Assert` numbered from 1 in the
instance (``Context.assertions`` maps the number to its place and message).
A function with an assertion, or calling a device function that has one,
takes the launch's assertion record as its last parameter.
"""

from __future__ import annotations

import ast

import libcst as cst

from kdsl.transpile import ir
from kdsl.transpile.builtins.printing import static_text
from kdsl.transpile.core.printf import Field, Text
from kdsl.transpile.core.types import Int32
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
