"""Printing from a kernel: Python's ``print(...)`` and ``kdsl.print_once(...)``
(only thread (0, 0, 0) of block (0, 0, 0) prints), lowered to one
:class:`ir.Print`, which the CUDA backend writes as one ``printf``.

The arguments are numbers, Booleans, strings and f-strings (the front end
passes a string as a ``printf.Text``); ``sep=`` and ``end=`` are strings
known at compile time.  Everything known at compile time is formatted here,
into the text, exactly as printf would format it at run time
(``core.printf``)."""

from __future__ import annotations

from kdsl.transpile import ir
from kdsl.transpile.builtins.registry import register
from kdsl.transpile.core import arith, printf
from kdsl.transpile.core.printf import Field, Text
from kdsl.transpile.core.types import Numeric, Vector
from kdsl.transpile.errors import DSLError, error


def _lower_print(lw, entry, args, kwargs):
    sep = _keyword_text(lw, kwargs, "sep", " ")
    end = _keyword_text(lw, kwargs, "end", "\n")
    pieces = []
    for k, arg in enumerate(args):
        if k:
            pieces.append(sep)
        pieces.extend(arg.parts if isinstance(arg, Text) else (Field(arg),))
    pieces.append(end)
    text, values, formats = [""], [], []
    for piece in pieces:
        if isinstance(piece, str):
            text[-1] += piece
            continue
        value, conversion = converted(lw, piece)
        if value.is_static():
            text[-1] += printf.format_value(value.value, type(value), conversion)
        else:
            values.append(value.ir_value())
            formats.append(conversion)
            text.append("")
    if len(values) > printf.MAX_VALUES:
        raise error("print-too-many", limit=printf.MAX_VALUES, n=len(values))
    once = entry.name == "print_once"
    lw.emit(ir.Print(tuple(text), tuple(values), tuple(formats), once))
    return None


def converted(lw, field: Field) -> tuple:
    """``(value, conversion)``: a field's value converted to the type it
    prints as, and its printf conversion (errors at the field)."""
    try:
        v = field.value
        if isinstance(v, Vector):
            raise error(
                "print-argument",
                got=lw.describe(v),
                instead="print its lanes: v[0], v[1] …",
            )
        if lw.is_memory(v):
            raise error(
                "print-argument", got=lw.describe(v), instead="print an element: x[i]"
            )
        if not (isinstance(v, Numeric) or arith.is_python_number(v)):
            raise error(
                "print-argument",
                got=lw.describe(v),
                instead="it prints numbers, Booleans, strings and f-strings",
            )
        v = arith.as_numeric(v)
        target, conversion = printf.plan(field.spec, type(v))
        return arith.convert(v, target), conversion
    except DSLError as exc:
        raise (exc.locate(field.span) if field.span is not None else exc) from None


def static_text(lw, value) -> str | None:
    """A string or f-string known at compile time, as the text print would
    write; None for anything else (an f-string of run-time values)."""
    if not isinstance(value, Text):
        return None
    out = []
    for part in value.parts:
        if isinstance(part, str):
            out.append(part)
            continue
        v, conversion = converted(lw, part)
        if not v.is_static():
            return None
        out.append(printf.format_value(v.value, type(v), conversion))
    return "".join(out)


def _keyword_text(lw, kwargs, name, default) -> str:
    if name not in kwargs:
        return default
    text = static_text(lw, kwargs[name])
    if text is None:
        value = kwargs[name]
        got = "an f-string of run-time values" if isinstance(value, Text) else None
        raise error("print-text-keyword", keyword=name, got=got or lw.describe(value))
    return text


for _name, _doc in (
    (
        "print",
        "`print(*values, sep=' ', end='\\n')`: Python's print, through CUDA's "
        "`printf`: numbers, Booleans, strings and f-strings such as "
        '`f"{x:.3f}"`; every thread prints',
    ),
    (
        "print_once",
        "`kdsl.print_once(*values, sep=' ', end='\\n')`: print from thread "
        "(0, 0, 0) of block (0, 0, 0) only",
    ),
):
    register(
        _name, _doc, _lower_print, keywords=("sep", "end"), text=True, kind="syntax"
    )
