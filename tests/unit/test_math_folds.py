"""Compile-time folds of kdsl.math's exact functions give C's results (the
ones the GPU computes): the sign of a zero, fma's single rounding and its
overflow, roundf's halfway cases, fmaxf's NaN and zeros, ldexpf's rounding
into subnormals and infinities, frexpf's special values."""

import math

import numpy as np
import pytest

from kdsl import BFloat16, Float16, Float32, Float64
from kdsl.transpile.core import mathfns, values


def c_roundf(x):
    """C's roundf for these small values: halfway cases away from zero."""
    return np.copysign(np.floor(np.abs(x) + np.float32(0.5)), x)


@pytest.mark.parametrize("name", ["floor", "ceil", "trunc", "rint", "round"])
@pytest.mark.parametrize("x", [-0.0, -0.5, -0.25, 0.25, 0.5, -0.7])
def test_a_zero_result_keeps_the_sign_of_its_argument(name, x):
    c = {
        "floor": np.floor,
        "ceil": np.ceil,
        "trunc": np.trunc,
        "rint": np.rint,
        "round": c_roundf,
    }
    want = float(c[name](np.float32(x)))  # C's floorf/ceilf/truncf/rintf/roundf
    got = mathfns.fold(name, [x], Float32)
    assert got == want and math.copysign(1, got) == math.copysign(1, want)


def test_fma_of_float32_rounds_once():
    # x*y + z is exactly 1 + 2**-24 + 2**-70: just above the midpoint between
    # two floats, so fmaf gives 1 + 2**-23.  Rounding to double first lands
    # on the midpoint itself, which then ties to even: 1.0, wrong.
    x, y, z = -(2.0**-24 + 2.0**-47), 1 - 2.0**-23, 1 + 2.0**-23
    assert all(float(np.float32(v)) == v for v in (x, y, z))
    assert float(np.float32(x * y + z)) == 1.0  # the double-rounding trap
    assert mathfns.fold("fma", [x, y, z], Float32) == 1 + 2.0**-23


def test_fma_overflow_is_infinity_not_an_internal_error():
    assert mathfns.fold("fma", [1e308, 10.0, 0.0], Float64) == math.inf
    assert mathfns.fold("fma", [-1e308, 10.0, 0.0], Float64) == -math.inf
    assert mathfns.fold("fma", [60000.0, 2.0, 0.0], Float16) == math.inf


def test_fma_with_an_infinite_addend_is_that_infinity_whatever_the_product():
    # the exact product 1e309 is finite: fma(1e308, 10, -inf) is -inf, not NaN
    assert mathfns.fold("fma", [1e308, 10.0, -math.inf], Float64) == -math.inf
    assert mathfns.fold("fma", [1e308, -10.0, math.inf], Float64) == math.inf
    assert math.isnan(mathfns.fold("fma", [math.inf, 0.0, 1.0], Float64))


BELOW_HALF = float(np.nextafter(np.float32(0.5), np.float32(0)))  # 0.49999997f


@pytest.mark.parametrize(
    "x, rounded, rinted",
    [
        (0.5, 1.0, 0.0),
        (1.5, 2.0, 2.0),
        (2.5, 3.0, 2.0),
        (-2.5, -3.0, -2.0),
        (-0.5, -1.0, -0.0),
        (BELOW_HALF, 0.0, 0.0),  # x + 0.5 rounded to nearest would give 1
        (8388606.5, 8388607.0, 8388606.0),  # the last halves a float has
        (16777215.0, 16777215.0, 16777215.0),
        (math.inf, math.inf, math.inf),
        (-math.inf, -math.inf, -math.inf),
    ],
)
def test_round_takes_halfway_cases_away_from_zero_and_rint_to_even(x, rounded, rinted):
    for name, want in (("round", rounded), ("rint", rinted)):
        got = mathfns.fold(name, [x], Float32)
        assert got == want and math.copysign(1, got) == math.copysign(1, want), name
    assert math.isnan(mathfns.fold("round", [math.nan], Float64))


