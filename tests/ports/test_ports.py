"""The ports of real kernels (tests/ports/README.md): each runs in the
interpreter against a numpy reference on random inputs of several sizes
(some not a multiple of the block size), and its CUDA compiles with NVRTC.
tests/gpu/test_ports_gpu.py runs them on the GPU."""

import inspect

import numpy as np
import pytest

import ml_dtypes

import attention_permute
import black_scholes
import convolution_separable
import gelu_forward
import histogram256
import kdsl
import laplace
import layer_norm_backward
import layernorm_forward
import matmul_forward
import matrix_mul
import mul_mat_vec_q8_0
import nbody
import numba_matmul
import numba_vecadd
import online_softmax
import philox_dropout
import quantize_q8_1
import reduce7
import rope_norm
import shfl_scan
import simple_assert
import softmax_forward
import threadfence_reduction
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


def histogram(data, blocks=5):
    """histogram256's two launches; the byte count is a multiple of 4."""
    partial = np.zeros(blocks * 256, np.uint32)
    h = histogram256
    h.histogram256_kernel.interpret[blocks, h.THREADBLOCK_SIZE](
        partial, data, data.size // 4
    )
    hist = np.zeros(256, np.uint32)
    h.merge_histogram256_kernel.interpret[256, h.MERGE_THREADBLOCK_SIZE](
        hist, partial, blocks
    )
    return hist


def convolution_reference(src, axis):
    """The sample's convolutionRowCPU/ColumnCPU: the taps in the kernel's
    order, in Float32, zeros past the edge (bit for bit: no FMA)."""
    h, w = src.shape
    r = convolution_separable.KERNEL_RADIUS
    padded = np.zeros((h + 2 * r, w + 2 * r), np.float32)
    padded[r : r + h, r : r + w] = src
    total = np.zeros_like(src)
    for k in range(-r, r + 1):
        if axis == 1:
            window = padded[r : r + h, r + k : r + k + w]
        else:
            window = padded[r + k : r + k + h, r : r + w]
        total = total + convolution_separable.C_KERNEL[r - k] * window
    return total


def convolve(src, axis, interpret=True):
    h, w = src.shape
    dst = np.zeros_like(src)
    if axis == 1:
        kernel, grid, block = (
            convolution_separable.convolution_rows_kernel,
            (
                w // 128,
                h // 4,
            ),
            (16, 4),
        )
    else:
        kernel, grid, block = (
            convolution_separable.convolution_columns_kernel,
            (
                w // 16,
                h // 64,
            ),
            (16, 8),
        )
    kernel.interpret[grid, block](dst, src, w, h, w)
    return dst


def bodies(n):
    r = rng(n)
    pos = r.standard_normal((n, 4)).astype(np.float32)
    pos[:, 3] = r.uniform(0.5, 1.5, n)
    return pos, r.standard_normal((n, 4)).astype(np.float32)


NBODY = dict(delta_time=0.01, damping=0.995, softening_squared=0.00125**2)


def nbody_reference(pos, vel):
    p, v = pos.astype(np.float64), vel.astype(np.float64)
    r = p[None, :, :3] - p[:, None, :3]
    dist_sqr = (r**2).sum(-1) + NBODY["softening_squared"]
    accel = (r * (p[None, :, 3] / dist_sqr**1.5)[:, :, None]).sum(1)
    v3 = (v[:, :3] + accel * NBODY["delta_time"]) * NBODY["damping"]
    p[:, :3] += v3 * NBODY["delta_time"]
    v[:, :3] = v3
    return p, v


