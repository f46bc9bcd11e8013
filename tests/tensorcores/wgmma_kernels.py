"""A warpgroup's wgmma tile, for the CPU tests (compiles, SASS, the
interpreter's E362) and the GPU test (the layouts against numpy).

``wgmma_tile`` copies A (64 x 64) and B^T (N x 64), row-major in global
memory, into dynamic shared memory with the 128-byte swizzle (16-byte chunk q
of row r at chunk q ^ r % 8, kdsl.swizzle), multiplies them with 4
m64nNk16 wgmma (the descriptor advanced 32 bytes each), and writes each
thread's N / 2 accumulator elements to out[thread, i]: the host maps them to
D with wgmma.accumulator_layout.  ``ACC=True`` starts from D = 1 (scale_d
then adds), ``ACC=False`` leaves the accumulator unset and lets the first
wgmma overwrite it (scale_d=False)."""

import numpy as np

import kdsl
from kdsl import Constexpr, Float32, Pointer, thread_idx
from kdsl.transpile.builtins import wgmma

T = kdsl.TypeVar("T", bound=kdsl.Float)
K = 64  # one 128-byte swizzled row of 16-bit elements


@kdsl.kernel(dtypes=["bf16", "f16"])
def wgmma_tile(
    a: Pointer[T],
    bt: Pointer[T],
    out: Pointer[Float32],
    N: Constexpr[int] = 128,
    ACC: Constexpr[bool] = False,
):
    sa = kdsl.dynamic_shared_array(T.vec(8), 64 * 8)
    sb = kdsl.dynamic_shared_array(T.vec(8), N * 8)
    acc = kdsl.local_array(Float32, (N // 2,))
    tid = thread_idx.x
    for p in kdsl.range_constexpr(64 * 8 // 128):
        chunk = p * 128 + tid
        r = chunk // 8
        q = chunk % 8
        kdsl.cp_async(sa, r * 8 + kdsl.swizzle(r, q, 8), a.vec(8), chunk)
    for p in kdsl.range_constexpr((N * 8 + 127) // 128):  # N = 8: 64 chunks
        chunk = p * 128 + tid
        r = chunk // 8
        q = chunk % 8
        if chunk < N * 8:
            kdsl.cp_async(sb, r * 8 + kdsl.swizzle(r, q, 8), bt.vec(8), chunk)
    kdsl.cp_async_commit()
    kdsl.cp_async_wait(0)
    kdsl.fence_proxy_async()
    kdsl.syncthreads()
    if ACC:
        for i in range(N // 2):
            acc[i] = 1.0
    da = kdsl.wgmma_desc(sa, 0)
    db = kdsl.wgmma_desc(sb, 0)
    kdsl.wgmma_fence()
    kdsl.wgmma_mma_async(acc, da, db, T, scale_d=ACC)
    for k in kdsl.range_constexpr(1, K // 16):
        kdsl.wgmma_mma_async(acc, da + 2 * k, db + 2 * k, T)
    kdsl.wgmma_commit()
    kdsl.wgmma_wait(0, acc)
    for i in kdsl.range_constexpr(N // 2):
        out[tid * (N // 2) + i] = acc[i]


def shared_mem(n: int) -> int:
    return (64 + n) * K * 2


def random_inputs(rng, n: int, np_dtype):
    a = rng.uniform(-1, 1, (64, K)).astype(np_dtype)
    bt = rng.uniform(-1, 1, (n, K)).astype(np_dtype)
    return a, bt


def unfragment(out: np.ndarray, n: int) -> np.ndarray:
    """D (64 x n) from the threads' accumulators (128 x n / 2)."""
    row, col = wgmma.accumulator_layout(n)
    d = np.full((64, n), np.nan)
    d[row, col] = out.reshape(128, n // 2)
    return d


@kdsl.kernel(dtypes=["bf16", "f16"])
def wgmma_tile_rs(
    a: Pointer[T],
    b: Pointer[T],
    out: Pointer[Float32],
    N: Constexpr[int] = 128,
    TRANS_B: Constexpr[bool] = True,
):
    """The other operand forms: A (64 x 64, row-major) from registers, each
    thread loading its fragments; B either (TRANS_B) a row-major 64 x N, copied
    MN-major into shared memory (N // 64 blocks of 64 columns, row k of block
    j at chunk (64 j + k) 8, 128-byte swizzled), or given as B^T (N x 64) and
    copied K-major as in wgmma_tile."""
    sb = kdsl.dynamic_shared_array(T.vec(8), N * 8)
    acc = kdsl.local_array(Float32, (N // 2,))
    tid = thread_idx.x
    for p in kdsl.range_constexpr((N * 8 + 127) // 128):
        chunk = p * 128 + tid
        if chunk < N * 8:
            if TRANS_B:  # chunk q of row k of B
                k = chunk // (N // 8)
                q = chunk % (N // 8)
                dst = (q // 8 * 64 + k) * 8 + kdsl.swizzle(k, q % 8, 8)
            else:  # chunk q of row r of B^T
                r = chunk // 8
                dst = r * 8 + kdsl.swizzle(r, chunk % 8, 8)
            kdsl.cp_async(sb, dst, b.vec(8), chunk)
    kdsl.cp_async_commit()
    kdsl.cp_async_wait(0)
    kdsl.fence_proxy_async()
    kdsl.syncthreads()
    # MN-major: 64 columns to a 128-byte row; the next 64 columns 64 rows on
    db = kdsl.wgmma_desc(sb, 0, lbo=64 * 128 if TRANS_B else 16)
    row = tid // 32 * 16 + tid % 32 // 4  # this thread's rows: row, row + 8
    kdsl.wgmma_fence()
    for kk in kdsl.range_constexpr(K // 16):
        at = row * K + kk * 16 + tid % 4 * 2  # columns at, at + 1, at + 8, at + 9
        frag = T.vec(8)(
            a[at],
            a[at + 1],
            a[at + 8 * K],
            a[at + 8 * K + 1],
            a[at + 8],
            a[at + 9],
            a[at + 8 * K + 8],
            a[at + 8 * K + 9],
        )
        step = 128 * kk if TRANS_B else 2 * kk  # 16 rows of 128 bytes; 32 bytes
        kdsl.wgmma_mma_async(acc, frag, db + step, T, scale_d=kk > 0, trans_b=TRANS_B)
    kdsl.wgmma_commit()
    kdsl.wgmma_wait(0, acc)
    for i in kdsl.range_constexpr(N // 2):
        out[tid * (N // 2) + i] = acc[i]


def shared_mem_rs(n: int) -> int:
    return n * K * 2
