"""The functions of ``kdsl.math``: arity, folding and C++ spelling as data."""

from __future__ import annotations

import math
from fractions import Fraction

# name -> (number of arguments, exact host fold or None, C name for float)
# The C name for double drops the trailing "f"; Float16/BFloat16 go through
# the float function (``kdsl::`` overloads in prelude/math_half.h).
_TABLE = {
    "exp": (1, None, "expf"),
    "exp2": (1, None, "exp2f"),
    "log": (1, None, "logf"),
    "log2": (1, None, "log2f"),
    "log10": (1, None, "log10f"),
    "sqrt": (1, "sqrt", "sqrtf"),
    "rsqrt": (1, None, "rsqrtf"),
    "sin": (1, None, "sinf"),
    "cos": (1, None, "cosf"),
    "tan": (1, None, "tanf"),
    "tanh": (1, None, "tanhf"),
    "erf": (1, None, "erff"),
    "floor": (1, "floor", "floorf"),
    "ceil": (1, "ceil", "ceilf"),
    "trunc": (1, "trunc", "truncf"),
    "round": (1, "rint", "rintf"),
    "fabs": (1, "fabs", "fabsf"),
    "fma": (3, "fma", "fmaf"),
    "pow": (2, None, "powf"),
    "atan2": (2, None, "atan2f"),
}

MATH_FUNCTIONS = {
    name: f"kdsl.math.{name}({', '.join('xyz'[:arity])})"
    for name, (arity, _, _) in _TABLE.items()
}


def arity(name: str) -> int:
    return _TABLE[name][0]


def c_name(name: str, width: int) -> str:
    """The CUDA function for a float (32) or double (64) argument."""
    base = _TABLE[name][2]
    return base[:-1] if width == 64 else base


def _finite(fn):
    return lambda x: float(fn(x)) if math.isfinite(x) else x


_FOLDS = {
    "sqrt": lambda x: math.sqrt(x) if x >= 0 else (x if x == 0 else math.nan),
    "floor": _finite(math.floor),
    "ceil": _finite(math.ceil),
    "trunc": _finite(math.trunc),
    "rint": _finite(round),
    "fabs": abs,
}


def host_fold(name: str):
    """The exact host function for ``name`` (None: never folded).

    ``fma`` is computed exactly; the caller rounds it to float (as ``fmaf``
    does) and then to the argument type.
    """
    fold = _TABLE[name][1]
    if fold == "fma":
        return _fma
    return _FOLDS[fold] if fold else None


def _fma(x, y, z):
    if not all(map(math.isfinite, (x, y, z))):
        return x * y + z
    exact = Fraction(x) * Fraction(y) + Fraction(z)
    return float(exact) if exact != 0 else (x * y + z)
