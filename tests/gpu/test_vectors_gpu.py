"""Vectors on the GPU against the interpreter: lane stores, arrays of
vectors, 3-lane vectors and vector types spelled with a dtype parameter give
the interpreter's bytes; kdsl.math on vectors gives them too for the exact
functions, and the interpreter's values at float32 precision for CUDA's
transcendental ones (a vectorised GELU on Float32x4 and BFloat16x8)."""

import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import kdsl
from kdsl import BFloat16, Float32, Int32, Pointer, block_dim, block_idx, thread_idx

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lowering"))
import test_vector_lanes as lanes_cases  # noqa: E402
import test_vector_math as math_cases  # noqa: E402
import test_vector_types as type_cases  # noqa: E402

from kdsl.transpile.core import mathfns  # noqa: E402

D = kdsl.TypeVar("D", bound=kdsl.Float)
BF16 = ml_dtypes.bfloat16


def run_both(kernel, grid, block, *args):
    """Run ``kernel`` on the interpreter (numpy copies) and on the GPU (CuPy
    copies) with the same arguments; the arrays after each, as numpy."""
    host = [np.array(a) if isinstance(a, np.ndarray) else a for a in args]
    device = [cp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
    kernel.interpret[grid, block](*host)
    kernel[grid, block](*device)
    cp.cuda.runtime.deviceSynchronize()
    pairs = [(h, d.get()) for h, d in zip(host, device) if isinstance(h, np.ndarray)]
    return pairs


def assert_same_bytes(pairs):
    """The same bits, except that any NaN equals any NaN: the payload of a
    NaN that arithmetic makes is the GPU's own (0x7fffffff for float), which
    kdsl does not model (docs/types.md)."""
    for k, (h, d) in enumerate(pairs):
        assert h.dtype == d.dtype
        nan = np.zeros(h.shape, bool)
        if h.dtype.kind == "f" or h.dtype.name == "bfloat16":
            nan = np.isnan(h.astype(np.float32)) & np.isnan(d.astype(np.float32))
        assert h[~nan].tobytes() == d[~nan].tobytes(), f"array {k}: interpreter != GPU"


# how far CUDA's transcendental functions (a few ulp) and numpy's may differ,
# relative to the largest result: the type's last bit or two
TOL = {np.float64: 1e-13, np.float32: 1e-5, np.float16: 2e-3, BF16: 1e-2}


def assert_close_at_float32(pairs, tol):
    """GPU and interpreter within ``tol`` of the largest finite value (the
    GPU's tanhf/expf … are CUDA's, the interpreter's numpy's); NaN and the
    infinities in the same places."""
    for h, d in pairs:
        h, d = h.astype(np.float64), d.astype(np.float64)
        assert np.array_equal(np.isnan(h), np.isnan(d))
        assert np.array_equal(
            h[np.isinf(h) | np.isinf(d)], d[np.isinf(h) | np.isinf(d)]
        )
        ok = np.isfinite(h) & np.isfinite(d)
        scale = max(np.abs(d[ok]).max(initial=0.0), 1e-30)
        assert np.abs(h[ok] - d[ok]).max(initial=0.0) / scale <= tol


# -- a vectorised GELU with lane-wise tanh ---------------------------------------
@kdsl.kernel(dtypes=[kdsl.Float32, kdsl.BFloat16])
def gelu_vec(x: Pointer[D], y: Pointer[D], n: Int32):
    i = block_idx.x * block_dim.x + thread_idx.x
    N = 128 // D.width  # 16 bytes: Float32x4, BFloat16x8
    if i < n // N:
        v = x.vec(N)[i]
        inner = (0.7978845608 * (v + 0.044715 * v * v * v)).to(D)
        t = kdsl.math.tanh(inner)  # Vector[D, N], lane by lane
        out = y.vec(N)
        out[i] = (0.5 * v * (1.0 + t)).to(D)


@pytest.mark.parametrize("np_t", [np.float32, BF16], ids=["f32x4", "bf16x8"])
def test_vectorised_gelu_matches_the_interpreter(np_t):
    n = 8192
    rng = np.random.default_rng(5)
    x = (rng.standard_normal(n) * 3).astype(np_t)
    x[:4] = [0.0, -0.0, 10.0, -10.0]
    y = np.zeros(n, np_t)
    pairs = run_both(gelu_vec, (n + 255) // 256, 256, x, y, n)
    # Float32: tanhf is within a few ulp of numpy's; BFloat16: the Float32
    # results round to the same bfloat16 but where they straddle a tie
    assert_close_at_float32(pairs[1:], TOL[np_t])
    if np_t is not np.float32:
        h, d = (a.astype(np.float32) for a in pairs[1])
        assert np.mean(h == d) > 0.99  # at most the odd lane differs


# -- kdsl.math on every function and type --------------------------------------
@pytest.mark.parametrize("short", list(math_cases.VECTORS))
# the fast intrinsics (Float32 only, within their own bounds) have their own
# test: tests/gpu/test_fast_math_gpu.py
@pytest.mark.parametrize(
    "fn", [fn for fn in math_cases.MATH if not mathfns.approximate(fn)]
)
def test_math_on_vectors_matches_the_interpreter(tmp_path, fn, short):
    _, lanes, np_t = math_cases.VECTORS[short]
    k = math_cases._kernels(tmp_path, fn, lanes)
    threads = 64
    x = math_cases._inputs(np_t, mathfns.arity(fn) * threads * lanes, seed=3)
    out = np.zeros(threads * lanes, np_t)
    pairs = run_both(k.vector, 1, threads, x, out, threads)
    if mathfns.host_fold(fn):  # exact: the same bits
        assert_same_bytes(pairs)
    else:
        assert_close_at_float32(pairs[1:], TOL[np_t])


# -- lane stores, arrays of vectors, 3 lanes, Vector[D, N]: bit for bit ----------
def test_lane_stores_on_variables():
    x = np.arange(64, dtype=np.float32) * 0.25 - 3
    pairs = run_both(
        lanes_cases.lanes_of_a_variable, 1, 16, x, np.zeros(64, np.float32), 9
    )
    assert_same_bytes(pairs)


def test_lane_swaps_of_bfloat16x8():
    x = (np.arange(128) * 0.37 - 20).astype(BF16)
    assert_same_bytes(run_both(lanes_cases.swap_lanes, 1, 16, x, np.zeros(128, BF16)))


def test_a_device_function_changes_its_copy_of_a_vector():
    x = np.arange(32, dtype=np.float32)
    out = np.zeros(64, np.float32)
    assert_same_bytes(run_both(lanes_cases.lane_in_function, 1, 8, x, out))


def test_a_shared_array_of_vectors():
    x = np.random.default_rng(1).standard_normal(256).astype(np.float32)
    out = np.zeros(256, np.float32)
    assert_same_bytes(run_both(lanes_cases.shared_vectors, 1, 64, x, out))


def test_a_local_array_of_bfloat16_vectors():
    x = (np.random.default_rng(2).standard_normal(256) * 4).astype(BF16)
    out = np.zeros(256, BF16)
    assert_same_bytes(run_both(lanes_cases.local_vectors, 1, 32, x, out))


def test_an_array_of_vectors_passed_to_a_device_function():
    out = np.zeros(128, np.float32)
    assert_same_bytes(run_both(lanes_cases.vectors_to_function, 1, 32, out))


def test_two_threads_write_two_lanes_of_one_shared_vector():
    out = np.zeros(2, np.float32)
    assert_same_bytes(run_both(lanes_cases.two_threads_two_lanes, 1, 2, out))


def test_three_lane_vectors_and_arrays():
    p = np.arange(96, dtype=np.float32) * 0.5 - 7
    out = np.zeros(96, np.float32)
    assert_same_bytes(run_both(type_cases.xyz, 1, 32, p, out, 30))
    assert_same_bytes(run_both(lanes_cases.sizes, 1, 4, np.zeros(12, np.float32)))


@pytest.mark.parametrize("np_t", [np.float16, np.float32, np.float64], ids=str)
def test_vector_types_spelled_with_a_dtype_parameter(np_t):
    x = (np.arange(64) * 0.75 - 20).astype(np_t)
    assert_same_bytes(run_both(type_cases.spellings, 1, 16, x, np.zeros(64, np_t)))


def test_vector_math_mixed_with_scalars_exact_parts():
    x = np.linspace(-4, 4, 256, dtype=np.float32)
    y = (np.arange(256) - 100).astype(np.int32)
    out = np.zeros(1024, np.float32)
    pairs = run_both(math_cases.mixed, 1, 64, x, y, out, np.float32(0.75))
    h, d = (a.reshape(64, 4, 4) for a in pairs[2])
    # fma and sqrt (of Int32 lanes) are exact: the same bits (a NaN, of a
    # negative lane, is any NaN)
    assert_same_bytes(
        [(h[:, 1].copy(), d[:, 1].copy()), (h[:, 2].copy(), d[:, 2].copy())]
    )
    assert_close_at_float32([(h[:, 0], d[:, 0]), (h[:, 3], d[:, 3])], 1e-5)