def test_fmax_and_fmin_ignore_a_nan_and_order_signed_zeros():
    nan = math.nan
    assert mathfns.fold("fmax", [nan, 1.0], Float32) == 1.0
    assert mathfns.fold("fmin", [-2.0, nan], Float32) == -2.0
    assert math.isnan(mathfns.fold("fmax", [nan, nan], Float64))
    for a, b in ((0.0, -0.0), (-0.0, 0.0)):
        assert str(mathfns.fold("fmax", [a, b], Float32)) == "0.0"
        assert str(mathfns.fold("fmin", [a, b], Float32)) == "-0.0"
    assert mathfns.fold("fmax", [-math.inf, -3.0], Float32) == -3.0


def test_copysign_reads_the_sign_bit_of_a_nan():
    negative_nan = -math.nan
    assert mathfns.fold("copysign", [2.0, negative_nan], Float32) == -2.0
    bits = values.NaNBits(0xFFC00001, "Float32")  # a bitcast NaN, sign set
    assert mathfns.fold("copysign", [2.0, bits], Float32) == -2.0
    assert mathfns.fold("copysign", [-2.0, math.nan], Float32) == 2.0
    assert str(mathfns.fold("copysign", [0.0, -1.0], Float16)) == "-0.0"


TINY = math.ldexp(1.0, -149)  # the smallest float subnormal


@pytest.mark.parametrize(
    "x, n, t, want",
    [
        (1.5, -149, Float32, 2 * TINY),  # a tie: to even
        (1.25, -149, Float32, TINY),
        (1.0, -150, Float32, 0.0),  # a tie with zero
        (-1.0, -(2**31), Float32, -0.0),
        (1.0, 127, Float32, 2.0**127),
        (1.0, 128, Float32, math.inf),
        (-3.0, 2**31 - 1, Float64, -math.inf),
        (1.0, -1074, Float64, 5e-324),
        (1.5, -1075, Float64, 5e-324),  # 0.75 of the smallest subnormal: up
        (1.5, -25, Float16, 2.0**-24),  # float is exact; half rounds once
        (1.0, -25, Float16, 0.0),
        (1.0, -133, BFloat16, 2.0**-133),
        (1.0, 16, Float16, math.inf),
        (math.nan, 3, Float32, math.nan),
        (-math.inf, -5, Float32, -math.inf),
    ],
)
def test_ldexp_rounds_once_to_subnormals_zero_and_infinity(x, n, t, want):
    got = mathfns.fold("ldexp", [x, n], t)
    if math.isnan(want):
        assert math.isnan(got)
    else:
        assert got == want and math.copysign(1, got) == math.copysign(1, want)


@pytest.mark.parametrize(
    "x, m, e",
    [
        (6.0, 0.75, 3),
        (1.0, 0.5, 1),
        (-0.1, -0.8, -3),
        (TINY, 0.5, -148),  # a subnormal: its true exponent
        (-0.0, -0.0, 0),
        (math.inf, math.inf, 0),
        (-math.inf, -math.inf, 0),
    ],
)
def test_frexp_splits_into_a_mantissa_and_an_int32_exponent(x, m, e):
    x, m = values.round_float(x, Float32), values.round_float(m, Float32)
    got = mathfns.fold("frexp_mantissa", [x], Float32)
    assert got == m and math.copysign(1, got) == math.copysign(1, m)
    assert mathfns.fold("frexp_exponent", [x], Float32) == e
    assert math.isnan(mathfns.fold("frexp_mantissa", [math.nan], Float64))
    assert mathfns.fold("frexp_exponent", [math.nan], Float64) == 0


def test_classification_gives_booleans():
    table = [(0.0, False, False, True), (-math.inf, False, True, False)]
    table += [(math.nan, True, False, False), (3.4e38, False, False, True)]
    for x, nan, inf, finite in table:
        got = [mathfns.fold(n, [x], Float32) for n in ("isnan", "isinf", "isfinite")]
        assert got == [nan, inf, finite], x


def test_a_row_without_cpu_semantics_is_refused_at_import():
    """Every row of kdsl.math's table carries its numpy semantics (the
    interpreter's), checked when mathfns is imported."""
    import pytest

    with pytest.raises(TypeError, match=r"kdsl.math.cbrt: it has no CPU semantics"):
        mathfns.check("cbrt", mathfns.MathFn("x", "cbrtf", None))
    with pytest.raises(TypeError, match=r"its fold is not callable"):
        mathfns.check("fdim", mathfns.MathFn("xy", "fdimf", abs, fold="fdim"))
    for name in mathfns.MATH_FUNCTIONS:  # the table as shipped passes
        mathfns.check(name, mathfns.spec(name))
