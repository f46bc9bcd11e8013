"""The functions of ``kdsl.math``: one row each, holding everything about
the function — its signature, its exact fold, its CUDA spelling and its CPU
semantics on numpy lanes.  ``builtins/math.py`` registers one built-in per
row with no code of its own; a row without CPU semantics, or with a fold or
lanes function that is not callable, is refused when this module is
imported."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

import numpy as np

from kdsl.transpile.core import values
from kdsl.transpile.core.types import Boolean, Float32, Float64, Int32


@dataclass(frozen=True)
class MathFn:
    """One function of ``kdsl.math``:

    * ``params``: its arguments, one letter each: ``x`` … of the float type
      the call computes in, except those named in ``ints`` (Int32);
    * ``c_float``: the CUDA function for float; for double the same without
      the trailing "f" unless ``c_double`` says (Float16/BFloat16 go through
      the float function: the generated code converts to float and rounds
      the result once to the type);
    * ``lanes``: its CPU semantics, ``lanes(t, *x)`` on numpy arrays (one
      element per thread), ``t`` the float type of the call and ``x`` the
      arguments in float64 when the function folds or ``t`` is Float64,
      else in float32 (ints: int32); the interpreter rounds the result to
      ``t`` (``lanes.math_call``);
    * ``fold``: its exact host fold, ``fold(t, *args)`` on Python floats
      (rounded to ``t`` afterwards, by :func:`fold`), or None: never
      folded, CUDA's own result (a transcendental function);
    * ``result``: its result type (None: the float type);
    * ``what``: for the doc line, what it computes (exact functions);
    * ``error``: for an approximate intrinsic (``fast_exp`` …, Float32
      only, never folded), its documented maximum error.
    """

    params: str
    c_float: str
    lanes: Callable
    fold: Callable | None = None
    c_double: str | None = None
    result: type | None = None
    ints: str = ""
    what: str = ""
    error: str = ""


def _rounding(t):
    """The type CUDA's function works in for float type ``t``."""
    return Float32 if t.width <= 32 else Float64


def _np(ufunc):
    """A numpy function of the arguments alone as a row's ``lanes``."""
    return lambda t, *x: ufunc(*x)


def _plain(fn):
    """A Python function of the arguments alone as a row's ``fold``."""
    return lambda t, *args: fn(*args)


def _finite(fn):
    """``fn`` (an integer-valued rounding) as C's: infinities and NaN pass
    through, and a zero result keeps the sign of ``x`` (``ceil(-0.5)`` is
    ``-0.0``), as floorf/ceilf/truncf/rintf/roundf give on the GPU."""

    def rounded(t, x):
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


def _half_away_lanes(t, x):
    whole = np.trunc(x)
    up = np.abs(x - whole) >= 0.5  # exact in float64
    return np.copysign(np.where(up, whole + np.sign(x), whole), x)


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


def _larger_lanes(sign: int):
    """fmax (``sign`` 1) / fmin (-1) on lanes, as :func:`_larger` folds them."""

    def lanes(t, x, y):
        pick = np.fmax(x, y) if sign > 0 else np.fmin(x, y)  # NaN ignored
        zeros = (x == 0) & (y == 0)
        x_wins = np.signbit(x) == (sign < 0)
        return np.where(zeros, np.where(x_wins, x, y), pick)

    return lanes


def _negative(y, t) -> bool:
    """Whether the sign bit of ``y`` (a value of ``t``) is set: a NaN's too."""
    return bool(values.to_bits(y, t) >> (t.width - 1))


def _copysign(t, x, y):
    return math.copysign(x, -1.0 if _negative(y, t) else 1.0)


def _ldexp(t, x: float, n: int) -> float:
    try:
        r = math.ldexp(x, n)
    except OverflowError:
        return math.copysign(math.inf, x)
    return values.round_float(r, _rounding(t))


def _ldexp_lanes(t, x, n):  # rounded once to float (double), as ldexpf does
    return np.ldexp(x, n).astype(np.float32 if t.width <= 32 else np.float64)