def nbody_step(pos, vel, block):
    new_pos, vel = np.zeros_like(pos), vel.copy()
    tiles = -(-len(pos) // block)
    args = (len(pos), *NBODY.values(), tiles)
    nbody.integrate_bodies.interpret[tiles, block](
        new_pos, pos, vel, *args, shared_mem=16 * block
    )
    return new_pos, vel


def layernorm_reference(x, w, b):
    x64 = x.astype(np.float64)
    m = x64.mean(axis=1)
    r = 1 / np.sqrt(x64.var(axis=1) + 1e-5)
    return (x64 - m[:, None]) * r[:, None] * w + b, m, r


def gelu_reference(x):
    x = x.astype(np.float64)
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


def q8_1_reference(x, padded):
    """(d, sum, quants) of each block of 32, as llama.cpp's CPU quantize_row_q8_1."""
    rows, kx = x.shape
    xp = np.zeros((rows, padded), np.float32)
    xp[:, :kx] = x
    blocks = xp.reshape(-1, 32)
    amax = np.abs(blocks).max(axis=1)
    d = amax / np.float32(127)
    with np.errstate(divide="ignore", invalid="ignore"):
        half = np.copysign(np.float32(0.5), blocks)
        q = np.where(amax[:, None] == 0, 0, np.trunc(blocks / d[:, None] + half))
    return d, blocks.astype(np.float64).sum(axis=1), q.astype(np.int8)


def q8_1_blocks(vy):
    """(d and sum as Float16, quants) of the block_q8_1 bytes ``vy``."""
    blocks = vy.reshape(-1, 36)
    ds = blocks[:, :4].copy().view(np.float16)
    return ds, blocks[:, 4:].copy().view(np.int8)


def layer_norm_backward_case(rows, N):
    r = rng(rows + N)
    x = (-2.3 + 0.5 * r.standard_normal((rows, N))).astype(np.float32)
    w = r.random(N).astype(np.float32)
    dy = (0.1 * r.standard_normal((rows, N))).astype(np.float32)
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1, keepdims=True)
    rstd = 1 / np.sqrt(x64.var(axis=1, keepdims=True) + 1e-5)
    xhat, wdy = (x64 - mean) * rstd, w * dy.astype(np.float64)
    c1 = (xhat * wdy).mean(axis=1, keepdims=True)
    dx = (wdy - (xhat * c1 + wdy.mean(axis=1, keepdims=True))) * rstd
    want = dx, (dy * xhat).sum(axis=0), dy.sum(axis=0, dtype=np.float64)
    args = (x, w, mean[:, 0].astype(np.float32), rstd[:, 0].astype(np.float32))
    return dy, args, want


