"""matmul: c = a @ b for row-major (M, K) and (K, N) matrices.

``matmul``: the textbook shared-memory tiling, for every float dtype (below).
``sgemm``: the fast Float32 kernel (register tiles, Float32x4 shared-memory
reads, double buffering; further down, with why each trick is there);
``sgemm_vec``: the same with 16-byte global loads and BK = 16, for N and K
multiples of 4; ``sgemm_warp``: the same multiply warp-tiled at 128
registers (two blocks an SM), for every c at least one tile wide (whole
tiles, or EDGE: ragged ones), autotuned (``launch_sgemm`` picks). All three
split K across the grid's depth when the tiles leave SMs idle
(``sgemm_split``, ``warp_split``), their slices' Float32 sums added by
``split_sum`` (which gemm_tma.py's split-K uses too).

``matmul``, tiled in shared memory:

Launch with block (TILE, TILE) and grid (ceil(N/TILE), ceil(M/TILE)).
Accumulates in Float32 for half types, in the dtype itself otherwise.
"""

import sys
from pathlib import Path

# the siblings (block_reduce.py) import by name however this file is loaded
if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import kdsl
from block_reduce import multiprocessors
from kdsl import (
    Constexpr,
    Float32,
    Float32x4,
    Int32,
    Pointer,
    block_idx,
    grid_dim,
    thread_idx,
)

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel(no_overflow=True)
def matmul(
    a: Pointer[D],
    b: Pointer[D],
    c: Pointer[D],
    M: Int32,
    N: Int32,
    K: Int32,
    TILE: Constexpr[int] = 16,
):
    kdsl.assume(M >= 0 and N >= 0 and K >= 0)
    if D.width == 16:
        acc = Float32(0)
    else:
        acc = D(0)
    a_tile = kdsl.shared_array(D, (TILE, TILE))
    b_tile = kdsl.shared_array(D, (TILE, TILE))
    tx = thread_idx.x
    ty = thread_idx.y
    row = block_idx.y * TILE + ty
    col = block_idx.x * TILE + tx
    for k0 in range(0, K, TILE):
        a_tile[ty, tx] = a[row * K + k0 + tx] if row < M and k0 + tx < K else D(0)
        b_tile[ty, tx] = b[(k0 + ty) * N + col] if k0 + ty < K and col < N else D(0)
        kdsl.syncthreads()
        for k in kdsl.range_constexpr(TILE):
            acc = acc + a_tile[ty, k].to(acc.dtype) * b_tile[k, tx].to(acc.dtype)
        kdsl.syncthreads()
    if row < M and col < N:
        c[row * N + col] = acc.to(D)


# -- split-K -----------------------------------------------------------------------
#
# A GEMM with few tiles of c (a small M, or tiles that fill an SM wave badly)
# leaves multiprocessors idle; split-K cuts each tile's k tiles into SPLIT
# slices, each multiplied by a block of its own into a Float32 slice of
# partial sums (`part`: SPLIT slices of M x N, each starting on a whole
# Float32x4: `slice_size`), which `split_sum` then adds up in slice order (the same bits every run: no atomics). `sgemm` and
# `sgemm_vec` take slice `block_idx.z` of `grid_dim.z` (`k_slice`);
# examples/gemm_tma.py loops over (slice, tile) units.

SUM_THREADS = 256  # split_sum's block
SPLITS = (1, 2, 3, 4, 6, 8)  # the k slices a tile may be cut into


@kdsl.func
def k_slice(ktiles):
    """The k tiles of this block's slice, split-K's slice ``block_idx.z`` of
    ``grid_dim.z``: its first and how many (a grid of depth 1: all of them)."""
    first = block_idx.z * ktiles // grid_dim.z
    return first, (block_idx.z + 1) * ktiles // grid_dim.z - first


@kdsl.func
def slice_size(M, N):
    """Elements from one slice of split-K's partial sums to the next: M N
    rounded up to whole Float32x4 (16-byte stores into every slice)."""
    return (M * N + 3) // 4 * 4


@kdsl.kernel(dtypes=[Float32, "bf16", "f16"], block=SUM_THREADS, no_overflow=True)
def split_sum(
    part: Pointer[Float32],
    c: Pointer[D],
    M: Int32,
    N: Int32,
    SPLIT: Constexpr[int] = 2,
):
    """c (M x N) = the sum of the SPLIT slices of ``part`` (split-K's Float32
    partial sums, ``slice_size(M, N)`` apart), added in slice order and
    rounded once to D: a thread an element."""
    kdsl.assume(M >= 0 and N >= 0)
    i = block_idx.x * SUM_THREADS + thread_idx.x
    if i < M * N:
        apart = slice_size(M, N)
        total = part[i]
        for s in kdsl.range_constexpr(1, SPLIT):  # SPLIT loads in flight
            total += part[s * apart + i]
        c[i] = total.to(D)


def sum_slices(part, c, M: int, N: int, split: int, stream=None) -> None:
    """c (M x N) = the sum of ``part``'s ``split`` slices."""
    grid = (M * N + SUM_THREADS - 1) // SUM_THREADS
    split_sum[grid](part, c, M, N, SPLIT=split, stream=stream)