def _fdim(t, x: float, y: float) -> float:
    """``x - y`` if ``x > y``, else ``+0.0``; a NaN gives NaN (fdimf)."""
    return 0.0 if x <= y else values.round_float(x - y, _rounding(t))


def _fma(t, x, y, z):
    """``x * y + z`` rounded once to the type fmaf/fma works in."""
    if math.isfinite(x) and math.isfinite(y) and math.isinf(z):
        return z  # the exact product is finite, even where a double's is not
    if not all(map(math.isfinite, (x, y, z))):
        return x * y + z
    exact = Fraction(x) * Fraction(y) + Fraction(z)
    if exact == 0:  # the sign of an exact zero, by IEEE's rule
        return x * y + z
    return _round_fraction(exact, _rounding(t))


def _fma_lanes(t, x, y, z):
    """fma on lanes, exactly as :func:`_fma` folds it: for float (and the
    16-bit types, which go through float) vectorised in float64 by
    round-to-odd (:func:`_fma_float`); for double one element at a time."""
    if t.width <= 32:
        return _fma_float(x, y, z)
    one = np.vectorize(lambda a, b, c: _fma(t, a, b, c), otypes=[np.float64])
    return one(x, y, z) if len(x) else np.zeros(0, np.float64)


def _fma_float(x, y, z):
    """``x * y + z`` of float values (float64 arrays) rounded once to float.

    The product of two floats is exact in double (48 significant bits, far
    inside double's exponent range), and so is the error of the double sum
    ``s = p + z`` (TwoSum: no overflow is possible).  ``s`` made odd where
    the sum was inexact (the neighbour towards the exact value whose last
    bit is 1) is the sum rounded to odd at 53 bits, and rounding that to
    float's 24 (or fewer, subnormal) bits is the correct rounding of the
    exact value: 53 >= 24 + 2 (Boldo and Melquiond's round-to-odd)."""
    with np.errstate(all="ignore"):
        p = x * y
        s = p + z
        b = s - p
        err = (p - (s - b)) + (z - b)
        finite = np.isfinite(x) & np.isfinite(y) & np.isfinite(z) & np.isfinite(s)
        even = (s.view(np.uint64) & np.uint64(1)) == 0
        bump = finite & (err != 0) & even
        toward = np.where(err > 0, np.inf, -np.inf)
        odd = np.where(bump, np.nextafter(s, toward), s)
    return odd.astype(np.float32).astype(np.float64)


def _erf_lanes(t, x):  # math.erf in double, rounded to the type erff works in
    one = np.vectorize(math.erf, otypes=[np.float64])
    result = one(x) if len(x) else np.zeros(0, np.float64)
    return result.astype(np.float32) if t.width < 64 else result


def _frexp_exponent(t, x):
    return math.frexp(x)[1] if math.isfinite(x) else 0


# -- the fast intrinsics (Float32 only, never folded) ---------------------------------
# What the interpreter computes: the exact function, in float64, rounded once
# to float (math_call rounds), of the argument the GPU's instruction gets.
# CUDA's __expf multiplies by log2(e) and __logf by ln(2), each rounded to
# float (mul.rn.f32 with these constants, then ex2/lg2.approx.f32): modelled
# exactly, so only the instruction's own approximation is left between the
# GPU and the interpreter.  __fdividef's documented zero for a divisor
# beyond 2**126 is modelled too.
LOG2E_F = float(np.float32(1.4426950408889634))  # 0x3FB8AA3B, __expf's
LN2_F = float(np.float32(0.6931471805599453))  # 0x3F317218, __logf's


def _f64(x):
    return np.asarray(x, dtype=np.float64)


def _to_float(x):
    """float64 lanes rounded to float, kept as float64."""
    return _f64(x).astype(np.float32).astype(np.float64)


def _fast_exp(t, x):
    with np.errstate(all="ignore"):
        return np.exp2(_to_float(_f64(x) * LOG2E_F))


