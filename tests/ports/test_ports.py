"""The ports of real kernels (tests/ports/README.md): each runs in the
interpreter against a numpy reference on random inputs of several sizes
(some not a multiple of the block size), and its CUDA compiles with NVRTC.
tests/gpu/test_ports_gpu.py runs them on the GPU."""

import inspect

import numpy as np
import pytest

import kdsl
import laplace
import online_softmax
import philox_dropout
import reduce7
import shfl_scan
import simple_assert
import warp_aggregated_filter
from kdsl import Float32, Int32, Pointer, Uint32, thread_idx
from kdsl.runtime.nvrtc import compile_to_cubin

SIZES = [1, 37, 256, 1000, 4099]


# -- numpy references -----------------------------------------------------------------
def scan(x, block=256):
    """shfl_scan's three launches; returns the scanned copy of ``x``."""
    n = x.size
    blocks = -(-n // block)
    assert blocks <= block  # the partial sums fit one block
    data, partial, unused = x.copy(), np.zeros(block, np.int32), np.zeros(1, np.int32)
    shfl_scan.shfl_scan_test.interpret[blocks, block](data, n, partial, BLOCK=block)
    shfl_scan.shfl_scan_test.interpret[1, block](partial, blocks, unused, BLOCK=block)
    if blocks > 1:
        shfl_scan.uniform_add.interpret[blocks - 1, block](data, partial, n)
    return data


def philox_uniform(seed, offsets):
    """Triton's ``tl.rand(seed, offsets)`` in numpy: Philox-4x32-10."""
    m32 = np.uint64(0xFFFFFFFF)
    c0 = offsets.astype(np.uint64) & m32
    c1 = c2 = c3 = np.zeros_like(c0)
    k0 = np.full_like(c0, seed & 0xFFFFFFFF)
    k1 = np.full_like(c0, (seed >> 32) & 0xFFFFFFFF)
    a, b = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
    for _ in range(10):
        pa, pb = a * c0, b * c2  # exact: both factors below 2**32
        c0, c1, c2, c3 = (pb >> 32) ^ c1 ^ k0, pb & m32, (pa >> 32) ^ c3 ^ k1, pa & m32
        k0 = (k0 + np.uint64(0x9E3779B9)) & m32
        k1 = (k1 + np.uint64(0xBB67AE85)) & m32
    x = c0.astype(np.uint32).view(np.int32)
    x = np.where(x < 0, -x - 1, x)
    return x.astype(np.float32) * np.float32(4.6566127342e-10)


def dropout_reference(x, p, seed):
    keep = philox_uniform(seed, np.arange(x.size)) > np.float32(p)
    return np.where(keep, x / (np.float32(1) - np.float32(p)), np.float32(0))


def heat_reference(buf_0, buf_1, timesteps, k):
    """Numba's steps in Float32, in the kernel's order of operations."""
    bufs, k, two = [buf_0.copy(), buf_1.copy()], np.float32(k), np.float32(2)
    for step in range(timesteps):
        d = bufs[step % 2]
        nxt = np.empty_like(d)
        nxt[1:-1] = d[1:-1] + k * ((d[:-2] - two * d[1:-1]) + d[2:])
        nxt[0] = d[0] + k * (d[1] - two * d[0])
        nxt[-1] = d[-1] + k * (d[-2] - two * d[-1])
        bufs[1 - step % 2] = nxt
    return bufs


def rod(size):
    buf_0 = np.zeros(size, np.float32)
    buf_0[size // 2] = 10000
    buf_0[size // 3] = 5000
    return buf_0, np.zeros(size, np.float32)


def softmax_reference(x):
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def rng(n):
    return np.random.default_rng(n)


# -- the ports in the interpreter ------------------------------------------------------
@pytest.mark.parametrize("n", SIZES + [256 * 256])
def test_shfl_scan_is_numpys_cumsum(n):
    x = rng(n).integers(-(2**31), 2**31, n, dtype=np.int32)  # sums wrap, as int does
    assert scan(x).tobytes() == np.cumsum(x, dtype=np.int32).tobytes()


@pytest.mark.parametrize(
    "n, block, blocks",
    [(1000, 256, 3), (4096, 128, 4), (77, 64, 2), (1 << 14, 256, 8), (5, 32, 1)],
)
def test_reduce7_int32_sums_exactly(n, block, blocks):
    x = rng(n).integers(-(2**31), 2**31, n, dtype=np.int32)
    out = np.zeros(blocks, np.int32)
    pow2 = n & (n - 1) == 0
    reduce7.reduce7.interpret[blocks, block](
        x, out, n, BLOCK=block, N_IS_POW2=pow2, INTEGER=True
    )
    assert out.sum(dtype=np.int32) == x.sum(dtype=np.int32)


@pytest.mark.parametrize(
    "n, block, blocks", [(1000, 256, 3), (4096, 128, 4), (77, 64, 2), (1 << 14, 256, 8)]
)
def test_reduce7_float32_sums_close_to_numpy(n, block, blocks):
    x = rng(n).standard_normal(n).astype(np.float32)
    out = np.zeros(blocks, np.float32)
    pow2 = n & (n - 1) == 0
    reduce7.reduce7.interpret[blocks, block](x, out, n, BLOCK=block, N_IS_POW2=pow2)
    assert out.astype(np.float64).sum() == pytest.approx(
        x.astype(np.float64).sum(), abs=1e-3
    )


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("p, seed", [(0.5, 123456789012), (0.1, 7), (0.9, 2**63 - 1)])
def test_philox_dropout_matches_numpy_philox_bit_for_bit(n, p, seed):
    x = rng(n).standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    philox_dropout.seeded_dropout.interpret[-(-n // 256), 256](x, out, n, p, seed)
    assert out.tobytes() == dropout_reference(x, p, seed).tobytes()
    if n >= 1000:
        assert abs((out == 0).mean() - p) < 0.06


def test_philox_reference_gives_the_published_philox4x32_10_vector():
    # Random123's known-answer test (kat_vectors): philox4x32_10 of counter
    # (0, 0, 0, 0), key (0, 0) starts 0x6627e8d5
    first = philox_uniform(0, np.zeros(1, np.int64))
    x = 0x6627E8D5  # positive as Int32
    assert first[0] == np.float32(x) * np.float32(4.6566127342e-10)


@pytest.mark.parametrize("size", [1001, 256, 700, 2])
def test_laplace_steps_match_numpy_bit_for_bit(size):
    buf_0, buf_1 = rod(size)
    want = heat_reference(buf_0, buf_1, 75, 0.25)
    laplace.solve_heat_equation.interpret[-(-size // 256), 256](buf_0, buf_1, 75, 0.25)
    assert buf_0.tobytes() == want[0].tobytes()
    assert buf_1.tobytes() == want[1].tobytes()


@pytest.mark.parametrize("n", SIZES)
def test_warp_aggregated_filter_keeps_the_positive_elements(n):
    src = rng(n).integers(-5, 5, n, dtype=np.int32)
    dst = np.zeros(n, np.int32)
    nres = np.zeros(1, np.int32)
    warp_aggregated_filter.filter_k.interpret[-(-n // 128), 128](dst, nres, src, n)
    kept = src[src > 0]
    assert nres[0] == kept.size
    # the interpreter runs warps, and lanes, in order: the order is kept
    assert dst[: kept.size].tolist() == kept.tolist()


@pytest.mark.parametrize("rows, C", [(1, 32), (7, 100), (13, 257), (64, 33)])
def test_online_softmax_is_numpys_softmax(rows, C):
    x = (3 * rng(C).standard_normal((rows, C))).astype(np.float32)
    out = np.zeros_like(x)
    kernel = online_softmax.softmax_forward_online_kernel2
    kernel.interpret[-(-rows // 4), 128](out, x, rows, C)
    np.testing.assert_allclose(out, softmax_reference(x), rtol=2e-6, atol=1e-9)


@pytest.mark.parametrize("blocks, threads, N", [(2, 32, 60), (3, 96, 200), (1, 64, 1)])
def test_simple_assert_names_the_first_thread_past_n(blocks, threads, N):
    with pytest.raises(kdsl.DeviceAssertionError) as info:
        simple_assert.test_kernel.interpret[blocks, threads](N)
    assert info.value.code == "E460"
    assert info.value.block == (N // threads, 0, 0)
    assert info.value.thread == (N % threads, 0, 0)
    assert "simple_assert.py:" in str(info.value) and "gtid < N" in str(info.value)
    simple_assert.test_kernel.interpret[blocks, threads](blocks * threads)  # passes


# -- NVRTC ----------------------------------------------------------------------------
INSTANCES = {
    "shfl_scan_test": lambda: shfl_scan.shfl_scan_test.dispatch(BLOCK=256),
    "uniform_add": lambda: shfl_scan.uniform_add.dispatch(),
    "reduce7_int": lambda: reduce7.reduce7.dispatch(
        Int32, BLOCK=256, N_IS_POW2=True, INTEGER=True
    ),
    "reduce7_float": lambda: reduce7.reduce7.dispatch(
        Float32, BLOCK=128, N_IS_POW2=False
    ),
    "seeded_dropout": lambda: philox_dropout.seeded_dropout.dispatch(),
    "solve_heat_equation": lambda: laplace.solve_heat_equation.dispatch(),
    "filter_k": lambda: warp_aggregated_filter.filter_k.dispatch(),
    "softmax": lambda: online_softmax.softmax_forward_online_kernel2.dispatch(),
    "simple_assert": lambda: simple_assert.test_kernel.dispatch(),
}


@pytest.mark.parametrize("name", list(INSTANCES))
def test_the_port_compiles_with_nvrtc(name):
    inst = INSTANCES[name]()
    compile_to_cubin(inst.source, inst.name)


def test_the_generated_code_uses_the_originals_intrinsics():
    assert (
        "__shfl_up_sync(0xffu, warp_sum, 4, 8)" in INSTANCES["shfl_scan_test"]().source
    )
    assert "__reduce_add_sync(in_use, sdata[tid])" in INSTANCES["reduce7_int"]().source
    assert "__ballot_sync(" in INSTANCES["reduce7_int"]().source
    assert "__umulhi(3449720151u, prev_c2)" in INSTANCES["seeded_dropout"]().source
    assert (
        "cooperative_groups::this_grid().sync()"
        in INSTANCES["solve_heat_equation"]().source
    )
    src = INSTANCES["filter_k"]().source
    assert (
        "__activemask()" in src and "__ffs(active)" in src and "__popc(active)" in src
    )
    assert "__popc(active & kdsl::lanemask_lt())" in src
    assert "kdsl::assert_failed" in INSTANCES["simple_assert"]().source


# -- the workaround in reduce7 ---------------------------------------------------------
@kdsl.kernel
def shuffle_down_in_a_partial_mask(x: Pointer[Float32], out: Pointer[Float32]):
    t = thread_idx.x
    in_use = kdsl.ballot(t < 8)
    if t < 8:
        out[t] = x[t] + kdsl.shfl_down(x[t], 16, mask=in_use)


def test_the_originals_float_warp_reduce_is_refused_by_the_interpreter():
    # reduce7's Float32 last step as the sample writes it: lanes of an 8-lane
    # mask shuffle down by 16 (undefined in CUDA, unused by the sample)
    x = np.ones(32, np.float32)
    with pytest.raises(kdsl.InterpretError) as info:
        shuffle_down_in_a_partial_mask.interpret[1, 32](x, np.zeros(8, np.float32))
    assert info.value.code == "E455"