def slice_adder(part, c, M: int, N: int, split: int):
    """``sum_slices``' launch for these arguments, bound to its instance
    (nothing to key on at each call): ``adder(part, c, M, N)``."""
    inst = split_sum.instance_for((part, c, M, N), {"SPLIT": split})
    return inst[(M * N + SUM_THREADS - 1) // SUM_THREADS]


def partial_sums_size(M: int, N: int, split: int) -> int:
    """Float32 elements of split-K's ``split`` slices of M x N, as
    ``slice_size`` spaces them (its value on the host)."""
    return split * ((M * N + 3) // 4 * 4)


def partial_sums(like, M: int, N: int, split: int):
    """Split-K's partial sums: ``split`` slices of M x N Float32, as
    ``slice_size`` spaces them, on ``like``'s device."""
    return empty_f32(like, partial_sums_size(M, N, split))


def empty_f32(like, n: int):
    """An uninitialised Float32 buffer of ``n`` elements on ``like``'s device,
    of its library (PyTorch or CuPy; numpy for the interpreter): split-K's
    partial sums."""
    return _buffer(like, n, "float32", zero=False)


def zeros_i32(like, n: int):
    """``n`` Int32 zeros on ``like``'s device, of its library: split-K's
    arrival counters (examples/gemm_tma.py)."""
    return _buffer(like, n, "int32", zero=True)


def _buffer(like, n: int, dtype: str, zero: bool):
    kind = type(like).__module__
    if kind.startswith("torch"):
        import torch

        make = torch.zeros if zero else torch.empty
        return make(n, dtype=getattr(torch, dtype), device=like.device)
    if kind.startswith("cupy"):
        import cupy

        with cupy.cuda.Device(like.device.id):
            return (cupy.zeros if zero else cupy.empty)(n, dtype=dtype)
    import numpy

    return (numpy.zeros if zero else numpy.empty)(n, dtype=dtype)


# -- SGEMM: the fast Float32 kernel ----------------------------------------------
#
# c = a @ b in Float32, exactly: every product-sum is a `kdsl.math.fma`
# written out (one rounding, as cuBLAS's SGEMM; kdsl never contracts on its
# own), no TF32. The tiling is the classic one for a register-tiled SGEMM:
#
# * a block of 256 threads computes a BM x BN = 128 x 128 tile of c; each
#   thread 8 x 8 of it, in registers (`acc`, a local array indexed only by
#   compile-time indices: ptxas keeps it in registers, no spills);
# * the K dimension advances BK = 8 at a time: the a and b tiles are staged
#   in shared memory, a transposed (`a_s[k, m]`), so that a thread reads its
#   8 values of a column of a and of a row of b as two Float32x4 each
#   (LDS.128: 4 shared loads feed 64 FFMAs);
# * double buffering: while the block multiplies tile t out of one shared
#   buffer, each thread's loads of tile t + 1 are already in flight to
#   registers; they land in the other buffer after the multiply, so one
#   barrier per tile suffices;
# * a thread owns rows ty*4 .. ty*4+3 and 64+ty*4 .. 64+ty*4+3 (and the same
#   pattern of columns): its two Float32x4 reads are 256 bytes apart, and
#   the 16 threads of a half-warp read 16 consecutive Float32x4 of b (no
#   bank conflicts);
# * a_s rows are padded by one Float32x4 so that the eight threads that
#   store the same rows of eight k's hit different banks.
#
# * registers: 141 a thread (ptxas, CUDA 12), no spills, so one block an SM.
#   `launch_bounds=(256, 2)` would fit two blocks in 128 registers, at the
#   price of 16 bytes of spills inside the main loop; measure before
#   changing it.
#
# Any M, N, K: loads past an edge read 0, stores past an edge are skipped.
# Launch: grid (ceil(N / 128), ceil(M / 128)), block 256.

BM = 128
BN = 128
BK = 8


@kdsl.kernel(dtypes=[Float32], launch_bounds=256, no_overflow=True)
def sgemm(
    a: Pointer[D],
    b: Pointer[D],
    c: Pointer[D],
    part: Pointer[Float32] | None,
    M: Int32,
    N: Int32,
    K: Int32,
):
    kdsl.assume(M >= 0 and N >= 0 and K >= 0)
    a_s = kdsl.shared_array(Float32x4, (2, BK, BM // 4 + 1))
    b_s = kdsl.shared_array(Float32x4, (2, BK, BN // 4))
    acc = kdsl.local_array(Float32, (8, 8))
    for r in kdsl.range(8, unroll=8):
        for s in kdsl.range(8, unroll=8):
            acc[r, s] = 0
    tid = thread_idx.x
    tx = tid % 16
    ty = tid // 16
    m0 = block_idx.y * BM
    n0 = block_idx.x * BN
    # Who loads what: a thread brings 4 consecutive rows of one column of
    # the a tile (a warp reads 4 rows x 8 k: whole 32-byte sectors) and 4
    # consecutive columns of one row of the b tile.
    a_k = tid % BK
    a_m = (tid // BK) * 4
    b_k = tid // (BN // 4)
    b_n = (tid % (BN // 4)) * 4
    ra = Float32x4.splat(0)
    rb = Float32x4.splat(0)
    # this block's k tiles (all of them, or a slice with split-K)
    first, tiles = k_slice((K + BK - 1) // BK)
    k0 = first * BK

    # tile 0 -> registers -> buffer 0
    for p in kdsl.range_constexpr(4):
        row = m0 + a_m + p
        ka = k0 + a_k
        ra[p] = a[row * K + ka] if row < M and ka < K else 0
        col = n0 + b_n + p
        kb = k0 + b_k
        rb[p] = b[kb * N + col] if kb < K and col < N else 0
    a_s[0, a_k, a_m // 4] = ra
    b_s[0, b_k, b_n // 4] = rb
    kdsl.syncthreads()

    for t in range(tiles):
        cur = t % 2
        k1 = k0 + (t + 1) * BK
        # The next tile's loads, issued before the multiply so that they are
        # in flight during it. Unconditional on purpose: past the last tile
        # the guards read 0 (k >= K) without touching memory, and a load
        # under `if t + 1 < tiles` would be sunk by the compiler to its use
        # after the multiply, where it stalls.
        for q in kdsl.range_constexpr(4):
            row = m0 + a_m + q
            ka = k1 + a_k
            ra[q] = a[row * K + ka] if row < M and ka < K else 0
            col = n0 + b_n + q
            kb = k1 + b_k
            rb[q] = b[kb * N + col] if kb < K and col < N else 0
        for k in kdsl.range(BK, unroll=BK):
            a0 = a_s[cur, k, ty]
            a1 = a_s[cur, k, 16 + ty]
            b0 = b_s[cur, k, tx]
            b1 = b_s[cur, k, 16 + tx]
            for i in kdsl.range_constexpr(4):
                for j in kdsl.range_constexpr(4):
                    acc[i, j] = kdsl.math.fma(a0[i], b0[j], acc[i, j])
                    acc[i, 4 + j] = kdsl.math.fma(a0[i], b1[j], acc[i, 4 + j])
                    acc[4 + i, j] = kdsl.math.fma(a1[i], b0[j], acc[4 + i, j])
                    acc[4 + i, 4 + j] = kdsl.math.fma(a1[i], b1[j], acc[4 + i, 4 + j])
        # the other buffer was last read before the previous barrier
        a_s[1 - cur, a_k, a_m // 4] = ra
        b_s[1 - cur, b_k, b_n // 4] = rb
        kdsl.syncthreads()

    # c (or split-K's slice of partial sums): row block h (0: rows ty*4..,
    # 1: rows 64+ty*4..), 4 columns at a time
    dst = c
    if part is not None:
        dst = part + block_idx.z * slice_size(M, N)
    cv = dst.vec(4)
    for h in kdsl.range_constexpr(2):
        for ri in kdsl.range_constexpr(4):
            row = m0 + h * 64 + ty * 4 + ri
            for w in kdsl.range_constexpr(2):
                col = n0 + w * 64 + tx * 4
                out = Float32x4.splat(0)
                for e in kdsl.range_constexpr(4):
                    out[e] = acc[h * 4 + ri, w * 4 + e]
                if row < M:
                    if (
                        N % 4 == 0 and col + 3 < N
                    ):  # whole and aligned: one 16-byte store
                        cv[(row * N + col) // 4] = out
                    else:
                        for z in kdsl.range_constexpr(4):
                            if col + z < N:
                                dst[row * N + col + z] = out[z]


# -- SGEMM with 16-byte global loads ---------------------------------------------
#
# `sgemm_vec` is `sgemm` with the global traffic vectorised, for the common
# case N % 4 == 0 and K % 4 == 0 (16-byte aligned rows; `launch_sgemm`
# checks and falls back to `sgemm` otherwise):
#
# * BK = 16: half the barriers of `sgemm` per multiply-add (1024 FFMAs a
#   thread between two barriers), for 16 more KiB of shared memory;
# * the a and b tiles (128 x 16 and 16 x 128 floats, 512 Float32x4 each)
#   come in as Float32x4 (LDG.128), four a thread: warps 0-3 bring a's
#   tile, warps 4-7 b's (a role per warp, so no divergence). A thread of
#   the first four brings a 4 x 4 block of a (rows 4g .. 4g+3, four
#   consecutive k), transposes it in registers and stores four Float32x4 of
#   a_s (STS.128): a_s holds a transposed (a_s[k, m]) without a 4-byte
#   shared store. A warp reads 8 x 4 such blocks (64 bytes of each of 32
#   rows: whole sectors); a quarter warp stores 8 consecutive Float32x4 of
#   one a_s row (no bank conflicts);
# * b's Float32x4 go into b_s as they are; a warp reads 512 consecutive
#   bytes of one row of b.
#
# The multiply is `sgemm`'s, fma by fma, so the results are the same bits.
# One loop does it all: its first pass (t = -1) only loads tile 0 and
# stores it to buffer 0, so the loads and stores are written once.
#
# * registers: 147 a thread, no spills, one block an SM. With
#   `launch_bounds=(256, 2)` ptxas fits 128 (two blocks an SM) by spilling
#   loop-invariant address values (about 20 local loads and stores a
#   tile): measure on the GPU before changing it. BK = 32 would need 66 KiB
#   of shared memory, past the 48 KiB of static shared memory (it would take
#   a dynamic_shared_array).

BKV = 16


@kdsl.kernel(dtypes=[Float32], launch_bounds=256, no_overflow=True)
def sgemm_vec(
    a: Pointer[D],
    b: Pointer[D],
    c: Pointer[D],
    part: Pointer[Float32] | None,
    M: Int32,
    N: Int32,
    K: Int32,
):
    kdsl.assume(M >= 0 and N >= 0 and K >= 0)
    BK = BKV
    a_s = kdsl.shared_array(Float32x4, (2, BK, BM // 4 + 1))
    b_s = kdsl.shared_array(Float32x4, (2, BK, BN // 4))
    acc = kdsl.local_array(Float32, (8, 8))
    for r in kdsl.range(8, unroll=8):
        for s in kdsl.range(8, unroll=8):
            acc[r, s] = 0
    av = a.vec(4)
    bv = b.vec(4)
    kv = K // 4  # Float32x4 in a row of a
    nv = N // 4  # Float32x4 in a row of b
    tid = thread_idx.x
    tx = tid % 16
    ty = tid // 16
    m0 = block_idx.y * BM
    n0 = block_idx.x * BN
    LOADS = BK // 4  # Float32x4 a thread brings per tile
    loads_a = tid < 128  # warps 0-3: a's tile; warps 4-7: b's
    # a: BK // 16 blocks of 4 x 4, rows 4g .. 4g+3 (g: 0 .. 31), vectors
    # ka, ka + 4, ... (ka: 0 .. 3) of the tile's row
    g = tid % 8 + 8 * (tid // 32)
    ka = (tid // 8) % 4
    # b: vectors u + 128 q (q: 0 .. LOADS-1) of the tile (32 a row): rows
    # u // 32 + 4 q, column u % 32
    u = tid - 128
    bk = u // 32
    bn = n0 // 4 + u % 32
    r = kdsl.local_array(Float32x4, LOADS)  # the vectors in flight
    zero = Float32x4.splat(0)
    # this block's k tiles (all of them, or a slice with split-K)
    first, tiles = k_slice((K + BK - 1) // BK)

    for t in range(-1, tiles):
        # t = -1: only the loads of tile 0 and their stores to buffer 0.
        # Else: the loads of tile t + 1, issued before the multiply of tile
        # t so that they are in flight during it (unconditional for the same
        # reason as in `sgemm`: past the end the guards read 0), then stored
        # to the other buffer, which was last read before the previous
        # barrier.
        nxt = (t + 1) % 2
        for j in kdsl.range_constexpr(BK // 16):
            for q in kdsl.range_constexpr(4):
                if loads_a:
                    row = m0 + 4 * g + q
                    kk = (first + t + 1) * (BK // 4) + ka + 4 * j
                    r[4 * j + q] = av[row * kv + kk] if row < M and kk < kv else zero
                else:
                    kb = (first + t + 1) * BK + bk + 4 * (4 * j + q)
                    r[4 * j + q] = bv[kb * nv + bn] if kb < K and bn < nv else zero
        if t >= 0:
            cur = t % 2
            for k in kdsl.range(BK, unroll=BK):
                a0 = a_s[cur, k, ty]
                a1 = a_s[cur, k, 16 + ty]
                b0 = b_s[cur, k, tx]
                b1 = b_s[cur, k, 16 + tx]
                for i in kdsl.range_constexpr(4):
                    for j in kdsl.range_constexpr(4):
                        acc[i, j] = kdsl.math.fma(a0[i], b0[j], acc[i, j])
                        acc[i, 4 + j] = kdsl.math.fma(a0[i], b1[j], acc[i, 4 + j])
                        acc[4 + i, j] = kdsl.math.fma(a1[i], b0[j], acc[4 + i, j])
                        acc[4 + i, 4 + j] = kdsl.math.fma(
                            a1[i], b1[j], acc[4 + i, 4 + j]
                        )
        if loads_a:
            for j in kdsl.range_constexpr(BK // 16):
                for e in kdsl.range_constexpr(4):
                    w = r[4 * j + e]
                    for q in kdsl.range_constexpr(4):
                        w[q] = r[4 * j + q][e]  # row 4g + q, k 4 (ka + 4j) + e
                    a_s[nxt, 4 * (ka + 4 * j) + e, g] = w
        else:
            for q in kdsl.range_constexpr(LOADS):
                b_s[nxt, bk + 4 * q, u % 32] = r[q]
        kdsl.syncthreads()

    # c (or split-K's slice of partial sums): as in `sgemm`, whole Float32x4
    # (N % 4 == 0), rows past M skipped
    dst = c
    if part is not None:
        dst = part + block_idx.z * slice_size(M, N)
    cv = dst.vec(4)
    for h in kdsl.range_constexpr(2):
        for ri in kdsl.range_constexpr(4):
            row = m0 + h * 64 + ty * 4 + ri
            for v in kdsl.range_constexpr(2):
                col = n0 + v * 64 + tx * 4
                out = Float32x4.splat(0)
                for e in kdsl.range_constexpr(4):
                    out[e] = acc[h * 4 + ri, v * 4 + e]
                if row < M and col < N:
                    cv[(row * N + col) // 4] = out


# -- SGEMM, warp-tiled, two blocks an SM -------------------------------------------
#
# `sgemm_warp` is the kernel `launch_sgemm` uses for whole tiles (M and N
# multiples of 128, K of 16, and what `sgemm_vec` needs: 16-byte aligned
# rows), and with EDGE for every other c at least 128 wide (below the
# list). It keeps `sgemm_vec`'s multiply (8 x 8 of c a thread, BK = 16 by
# default, a transposed in shared memory, the next tile's 16-byte loads in flight
# during the multiply, one barrier a tile; the same fmas in the same order,
# so the same bits) and changes what limited `sgemm_vec` (147 registers: one
# block of 8 warps an SM, all of them waiting at every barrier):
#
# * registers: `launch_bounds=512` caps them at 65536 / 512 = 128 a thread.
#   A BM = 128 block (256 threads, 32 KiB of shared memory) then fits twice
#   on an SM, a BM = 256 block (512 threads, 48 KiB) once: 16 warps an SM
#   either way, so while some wait at a barrier the others issue. What
#   makes 128 fit without spills: no edge checks in the loop (EDGE's are
#   outside it but for the first k tile's), one running index a thread into
#   the matrix it loads (not an address a load), and the same four vectors
#   in flight in both loader roles.
# * warp tiling: warp w computes a 32 x 64 piece of the block's tile, its
#   lanes as 4 rows x 8 columns of 8 x 8 thread tiles, each split in two
#   4-wide halves 16 rows (32 columns) apart. A k step reads, per warp, 4
#   consecutive Float32x4 of a_s and 8 of b_s for each half (64 and 128
#   bytes: no bank conflicts), and each value read feeds 8 fmas.
# * grouped block order: the grid is one-dimensional and consecutive blocks
#   walk down GROUP row tiles of c before moving right, so the blocks
#   running at once read a squarer patch of a's rows and b's columns, which
#   L2 keeps for the next.
#
# BN is 128, BM 128 or 256 (the loaders need BM >= BN), BK 16 or 8 (8:
# twice the barriers, half the shared memory), UNROLL 2 or 1 (tiles a pass
# of the k loop, below); WARP_CONFIGS lists the autotuned ones. At 128
# registers ptxas is close to spilling: tests/sass/test_sass.py checks that the
# autotuned ones do not.
#
# Ragged shapes (EDGE, any M, N >= 128, any K), as cheaply as whole tiles
# inside the loop: the last row and column tiles move back to end at M and
# N (they overlap their neighbours, which write the same bits there), and
# the k tiles start at K % BK - BK, so that only the first is partial (its
# loads predicated on k >= 0, which costs 7-10 ISETP a tile). Rows and
# columns not 16 bytes aligned (N or K not a multiple of 4) take VEC =
# False: each Float32x4 four 4-byte loads, c four 4-byte stores. With
# SHORT, c less than a tile high (M < 128): rows past M read row M - 1 and
# are not stored. Split-K (`part`, as in `sgemm`): slice `block_idx.z` of
# the k tiles into slice z of `part`, the partial k tile in slice 0.
# Launch: grid ceil(M / BM) * ceil(N / BN), one-dimensional (times the
# slices of split-K in z); block BM * BN / 64 (`sgemm_warp_grid`,
# `sgemm_warp_block`).


@kdsl.kernel(dtypes=[Float32], launch_bounds=512, no_overflow=True)
def sgemm_warp(
    a: Pointer[D],
    b: Pointer[D],
    c: Pointer[D],
    part: Pointer[Float32] | None,
    M: Int32,
    N: Int32,
    K: Int32,
    BM: Constexpr[int] = 128,
    BN: Constexpr[int] = 128,
    BK: Constexpr[int] = 16,
    GROUP: Constexpr[int] = 8,
    UNROLL: Constexpr[int] = 2,
    EDGE: Constexpr[bool] = False,
    VEC: Constexpr[bool] = True,
    SHORT: Constexpr[bool] = False,
):
    kdsl.assume(M >= 0 and N >= 0 and K >= 0)
    a_s = kdsl.shared_array(Float32x4, (2, BK, BM // 4))
    b_s = kdsl.shared_array(Float32x4, (2, BK, BN // 4))
    acc = kdsl.local_array(Float32, (8, 8))
    for r in kdsl.range(8, unroll=8):
        for s in kdsl.range(8, unroll=8):
            acc[r, s] = 0
    av = a.vec(4)
    bv = b.vec(4)
    kv = K // 4  # Float32x4 in a row of a
    nv = N // 4  # Float32x4 in a row of b

    # Grouped order: block p is in group p // (GROUP * tiles_n); inside it,
    # consecutive blocks take consecutive row tiles (a group may have fewer
    # than GROUP at the bottom of c).
    tiles_m = (M + BM - 1) // BM
    tiles_n = (N + BN - 1) // BN
    pid = block_idx.x
    in_group = GROUP * tiles_n
    first_m = pid // in_group * GROUP
    rows_here = min(tiles_m - first_m, GROUP)
    m0 = (first_m + pid % in_group % rows_here) * BM
    n0 = pid % in_group // rows_here * BN
    # EDGE: the last row (column) tile moves back to end at row M (column
    # N), overlapping its neighbour, which writes the same bits to the rows
    # both hold (M >= BM and N >= BN: `edge_path`). Its k tiles start at
    # K % BK - BK (one partial tile first, its k < 0 read as 0): no edge
    # checks after the first tile. SHORT (with EDGE): c less than a tile
    # high (M < BM, one row tile): rows past M read row M - 1 and are not
    # stored.
    kt = 0  # the k of the tile being loaded
    if EDGE:
        if not SHORT:
            m0 = min(m0, M - BM)
        n0 = min(n0, N - BN)
        if K % BK != 0:
            kt = K % BK - BK
    tiles = (K + BK - 1) // BK
    if part is not None:  # split-K: slice block_idx.z of the k tiles
        first, tiles = k_slice(tiles)
        kt += first * BK

    tid = thread_idx.x
    warp = tid // 32
    lane = tid % 32
    # this thread's rows: 4 am .. 4 am + 3 and 16 further; columns: 4 bn ..
    # 4 bn + 3 and 32 further (am, bn in Float32x4 of a_s's and b_s's rows)
    am = warp // (BN // 64) * 8 + lane // 8
    bn = warp % (BN // 64) * 16 + lane % 8

    # Loads, as in `sgemm_vec`, four Float32x4 a thread, a role a warp:
    # the first A_T threads bring a's tile, each the 4 x 4 block at rows
    # 4g .. 4g + 3, k 4ka .. 4ka + 3 (a warp: whole 32-byte sectors of its
    # rows); the next B_T bring b's tile, BK rows of BN / 4 vectors: thread
    # A_T + u the vectors u + B_T q, q = 0 .. 3 (a warp: 512 consecutive
    # bytes of a row). Threads past A_T + B_T (with BM = 256 or BK = 8)
    # bring nothing: every loading thread has the same four vectors in flight,
    # which keeps the code of both roles alike and under 128 registers.
    # Each keeps the index of its first vector and steps it a tile at a
    # time.
    KC = BK // 4  # Float32x4 in a row of a's tile
    A_T = BM // 4 * KC
    B_T = BK * BN // 16
    loads_a = tid < A_T
    loads_b = not loads_a and tid < A_T + B_T
    g = tid % 8 + 8 * (tid // (8 * KC))
    ka = tid // 8 % KC
    br = tid % B_T // 32  # b: rows br + STEP q of the tile, column bc
    bc = tid % 32
    STEP = B_T // 32
    r = kdsl.local_array(Float32x4, 4)  # the vectors in flight
    zero = Float32x4.splat(0)
    # One running index a thread, into a's vectors or b's: its first
    # vector of the tile, the distance to its next ones, a tile's step.
    # VEC = False (rows not 16-byte aligned): the same, in Float32 elements,
    # each vector four 4-byte loads. SHORT: a's rows past M - 1 are row
    # M - 1 (vector q of a thread: row 4g + min(q, last)).
    row0 = m0 + 4 * g
    last = 3
    if SHORT:
        row0 = min(row0, M - 1)
        last = M - 1 - row0
    if VEC:
        if loads_a:
            at = row0 * kv + ka + kt // 4  # row 4g, k 4ka
            apart = kv  # the next rows
            step = KC
        else:
            at = (br + kt) * nv + n0 // 4 + bc  # row br, column bc
            apart = STEP * nv  # STEP rows further
            step = BK * nv
    else:
        if loads_a:
            at = row0 * K + 4 * ka + kt
            apart = K
            step = BK
        else:
            at = (br + kt) * N + n0 + 4 * bc
            apart = STEP * N
            step = BK * N

    # Tile t: the loads of tile t + 1, issued before the multiply of tile t
    # so that they are in flight during it, then stored to the other buffer
    # (last read before the previous barrier); t = -1 only loads tile 0 and
    # stores it to buffer 0. With UNROLL = 2 tiles go two at a time (p = 0:
    # t odd or -1, p = 1: t even), so that which buffer a tile reads and
    # which it writes is known at compile time: every shared address is a
    # register plus a constant (fewer registers and instructions than with
    # `t % 2` at run time), for twice the code. The loads are unconditional
    # on purpose (a load under `if t + 1 < tiles` would be sunk to its use
    # after the multiply, where it stalls): after the last tile the index
    # stops stepping and the last tile is loaded again, into the buffer
    # nobody reads.
    for t0 in range(-1, tiles, UNROLL):
        for p in kdsl.range_constexpr(UNROLL):
            t = t0 + p
            if UNROLL == 2:
                cur = 1 - p  # the buffer tile t is in
                nxt = p  # the buffer tile t + 1 goes to
            else:
                cur = t % 2
                nxt = (t + 1) % 2
            if p == 0 or t < tiles:
                if VEC and not EDGE:
                    if loads_a:
                        for q in kdsl.range_constexpr(4):
                            r[q] = av[at + q * apart]
                    elif loads_b:
                        for q in kdsl.range_constexpr(4):
                            r[q] = bv[at + q * apart]
                elif loads_a:  # k of a's vector: kt + 4ka (+ e); k < 0: 0
                    for q in kdsl.range_constexpr(4):
                        i = at + q * apart
                        if SHORT:
                            i = at + min(q, last) * apart
                        if VEC:
                            r[q] = av[i] if kt + 4 * ka >= 0 else zero
                        else:
                            w = zero
                            for e in kdsl.range_constexpr(4):
                                w[e] = a[i + e] if kt + 4 * ka + e >= 0 else 0
                            r[q] = w
                elif loads_b:  # k of b's vector q: its row, kt + br + STEP q
                    for q in kdsl.range_constexpr(4):
                        i = at + q * apart
                        live = kt + br + STEP * q >= 0
                        if VEC:
                            r[q] = bv[i] if live else zero
                        else:
                            w = zero
                            for e in kdsl.range_constexpr(4):
                                w[e] = b[i + e] if live else 0
                            r[q] = w
                if t + 2 < tiles:
                    at += step
                    if EDGE:
                        kt += BK
                if p == 1 or t >= 0:
                    for k in kdsl.range(BK, unroll=BK):
                        a0 = a_s[cur, k, am]
                        a1 = a_s[cur, k, am + 4]
                        b0 = b_s[cur, k, bn]
                        b1 = b_s[cur, k, bn + 8]
                        for i in kdsl.range_constexpr(4):
                            for j in kdsl.range_constexpr(4):
                                acc[i, j] = kdsl.math.fma(a0[i], b0[j], acc[i, j])
                                acc[i, 4 + j] = kdsl.math.fma(
                                    a0[i], b1[j], acc[i, 4 + j]
                                )
                                acc[4 + i, j] = kdsl.math.fma(
                                    a1[i], b0[j], acc[4 + i, j]
                                )
                                acc[4 + i, 4 + j] = kdsl.math.fma(
                                    a1[i], b1[j], acc[4 + i, 4 + j]
                                )
                if loads_a:
                    # transpose the 4 x 4 block in registers: a_s holds a by
                    # k, and every shared store is a whole Float32x4 (a
                    # quarter warp: 128 consecutive bytes of one a_s row)
                    for e in kdsl.range_constexpr(4):
                        w = r[e]
                        for q in kdsl.range_constexpr(4):
                            w[q] = r[q][e]  # row 4g + q, k 4ka + e
                        a_s[nxt, 4 * ka + e, g] = w
                elif loads_b:
                    for q in kdsl.range_constexpr(4):
                        b_s[nxt, br + STEP * q, bc] = r[q]
                kdsl.syncthreads()

    # c: each half of the thread's rows and columns, one Float32x4 a row
    # (VEC = False: four 4-byte stores, c's rows not 16-byte aligned), or
    # split-K's slice of partial sums
    dst = c
    if part is not None:
        dst = part + block_idx.z * slice_size(M, N)
    cv = dst.vec(4)
    for h in kdsl.range_constexpr(2):
        for ri in kdsl.range_constexpr(4):
            row = m0 + 4 * am + 16 * h + ri
            for v in kdsl.range_constexpr(2):
                col = n0 + 4 * bn + 32 * v
                out = Float32x4.splat(0)
                for e in kdsl.range_constexpr(4):
                    out[e] = acc[h * 4 + ri, v * 4 + e]
                if not SHORT or row < M:
                    if VEC:
                        cv[(row * N + col) // 4] = out
                    else:
                        for e in kdsl.range_constexpr(4):
                            dst[row * N + col + e] = out[e]


def _ptr(x) -> int:
    if hasattr(x, "data_ptr"):  # PyTorch
        return x.data_ptr()
    if hasattr(x, "__cuda_array_interface__"):  # CuPy
        return x.__cuda_array_interface__["data"][0]
    return x.__array_interface__["data"][0]  # numpy (the interpreter)


def _contiguous(x) -> bool:
    if hasattr(x, "is_contiguous"):
        return x.is_contiguous()
    return x.flags.c_contiguous


def vector_path(a, b, c) -> bool:
    """Whether ``sgemm_vec`` can run: N and K multiples of 4, contiguous
    16-byte aligned arrays (every row then starts 16-byte aligned)."""
    K, N = b.shape
    return (
        N % 4 == 0
        and K % 4 == 0
        and all(_contiguous(x) and _ptr(x) % 16 == 0 for x in (a, b, c))
    )


# `sgemm_warp`'s configurations: (BM, BK, GROUP, UNROLL), ones ptxas
# compiles without spills at 128 registers (tests/sass/test_sass.py checks);
# benchmarks/sgemm_sweep.py times these and more.
WARP_CONFIGS = [(128, 16, 8, 2), (128, 16, 8, 1), (256, 16, 8, 2), (256, 8, 8, 2)]


def whole_tiles(configs, args):
    """The configurations whose row tiles cover c exactly (``sgemm_warp``
    has no edge checks; ``warp_path`` checks N and K)."""
    return [cfg for cfg in configs if args["M"] % cfg.constexprs["BM"] == 0]


# (restore=[]: c and the partial sums are written whole, never read)
sgemm_warp_tuned = kdsl.autotune(
    configs=[
        kdsl.Config(BM=bm, BK=bk, GROUP=group, UNROLL=unroll)
        for bm, bk, group, unroll in WARP_CONFIGS
    ],
    key=["M", "N", "K"],
    prune=whole_tiles,
    restore=[],
)(sgemm_warp)


def fits_tiles(configs, args):
    """The configurations whose tile fits in c (``sgemm_warp`` with EDGE
    moves its last tiles back inside c: M >= BM), and SHORT ones (c less
    than a tile high)."""
    return [
        cfg
        for cfg in configs
        if cfg.constexprs["BM"] <= args["M"] or cfg.constexprs["SHORT"]
    ]


def _edge_tuned(vec: bool, short: bool):
    return kdsl.autotune(
        configs=[
            kdsl.Config(
                BM=bm,
                BK=bk,
                GROUP=group,
                UNROLL=unroll,
                EDGE=True,
                VEC=vec,
                SHORT=short,
            )
            for bm, bk, group, unroll in WARP_CONFIGS
            if not short or (bm, unroll) == (128, 2)  # the others spill
        ],
        key=["M", "N", "K"],
        prune=fits_tiles,
        restore=[],
    )(sgemm_warp)


# `sgemm_warp` on ragged shapes (EDGE), with 16-byte loads and stores where
# `vector_path` allows them (VEC) and 4-byte ones elsewhere, for c less
# than a tile high (SHORT) or not: EDGE_TUNED[vec, short]
EDGE_TUNED = {(v, s): _edge_tuned(v, s) for v in (True, False) for s in (False, True)}


def edge_path(a, b, c) -> bool:
    """Whether ``sgemm_warp`` with EDGE can run: c at least one tile wide
    (N >= 128; M < 128: SHORT), M and K > 0, contiguous arrays (any
    alignment: VEC where ``vector_path`` allows it)."""
    M, K = a.shape
    N = b.shape[1]
    contiguous = all(_contiguous(x) for x in (a, b, c))
    return N >= 128 and min(M, K) > 0 and contiguous


def warp_path(a, b, c) -> bool:
    """Whether ``sgemm_warp`` can run: ``vector_path`` and whole tiles (M a
    multiple of 128, N of 128, K of 16, none of them 0)."""
    M, K = a.shape
    N = b.shape[1]
    whole = M % 128 == 0 and N % 128 == 0 and K % 16 == 0
    return whole and min(M, N, K) > 0 and vector_path(a, b, c)


def sgemm_warp_grid(M: int, N: int, split: int = 1):
    """``sgemm_warp``'s grid for a configuration: one block a tile (with
    EDGE, the last row and column tiles partly over their neighbours), and
    a block a slice of k with split-K."""
    return lambda m: (-(-M // m["BM"]) * -(-N // m["BN"]), 1, split)


def sgemm_warp_block(m) -> int:
    """``sgemm_warp``'s block: a thread a 8 x 8 piece of the tile."""
    return m["BM"] * m["BN"] // 64


# split-K for `sgemm` and `sgemm_vec` (one block an SM): the H200's rates
# that `sgemm_split` weighs a split by
SGEMM_FLOPS = 45e12  # Float32 fma rate of these kernels, all SMs busy
BYTES_PER_S = 3e12  # the partial sums' write and read
LAUNCH_S = 4e-6  # split_sum's launch
MIN_SLICE_K = 256  # k a slice at least
H200_SMS = 132


def sgemm_split(M: int, N: int, K: int, sms: int) -> int:
    """The k slices (``grid_dim.z``) for `sgemm` / `sgemm_vec` on ``sms``
    multiprocessors, one 128 x 128 tile a block and one block an SM: the
    split of SPLITS with the least time by a model (the waves of blocks
    times a slice's multiply, plus the partial sums' traffic and
    `split_sum`'s launch), kept only when it saves a tenth of the time.
    Few tiles (M 127 with N 4096: 32 blocks for 132 SMs) or a last wave
    mostly empty are what it fixes."""
    tiles = -(-M // BM) * -(-N // BN)
    per_k = 2 * BM * BN / (SGEMM_FLOPS / sms)  # seconds a tile's k step

    def seconds(split: int) -> float:
        waves = -(-tiles * split // sms)
        extra = 8 * split * M * N / BYTES_PER_S + LAUNCH_S if split > 1 else 0
        return waves * -(-K // split) * per_k + extra

    fit = [s for s in SPLITS if s == 1 or K >= s * MIN_SLICE_K and s * M * N < 2**30]
    best = min(fit, key=seconds)
    return best if seconds(best) < 0.9 * seconds(1) else 1


# split-K for `sgemm_warp` (BM = 128: two blocks an SM): the model's
# constants fitted to the H200's times of `sgemm_warp` at the suite's eight
# SGEMM shapes with 1-4 slices each (benchmarks/sgemm_shapes.py, RESULTS.md
# session 12), which it predicts within 5 % but for 4104³ unsplit (14 %
# under)
WARP_FLOPS = 44e12  # its Float32 fma rate, two blocks on every SM
ALONE = 0.86  # an SM's rate with one block, of its rate with two
SUM_BYTES_PER_S = 2e12  # the partial sums' write and read, c's write


def warp_split(M: int, N: int, K: int, sms: int) -> int:
    """The k slices for `sgemm_warp` (128 x 128 tiles, two blocks an SM) on
    ``sms`` multiprocessors: the split of SPLITS with the least time by a
    model, the busiest SM's blocks (two at a time, and one alone at
    ``ALONE`` of the rate when it holds an odd number: 1009 x 3001 tiles
    are 192 blocks, 60 SMs with two and 72 with one) times a slice's
    multiply, plus the partial sums' traffic and `split_sum`'s launch."""
    tiles = -(-M // 128) * -(-N // 128)
    per_k = 2 * 128 * 128 / (WARP_FLOPS / sms)  # seconds a tile's k step, an SM

    def seconds(split: int) -> float:
        blocks = -(-tiles * split // sms)  # on the busiest SM
        ks = -(-K // split)
        sums = (8 * split + 4) * M * N / SUM_BYTES_PER_S + LAUNCH_S
        return (blocks // 2 * 2 + blocks % 2 / ALONE) * ks * per_k + (
            sums if split > 1 else 0
        )

    fit = [s for s in SPLITS if s == 1 or K >= s * MIN_SLICE_K and s * M * N < 2**30]
    return min(fit, key=seconds)


def multiprocessors_of(x) -> int:
    """The multiprocessors of the GPU that runs ``x``'s kernels: a numpy
    array's run in the interpreter, which splits as the H200 would."""
    return H200_SMS if type(x).__module__.startswith("numpy") else multiprocessors()


def launch_sgemm(a, b, c, stream=None, split=None):
    """``c = a @ b`` in Float32 on the GPU (contiguous row-major 2-D arrays):
    the autotuned ``sgemm_warp`` where ``warp_path`` allows it (whole
    tiles), else where ``edge_path`` does (with EDGE; SHORT for M < 128), split-K
    (``warp_split``) where its tiles fill the SMs badly; else ``sgemm_vec``
    where ``vector_path`` allows it, else ``sgemm``, split-K by
    ``sgemm_split``.  ``split`` forces the slices of ``sgemm_vec`` and
    ``sgemm`` (one of SPLITS; 1: no split-K; whole tiles ignore it)."""
    M, K = a.shape
    N = b.shape[1]
    if b.shape[0] != K or tuple(c.shape) != (M, N):
        raise ValueError(
            f"sgemm: a {tuple(a.shape)} @ b {tuple(b.shape)} into c {tuple(c.shape)}"
        )
    whole = warp_path(a, b, c)
    if whole or split is None and edge_path(a, b, c):
        if whole:
            tuned = sgemm_warp_tuned
        else:
            tuned = EDGE_TUNED[vector_path(a, b, c), M < 128]
        ws = 1 if split is not None else warp_split(M, N, K, multiprocessors_of(a))
        part = None if ws == 1 else partial_sums(c, M, N, ws)
        launch = tuned[sgemm_warp_grid(M, N, ws), sgemm_warp_block]
        launch(a, b, c, part, M, N, K, stream=stream)
        if part is not None:
            sum_slices(part, c, M, N, ws, stream)
        return
    kernel = sgemm_vec if vector_path(a, b, c) else sgemm
    if split is None:
        split = sgemm_split(M, N, K, multiprocessors_of(a))
    elif split not in SPLITS or split * M * N >= 2**30:
        raise ValueError(f"sgemm: split-K's split must be one of {SPLITS}, got {split}")
    part = None if split == 1 else partial_sums(c, M, N, split)
    grid = ((N + BN - 1) // BN, (M + BM - 1) // BM, split)
    kernel[grid, 256](a, b, c, part, M, N, K, stream=stream)
    if part is not None:
        sum_slices(part, c, M, N, split, stream)


if __name__ == "__main__":
    print(matmul.dispatch("f16").source)
