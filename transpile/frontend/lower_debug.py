"""Lowering of print's text: a string or f-string argument of ``print``
becomes a ``printf.Text`` (the built-in formats it, ``builtins/printing.py``).
"""

from __future__ import annotations

import ast

import libcst as cst

from kdsl.transpile.core.printf import Field, Text
from kdsl.transpile.errors import error
from kdsl.transpile.frontend.state import Lowering


class DebugLowerer(Lowering):
    """The print-text half of ``lower.Lowerer`` (a mixin)."""

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


def _decoded(node: cst.FormattedString, text: str) -> str:
    """A piece of an f-string's text as the string it stands for."""
    text = text.replace("{{", "{").replace("}}", "}")
    if "r" in node.prefix.lower():
        return text
    quote = node.quote
    return ast.literal_eval(quote + text + quote)
