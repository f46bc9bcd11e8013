"""The functions of ``kdsl.math``: arity, folding and C++ spelling as data."""

from __future__ import annotations

import math
from fractions import Fraction

from kdsl.transpile.core import values
from kdsl.transpile.core.types import Float32, Float64

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
    """``fn`` (an integer-valued rounding) as C's: infinities and NaN pass
    through, and a zero result keeps the sign of ``x`` (``ceil(-0.5)`` is
    ``-0.0``), as floorf/ceilf/truncf/rintf give on the GPU."""

    def rounded(x):
        if not math.isfinite(x):
            return x
        r = float(fn(x))
        return math.copysign(r, x) if r == 0 else r

    return rounded


_FOLDS = {
    "sqrt": lambda x: math.sqrt(x) if x >= 0 else (x if x == 0 else math.nan),
    "floor": _finite(math.floor),
    "ceil": _finite(math.ceil),
    "trunc": _finite(math.trunc),
    "rint": _finite(round),
    "fabs": abs,
}


def host_fold(name: str):
    """Whether ``name`` has an exact host fold (else it is never folded)."""
    return _TABLE[name][1] is not None


def fold(name: str, args: list, t) -> float:
    """``kdsl.math.name(*args)`` in float type ``t``, exactly as the GPU
    computes it: the exact result rounded once to the type the CUDA function
    works in (float for Float32 and the half types, which then round once
    more to their own type, as the generated code does).  Only for names
    with ``host_fold``."""
    how = _TABLE[name][1]
    if how == "fma":
        result = _fma(*args, Float32 if t.width <= 32 else Float64)
    else:
        result = _FOLDS[how](*args)
    return values.round_float(result, t)


def _fma(x, y, z, rounding):
    """``x * y + z`` rounded once to ``rounding`` (fmaf/fma)."""
    if math.isfinite(x) and math.isfinite(y) and math.isinf(z):
        return z  # the exact product is finite, even where a double's is not
    if not all(map(math.isfinite, (x, y, z))):
        return x * y + z
    exact = Fraction(x) * Fraction(y) + Fraction(z)
    if exact == 0:  # the sign of an exact zero, by IEEE's rule
        return x * y + z
    return _round_fraction(exact, rounding)


def _round_fraction(q: Fraction, t) -> float:
    """The rational ``q`` rounded to nearest even in float type ``t``."""
    sign, q = (-1.0 if q < 0 else 1.0), abs(q)
    e = q.numerator.bit_length() - q.denominator.bit_length()
    if Fraction(2) ** e > q:
        e -= 1  # now 2**e <= q < 2**(e+1)
    quantum = max(e, t.min_exponent) - t.mantissa
    n = round(q / Fraction(2) ** quantum)  # half to even
    try:
        value = math.ldexp(n, quantum)
    except OverflowError:
        return sign * math.inf
    return sign * (value if value <= values.finite_limit(t) else math.inf)
