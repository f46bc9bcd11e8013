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


def test_softmax_keeps_float32_rows_of_16_vectors_a_thread_in_registers():
    """Past 16 warps x 8 vectors of 4 lanes (16384 Float32), 16 chunks: the
    host function takes softmax_rows with a WIDE_CONFIGS layout."""
    mod = EX["softmax"]
    cols = 16 * 32 * 4 * 8 + 4 * 17  # 8 chunks and some: 9 chunks of 2048
    assert mod.plan(2, cols, 4, 2) == ("rows", {})  # more rows than SMs / 2
    x = RNG.standard_normal((2, cols)).astype(np.float32)
    x[1, :] = -30.0
    x[1, -1] = 5.0  # the maximum in the last chunk's last vector
    y = np.full_like(x, np.nan)
    mod.softmax(x, y, interpret=True, sms=2)
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-9)


def test_softmax_picks_the_online_kernel_past_the_registers():
    mod = EX["softmax"]
    assert mod.LONGEST_IN_REGISTERS == 16 * 32 * 8  # vectors a row
    x = RNG.standard_normal((2, 2 * 16 * 32 * 8 + 2)).astype(np.float32)  # VEC 2
    y = np.full_like(x, np.nan)
    mod.softmax(x, y, interpret=True)
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-9)


def test_softmax_plans_its_kernel_by_shape():
    plan = EX["softmax"].plan
    assert plan(32768, 4096, 2, 132) == ("rows", {})
    # few vocabulary-wide rows: split over the SMs, chunks in shared memory
    path, p = plan(7, 128256, 4, 132)
    assert path == "split" and p["splits"] == 18 and 7 * p["splits"] <= 132
    assert p["chunk"] * p["splits"] >= 128256 // 4 > p["chunk"] * (p["splits"] - 1)
    # Float32 rows read 4 lanes at a time stay in registers up to 32768
    # (16 warps x 16 vectors a thread) when they are many; few are split
    assert plan(4096, 32000, 4, 132) == ("rows", {})
    assert plan(67, 32000, 4, 132) == ("rows", {})
    assert plan(7, 32000, 4, 132)[0] == "split"
    assert plan(4096, 32000, 4, 132, online=True)[0] == "online"  # forced
    assert plan(4096, 32772, 4, 132)[0] == "online"
    assert plan(4096, 32002, 4, 132)[0] == "online"  # 2 lanes: 8 vectors, 16384
    # many rows: a block a row, the row cached in shared memory up to 200 KB
    assert plan(1024, 50000, 4, 132) == (
        "online",
        dict(VEC=4, WARPS=32, CACHE=True, UNROLL=4),
    )
    assert plan(1024, 50257, 2, 132)[1]["WARPS"] == 16  # 16-bit: 16 warps
    assert plan(7, 128256, 4, 132)[1]["CACHE"] is True
    assert plan(1024, 128256, 4, 132)[1]["CACHE"] is False
    # 64 rows of 128256 Float32: 2 chunks a row, too large for shared
    # memory: read again after the barrier (32 MB in all: from L2)
    path, p = plan(64, 128256, 4, 132)
    assert path == "split" and p["splits"] == 2 and p["CACHE"] is False
    assert plan(67, 128256, 4, 132)[0] == "online"  # past half the SMs
    # an odd width: scalar loads, 16 in flight a thread (64 bytes: 4 vectors)
    assert plan(3, 50257, 2, 132)[1]["VEC"] == 1
    assert plan(3, 50257, 2, 132)[1]["UNROLL"] == 16
    assert plan(300, 50257, 4, 132)[1]["UNROLL"] == 16
    assert plan(4, 1000, 4, 0)[0] == "rows"  # no SM count needed


@pytest.mark.parametrize("sms", [8, 2])  # split over blocks; a block a row
def test_softmax_host_function_for_wide_rows(sms):
    mod = EX["softmax"]
    x = RNG.standard_normal((3, 1002)).astype(np.float32)
    x[1, :] = -30.0
    x[1, -1] = 4.0  # the maximum in the last chunk
    assert mod.plan(3, 1002, 4, sms, online=True)[0] == (
        "split" if sms == 8 else "online"
    )
    y = np.full_like(x, np.nan)
    mod.softmax(x, y, interpret=True, online=True, sms=sms)
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-9)


def test_norm_host_functions_take_the_wide_kernels_past_the_registers():
    # an odd width past 4096 (scalar accesses: 16 warps x 8 a thread) was
    # refused before the wide kernels; now a block a row, cached
    cols = 4097
    x = RNG.standard_normal((2, cols)).astype(np.float32) + 2
    w = RNG.random(cols).astype(np.float32) + 0.5
    y = np.full_like(x, np.nan)
    EX["layer_norm"].launch(x, w, None, y, 1e-5, interpret=True)
    xv = x.astype(np.float64)
    want = (xv - xv.mean(1, keepdims=True)) / np.sqrt(xv.var(1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(y, want * w, rtol=1e-5, atol=1e-5)
    r = RNG.standard_normal((2, cols)).astype(np.float32)
    h = x + r
    EX["rms_norm"].launch(x, r, w, y, 1e-6, interpret=True)
    np.testing.assert_array_equal(r, h)
    hv = h.astype(np.float64)
    want = hv / np.sqrt((hv * hv).mean(1, keepdims=True) + 1e-6) * w
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)


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
