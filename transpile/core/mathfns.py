"""The functions of ``kdsl.math``: signature, folding and C++ spelling as data."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from kdsl.transpile.core import values
from kdsl.transpile.core.types import Boolean, Float32, Float64, Int32


@dataclass(frozen=True)
class MathFn:
    """One function: its arguments (``x`` … of the float type the call
    computes in, except those named in ``ints``: Int32), its exact host fold
    (None: never folded), the CUDA function for float (for double, the same
    without the trailing "f" unless ``c_double`` says), its result type (None:
    the float type) and, for the doc line, what it computes."""

    params: str
    fold: str | None
    c_float: str
    c_double: str | None = None
    result: type | None = None
    ints: str = ""
    what: str = ""


# Float16/BFloat16 go through the float function (the generated code
# converts to float and rounds the result once to the type).
_TABLE = {
    "exp": MathFn("x", None, "expf"),
    "exp2": MathFn("x", None, "exp2f"),
    "log": MathFn("x", None, "logf"),
    "log2": MathFn("x", None, "log2f"),
    "log10": MathFn("x", None, "log10f"),
    "sqrt": MathFn("x", "sqrt", "sqrtf"),
    "rsqrt": MathFn("x", None, "rsqrtf"),
    "sin": MathFn("x", None, "sinf"),
    "cos": MathFn("x", None, "cosf"),
    "tan": MathFn("x", None, "tanf"),
    "tanh": MathFn("x", None, "tanhf"),
    "erf": MathFn("x", None, "erff"),
    "floor": MathFn("x", "floor", "floorf"),
    "ceil": MathFn("x", "ceil", "ceilf"),
    "trunc": MathFn("x", "trunc", "truncf"),
    "round": MathFn(
        "x",
        "round",
        "roundf",
        what="the nearest integer, halfway cases away from zero (`roundf`)",
    ),
    "rint": MathFn(
        "x",
        "rint",
        "rintf",
        what="the nearest integer, halfway cases to even (`rintf`)",
    ),
    "fabs": MathFn("x", "fabs", "fabsf"),
    "fma": MathFn("xyz", "fma", "fmaf"),
    "fmax": MathFn(
        "xy", "fmax", "fmaxf", what="the larger, a NaN ignored, `+0.0 > -0.0` (`fmaxf`)"
    ),
    "fmin": MathFn(
        "xy",
        "fmin",
        "fminf",
        what="the smaller, a NaN ignored, `-0.0 < +0.0` (`fminf`)",
    ),
    "copysign": MathFn(
        "xy", "copysign", "copysignf", what="`x` with the sign bit of `y` (`copysignf`)"
    ),
    "ldexp": MathFn(
        "xn", "ldexp", "ldexpf", ints="n", what="`x * 2**n`, `n` an Int32 (`ldexpf`)"
    ),
    "frexp_mantissa": MathFn(
        "x",
        "frexp_mantissa",
        "kdsl::frexp_mantissa",
        "kdsl::frexp_mantissa",
        what="`m` of `x == m * 2**e`, `0.5 <= abs(m) < 1` (`x` itself if 0, inf or NaN)",
    ),
    "frexp_exponent": MathFn(
        "x",
        "frexp_exponent",
        "kdsl::frexp_exponent",
        "kdsl::frexp_exponent",
        Int32,
        what="`e` of `x == m * 2**e` (Int32; 0 if `x` is 0, inf or NaN)",
    ),
    "isnan": MathFn(
        "x", "isnan", "isnan", "isnan", Boolean, what="whether `x` is a NaN (Boolean)"
    ),
    "isinf": MathFn(
        "x",
        "isinf",
        "isinf",
        "isinf",
        Boolean,
        what="whether `x` is infinite (Boolean)",
    ),
    "isfinite": MathFn(
        "x",
        "isfinite",
        "isfinite",
        "isfinite",
        Boolean,
        what="whether `x` is finite (Boolean)",
    ),
    "pow": MathFn("xy", None, "powf"),
    "atan2": MathFn("xy", None, "atan2f"),
}

MATH_FUNCTIONS = {
    name: f"kdsl.math.{name}({', '.join(fn.params)})" for name, fn in _TABLE.items()
}


def spec(name: str) -> MathFn:
    return _TABLE[name]


def arity(name: str) -> int:
    return len(_TABLE[name].params)


def c_name(name: str, width: int) -> str:
    """The CUDA function for a float (32) or double (64) argument."""
    fn = _TABLE[name]
    if width == 64:
        return fn.c_double or fn.c_float[:-1]
    return fn.c_float


def _finite(fn):
    """``fn`` (an integer-valued rounding) as C's: infinities and NaN pass
    through, and a zero result keeps the sign of ``x`` (``ceil(-0.5)`` is
    ``-0.0``), as floorf/ceilf/truncf/rintf/roundf give on the GPU."""

    def rounded(x):
        if not math.isfinite(x):
            return x
        r = float(fn(x))
        return math.copysign(r, x) if r == 0 else r

    return rounded


def _half_away(x: float) -> int:
    """``x`` rounded to an integer, halfway cases away from zero (roundf)."""
    n = math.floor(abs(x))
    if abs(x) - n >= 0.5:  # exact: the fraction of a float is a float
        n += 1
    return n if x >= 0 else -n


def _larger(x: float, y: float, sign: int) -> float:
    """fmaxf (``sign`` 1) or fminf (-1): a NaN is ignored, and of two zeros
    the one of that sign wins, as the GPU's max.f32/min.f32 order them."""
    if math.isnan(x):
        return y
    if math.isnan(y):
        return x
    if x == y == 0:
        return x if math.copysign(1, x) == sign else y
    return max(x, y) if sign > 0 else min(x, y)


