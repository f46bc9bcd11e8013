"""Compile-time folds of kdsl.math's exact functions give C's results (the
ones the GPU computes): the sign of a zero, fma's single rounding and its
overflow."""

import math

import numpy as np
import pytest

from kdsl import Float16, Float32, Float64
from kdsl.transpile.core import mathfns


@pytest.mark.parametrize("name", ["floor", "ceil", "trunc", "round"])
@pytest.mark.parametrize("x", [-0.0, -0.5, -0.25, 0.25, 0.5, -0.7])
def test_a_zero_result_keeps_the_sign_of_its_argument(name, x):
    c = {"floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "round": np.rint}
    want = float(c[name](np.float32(x)))  # C's floorf/ceilf/truncf/rintf
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
