"""A warpgroup's integer 8-bit wgmma tile (s8/u8 inputs, s32 D), for the CPU
tests (compiles, SASS, the interpreter); the hardware's s8 x s8 sums are
checked through examples/gemm_fp8.py's int8 instance
(tests/gpu/test_gemm_int8_gpu.py).

``wgmma_int8_tile`` is wgmma_fp8_kernels.wgmma_fp8_tile with Int8/Uint8
operands and an Int32 accumulator: A (64 x K) and B^T (N x K), row-major in
global memory, K a multiple of 128, copied into dynamic shared memory with
the 128-byte swizzle, multiplied by K / 32 m64nNk32 wgmma, each thread's N
/ 2 accumulator elements written to out[thread, i].  ``ACC=True`` starts
from D = c; ``REGS=True`` passes A from registers (mma.sync m16n8k32's A
layout, wgmma.a_fragment_layout(True))."""

import numpy as np

import kdsl
from kdsl import Constexpr, Int32, Pointer, thread_idx
from kdsl.transpile.builtins import wgmma

INT8 = ["i8", "u8"]
TA = kdsl.TypeVar("TA", bound=kdsl.Int)
TB = kdsl.TypeVar("TB", bound=kdsl.Int)


@kdsl.kernel(dtypes={"TA": INT8, "TB": INT8})
def wgmma_int8_tile(
    a: Pointer[TA],
    bt: Pointer[TB],
    c: Pointer[Int32],
    out: Pointer[Int32],
    N: Constexpr[int] = 128,
    K: Constexpr[int] = 128,
    ACC: Constexpr[bool] = False,
    REGS: Constexpr[bool] = False,
):
    sa = kdsl.dynamic_shared_array(TA.vec(16), K // 128 * 64 * 8)
    sb = kdsl.dynamic_shared_array(TB.vec(16), K // 128 * N * 8)
    acc = kdsl.local_array(Int32, (N // 2,))
    tid = thread_idx.x
    # chunk q (16 bytes) of row r of k block kb: at (kb * rows + r) * 8 + q ^ r % 8
    for p in kdsl.range_constexpr(K // 128 * 64 * 8 // 128):
        chunk = p * 128 + tid
        r = chunk // (K // 16)
        kb = chunk % (K // 16) // 8
        q = chunk % 8
        kdsl.cp_async(sa, (kb * 64 + r) * 8 + kdsl.swizzle(r, q, 8), a.vec(16), chunk)
    for p in kdsl.range_constexpr((K // 128 * N * 8 + 127) // 128):
        chunk = p * 128 + tid
        r = chunk // (K // 16)
        kb = chunk % (K // 16) // 8
        q = chunk % 8
        if chunk < K // 128 * N * 8:
            dst = (kb * N + r) * 8 + kdsl.swizzle(r, q, 8)
            kdsl.cp_async(sb, dst, bt.vec(16), chunk)
    kdsl.cp_async_commit()
    kdsl.cp_async_wait(0)
    kdsl.fence_proxy_async()
    kdsl.syncthreads()
    if ACC:
        for i in range(N // 2):
            acc[i] = c[tid * (N // 2) + i]
    kdsl.wgmma_fence()
    row = tid // 32 * 16 + tid % 32 // 4  # this thread's A rows: row, row + 8
    for ks in kdsl.range_constexpr(K // 32):
        kb = ks // 4
        kk = ks % 4
        db = kdsl.wgmma_desc(sb, kb * N * 8) + 2 * kk
        if REGS:  # 4 bytes at columns 4 (l % 4) and + 16, rows row and row + 8
            at = row * K + ks * 32 + tid % 4 * 4
            lo = a.vec(4)[at // 4]
            lo8 = a.vec(4)[(at + 8 * K) // 4]
            hi = a.vec(4)[(at + 16) // 4]
            hi8 = a.vec(4)[(at + 8 * K + 16) // 4]
            frag = TA.vec(16)(
                lo[0],
                lo[1],
                lo[2],
                lo[3],
                lo8[0],
                lo8[1],
                lo8[2],
                lo8[3],
                hi[0],
                hi[1],
                hi[2],
                hi[3],
                hi8[0],
                hi8[1],
                hi8[2],
                hi8[3],
            )
            kdsl.wgmma_mma_async(acc, frag, db, (TA, TB), scale_d=ACC or ks > 0)
        else:
            da = kdsl.wgmma_desc(sa, kb * 64 * 8) + 2 * kk
            kdsl.wgmma_mma_async(acc, da, db, (TA, TB), scale_d=ACC or ks > 0)
    kdsl.wgmma_commit()
    kdsl.wgmma_wait(0, acc)
    for i in kdsl.range_constexpr(N // 2):
        out[tid * (N // 2) + i] = acc[i]


def shared_mem(n: int, k: int = 128) -> int:
    return (64 + n) * k


def instance(ta: str, tb: str, **constexprs):
    return wgmma_int8_tile.dispatch(ta, tb, **constexprs)


def fragment(d: np.ndarray) -> np.ndarray:
    """The threads' accumulators (128 x n / 2, flat) of D (64 x n)."""
    row, col = wgmma.accumulator_layout(d.shape[1])
    return np.ascontiguousarray(d[row, col], np.int32).reshape(-1)


def unfragment(out: np.ndarray, n: int) -> np.ndarray:
    row, col = wgmma.accumulator_layout(n)
    d = np.zeros((64, n), np.int32)
    d[row, col] = out.reshape(128, n // 2)
    return d


def model(a, bt, c=None) -> np.ndarray:
    """D = c + A B exactly, wrapped to Int32 (the order of a wrapping sum
    cannot matter)."""
    d = a.astype(np.int64) @ bt.astype(np.int64).T
    if c is not None:
        d += c.astype(np.int64)
    return ((d + 2**31) % 2**32 - 2**31).astype(np.int32)


@kdsl.kernel
def int_gemm(
    a: Pointer[kdsl.Int8], bt: Pointer[kdsl.Int8], c: Pointer[Int32], N: Int32, K: Int32
):
    """The arithmetic of examples/gemm_fp8.py's int8 instance (int_mm) in a
    kernel the interpreter runs (cp.async copies and one warpgroup a block
    in place of its TMA pipeline): a block computes 64 rows x 128 columns of
    c = a @ bt.T from 128-deep k tiles, 4 m64n128k32 wgmma each (the first
    with scale_d=False), one Int32 accumulator over the whole of K."""
    sa = kdsl.dynamic_shared_array(kdsl.Int8.vec(16), 64 * 8)
    sb = kdsl.dynamic_shared_array(kdsl.Int8.vec(16), 128 * 8)
    acc = kdsl.local_array(Int32, (64,))
    tid = thread_idx.x
    m0 = kdsl.block_idx.x * 64
    n0 = kdsl.block_idx.y * 128
    for kt in range(K // 128):
        for p in kdsl.range_constexpr(4):  # A: 64 rows x 8 chunks
            chunk = p * 128 + tid
            r = chunk // 8
            q = chunk % 8
            src = ((m0 + r) * K + kt * 128) // 16 + q
            kdsl.cp_async(sa, r * 8 + kdsl.swizzle(r, q, 8), a.vec(16), src)
        for p in kdsl.range_constexpr(8):  # B^T: 128 rows x 8 chunks
            chunk = p * 128 + tid
            r = chunk // 8
            q = chunk % 8
            src = ((n0 + r) * K + kt * 128) // 16 + q
            kdsl.cp_async(sb, r * 8 + kdsl.swizzle(r, q, 8), bt.vec(16), src)
        kdsl.cp_async_commit()
        kdsl.cp_async_wait(0)
        kdsl.fence_proxy_async()
        kdsl.syncthreads()
        da = kdsl.wgmma_desc(sa, 0)
        db = kdsl.wgmma_desc(sb, 0)
        kdsl.wgmma_fence()
        kdsl.wgmma_mma_async(acc, da, db, kdsl.Int8, scale_d=kt > 0)
        for kk in kdsl.range_constexpr(1, 4):
            kdsl.wgmma_mma_async(acc, da + 2 * kk, db + 2 * kk, kdsl.Int8)
        kdsl.wgmma_commit()
        kdsl.wgmma_wait(0, acc)
        kdsl.syncthreads()  # the tiles are read: the next copies may land
    row = m0 + tid // 32 * 16 + tid % 32 // 4
    col0 = n0 + tid % 4 * 2
    for j in kdsl.range_constexpr(16):
        col = col0 + j * 8
        c.vec(2)[(row * N + col) // 2] = Int32.vec(2)(acc[4 * j], acc[4 * j + 1])
        c.vec(2)[((row + 8) * N + col) // 2] = Int32.vec(2)(
            acc[4 * j + 2], acc[4 * j + 3]
        )


INT_GEMM_SHARED = (64 + 128) * 128