def _fast_log(t, x):
    with np.errstate(all="ignore"):
        return _to_float(np.log2(_f64(x))) * LN2_F


def _fast_div(t, x, y):
    x, y = _f64(x), _f64(y)
    with np.errstate(all="ignore"):
        beyond = (np.abs(y) > 2.0**126) & np.isfinite(y)
        zero = np.where(np.isinf(x), np.nan, x * 0.0 * np.copysign(1.0, y))
        return np.where(beyond, zero, x / y)


def _in64(fn):
    """A numpy function computed in float64 as a fast row's ``lanes``."""

    def lanes(t, *x):
        with np.errstate(all="ignore"):
            return fn(*(_f64(a) for a in x))

    return lanes


def _in64_ftz(fn):
    """A fast row's ``lanes`` for a ``.ftz`` instruction: a subnormal
    argument is read as zero (of its sign) and a subnormal result is +0."""

    def lanes(t, *x):
        with np.errstate(all="ignore"):
            args = [_f64(a) for a in x]
            args = [np.where(np.abs(a) < _FLT_MIN, 0.0 * a, a) for a in args]
            r = fn(*args)
            return np.where(np.abs(r) < _FLT_MIN, 0.0, r)

    return lanes


_FLT_MIN = 2.0**-126

# One row per function, in the order the reference lists them.
_TABLE = {
    "exp": MathFn("x", "expf", _np(np.exp)),
    "exp2": MathFn("x", "exp2f", _np(np.exp2)),
    "log": MathFn("x", "logf", _np(np.log)),
    "log2": MathFn("x", "log2f", _np(np.log2)),
    "log10": MathFn("x", "log10f", _np(np.log10)),
    "sqrt": MathFn(
        "x",
        "sqrtf",
        _np(np.sqrt),
        _plain(lambda x: math.sqrt(x) if x >= 0 else (x if x == 0 else math.nan)),
    ),
    "rsqrt": MathFn("x", "rsqrtf", _np(lambda x: 1 / np.sqrt(x))),
    "sin": MathFn("x", "sinf", _np(np.sin)),
    "cos": MathFn("x", "cosf", _np(np.cos)),
    "tan": MathFn("x", "tanf", _np(np.tan)),
    "tanh": MathFn("x", "tanhf", _np(np.tanh)),
    "erf": MathFn("x", "erff", _erf_lanes),
    "floor": MathFn("x", "floorf", _np(np.floor), _finite(math.floor)),
    "ceil": MathFn("x", "ceilf", _np(np.ceil), _finite(math.ceil)),
    "trunc": MathFn("x", "truncf", _np(np.trunc), _finite(math.trunc)),
    "round": MathFn(
        "x",
        "roundf",
        _half_away_lanes,
        _finite(_half_away),
        what="the nearest integer, halfway cases away from zero (`roundf`)",
    ),
    "rint": MathFn(
        "x",
        "rintf",
        _np(np.rint),
        _finite(round),
        what="the nearest integer, halfway cases to even (`rintf`)",
    ),
    "fabs": MathFn("x", "fabsf", _np(np.abs), _plain(abs)),
    "fma": MathFn("xyz", "fmaf", _fma_lanes, _fma),
    "fmax": MathFn(
        "xy",
        "fmaxf",
        _larger_lanes(1),
        _plain(lambda x, y: _larger(x, y, 1)),
        what="the larger, a NaN ignored, `+0.0 > -0.0` (`fmaxf`)",
    ),
    "fmin": MathFn(
        "xy",
        "fminf",
        _larger_lanes(-1),
        _plain(lambda x, y: _larger(x, y, -1)),
        what="the smaller, a NaN ignored, `-0.0 < +0.0` (`fminf`)",
    ),
    "fdim": MathFn(
        "xy",
        "fdimf",
        _np(lambda x, y: np.where(x <= y, 0.0, x - y)),
        _fdim,
        what="`x - y` if `x > y`, else `+0.0`; NaN if either is (`fdimf`)",
    ),
    "copysign": MathFn(
        "xy",
        "copysignf",
        _np(np.copysign),
        _copysign,
        what="`x` with the sign bit of `y` (`copysignf`)",
    ),
    "ldexp": MathFn(
        "xn",
        "ldexpf",
        _ldexp_lanes,
        _ldexp,
        ints="n",
        what="`x * 2**n`, `n` an Int32 (`ldexpf`)",
    ),
    "frexp_mantissa": MathFn(
        "x",
        "kdsl::frexp_mantissa",
        _np(lambda x: np.frexp(x)[0]),
        _plain(lambda x: math.frexp(x)[0]),
        "kdsl::frexp_mantissa",
        what="`m` of `x == m * 2**e`, `0.5 <= abs(m) < 1` (`x` itself if 0, inf or NaN)",
    ),
    "frexp_exponent": MathFn(
        "x",
        "kdsl::frexp_exponent",
        _np(lambda x: np.where(np.isfinite(x), np.frexp(x)[1], 0)),
        _frexp_exponent,
        "kdsl::frexp_exponent",
        Int32,
        what="`e` of `x == m * 2**e` (Int32; 0 if `x` is 0, inf or NaN)",
    ),
    "isnan": MathFn(
        "x",
        "isnan",
        _np(np.isnan),
        _plain(math.isnan),
        "isnan",
        Boolean,
        what="whether `x` is a NaN (Boolean)",
    ),
    "isinf": MathFn(
        "x",
        "isinf",
        _np(np.isinf),
        _plain(math.isinf),
        "isinf",
        Boolean,
        what="whether `x` is infinite (Boolean)",
    ),
    "isfinite": MathFn(
        "x",
        "isfinite",
        _np(np.isfinite),
        _plain(math.isfinite),
        "isfinite",
        Boolean,
        what="whether `x` is finite (Boolean)",
    ),
    "pow": MathFn("xy", "powf", _np(np.power)),
    "atan2": MathFn("xy", "atan2f", _np(np.arctan2)),
    "fast_exp": MathFn(
        "x",
        "__expf",
        _fast_exp,
        what="e**x, CUDA's `__expf`: `ex2.approx.f32` of `x * log2(e)` rounded to float",
        error="2 + floor(abs(1.173 * x)) ulp; within 2 ulp of `2**y` correctly "
        "rounded, `y` that product",
    ),
    "fast_exp2": MathFn(
        "x",
        "kdsl::fast_exp2",
        _in64(np.exp2),
        what="2**x, PTX's `ex2.approx.f32`",
        error="2 ulp, every input",
    ),
    "fast_exp2_ftz": MathFn(
        "x",
        "kdsl::fast_exp2_ftz",
        _in64_ftz(np.exp2),
        what="2**x, PTX's `ex2.approx.ftz.f32`: a subnormal argument is read as "
        "0 and a result below 2**-126 is +0 (FlashAttention's exp2)",
        error="2 ulp where 2**x >= 2**-126; +0 below",
    ),
    "fast_log": MathFn(
        "x",
        "__logf",
        _fast_log,
        what="ln(x), CUDA's `__logf`: `lg2.approx.f32` times ln(2) rounded to float",
        error="2**-21.41 absolute for x in [0.5, 2], else 3 ulp",
    ),
    "fast_log2": MathFn(
        "x",
        "__log2f",
        _in64(np.log2),
        what="log2(x), CUDA's `__log2f` (`lg2.approx.f32`)",
        error="2**-22 absolute for x in [0.5, 2], else 2 ulp",
    ),
    "fast_sin": MathFn(
        "x",
        "__sinf",
        _in64(np.sin),
        what="sin(x), CUDA's `__sinf` (`sin.approx.f32`)",
        error="2**-21.41 absolute for x in [-pi, pi], 2**-20.4 in [-2 pi, 2 pi], "
        "2**-14.7 in [-100 pi, 100 pi], none beyond",
    ),
    "fast_cos": MathFn(
        "x",
        "__cosf",
        _in64(np.cos),
        what="cos(x), CUDA's `__cosf` (`cos.approx.f32`)",
        error="2**-21.19 absolute for x in [-pi, pi], 2**-20.4 in [-2 pi, 2 pi], "
        "2**-14.7 in [-100 pi, 100 pi], none beyond",
    ),
    "fast_div": MathFn(
        "xy",
        "__fdividef",
        _fast_div,
        what="x / y, CUDA's `__fdividef` (`div.approx.f32`, x times 1/y): "
        "0 (NaN for an infinite x) where 2**126 < abs(y) < 2**128",
        error="2 ulp for abs(y) in [2**-126, 2**126]",
    ),
    "fast_rsqrt": MathFn(
        "x",
        "kdsl::fast_rsqrt",
        _in64(lambda x: 1.0 / np.sqrt(x)),
        what="1/sqrt(x), PTX's `rsqrt.approx.f32`",
        error="2**-22.9 relative, every positive finite x",
    ),
}


