"""Python's own functions a kernel calls by their Python names: ``abs``,
``int``, ``float`` and ``bool`` (``min``/``max`` are math.py's, ``print``
printing.py's, ``range`` loops.py's ``kdsl.range``).  They are syntax: a
call lowers to the operation itself (``abs`` of a run-time value to an
``ir.UnaryOp``), or folds, and never reaches a backend as a call."""

from __future__ import annotations

from kdsl.transpile.builtins.registry import register, want_args
from kdsl.transpile.core import arith
from kdsl.transpile.core.types import Numeric, Vector
from kdsl.transpile.errors import error


def _number(lw, entry, x):
    """``x``, a kdsl value or a Python number, or the located error."""
    if not (isinstance(x, (Numeric, Vector)) or arith.is_python_number(x)):
        got = f"the string {x!r}" if isinstance(x, str) else lw.describe(x)
        raise error("not-numeric", where=f" for {entry.name}()", got=got)
    return x


def _lower_abs(lw, entry, args, kwargs):
    want_args(entry, args, 1)
    x = args[0]
    if arith.is_python_number(x):
        return abs(x)
    return arith.unary("abs", arith.as_numeric(_number(lw, entry, x)))


_CONVERSIONS = {"int": int, "float": float, "bool": bool}


def _float_of_text(text: str):
    """``float(text)``, or ``text`` itself when it is no number."""
    try:
        return float(text)
    except ValueError:
        return text


def _lower_conversion(lw, entry, args, kwargs):
    want_args(entry, args, 1)
    x = args[0]
    if entry.name == "float" and isinstance(x, str):
        x = _float_of_text(x)  # "inf", "-inf", "nan", a number
    return _CONVERSIONS[entry.name](_number(lw, entry, x))


register(
    "abs",
    "`abs(x)`: Python's abs, of a number or, lane by lane, a vector (the "
    "most negative integer's is itself, as in C)",
    _lower_abs,
    kind="syntax",
)
for _name in _CONVERSIONS:
    register(
        _name,
        f"`{_name}(x)`: Python's {_name} of a number known at compile time "
        "(a Python value; a run-time value is an error, E104)"
        + (
            ', or of the strings `"inf"`, `"-inf"`, `"nan"`' if _name == "float" else ""
        ),
        _lower_conversion,
        kind="syntax",
    )
