"""The plainer C++ (transpile/cuda: plain operators where the range analysis
proves them exact, unsigned CUDA-index arithmetic, combined constants,
dropped ``-0.0`` terms, ``kdsl::offset`` for Array elements, ``INFINITY``)
computes what the interpreter computes, bit for bit."""

import numpy as np
import pytest

import kdsl
from kdsl import Array, Constexpr, Float32, Int32, Pointer, block_dim, block_idx
from kdsl import thread_idx

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")


@kdsl.kernel
def index_math(out: Pointer[Int32], n: Int32, BLOCK: Constexpr[int] = 128):
    tid = thread_idx.x
    g = block_idx.x * BLOCK + tid
    h = block_idx.x * block_dim.x + thread_idx.x - 1  # -1 for thread 0 of block 0
    k = 8 * g
    if g < n:
        out[k] = tid // 32
        out[k + 1] = tid % 32
        out[k + 2] = h
        out[k + 3] = (g + 16) - 8
        out[k + 4] = (tid - 64) // 32  # negative: floors, stays a helper
        out[k + 5] = (tid - 64) % 32
        out[k + 6] = -tid
        out[k + 7] = (tid >> 2) + (tid << 3) + (g - n)


@kdsl.kernel
def zeros(x: Pointer[Float32], out: Pointer[Float32], n: Int32):
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < n:
        out[4 * i] = Float32(-0.0) + x[i]
        out[4 * i + 1] = x[i] - Float32(0.0)
        out[4 * i + 2] = Float32(0.0) + x[i]  # stays: +0.0 for x = -0.0
        out[4 * i + 3] = kdsl.math.fmax(x[i], Float32(float("-inf")))


@kdsl.kernel
def stencil(u: Array[Float32, 2], out: Array[Float32, 2], BLOCK: Constexpr[int] = 16):
    i = block_idx.y * BLOCK + thread_idx.y + 1
    j = block_idx.x * BLOCK + thread_idx.x + 1
    if i < u.shape[0] - 1 and j < u.shape[1] - 1:
        out[i, j] = u[i, j] * Float32(0.5) + Float32(0.125) * (
            u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]
        )


def test_index_arithmetic_matches_the_interpreter():
    n = 3 * 128 - 5
    host = np.zeros(8 * n, np.int32)
    index_math.interpret[3, 128](host, n)
    dev = cp.zeros(8 * n, cp.int32)
    index_math[3, 128](dev, n)
    assert host.tobytes() == dev.get().tobytes()


def test_signed_zero_terms_match_the_interpreter():
    x = np.array([0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan, 1e-45], np.float32)
    host = np.zeros(4 * len(x), np.float32)
    zeros.interpret[1, 32](x, host, len(x))
    dev = cp.zeros(4 * len(x), cp.float32)
    zeros[1, 32](cp.asarray(x), dev, len(x))
    got = dev.get()
    same = (host.view(np.uint32) == got.view(np.uint32)) | (
        np.isnan(host) & np.isnan(got)
    )
    assert same.all()


def test_a_stencil_on_a_strided_view_matches_the_interpreter():
    rng = np.random.default_rng(3)
    base = rng.standard_normal((40, 70)).astype(np.float32)
    u = base[::2, 1::3]  # non-contiguous: both strides matter
    host = np.zeros_like(u)
    grid = ((u.shape[1] + 15) // 16, (u.shape[0] + 15) // 16)
    stencil.interpret[grid, (16, 16)](u, host)
    dev_u = cp.asarray(base)[::2, 1::3]
    dev = cp.zeros(u.shape, cp.float32)
    stencil[grid, (16, 16)](dev_u, dev)
    assert host.tobytes() == dev.get().tobytes()


@kdsl.kernel
def shifted(x: Pointer[Float32], out: Pointer[Float32]):
    s = kdsl.shared_array(Float32, (2, 48))
    s[thread_idx.y, (thread_idx.x + 16) - 8] = x[thread_idx.x + 1]
    kdsl.syncthreads()
    k = block_idx.x * 64 + thread_idx.y * 32 + thread_idx.x
    out[k] = s[thread_idx.y, thread_idx.x + 8] * Float32(2.0) + x[thread_idx.x + 2 - 1]


def test_unsigned_indices_match_the_interpreter():
    x = np.arange(40, dtype=np.float32) * np.float32(0.5)
    host = np.zeros(128, np.float32)
    shifted.interpret[2, (32, 2)](x, host)
    dev = cp.zeros(128, cp.float32)
    shifted[2, (32, 2)](cp.asarray(x), dev)
    assert host.tobytes() == dev.get().tobytes()