def run_layer_norm_backward(dy, x, w, mean, rstd, group, block, lib=np, run=None):
    """The two launches; ``lib``/``run`` pick the GPU (cupy, the kernels)."""
    rows, N = x.shape
    dx, locks = lib.zeros((rows, N), np.float32), lib.zeros(2 * group, np.int32)
    partial_dw, partial_db = (lib.zeros((group, N), np.float32) for _ in "wb")
    dw, db = lib.zeros(N, np.float32), lib.zeros(N, np.float32)
    lb = layer_norm_backward
    dx_fused = run(lb.layer_norm_bwd_dx_fused) if run else lb.layer_norm_bwd_dx_fused
    dwdb = run(lb.layer_norm_bwd_dwdb) if run else lb.layer_norm_bwd_dwdb
    if run is None:
        dx_fused, dwdb = dx_fused.interpret, dwdb.interpret
    dx_fused[rows, block](
        dx,
        dy,
        partial_dw,
        partial_db,
        x,
        w,
        mean,
        rstd,
        locks,
        N,
        N,
        GROUP_SIZE_M=group,
    )
    dwdb[-(-N // 128), 128](partial_dw, partial_db, dw, db, group, N)
    return dx, dw, db, locks


def rng(n):
    return np.random.default_rng(n)


def q8_0_matrix(rows, cols, r):
    """A Q8_0 matrix (rows of ``block_q8_0``) and a Q8_1 vector, random."""
    nb = cols // 32
    x = np.zeros(rows * nb, mul_mat_vec_q8_0.block_q8_0.dtype)
    x["d"] = (r.standard_normal(rows * nb) * 0.05).astype(np.float16)
    x["qs"] = r.integers(-128, 128, (rows * nb, 32))
    y = np.zeros(nb, mul_mat_vec_q8_0.block_q8_1.dtype)
    y["ds"][:, 0] = (r.standard_normal(nb) * 0.05).astype(np.float16)
    y["ds"][:, 1] = r.standard_normal(nb).astype(np.float16)  # (unused by q8_0)
    y["qs"] = r.integers(-128, 128, (nb, 8, 4))
    return x, y


def q8_0_q8_1_reference(x, y, rows):
    """llama.cpp's CPU ggml_vec_dot_q8_0_q8_1: per block, the exact integer
    dot product scaled by both d, summed over the row (in float64 here)."""
    nb = len(y)
    qx = x["qs"].reshape(rows, nb, 32).astype(np.int64)
    qy = y["qs"].reshape(nb, 32).astype(np.int64)
    sumi = (qx * qy[None]).sum(axis=-1)
    dx = x["d"].reshape(rows, nb).astype(np.float64)
    dy = y["ds"][:, 0].astype(np.float64)
    return (dx * dy[None] * sumi).sum(axis=-1)


def rope_norm_reference(
    x,
    pos,
    n_dims,
    p_delta_rows,
    freq_base,
    freq_scale,
    ext_factor,
    attn_factor,
    corr,
    freq_factors,
):
    """ggml's CPU rope (mode 0) with YaRN, in Float32 as the kernel computes."""
    f32 = np.float32
    rows, ne0 = x.shape
    out = x.copy()
    theta_scale = f32(np.power(f32(freq_base), f32(-2.0) / f32(n_dims)))
    i0 = np.arange(0, n_dims, 2)
    theta_base = pos[np.arange(rows) // p_delta_rows].astype(f32)[:, None] * np.power(
        theta_scale, i0.astype(f32) / f32(2)
    )
    ff = f32(1) if freq_factors is None else freq_factors[i0 // 2]
    extrap = theta_base / ff
    interp = f32(freq_scale) * extrap
    theta, mscale = interp, f32(attn_factor)
    if ext_factor != 0:
        y = ((i0 // 2).astype(f32) - f32(corr[0])) / max(
            f32(0.001), f32(corr[1] - corr[0])
        )
        ramp = (f32(1) - np.minimum(f32(1), np.maximum(f32(0), y))) * f32(ext_factor)
        theta = interp * (f32(1) - ramp) + extrap * ramp
        mscale = mscale * (f32(1) + f32(0.1) * np.log(f32(1) / f32(freq_scale)))
    c, s = np.cos(theta) * mscale, np.sin(theta) * mscale
    x0, x1 = x[:, 0:n_dims:2], x[:, 1:n_dims:2]
    out[:, 0:n_dims:2] = x0 * c - x1 * s
    out[:, 1:n_dims:2] = x0 * s + x1 * c
    return out


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
    laplace.solve_heat_equation.interpret[-(-size // 256), 256](
        buf_0, buf_1, size, 75, 0.25
    )
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


# -- the issue-11 ports ----------------------------------------------------------------
@pytest.mark.parametrize("words", [1, 37, 1000, 4099])
def test_histogram256_counts_every_byte(words):
    data = rng(words).integers(0, 256, 4 * words, dtype=np.uint8)
    assert histogram(data).tolist() == np.bincount(data, minlength=256).tolist()


def test_histogram256_counts_a_skewed_input_past_a_warp_per_bin():
    data = np.full(4 * 3000, 7, np.uint8)
    data[::5] = 255
    assert histogram(data).tolist() == np.bincount(data, minlength=256).tolist()


@pytest.mark.parametrize("w, h", [(128, 64), (256, 128), (384, 64)])
@pytest.mark.parametrize("axis", [1, 0], ids=["rows", "columns"])
def test_convolution_separable_matches_the_samples_cpu_code_bit_for_bit(w, h, axis):
    src = rng(w + h).standard_normal((h, w)).astype(np.float32)
    assert convolve(src, axis).tobytes() == convolution_reference(src, axis).tobytes()


@pytest.mark.parametrize("n, block", [(1, 32), (37, 32), (256, 128), (1000, 256)])
def test_nbody_step_matches_numpys_all_pairs_sum(n, block):
    pos, vel = bodies(n)
    new_pos, new_vel = nbody_step(pos, vel, block)
    want_pos, want_vel = nbody_reference(pos, vel)
    np.testing.assert_allclose(new_pos, want_pos, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(new_vel, want_vel, rtol=1e-4, atol=1e-5)
    assert new_pos[:, 3].tobytes() == pos[:, 3].tobytes()  # the masses ride along


@pytest.mark.parametrize(
    "n, block, blocks",
    [(1, 32, 1), (37, 32, 2), (1000, 128, 3), (4099, 256, 8), (1 << 14, 64, 64)],
)
def test_threadfence_reduction_sums_in_one_launch(n, block, blocks):
    x = rng(n).standard_normal(n).astype(np.float32)
    out = np.zeros(blocks, np.float32)
    count = np.zeros(1, np.uint32)
    pow2 = n & (n - 1) == 0 and n % (2 * block) == 0
    for _ in range(2):  # the last block resets the ticket counter
        threadfence_reduction.reduce_single_pass.interpret[blocks, block](
            x, out, n, count, BLOCK_SIZE=block, N_IS_POW2=pow2, shared_mem=4 * block
        )
        assert count[0] == 0
        assert out[0] == pytest.approx(x.astype(np.float64).sum(), abs=1e-3)


@pytest.mark.parametrize("N, C, block", [(1, 32, 32), (7, 100, 64), (5, 1000, 256)])
def test_layernorm_forward_matches_numpy_and_stores_mean_and_rstd_on_request(
    N, C, block
):
    r = rng(C)
    x = r.standard_normal((N, C)).astype(np.float32)
    w, b = r.standard_normal(C).astype(np.float32), r.standard_normal(C).astype(
        np.float32
    )
    out, mean, rstd = np.zeros_like(x), np.zeros(N, np.float32), np.zeros(N, np.float32)
    kernel = layernorm_forward.layernorm_forward_kernel5
    kernel.interpret[N, block](out, mean, rstd, x, w, b, N, C)
    want, m, s = layernorm_reference(x, w, b)
    np.testing.assert_allclose(mean, m, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rstd, s, rtol=1e-4)
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-4)
    without = np.zeros_like(x)
    kernel.interpret[N, block](without, None, None, x, w, b, N, C)
    assert without.tobytes() == out.tobytes()


def test_layernorm_forward_without_mean_is_its_own_instance():
    kernel = layernorm_forward.layernorm_forward_kernel5
    inst = kernel.dispatch(mean=None)
    assert inst.name == "layernorm_forward_kernel5__nomean"
    assert (
        "mean" not in inst.source.split("layernorm_forward_kernel5__nomean(")[1][:200]
    )


@pytest.mark.parametrize("N", [8, 296, 2048, 8200])
def test_gelu_forward_is_the_tanh_gelu_rounded_to_bfloat16(N):
    x = (2 * rng(N).standard_normal(N)).astype(ml_dtypes.bfloat16)
    out = np.zeros(N, ml_dtypes.bfloat16)
    gelu_forward.gelu_forward_kernel2.interpret[-(-N // 1024), 128](out, x, N)
    got = out.astype(np.float64)
    np.testing.assert_allclose(got, gelu_reference(x), rtol=2**-7, atol=1e-6)


@pytest.mark.parametrize("rows, kx", [(1, 32), (3, 37), (2, 1000), (4, 4099)])
def test_quantize_q8_1_gives_llama_cpps_blocks(rows, kx):
    padded = -(-kx // 512) * 512  # MATRIX_ROW_PADDING
    x = (3 * rng(kx).standard_normal((rows, kx))).astype(np.float32)
    x[0, :64] = 0  # blocks of zeros: d = 0, quants 0
    vy = np.zeros(rows * padded // 32 * 36, np.uint8)
    quantize_q8_1.quantize_q8_1.interpret[(padded // 256, rows), 256](x, vy, kx, padded)
    ds, qs = q8_1_blocks(vy)
    d, total, q = q8_1_reference(x, padded)
    assert ds[:, 0].tobytes() == d.astype(np.float16).tobytes()
    np.testing.assert_allclose(ds[:, 1].astype(np.float64), total, rtol=2e-3, atol=2e-2)
    assert qs.tobytes() == q.tobytes()


@pytest.mark.parametrize("rows, cols", [(1, 32), (3, 256), (5, 1024), (2, 4096 + 512)])
def test_mul_mat_vec_q8_0_is_llama_cpps_vec_dot(rows, cols):
    x, y = q8_0_matrix(rows, cols, rng(rows * cols))
    dst = np.zeros(rows, np.float32)
    mul_mat_vec_q8_0.mul_mat_vec_q8_0.interpret[rows, (32, 4)](x, y, dst, cols, rows)
    np.testing.assert_allclose(
        dst, q8_0_q8_1_reference(x, y, rows), rtol=1e-5, atol=1e-5
    )
    # the blocks as the bytes of a GGUF tensor: the same result
    again = np.zeros(rows, np.float32)
    kernel = mul_mat_vec_q8_0.mul_mat_vec_q8_0
    kernel.interpret[rows, (32, 4)](
        x.view(np.uint8), y.view(np.uint8), again, cols, rows
    )
    assert again.tobytes() == dst.tobytes()


def test_block_q8_0_and_q8_1_have_llama_cpps_sizes():
    assert mul_mat_vec_q8_0.block_q8_0.dtype.itemsize == 34
    assert mul_mat_vec_q8_0.block_q8_1.dtype.itemsize == 36
    assert rope_norm.rope_corr_dims.dtype.itemsize == 8


@pytest.mark.parametrize("ext_factor", [0.0, 0.75])
@pytest.mark.parametrize("with_ff", [False, True])
def test_rope_norm_is_ggmls_rope(ext_factor, with_ff):
    rows, ne0, n_dims, p_delta_rows = 6, 64, 48, 2
    r = rng(rows + int(with_ff))
    x = r.standard_normal((rows, ne0)).astype(np.float32)
    pos = r.integers(0, 4096, rows // p_delta_rows).astype(np.int32)
    ff = (1 + r.random(n_dims // 2)).astype(np.float32) if with_ff else None
    freq_base, freq_scale, attn_factor, corr = 10000.0, 0.25, 1.0, (3.0, 17.0)
    theta_scale = np.float32(np.power(np.float32(freq_base), np.float32(-2.0) / n_dims))
    dst = np.zeros_like(x)
    dims = rope_norm.rope_corr_dims(v=corr)
    blocks_y = (ne0 + 2 * 256 - 1) // (2 * 256)
    rope_norm.rope_norm.interpret[(rows, blocks_y), (1, 256)](
        x,
        dst,
        ne0,
        n_dims,
        pos,
        freq_scale,
        p_delta_rows,
        ext_factor,
        attn_factor,
        dims,
        theta_scale,
        ff,
    )
    want = rope_norm_reference(
        x,
        pos,
        n_dims,
        p_delta_rows,
        freq_base,
        freq_scale,
        ext_factor,
        attn_factor,
        corr,
        ff,
    )
    np.testing.assert_allclose(dst, want, rtol=2e-5, atol=2e-5)
    assert dst[:, n_dims:].tobytes() == x[:, n_dims:].tobytes()


@pytest.mark.parametrize(
    "BT, C, OC, bias", [(128, 32, 128, True), (256, 64, 128, False)]
)
def test_matmul_forward_is_numpys_matmul_plus_bias(BT, C, OC, bias):
    r = rng(C)
    inp = r.standard_normal((BT, C)).astype(np.float32)
    weight = r.standard_normal((OC, C)).astype(np.float32)
    b = r.standard_normal(OC).astype(np.float32) if bias else None
    out = np.zeros((BT, OC), np.float32)
    kernel = matmul_forward.matmul_forward_kernel4
    kernel.interpret[(BT // 128, OC // 128), (16, 16)](out, inp, weight, b, C, OC)
    want = inp.astype(np.float64) @ weight.astype(np.float64).T + (b if bias else 0)
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    "rows, N, block, group",
    [(64, 37, 128, 64), (200, 100, 1024, 64), (130, 1000, 1024, 64)],
)
def test_layer_norm_backward_matches_numpy_and_frees_every_lock(rows, N, block, group):
    # a batch of the interpreter runs 65536 threads: 64 blocks of 1024, one a
    # group; the rows past the first batch add to the groups' partial sums
    dy, args, (want_dx, want_dw, want_db) = layer_norm_backward_case(rows, N)
    dx, dw, db, locks = run_layer_norm_backward(dy, *args, group, block)
    np.testing.assert_allclose(dx, want_dx, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(dw, want_dw, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(db, want_db, rtol=1e-4, atol=1e-4)
    assert locks[:group].tolist() == [0] * group  # every lock released
    assert locks[group:].tolist() == [int(g < rows) for g in range(group)]  # counts


def test_layer_norm_backward_rows_that_wait_in_one_interpreted_batch_are_e451():
    dy, args, _ = layer_norm_backward_case(4, 32)
    with pytest.raises(kdsl.InterpretError) as info:
        run_layer_norm_backward(dy, *args, 2, 32)  # rows 0 and 2 share lock 0
    assert info.value.code == "E451"


# -- the issue-25 ports ----------------------------------------------------------------
@pytest.mark.parametrize("rows, C, block", [(1, 1, 32), (7, 100, 64), (5, 1000, 256)])
def test_softmax_forward_kernel4_is_numpys_softmax(rows, C, block):
    x = (3 * rng(C).standard_normal((rows, C))).astype(np.float32)
    out = np.zeros_like(x)
    warps = block // 32
    softmax_forward.softmax_forward_kernel4.interpret[rows, block](
        out, x, rows, C, shared_mem=2 * warps * 4
    )
    np.testing.assert_allclose(out, softmax_reference(x), rtol=2e-6, atol=1e-9)


def test_softmax_forward_kernel4_walks_its_rows_through_pointers():
    src = INSTANCES["softmax_forward_kernel4"]().source
    assert "const float* x = inp + kdsl::mul(idx, C);" in src
    assert "float* x_2 = out + kdsl::mul(idx, C);" in src
    assert "float* sumvals = shared + warps_per_block;" in src


def matmul_reference(a, b):
    """C = A @ B in Float32, the products summed in order of k (as the
    kernels do: no fused multiply-add)."""
    c = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for k in range(a.shape[1]):
        c = c + a[:, k, None] * b[None, k, :]
    return c


@pytest.mark.parametrize("m, k, n", [(1, 1, 1), (20, 33, 17), (64, 48, 40)])
def test_numba_matmul_and_fast_matmul_are_a_at_b(m, k, n):
    a = rng(m * k).standard_normal((m, k)).astype(np.float32)
    b = rng(k * n).standard_normal((k, n)).astype(np.float32)
    want = matmul_reference(a, b)
    tpb = numba_matmul.TPB
    c = np.zeros((m, n), np.float32)
    grid = (-(-m // tpb), -(-n // tpb))
    numba_matmul.matmul.interpret[grid, (tpb, tpb)](a, b, c)
    assert c.tobytes() == want.tobytes()
    # the original's non-square launch: x covers the columns and k
    grid = (-(-max(k, n) // tpb), -(-max(m, k) // tpb))
    c = np.zeros((m, n), np.float32)
    numba_matmul.fast_matmul.interpret[grid, (tpb, tpb)](a, b, c)
    assert c.tobytes() == want.tobytes()


@pytest.mark.parametrize("n", SIZES)
def test_numba_vecadd_is_a_plus_b(n):
    a, b = rng(n).standard_normal((2, n)).astype(np.float32)
    c = np.zeros(n, np.float32)
    numba_vecadd.f.interpret[-(-n // 128), 128](a, b, c)
    assert c.tobytes() == (a + b).tobytes()


def test_numba_ports_index_with_grid():
    src = INSTANCES["numba_vecadd"]().source
    assert "int32_t tid = blockIdx.x * blockDim.x + threadIdx.x;" in src
    assert "int64_t size = c_shape0;" in src  # size = len(c)
    src = INSTANCES["fast_matmul"]().source
    assert "int32_t y = blockIdx.y * blockDim.y + threadIdx.y;" in src


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
    "histogram256": lambda: histogram256.histogram256_kernel.dispatch(),
    "merge_histogram256": lambda: histogram256.merge_histogram256_kernel.dispatch(),
    "convolution_rows": lambda: convolution_separable.convolution_rows_kernel.dispatch(),
    "convolution_columns": (
        lambda: convolution_separable.convolution_columns_kernel.dispatch()
    ),
    "integrate_bodies": lambda: nbody.integrate_bodies.dispatch(),
    "reduce_single_pass": lambda: threadfence_reduction.reduce_single_pass.dispatch(
        BLOCK_SIZE=256, N_IS_POW2=False
    ),
    "layernorm_forward": lambda: layernorm_forward.layernorm_forward_kernel5.dispatch(),
    "layernorm_forward_nomean_norstd": (
        lambda: layernorm_forward.layernorm_forward_kernel5.dispatch(
            mean=None, rstd=None
        )
    ),
    "gelu_forward": lambda: gelu_forward.gelu_forward_kernel2.dispatch(),
    "quantize_q8_1": lambda: quantize_q8_1.quantize_q8_1.dispatch(),
    "matmul_forward": lambda: matmul_forward.matmul_forward_kernel4.dispatch(),
    "mul_mat_vec_q8_0": lambda: mul_mat_vec_q8_0.mul_mat_vec_q8_0.dispatch(),
    "rope_norm": lambda: rope_norm.rope_norm.dispatch(),
    "rope_norm_noff": lambda: rope_norm.rope_norm.dispatch(freq_factors=None),
    "layer_norm_bwd_dx_fused": (
        lambda: layer_norm_backward.layer_norm_bwd_dx_fused.dispatch(GROUP_SIZE_M=64)
    ),
    "layer_norm_bwd_dwdb": lambda: layer_norm_backward.layer_norm_bwd_dwdb.dispatch(),
    "softmax_forward_kernel4": lambda: softmax_forward.softmax_forward_kernel4.dispatch(),
    "numba_matmul": lambda: numba_matmul.matmul.dispatch(),
    "fast_matmul": lambda: numba_matmul.fast_matmul.dispatch(),
    "numba_vecadd": lambda: numba_vecadd.f.dispatch(),
    "matmul_forward_nobias": (
        lambda: matmul_forward.matmul_forward_kernel4.dispatch(bias=None)
    ),
    "black_scholes": lambda: black_scholes.black_scholes_gpu.dispatch(),
    "permute_kernel": lambda: attention_permute.permute_kernel.dispatch(),
    "matrix_mul": lambda: matrix_mul.matrix_mul_cuda.dispatch(),
    "matrix_mul_16": lambda: matrix_mul.matrix_mul_cuda.dispatch(BLOCK_SIZE=16),
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
    src = INSTANCES["histogram256"]().source
    assert (
        "atomicAdd(&s_warp_hist[" in src
        and "uint32_t* s_warp_hist = s_hist + (int32_t(threadIdx.x) >> 5) * 256;" in src
        and "reinterpret_cast<const uint32_t*>(d_data)" in src
    )
    src = INSTANCES["convolution_rows"]().source
    assert "__constant__ float C_KERNEL[17] = {" in src
    assert "C_KERNEL[8 - j]" in src and "#pragma unroll 17" in src
    src = INSTANCES["integrate_bodies"]().source
    assert "extern __shared__ __align__(16) unsigned char kdsl_dynamic_smem[];" in src
    assert "rsqrtf(dist_sqr)" in src and "kdsl::vec<float, 3> acc" in src
    src = INSTANCES["reduce_single_pass"]().source
    assert "__threadfence();" in src and "atomicInc(&retirement_count[0]" in src
    assert "__syncwarp();" in src
    src = INSTANCES["layernorm_forward_nomean_norstd"]().source
    assert "float& result0,\n        float& result1) {" in src
    assert "mean[" not in src and "rstd[" not in src
    src = INSTANCES["gelu_forward"]().source
    assert "tanhf(0.7978845f * (xi + cube))" in src
    src = INSTANCES["quantize_q8_1"]().source
    assert "block_q8_1* vy" in src and "vy[ib].qs[iqs] = q;" in src
    assert "vy[ib].ds.v[0] = __float2half_rn(d);" in src
    src = INSTANCES["matmul_forward"]().source
    assert "__launch_bounds__(256) matmul_forward_kernel4(" in src
    assert "__shared__ kdsl::vec<float, 4> lhs_s[128][8];" in src
    src = INSTANCES["layer_norm_bwd_dx_fused"]().source
    assert "kdsl::atomic_cas<__NV_ATOMIC_ACQUIRE, __NV_ATOMIC_ACQUIRE," in src
    assert "__threadfence();" in src
    assert (
        "__nv_atomic_exchange_n(&Lock[lock_id], 0, __NV_ATOMIC_RELEASE, "
        "__NV_THREAD_SCOPE_DEVICE);" in src
    )


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


# -- speed guards from the SASS (tests/sass.py) ----------------------------------------
def test_matmul_forward_moves_float4s_and_keeps_its_tile_in_registers():
    from sass import sass_of

    sass = sass_of(INSTANCES["matmul_forward"]())
    assert sass.spills == 0  # vals[8][8] and rhs[8] stay in registers
    assert sass.count(r"^LDS\.128") >= 16  # 8 rhs + 8 lhs float4 a step
    assert sass.count(r"^STS\.128") >= 2 and sass.count(r"^STG\.E\.128") == 16
    assert sass.count(r"^LDS(\.32)?\s") == 0  # no scalar shared loads


def test_gelu_forward_is_one_128_bit_load_and_store():
    from sass import sass_of

    sass = sass_of(INSTANCES["gelu_forward"]())
    # the load streams (load128cs: ld.global.cs, SASS .EF), the store does not
    assert sass.count(r"^LDG\.E\.EF\.128") == 1 and sass.count(r"^STG\.E\.128") == 1
    assert sass.count(r"^LDG") == 1
    assert sass.spills == 0


def test_nbody_reads_float4_tiles_and_uses_the_hardware_rsqrt():
    from sass import sass_of

    sass = sass_of(INSTANCES["integrate_bodies"]())
    assert sass.spills == 0
    assert sass.count(r"^LDS\.128") >= 128  # the unrolled tile loop
    assert sass.count(r"^MUFU\.RSQ") == sass.count(r"^LDS\.128")


def test_the_llama_cpp_ports_use_structs_and_dp4a_as_the_originals():
    mmvq = INSTANCES["mul_mat_vec_q8_0"]().source
    assert "struct block_q8_0 {" in mmvq and "sizeof(block_q8_0) == 34" in mmvq
    assert "const block_q8_0* vx" in mmvq and "__dp4a(" in mmvq
    assert "bq8_1[0].ds.v[0]" in mmvq and "bq8_0[0].d" in mmvq
    # get_int_b2 and get_int_b4: 16- and 32-bit loads, as the pointer casts
    assert "reinterpret_cast<const uint16_t*>(bq8_0) + 1" in mmvq
    assert "reinterpret_cast<const int32_t*>(bq8_1) + 1" in mmvq
    assert "vx + kbx_row" in mmvq and "vy + kby" in mmvq  # &x[ib], &y[iby]
    rope = INSTANCES["rope_norm"]().source
    assert "struct rope_corr_dims {" in rope and "float v[2];" in rope
    assert "rope_corr_dims corr_dims," in rope and "corr_dims.v[1]" in rope


# -- Black-Scholes, llm.c's permute, the samples' matrixMul ---------------------------
def black_scholes_reference(S, X, T, R, V):
    """The sample's BlackScholesBodyCPU in float64 (the sample's own check
    computes in double)."""
    S, X, T = (a.astype(np.float64) for a in (S, X, T))

    def cnd(d):
        a = [0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429]
        k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
        poly = k * (a[0] + k * (a[1] + k * (a[2] + k * (a[3] + k * a[4]))))
        c = 0.39894228040143267793994605993438 * np.exp(-0.5 * d * d) * poly
        return np.where(d > 0, 1.0 - c, c)

    sqrt_t = np.sqrt(T)
    d1 = (np.log(S / X) + (R + 0.5 * V * V) * T) / (V * sqrt_t)
    d2 = d1 - V * sqrt_t
    exp_rt = np.exp(-R * T)
    call = S * cnd(d1) - X * exp_rt * cnd(d2)
    put = X * exp_rt * (1.0 - cnd(d2)) - S * (1.0 - cnd(d1))
    return call, put


def black_scholes_inputs(n, r):
    """The sample's ranges: price 5..30, strike 1..100, 0.25..10 years."""
    S = r.uniform(5.0, 30.0, n).astype(np.float32)
    X = r.uniform(1.0, 100.0, n).astype(np.float32)
    T = r.uniform(0.25, 10.0, n).astype(np.float32)
    return S, X, T


@pytest.mark.parametrize("n", [2, 37, 256, 1000, 4099])
def test_black_scholes(n):
    S, X, T = black_scholes_inputs(n, rng(n))
    R, V = np.float32(0.02), np.float32(0.30)
    call = np.full(n, -1.0, np.float32)
    put = np.full(n, -1.0, np.float32)
    blocks = max(1, -(-(n // 2) // 128))
    black_scholes.black_scholes_gpu.interpret[blocks, 128](call, put, S, X, T, R, V, n)
    want_call, want_put = black_scholes_reference(S, X, T, 0.02, 0.30)
    pairs = n // 2 * 2  # an odd count leaves its last option alone, as the sample
    np.testing.assert_allclose(call[:pairs], want_call[:pairs], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(put[:pairs], want_put[:pairs], rtol=1e-4, atol=1e-4)
    assert (call[pairs:] == -1).all() and (put[pairs:] == -1).all()


@pytest.mark.parametrize("B, N, NH, d", [(1, 1, 1, 1), (2, 5, 3, 7), (3, 17, 4, 16)])
def test_attention_permute(B, N, NH, d):
    x = rng(B * N * NH * d).standard_normal((B, N, 3, NH, d)).astype(np.float32)
    total = B * NH * N * d
    q, k, v = (np.zeros(total, np.float32) for _ in range(3))
    block = 64
    attention_permute.permute_kernel.interpret[-(-total // block), block](
        q, k, v, x, B, N, NH, d
    )
    for out, which in ((q, 0), (k, 1), (v, 2)):
        want = x[:, :, which].transpose(0, 2, 1, 3).reshape(-1)
        assert out.tobytes() == want.tobytes()


def matrix_mul_reference(A, B):
    """Float32 sums in the kernel's order (k ascending), no FMA."""
    C = np.zeros((A.shape[0], B.shape[1]), np.float32)
    for k in range(A.shape[1]):
        C = C + A[:, k : k + 1] * B[k : k + 1, :]
    return C


@pytest.mark.parametrize("block, hA, wA, wB", [(16, 16, 16, 16), (16, 32, 48, 64)])
def test_matrix_mul(block, hA, wA, wB):
    r = rng(hA * wA * wB)
    A = r.standard_normal((hA, wA)).astype(np.float32)
    B = r.standard_normal((wA, wB)).astype(np.float32)
    C = np.zeros((hA, wB), np.float32)
    matrix_mul.matrix_mul_cuda.interpret[(wB // block, hA // block), (block, block)](
        C, A, B, wA, wB, BLOCK_SIZE=block
    )
    assert C.tobytes() == matrix_mul_reference(A, B).tobytes()
