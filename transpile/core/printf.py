"""What ``print`` in a kernel prints: Python format specs as C printf
conversions, and the text printf writes, computed in Python.

Each value prints through one printf conversion, kept as its text without
``%`` and without C's length modifier (the backend adds ``ll`` for 64-bit
integers): ``d``, ``-8.3f``, ``08x``.  :func:`plan` turns a Python format
spec (the ``>8.3f`` of ``{x:>8.3f}``) for a kdsl type into the type the value
is converted to first and its conversion; :func:`format_value` is the text
printf writes for a value, which the interpreter prints and a compile-time
value folds to, so that the CPU prints what the GPU prints.

The format spec follows Python where C can do the same, and C where they
differ: a float without a code prints as ``g``, a Boolean without a spec as
``True``/``False`` (with one, as an integer, like Python); hex and octal of a
negative integer print its two's complement at 32 bits (64 for 64-bit
types), and a sign flag does nothing on them, as in C; a NaN or an infinity
is never zero-padded, and a NaN with its sign bit set prints ``-nan``
(glibc's convention).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from kdsl.transpile.core.types import (
    Boolean,
    Float64,
    Float32,
    Int32,
    Int128,
    Uint32,
    Uint64,
    Uint128,
)
from kdsl.transpile.errors import error

MAX_VALUES = 32  # run-time values one CUDA printf call formats
INT_CODES = ("d", "x", "X", "o")
FLOAT_CODES = ("e", "E", "f", "F", "g", "G")


@dataclass(frozen=True)
class Field:
    """A value to print with its Python format spec: an f-string's
    ``{x:spec}``, or a plain argument of print (spec ``""``); ``span`` is where
    it is written, for errors."""

    value: object
    spec: str = ""
    span: object = None


@dataclass(frozen=True)
class Text:
    """A string or f-string argument: its parts in order, each a ``str`` or a
    :class:`Field`."""

    parts: tuple

    def __add__(self, other: "Text") -> "Text":
        return Text(self.parts + other.parts)


# Python's format spec: [[fill]align][sign][z][#][0][width][grouping][.precision][type]
_SPEC = re.compile(
    r"(?:(?P<fill>.)?(?P<align>[<>=^]))?(?P<sign>[-+ ])?(?P<z>z)?(?P<alt>\#)?"
    r"(?P<zero>0)?(?P<width>\d+)?(?P<group>[,_])?(?:\.(?P<precision>\d+))?"
    r"(?P<code>.)?\Z",
    re.S,
)
_NOT_IN_PRINTF = (
    ("fill", "a fill character"),
    ("z", "'z'"),
    ("alt", "the alternate form '#'"),
    ("group", "digit grouping"),
)
_ALIGN = {"=": "'=' alignment", "^": "centring ('^')"}


def plan(spec: str, t) -> tuple:
    """``(type, conversion)``: how a value of the kdsl scalar type ``t``
    prints with the Python format spec ``spec`` (it is converted to ``type``
    first)."""
    if t in (Int128, Uint128):
        raise error(
            "print-argument",
            got=f"an {t.__name__}",
            instead="printf has no 128-bit conversion: convert it with .to(Int64)",
        )
    if t is Boolean and not spec:
        return Boolean, "s"
    m = _SPEC.match(spec)
    g = m.groupdict() if m is not None else {}
    code = g.get("code") or ""
    part = _not_in_printf(g, t.kind in ("int", "bool") and code not in FLOAT_CODES)
    if part is not None:
        raise error("print-format-spec", spec=spec, part=part)
    integer = t.kind in ("int", "bool")
    codes = INT_CODES + FLOAT_CODES if integer else FLOAT_CODES
    if code and code not in codes:
        raise error("print-format-code", code=code, type=_a(t), codes=", ".join(codes))
    if code in FLOAT_CODES or not integer:
        target, code = (Float64 if t is Float64 or integer else Float32), code or "g"
    else:
        target, code = (Int32 if t is Boolean else t), code or "d"
        if code == "d" and target in (Uint32, Uint64):
            code = "u"
    flags = "-" if g["align"] == "<" else ""
    if g["sign"] in ("+", " ") and code not in ("u", "x", "X", "o"):
        flags += g["sign"]
    flags += "0" if g["zero"] else ""
    precision = "" if g["precision"] is None else "." + g["precision"]
    return target, f"{flags}{g['width'] or ''}{precision}{code}"


def _not_in_printf(g: dict, integer: bool) -> str | None:
    """The part of a parsed format spec that printf cannot do, or None."""
    if not g:
        return "a layout Python rejects as well"
    for key, part in _NOT_IN_PRINTF:
        if g[key]:
            return part
    if g["align"] in _ALIGN:
        return _ALIGN[g["align"]]
    if g["zero"] and g["align"]:
        return "'0' with an alignment"
    if integer and g["precision"] is not None:
        return "a precision for an integer"
    return None


_CONVERSION = re.compile(r"(?P<flags>[-+ 0]*)(?P<width>\d*)(?P<precision>\.\d+)?.\Z")


def format_value(value, t, conversion: str) -> str:
    """The text C's printf writes for ``value`` (a Python or numpy number
    of kdsl type ``t``, as :func:`plan` converted it) through
    ``conversion``."""
    code = conversion[-1]
    if code == "s":
        return "True" if value else "False"
    if code == "d":
        return ("%" + conversion) % int(value)
    if code in ("u", "x", "X", "o"):  # unsigned: the promoted type's bits
        bits = 64 if t.width > 32 else 32
        spelled = conversion[:-1] + ("d" if code == "u" else code)
        return ("%" + spelled) % (int(value) % (1 << bits))
    x = float(value)
    if math.isfinite(x):
        return ("%" + conversion) % x
    m = _CONVERSION.match(conversion)
    flags = m.group("flags")
    sign = "-" if math.copysign(1.0, x) < 0 else ""
    if not sign:
        sign = "+" if "+" in flags else (" " if " " in flags else "")
    text = sign + ("nan" if math.isnan(x) else "inf")
    text = text.upper() if code in ("E", "F", "G") else text
    width = int(m.group("width") or 0)
    return text.ljust(width) if "-" in flags else text.rjust(width)


def _a(t) -> str:
    name = t.__name__
    return f"{'an' if name[0] in 'AEIOU' else 'a'} {name}"