def _negative(y, t) -> bool:
    """Whether the sign bit of ``y`` (a value of ``t``) is set: a NaN's too."""
    return bool(values.to_bits(y, t) >> (t.width - 1))


def _ldexp(x: float, n: int, rounding) -> float:
    try:
        r = math.ldexp(x, n)
    except OverflowError:
        return math.copysign(math.inf, x)
    return values.round_float(r, rounding)


_FOLDS = {
    "sqrt": lambda x: math.sqrt(x) if x >= 0 else (x if x == 0 else math.nan),
    "floor": _finite(math.floor),
    "ceil": _finite(math.ceil),
    "trunc": _finite(math.trunc),
    "rint": _finite(round),
    "round": _finite(_half_away),
    "fabs": abs,
    "fmax": lambda x, y: _larger(x, y, 1),
    "fmin": lambda x, y: _larger(x, y, -1),
    "frexp_mantissa": lambda x: math.frexp(x)[0],
    "frexp_exponent": lambda x: math.frexp(x)[1] if math.isfinite(x) else 0,
    "isnan": math.isnan,
    "isinf": math.isinf,
    "isfinite": math.isfinite,
}


def host_fold(name: str):
    """Whether ``name`` has an exact host fold (else it is never folded)."""
    return _TABLE[name].fold is not None


def fold(name: str, args: list, t):
    """``kdsl.math.name(*args)`` in float type ``t``, exactly as the GPU
    computes it: the exact result rounded once to the type the CUDA function
    works in (float for Float32 and the half types, which then round once
    more to their own type, as the generated code does).  A function with
    another result type (Boolean, Int32) gives that type's value.  Only for
    names with ``host_fold``."""
    fn = _TABLE[name]
    rounding = Float32 if t.width <= 32 else Float64
    if fn.fold == "fma":
        result = _fma(*args, rounding)
    elif fn.fold == "ldexp":
        result = _ldexp(*args, rounding)
    elif fn.fold == "copysign":
        x, y = args
        result = math.copysign(x, -1.0 if _negative(y, t) else 1.0)
    else:
        result = _FOLDS[fn.fold](*args)
    return result if fn.result is not None else values.round_float(result, t)


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
