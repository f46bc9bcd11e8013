"""A warpgroup's 8-bit wgmma tile, for the CPU tests (compiles, SASS, the
interpreter) and the GPU test (tests/gpu/test_wgmma_fp8_gpu.py: the
interpreter's model against the hardware).

``wgmma_fp8_tile`` copies A (64 x K) and B^T (N x K), row-major fp8 in
global memory, K a multiple of 128 (one 128-byte swizzled row is 128
elements), into dynamic shared memory with the 128-byte swizzle (16-byte
chunk q of row r of each 128-wide k block at chunk q ^ r % 8), multiplies
them with K / 32 m64nNk32 wgmma (the descriptor advanced 32 bytes each, a
k block's tile rows * 128 bytes on), and writes each thread's N / 2
accumulator elements to out[thread, i].  ``ACC=True`` starts from D = c
(the thread's elements of a given 64 x N f32 matrix, scale_d then adds).
``REGS=True`` passes A from registers: each thread gathers its TA x16
fragment (mma.sync m16n8k32's A layout, wgmma.a_fragment_layout(True))."""

import numpy as np

import kdsl
from examples_index import example_modules
from kdsl import (
    Constexpr,
    Float8E4M3FN,
    Float16,
    Float32,
    Int32,
    Pointer,
    Uint8,
    block_idx,
    thread_idx,
)
from kdsl.transpile.builtins import wgmma

# the block-scaled promotion of examples/gemm_fp8.py itself (acc += part *
# scale, one fma an element), so that the interpreter runs its arithmetic
promote = example_modules()["gemm_fp8"].promote

FP8 = ["f8e4m3fn", "f8e5m2"]
TA = kdsl.TypeVar("TA", bound=kdsl.Float)
TB = kdsl.TypeVar("TB", bound=kdsl.Float)


