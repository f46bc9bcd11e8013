"""The host functions of the row-wise and reduction examples (softmax,
layer_norm.launch, rms_norm.launch, sum_into/max_into) in the CPU
interpreter: they pick the kernel, the vector width and the launch shape from
the arrays (example_checks runs the kernels themselves, on both backends)."""

import numpy as np
import pytest

from examples_index import example_modules

EX = example_modules()
RNG = np.random.default_rng(5)


@pytest.mark.parametrize("online", [False, True])
@pytest.mark.parametrize("cols", [24, 333, 1000])
def test_softmax_host_function(cols, online):
    x = RNG.standard_normal((3, cols)).astype(np.float16)
    y = np.full_like(x, np.nan)
    EX["softmax"].softmax(x, y, interpret=True, online=online)
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(1, keepdims=True), atol=1e-3)


def test_softmax_picks_the_online_kernel_past_the_registers():
    mod = EX["softmax"]
    assert mod.LONGEST_IN_REGISTERS == 16 * 32 * 8  # vectors a row
    x = RNG.standard_normal((2, 2 * 16 * 32 * 8 + 2)).astype(np.float32)  # VEC 2
    y = np.full_like(x, np.nan)
    mod.softmax(x, y, interpret=True)
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-9)


def test_norm_host_functions_with_and_without_optional_pointers():
    x = RNG.standard_normal((4, 200)).astype(np.float32)
    w = RNG.random(200).astype(np.float32) + 0.5
    y = np.full_like(x, np.nan)
    EX["layer_norm"].launch(x, w, None, y, 1e-5, interpret=True)
    xv = x.astype(np.float64)
    want = (xv - xv.mean(1, keepdims=True)) / np.sqrt(xv.var(1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(y, want * w, rtol=1e-5, atol=1e-5)
    r = RNG.standard_normal((4, 200)).astype(np.float32)
    h = x + r
    EX["rms_norm"].launch(x, r, None, y, 1e-6, interpret=True)
    np.testing.assert_array_equal(r, h)  # the residual, updated in place
    hv = h.astype(np.float64)
    want = hv / np.sqrt((hv * hv).mean(1, keepdims=True) + 1e-6)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_sum_and_max_host_functions(dtype):
    x = RNG.standard_normal(40_003).astype(dtype)
    out = np.full(1, np.nan, np.float32)
    mod = EX["reduce_sum"]
    mod.max_into(x, out, interpret=True)
    assert out[0] == x.astype(np.float32).max()
    mod.sum_into(x, out, interpret=True)
    np.testing.assert_allclose(out[0], x.astype(np.float64).sum(), atol=1e-2)


def test_host_functions_refuse_mismatched_shapes():
    x = np.zeros((4, 64), np.float32)
    with pytest.raises(ValueError, match=r"shape \(4, 32\) differs"):
        EX["softmax"].softmax(x, np.zeros((4, 32), np.float32), interpret=True)
    with pytest.raises(ValueError, match=r"\(rows, cols\) matrix"):
        EX["layer_norm"].launch(
            x.reshape(-1), None, None, x.reshape(-1), interpret=True
        )