def check(name: str, fn: MathFn) -> None:
    """A row is complete: raised at import, naming the function."""
    problems = []
    if not fn.params or not set(fn.ints) <= set(fn.params):
        problems.append(f"its parameters {fn.params!r} do not name its ints")
    if not isinstance(fn.c_float, str) or not fn.c_float:
        problems.append("it has no CUDA spelling (c_float)")
    if not callable(fn.lanes):
        problems.append("it has no CPU semantics (lanes=)")
    if fn.fold is not None and not callable(fn.fold):
        problems.append("its fold is not callable (fold=)")
    if fn.fold is None and fn.c_float.startswith("kdsl::") and not fn.error:
        problems.append("a function of kdsl's prelude must fold (fold=)")
    if fn.error and fn.fold is not None:
        problems.append("an approximate intrinsic never folds (error= and fold=)")
    if problems:
        raise TypeError(f"kdsl.math.{name}: " + "; ".join(problems))


for _name, _fn in _TABLE.items():
    check(_name, _fn)

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


def approximate(name: str) -> bool:
    """Whether ``name`` is a fast intrinsic: Float32 only, never folded,
    within its documented error (``MathFn.error``)."""
    return bool(_TABLE[name].error)


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
    if on_bits(name, t):  # on the bits, as the GPU
        sign = 1 << (t.width - 1)
        bits = values.to_bits(args[0], t) & ~sign
        if name == "copysign":
            bits |= values.to_bits(args[1], t) & sign
        return values.from_bits(bits, t)
    result = fn.fold(t, *args)
    if fn.result is not None:
        return result
    result = values.round_float(result, t)
    if t.width == 64 and math.isnan(result):
        return _host_nan(fn, args, t)
    return values.gpu_nan(result, t)


def _host_nan(fn: MathFn, args: list, t) -> float:
    """A Float64 NaN result as the interpreter computes it (the row's numpy
    lanes: the host's payload, which the GPU leaves open), so that folding
    gives the interpreter's bits."""
    lanes = [
        np.array([a], np.int32 if p in fn.ints else np.float64)
        for a, p in zip(args, fn.params)
    ]
    with np.errstate(all="ignore"):
        return float(np.asarray(fn.lanes(t, *lanes), np.float64)[0])


def on_bits(name: str, t) -> bool:
    """Whether ``name`` only changes the sign bit of a ``t`` value, keeping a
    NaN's payload, as the generated code does: ``copysign`` (on the bits for
    every type) and ``fabs`` of Float32/Float64 (``fabsf``/``fabs``; the
    half types go through float, whose conversion makes the canonical NaN).
    Every other Float32/Float16/BFloat16 NaN result is the canonical NaN."""
    return t.kind == "float" and (
        name == "copysign" or (name == "fabs" and t.width >= 32)
    )


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