@kdsl.kernel(dtypes={"TA": FP8, "TB": FP8})
def wgmma_fp8_tile(
    a: Pointer[TA],
    bt: Pointer[TB],
    c: Pointer[Float32],
    out: Pointer[Float32],
    N: Constexpr[int] = 128,
    K: Constexpr[int] = 128,
    ACC: Constexpr[bool] = False,
    REGS: Constexpr[bool] = False,
):
    sa = kdsl.dynamic_shared_array(TA.vec(16), K // 128 * 64 * 8)
    sb = kdsl.dynamic_shared_array(TB.vec(16), K // 128 * N * 8)
    acc = kdsl.local_array(Float32, (N // 2,))
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
    return wgmma_fp8_tile.dispatch(ta, tb, **constexprs)


def fragment(d: np.ndarray) -> np.ndarray:
    """The threads' accumulators (128 x n / 2, flat) of D (64 x n)."""
    row, col = wgmma.accumulator_layout(d.shape[1])
    return np.ascontiguousarray(d[row, col], np.float32).reshape(-1)


def unfragment(out: np.ndarray, n: int) -> np.ndarray:
    row, col = wgmma.accumulator_layout(n)
    d = np.full((64, n), np.nan)
    d[row, col] = out.reshape(128, n // 2)
    return d


def model(a, bt, c=None) -> np.ndarray:
    """The interpreter's rule in numpy: exact products (fp8 products are exact
    in f32 already), summed onto D in float64 and rounded to f32 once per
    k32 instruction."""
    a64, b64 = a.astype(np.float64), bt.astype(np.float64).T
    d = np.zeros((64, bt.shape[0])) if c is None else c.astype(np.float64)
    for k0 in range(0, a.shape[1], 32):
        d = (d + a64[:, k0 : k0 + 32] @ b64[k0 : k0 + 32]).astype(np.float32)
    return d.astype(np.float32)


def random_fp8(rng, shape, np_dtype, scale=1.0):
    """Random fp8 values spread over several binades (signs mixed)."""
    mag = np.exp2(rng.integers(-4, 3, shape)) * rng.uniform(1, 2, shape) * scale
    return (mag * rng.choice([-1, 1], shape)).astype(np_dtype)


def tolerance(a, bt, c=None, rounding=2.0**-23) -> np.ndarray:
    """The stated bound (docs/tensor-cores.md, "fp8"): per k32 instruction,
    33 addends (D and 32 products), each possibly truncated below 2^-13 of
    the largest one's binade (a ~14-bit internal sum, as DeepSeek-V3 and
    SageAttention2 report for Hopper), plus the f32 rounding of the result:
    ``sum over instructions of 33 * 2^-12 * max(|D|, |a_k b_k|) + 2^-23
    |D'|``, computed from the model's running D (f16 accumulators:
    ``rounding=2^-11``, the f16 rounding of D')."""
    a64, b64 = a.astype(np.float64), bt.astype(np.float64).T
    d = np.zeros((64, bt.shape[0])) if c is None else c.astype(np.float64)
    tol = np.zeros_like(d)
    for k0 in range(0, a.shape[1], 32):
        p = np.abs(a64[:, k0 : k0 + 32, None] * b64[None, k0 : k0 + 32, :])
        big = np.maximum(np.abs(d), p.max(axis=1))
        d = (d + a64[:, k0 : k0 + 32] @ b64[k0 : k0 + 32]).astype(np.float32)
        tol += 33 * 2.0**-12 * big + rounding * np.abs(d)
    return tol


@kdsl.kernel(dtypes={"TA": FP8, "TB": FP8})
def wgmma_fp8_tile_f16(
    a: Pointer[TA],
    bt: Pointer[TB],
    c: Pointer[Float16],
    out: Pointer[Float16],
    N: Constexpr[int] = 128,
):
    """wgmma_fp8_tile with an f16 accumulator (PTX's .f16 D): K = 128, A
    and B^T copied as there, D starting from c (the thread's N / 2 f16
    elements, as pairs), 4 m64nNk32 wgmma, the pairs written back."""
    sa = kdsl.dynamic_shared_array(TA.vec(16), 64 * 8)
    sb = kdsl.dynamic_shared_array(TB.vec(16), N * 8)
    acc = kdsl.local_array(Float16.vec(2), (N // 4,))
    tid = thread_idx.x
    for p in kdsl.range_constexpr(64 * 8 // 128):
        chunk = p * 128 + tid
        r = chunk // 8
        kdsl.cp_async(sa, r * 8 + kdsl.swizzle(r, chunk % 8, 8), a.vec(16), chunk)
    for p in kdsl.range_constexpr((N * 8 + 127) // 128):
        chunk = p * 128 + tid
        r = chunk // 8
        if chunk < N * 8:
            kdsl.cp_async(sb, r * 8 + kdsl.swizzle(r, chunk % 8, 8), bt.vec(16), chunk)
    kdsl.cp_async_commit()
    kdsl.cp_async_wait(0)
    kdsl.fence_proxy_async()
    kdsl.syncthreads()
    for i in range(N // 4):
        acc[i] = c.vec(2)[tid * (N // 4) + i]
    da = kdsl.wgmma_desc(sa, 0)
    db = kdsl.wgmma_desc(sb, 0)
    kdsl.wgmma_fence()
    for kk in kdsl.range_constexpr(4):
        kdsl.wgmma_mma_async(acc, da + 2 * kk, db + 2 * kk, (TA, TB))
    kdsl.wgmma_commit()
    kdsl.wgmma_wait(0, acc)
    for i in kdsl.range_constexpr(N // 4):
        out.vec(2)[tid * (N // 4) + i] = acc[i]


def model_f16(a, bt, c) -> np.ndarray:
    """The interpreter's rule for f16 accumulators: each k32 instruction's
    exact sum rounded to f16."""
    a64, b64 = a.astype(np.float64), bt.astype(np.float64).T
    d = c.astype(np.float64)
    for k0 in range(0, a.shape[1], 32):
        d = (d + a64[:, k0 : k0 + 32] @ b64[k0 : k0 + 32]).astype(np.float16)
    return d


@kdsl.kernel
def scaled_gemm(
    a: Pointer[Float8E4M3FN],
    bt: Pointer[Float8E4M3FN],
    scale_a: Pointer[Float32],
    scale_b: Pointer[Float32],
    c: Pointer[Float32],
    N: Int32,
    K: Int32,
    BLOCK_SCALED: Constexpr[bool] = False,
):
    """The arithmetic of examples/gemm_fp8.py in a kernel the interpreter
    runs (cp.async copies and one warpgroup a block in place of its TMA
    pipeline, which only a GPU runs): a block computes 64 rows x 128
    columns of c from 128-deep k tiles, 4 m64n128k32 wgmma each.
    Per-tensor: one accumulator over the whole of K, times scale_a[0]
    scale_b[0] at the end.  Block-scaled: each k tile's product in ``part``
    (scale_d=False), promoted into ``acc`` times scale_a[row, kt]
    scale_b[column block, kt] by the example's own ``promote``, its scales
    laid out as its host functions take them."""
    sa = kdsl.dynamic_shared_array(Uint8.vec(16), 64 * 8)
    sb = kdsl.dynamic_shared_array(Uint8.vec(16), 128 * 8)
    acc = kdsl.local_array(Float32, (64,))
    part = kdsl.local_array(Float32, (64,))
    tid = thread_idx.x
    m0 = block_idx.x * 64
    n0 = block_idx.y * 128
    ktiles = K // 128
    row = m0 + tid // 32 * 16 + tid % 32 // 4
    for i in range(64):
        acc[i] = 0.0
    for kt in range(ktiles):
        for p in kdsl.range_constexpr(4):  # A: 64 rows x 8 chunks
            chunk = p * 128 + tid
            r = chunk // 8
            q = chunk % 8
            src = ((m0 + r) * K + kt * 128) // 16 + q
            kdsl.cp_async(sa, r * 8 + kdsl.swizzle(r, q, 8), a.view(Uint8).vec(16), src)
        for p in kdsl.range_constexpr(8):  # B^T: 128 rows x 8 chunks
            chunk = p * 128 + tid
            r = chunk // 8
            q = chunk % 8
            src = ((n0 + r) * K + kt * 128) // 16 + q
            kdsl.cp_async(
                sb, r * 8 + kdsl.swizzle(r, q, 8), bt.view(Uint8).vec(16), src
            )
        kdsl.cp_async_commit()
        kdsl.cp_async_wait(0)
        kdsl.fence_proxy_async()
        kdsl.syncthreads()
        da = kdsl.wgmma_desc(sa, 0)
        db = kdsl.wgmma_desc(sb, 0)
        kdsl.wgmma_fence()
        if BLOCK_SCALED:
            kdsl.wgmma_mma_async(part, da, db, Float8E4M3FN, scale_d=False)
            for kk in kdsl.range_constexpr(1, 4):
                kdsl.wgmma_mma_async(part, da + 2 * kk, db + 2 * kk, Float8E4M3FN)
            kdsl.wgmma_commit()
            kdsl.wgmma_wait(0, part)
            s_b = scale_b[block_idx.y * ktiles + kt]
            s0 = scale_a[row * ktiles + kt] * s_b
            s8 = scale_a[(row + 8) * ktiles + kt] * s_b
            promote(acc, part, s0, s8, 0)
        else:
            for kk in kdsl.range_constexpr(4):
                kdsl.wgmma_mma_async(acc, da + 2 * kk, db + 2 * kk, Float8E4M3FN)
            kdsl.wgmma_commit()
            kdsl.wgmma_wait(0, acc)
        kdsl.syncthreads()  # the tiles are read: the next copies may land
    scale = Float32(1.0)
    if not BLOCK_SCALED:
        scale = scale_a[0] * scale_b[0]
    col0 = n0 + tid % 4 * 2
    for j in kdsl.range_constexpr(16):
        col = col0 + j * 8
        c[row * N + col] = acc[4 * j] * scale
        c[row * N + col + 1] = acc[4 * j + 1] * scale
        c[(row + 8) * N + col] = acc[4 * j + 2] * scale
        c[(row + 8) * N + col + 1] = acc[4 * j + 3] * scale


SCALED_GEMM_SHARED = (64 + 128) * 128


# the whole-tile epilogue's pieces of examples/gemm_fp8.py
_F = example_modules()["gemm_fp8"]
word, row8, quad_transpose = _F.word, _F.row8, _F.quad_transpose
O = kdsl.TypeVar("O", bound=kdsl.Float)


@kdsl.kernel(dtypes=["bf16", "f32"])
def epilogue_rows(acc_in: Pointer[Float32], c: Pointer[O]):
    """One warp's 4 x 8-column blocks of two rows per lane group, as
    gemm_fp8's whole-tile epilogue stores them: thread l's pairs (b 0-3:
    acc_in[8 l + 2 b], + 1, columns 8 b + 2 (l % 4), + 1 of row l // 4)
    transposed across each 4 lanes (quad_transpose), then lane l writes
    the 8 columns of block l % 4 of row l // 4 with one store: c is 8 x 32."""
    lane = thread_idx.x
    p0 = O.vec(2)(acc_in[8 * lane], acc_in[8 * lane + 1])
    p1 = O.vec(2)(acc_in[8 * lane + 2], acc_in[8 * lane + 3])
    p2 = O.vec(2)(acc_in[8 * lane + 4], acc_in[8 * lane + 5])
    p3 = O.vec(2)(acc_in[8 * lane + 6], acc_in[8 * lane + 7])
    w0, w1, w2, w3 = quad_transpose(word(p0), word(p1), word(p2), word(p3), lane % 4)
    at = (lane // 4 * 32 + lane % 4 * 8) // 8
    c.vec(8)[at] = row8(w0, w1, w2, w3).bitcast(O.vec(8))
