"""gemm_fp8: scaled fp8 GEMMs on Hopper (sm_90a: H100/H200 only), the
warp-specialised TMA + wgmma pipeline of gemm_tma.py with 8-bit inputs.

* **Per-tensor** (``scaled_mm``, the contract of ``torch._scaled_mm``):
  ``c = (a @ b) * scale_a * scale_b`` for an e4m3 ``a`` (M, K) row-major
  and an e4m3 ``b`` (K, N) column-major — i.e. ``bt = b.t()``, (N, K)
  row-major, the K-major operand wgmma reads (8-bit wgmma reads K-major
  tiles only) — ``scale_a`` and ``scale_b`` one-element Float32 tensors, c
  (M, N) row-major bf16 or f32.  Float32 accumulation across the whole of K.
* **Block-scaled** (``block_scaled_mm``, DeepSeek-V3's / DeepGEMM's):
  ``scale_a`` (M, ceil(K / 128)) holds a scale per row and 128 of K (1 x 128
  blocks of a), ``scale_b`` (ceil(N / 128), ceil(K / 128)) a scale per 128
  x 128 block of b;
  ``c[m, n] = sum_kb (sum_{k in kb} a[m, k] b[k, n]) scale_a[m, kb]
  scale_b[n // 128, kb]``.  Each 128-deep k tile is multiplied into a
  Float32 partial accumulator by 4 wgmma (D = A B, no carried sum), which
  is then scaled and added into the Float32 accumulator in registers, one
  fma an element (the "promotion" every 128 of K that DeepGEMM does: the
  tensor cores' own sum of 8-bit products keeps fewer bits than f32,
  docs/tensor-cores.md "fp8").  BN = 256: each consumer multiplies its 64
  rows by the tile's two 128-column halves in turn (b's two column blocks,
  each its own scale), each half as two 64 x 64 partial sums: both issued,
  the first waited for (``wgmma_wait(1)``) and promoted while the second's
  wgmma run, then the second (``wgmma_wait(0)``); the other consumer's
  wgmma may run meanwhile.  Each k block's scales are loaded at the top of
  its k tile, before the wait for its data.

* **int8** (``int_mm``, the contract of ``torch._int_mm`` and of
  gemm_int8.py's ``gemm``, which launches it on Hopper): ``c = a @ bt.T``
  for int8 ``a`` (M, K) and ``bt`` (N, K) row-major, c (M, N) int32, exact
  (Int32 sums, wrapping): the per-tensor pipeline's instance for an Int32
  c, whose wgmma read Int8 tiles (PTX's ``.s32.s8.s8``) into Int32
  accumulators, and with no scales (``scale_a``/``scale_b`` None).

A block computes a 128 x BN tile of c with 3 warpgroups (384 threads): the
producer's first thread feeds a STAGES-deep ring of (BM + BN) x 128-byte
tiles with TMA (boxes of 64 rows x 128 bytes, the 128-byte swizzle: one
swizzled row is 128 fp8 elements of K); consumers 1 and 2 each multiply
64 rows of it with m64nBNk32 wgmma (4 a k tile, the descriptor 32 bytes on
each; block-scaled: m64n64k32, 4 for each 64 columns).  The tile order,
the full/empty mbarrier ring running on across the tiles of a persistent
grid and the epilogue's pairs are gemm_tma's (its ``tile_origin``,
``persistent_grid``, ``tiles``).

TMA copies bytes: the maps are built on ``Uint8`` views of the fp8
tensors (TMA has no fp8 element type; the bytes are the same).  With
``EDGE=True`` (what the host functions launch unless the tiles divide)
any M, N even and K a multiple of 16 (TMA's rows are multiples of 16
bytes): TMA reads zeros past the edges of a and bt, zeros that add nothing
to the sums, and the epilogue stores only the pairs inside c.
"""

import sys
from pathlib import Path

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import kdsl
from block_reduce import multiprocessors
from gemm_tma import persistent_grid, tile_origin, tiles
from kdsl import (
    BFloat16,
    Constexpr,
    Float8E4M3FN,
    Float32,
    Int8,
    Int32,
    Pointer,
    Uint8,
    Uint32,
    Uint64,
    block_idx,
    grid_dim,
    thread_idx,
)

# c's element type: bf16 or f32 from fp8 inputs; Int32 from Int8 ones
O = kdsl.TypeVar("O", bound=kdsl.Num)
BM = 128  # rows of c a block computes: 64 for each consumer warpgroup
BK = 128  # a k tile: 128 fp8 elements, one 128-byte swizzled row
CHUNKS = BK // 16  # 16-byte chunks a tile row
BOX = 64  # the TMA box: 64 rows x 128 bytes (8 KB), for a and bt alike
SCALE_BLOCK = 128  # block-scaled: 1 x 128 scales of a, 128 x 128 of b
THREADS = 384  # a producer warpgroup and two consumers


@kdsl.func
def free(empty, stage):
    """The warpgroup's arrival on ``empty[stage]``: its wgmma have read it."""
    if thread_idx.x % 128 == 0:
        kdsl.mbarrier_arrive(empty, stage)


@kdsl.func
def promote(acc, part, s0, s8, at):
    """acc[at + i] += part[i] * scale, element by element (one rounding
    each: fma); elements 4 j, 4 j + 1 are this thread's first row, + 2, + 3
    its row + 8 (scales s0, s8).  ``at``: where part's columns start in acc
    (a multiple of 4, a compile-time constant)."""
    for j in kdsl.range_constexpr(len(part) // 4):
        i = at + 4 * j
        acc[i] = kdsl.math.fma(part[4 * j], s0, acc[i])
        acc[i + 1] = kdsl.math.fma(part[4 * j + 1], s0, acc[i + 1])
        acc[i + 2] = kdsl.math.fma(part[4 * j + 2], s8, acc[i + 2])
        acc[i + 3] = kdsl.math.fma(part[4 * j + 3], s8, acc[i + 3])


@kdsl.func
def word(v):
    """A pair's bits, to shuffle and select whole: bf16 as Uint32, f32 as
    Uint64."""
    if v.dtype == BFloat16:
        return v.bitcast(Uint32)
    return v.bitcast(Uint64)


@kdsl.func
def row8(w0, w1, w2, w3):
    """Four pairs' bits (``word``) in one vector, the 8 elements they hold in
    order (``.bitcast(O.vec(8))`` gives them back)."""
    if w0.dtype == Uint32:
        return Uint32.vec(4)(w0, w1, w2, w3)
    return Uint64.vec(4)(w0, w1, w2, w3)


@kdsl.func
def quad_transpose(v0, v1, v2, v3, q):
    """The 4 x 4 transpose across each 4 lanes: lane q (``lane % 4``, 0-3)
    returns element q of lanes 0, 1, 2 and 3.  Two rounds of exchanges with
    the lane whose q differs in bit 0, then bit 1: each sends the elements
    whose index differs from its q in that bit and takes the partner's in
    their place."""
    odd = q % 2 == 1
    r01 = kdsl.shfl_xor(v0 if odd else v1, 1)
    r23 = kdsl.shfl_xor(v2 if odd else v3, 1)
    v0, v1 = r01 if odd else v0, v1 if odd else r01
    v2, v3 = r23 if odd else v2, v3 if odd else r23
    high = q >= 2
    r02 = kdsl.shfl_xor(v0 if high else v2, 2)
    r13 = kdsl.shfl_xor(v1 if high else v3, 2)
    v0, v2 = r02 if high else v0, v2 if high else r02
    v1, v3 = r13 if high else v1, v3 if high else r13
    return v0, v1, v2, v3


@kdsl.kernel(dtypes=["bf16", "f32", "i32"], launch_bounds=(THREADS, 1))
def gemm_fp8(
    tma_a: kdsl.TensorMap,
    tma_b: kdsl.TensorMap,
    c: Pointer[O],
    scale_a: Pointer[Float32] | None,
    scale_b: Pointer[Float32] | None,
    M: Int32,
    N: Int32,
    K: Int32,
    BN: Constexpr[int] = 256,
    STAGES: Constexpr[int] = 4,
    GROUP_M: Constexpr[int] = 8,
    EDGE: Constexpr[bool] = False,
    BLOCK_SCALED: Constexpr[bool] = False,
):
    # An Int32 c: int8 a and bt, exact Int32 sums (torch._int_mm's
    # contract), no scales; otherwise e4m3 a and bt, Float32 sums.
    T = Int8 if O == Int32 else Float8E4M3FN  # a's and bt's element type
    ACC = Int32 if O == Int32 else Float32

    # The ring: STAGES tiles of A (BM rows) and of B^T (BN rows), each row
    # 128 bytes (8 chunks of 16), in the 128-byte swizzle TMA writes.
    sa = kdsl.dynamic_shared_array(Uint8.vec(16), STAGES * BM * CHUNKS)
    sb = kdsl.dynamic_shared_array(Uint8.vec(16), STAGES * BN * CHUNKS)
    full = kdsl.shared_array(Uint64, (STAGES,))
    empty = kdsl.shared_array(Uint64, (STAGES,))

    tid = thread_idx.x
    group = tid // 128  # 0: the producer; 1, 2: the consumers
    if EDGE:  # TMA reads zeros past the matrices' edges: round the tiles up
        tiles_m = (M + BM - 1) // BM
        tiles_n = (N + BN - 1) // BN
    else:
        tiles_m = M // BM
        tiles_n = N // BN
    ktiles = (K + BK - 1) // BK  # also the k blocks of the block scales

    if tid == 0:  # one arrival (with bytes) fills a stage, two free it
        for st in kdsl.range_constexpr(STAGES):
            kdsl.mbarrier_init(full, st, 1)
            kdsl.mbarrier_init(empty, st, 2)
        kdsl.fence_mbarrier_init()
    kdsl.syncthreads()

    tiles = tiles_m * tiles_n
    if group == 0:  # the producer
        kdsl.setmaxnreg(40, inc=False)
        if tid == 0:
            tile = block_idx.x
            it = 0
            while tile < tiles:
                tm, tn = tile_origin(tile, tiles_m, tiles_n, GROUP_M)
                for kt in range(ktiles):
                    s = it % STAGES
                    kdsl.mbarrier_wait(empty, s, it // STAGES % 2 ^ 1)
                    kdsl.mbarrier_arrive_expect_tx(full, s, (BM + BN) * BK)
                    k0 = kt * BK
                    for i in kdsl.range_constexpr(BM // BOX):
                        dst = (s * BM + i * BOX) * CHUNKS
                        kdsl.tma_load(sa, dst, tma_a, (k0, tm * BM + i * BOX), full, s)
                    for i in kdsl.range_constexpr(BN // BOX):
                        dst = (s * BN + i * BOX) * CHUNKS
                        kdsl.tma_load(sb, dst, tma_b, (k0, tn * BN + i * BOX), full, s)
                    it += 1
                tile += grid_dim.x
    else:  # a consumer: rows 64 (group - 1) .. + 63 of each tile
        kdsl.setmaxnreg(232)
        acc = kdsl.local_array(ACC, (BN // 2,))
        rows = (group - 1) * 64
        lane = tid % 32
        tile = block_idx.x
        it = 0
        while tile < tiles:
            tm, tn = tile_origin(tile, tiles_m, tiles_n, GROUP_M)
            row = tm * BM + rows + tid % 128 // 32 * 16 + lane // 4
            if BLOCK_SCALED:
                # this thread's rows of scale_a (rows past M: M - 1's) and the
                # rows of scale_b of the tile's column blocks 2 tn, 2 tn + 1
                # (BN = 256; past N: the last): k block kt's scales are
                # pa0[kt], pa8[kt], pb[kt] and pb_hi[kt]
                pa0 = scale_a + min(row, M - 1) * ktiles
                pa8 = scale_a + min(row + 8, M - 1) * ktiles
                nb_last = (N + SCALE_BLOCK - 1) // SCALE_BLOCK - 1
                pb = scale_b + min(tn * (BN // 128), nb_last) * ktiles
                pb_hi = (
                    scale_b + min(tn * (BN // 128) + BN // 128 - 1, nb_last) * ktiles
                )
                for i in range(BN // 2):
                    acc[i] = 0.0
                # two partial sums: 64 x 64 pieces of the tile's k tile
                lo = kdsl.local_array(Float32, (32,))
                hi = kdsl.local_array(Float32, (32,))
                for kt in range(ktiles):
                    a0, a8, b0, b1 = pa0[kt], pa8[kt], pb[kt], pb_hi[kt]
                    stage = it % STAGES
                    kdsl.mbarrier_wait(full, stage, it // STAGES % 2)
                    da = kdsl.wgmma_desc(sa, (stage * BM + rows) * CHUNKS)
                    # columns 128 g .. + 127 (b's column block 2 tn + g): lo =
                    # A B of its first 64 columns, hi of the next 64, each by 4
                    # m64n64k32 wgmma; lo promoted into acc while hi's wgmma
                    # run, then hi (docs/tensor-cores.md "fp8")
                    for g in kdsl.range_constexpr(BN // 128):
                        for h in kdsl.range_constexpr(2):
                            part = lo if h == 0 else hi
                            col = 128 * g + 64 * h
                            db = kdsl.wgmma_desc(sb, (stage * BN + col) * CHUNKS)
                            kdsl.wgmma_fence()
                            kdsl.wgmma_mma_async(
                                part, da, db, Float8E4M3FN, scale_d=False
                            )
                            for kk in kdsl.range_constexpr(1, BK // 32):
                                kdsl.wgmma_mma_async(
                                    part, da + 2 * kk, db + 2 * kk, Float8E4M3FN
                                )
                            kdsl.wgmma_commit()
                        bg = b0 if g == 0 else b1
                        kdsl.wgmma_wait(1, lo)
                        promote(acc, lo, a0 * bg, a8 * bg, 64 * g)
                        kdsl.wgmma_wait(0, hi)
                        if g == BN // 128 - 1:  # the k tile's stage is read
                            free(empty, stage)
                        promote(acc, hi, a0 * bg, a8 * bg, 64 * g + 32)
                    it += 1
            else:
                for kt in range(ktiles):
                    stage = it % STAGES
                    kdsl.mbarrier_wait(full, stage, it // STAGES % 2)
                    da = kdsl.wgmma_desc(sa, (stage * BM + rows) * CHUNKS)
                    db = kdsl.wgmma_desc(sb, stage * BN * CHUNKS)
                    kdsl.wgmma_fence()
                    # kt 0: D = A B; then D += A B
                    kdsl.wgmma_mma_async(acc, da, db, T, scale_d=kt > 0)
                    for kk in kdsl.range_constexpr(1, BK // 32):
                        kdsl.wgmma_mma_async(acc, da + 2 * kk, db + 2 * kk, T)
                    kdsl.wgmma_commit()
                    kdsl.wgmma_wait(1, acc)  # the wgmma of k tile it - 1 is done
                    if kt > 0 and tid % 128 == 0:  # ... so its stage is free
                        kdsl.mbarrier_arrive(empty, (it - 1) % STAGES)
                    it += 1
            scale = ACC(1)  # int8: x * 1 folds to x, the sums stored as they are
            if not BLOCK_SCALED:
                kdsl.wgmma_wait(0, acc)  # the tile's last wgmma: its stage is free
                free(empty, (it - 1) % STAGES)
                if O != Int32:  # int8: no scales (int_mm passes None)
                    scale = scale_a[0] * scale_b[0]

            # Thread l of warp w holds, for each 8-column block j, rows
            # 16 w + l // 4 and + 8, columns 8 j + 2 (l % 4) and + 1.
            if EDGE:  # each pair stored if inside c
                col0 = tn * BN + lane % 4 * 2
                for j in kdsl.range_constexpr(BN // 8):
                    col = col0 + j * 8  # even, and N is: the pair is in or out
                    at = (row * N + col) // 2
                    v0 = acc[4 * j] * scale
                    v1 = acc[4 * j + 1] * scale
                    v2 = acc[4 * j + 2] * scale  # row + 8
                    v3 = acc[4 * j + 3] * scale
                    if row < M and col < N:
                        c.vec(2)[at] = O.vec(2)(v0, v1)
                    if row + 8 < M and col < N:
                        c.vec(2)[at + 4 * N] = O.vec(2)(v2, v3)
            else:  # whole tiles: the pairs of 4 blocks transposed across each
                # 4 lanes, lane q holding all 8 columns of block 4 g + q of its
                # row: one 16-byte store (f32: 32) where there were 4 of pairs
                for g in kdsl.range_constexpr(BN // 32):
                    for h in kdsl.range_constexpr(2):  # rows row, row + 8
                        i = 16 * g + 2 * h  # block 4 g + b's pair: acc[i + 4 b], + 1
                        p0 = O.vec(2)(acc[i] * scale, acc[i + 1] * scale)
                        p1 = O.vec(2)(acc[i + 4] * scale, acc[i + 5] * scale)
                        p2 = O.vec(2)(acc[i + 8] * scale, acc[i + 9] * scale)
                        p3 = O.vec(2)(acc[i + 12] * scale, acc[i + 13] * scale)
                        w0, w1, w2, w3 = quad_transpose(
                            word(p0), word(p1), word(p2), word(p3), lane % 4
                        )
                        col = tn * BN + 32 * g + lane % 4 * 8
                        at = ((row + 8 * h) * N + col) // 8
                        words = row8(w0, w1, w2, w3)
                        c.vec(8)[at] = words.bitcast(O.vec(8))
            tile += grid_dim.x


# -- launching ---------------------------------------------------------------------------
# (BN, STAGES): per-tensor 128- or 256-wide tiles, as deep a ring as shared
# memory holds.  Block-scaled BN = 256: the sum (128 f32 a thread) and two
# 64 x 64 partial sums (32 each) take 192 registers.  Measured on the H200
# (session 10): 1.06-1.08x the earlier BN = 128 with two partial sums taking
# turns (a k tile's wgmma in flight while the one before was promoted) at
# the 4 benchmark shapes timed in turns (0.96-1.08x in a sweep timing each
# once); the two consumers' pieces issued strictly in turn (ping-pong
# through an mbarrier pair) measured slower, its hand-over costing more
# than the overlap it bought.  Session 11: the two 64 x 64 partial sums a
# half, 0.99-1.06x one 64 x 128 (each waited for before its promotion) in
# one run; the second consumer started a piece behind the first, 0.96-1.02x
# (not kept; docs/tensor-cores.md "fp8")
BLOCK_SHAPES = [(256, 3), (256, 4)]
SHAPES = [(256, 4), (256, 3), (128, 6), (128, 4)]


def shared_mem(BN: int, STAGES: int) -> int:
    """Dynamic shared memory bytes of one configuration (its ring)."""
    return STAGES * (BM + BN) * BK


def config_shared_mem(m) -> int:
    """The autotuner's shared_mem=: each configuration gets its own ring."""
    return shared_mem(m["BN"], m["STAGES"])


def _tuned(edge: bool, block_scaled: bool):
    shapes = BLOCK_SHAPES if block_scaled else SHAPES
    configs = [
        kdsl.Config(BN=n, STAGES=s, EDGE=edge, BLOCK_SCALED=block_scaled)
        for n, s in shapes
    ]
    return kdsl.autotune(configs=configs, key=["M", "N", "K"], restore=[])(gemm_fp8)


# (EDGE, BLOCK_SCALED) -> the autotuned kernel (the int8 GEMM takes the
# per-tensor ones: its Int32 c picks the instance, and the autotuner keys
# its searches by the arguments' dtypes too)
TUNED = {(e, b): _tuned(e, b) for e in (False, True) for b in (False, True)}


def whole_tiles(M: int, N: int, K: int) -> bool:
    """Whether every configuration's tiles divide c and the k tiles K."""
    return M % BM == 0 and N % 256 == 0 and K % BK == 0


def blocks(n: int) -> int:
    """The 128-blocks of a length (the block scales' extent)."""
    return -(-n // SCALE_BLOCK)


def check_shapes(a, b, scale_a, scale_b, c, block_scaled: bool) -> tuple:
    """``(M, N, K)`` and ``bt`` (b.t(), (N, K) row-major), or ValueError /
    TypeError for operands the kernel does not take."""
    import torch

    M, K = a.shape
    K_b, N = b.shape
    if a.dtype != torch.float8_e4m3fn or b.dtype != torch.float8_e4m3fn:
        raise TypeError(
            f"gemm_fp8 takes float8_e4m3fn a and b, got {a.dtype}, {b.dtype}"
        )
    if c.dtype not in (torch.bfloat16, torch.float32):
        raise TypeError(f"gemm_fp8 writes a bfloat16 or float32 c, got {c.dtype}")
    bt = b.t()
    if K_b != K or N % 2 or K % 16 or 0 in (M, N, K):
        raise ValueError(
            "gemm_fp8 needs a (M, K) and b (K, N), N even and K a multiple of 16 "
            f"(TMA reads rows of 16-byte multiples), got a {tuple(a.shape)}, b "
            f"{tuple(b.shape)}"
        )
    if not a.is_contiguous() or not bt.is_contiguous():
        raise ValueError(
            "gemm_fp8 needs a row-major and b column-major (b.t() contiguous), "
            "as torch._scaled_mm does"
        )
    if tuple(c.shape) != (M, N) or not c.is_contiguous():
        raise ValueError(f"c must be a contiguous ({M}, {N}), got {tuple(c.shape)}")
    want = ((M, blocks(K)), (blocks(N), blocks(K))) if block_scaled else ((), ())
    for name, s, shape in (
        ("scale_a", scale_a, want[0]),
        ("scale_b", scale_b, want[1]),
    ):
        ok = s.dtype == torch.float32 and s.is_contiguous()
        ok = ok and (s.numel() == 1 if not block_scaled else tuple(s.shape) == shape)
        if not ok:
            what = f"of shape {shape}" if block_scaled else "of one element"
            raise ValueError(
                f"gemm_fp8: {name} must be a contiguous float32 tensor {what}, "
                f"got {s.dtype} {tuple(s.shape)}"
            )
    return M, N, K, bt


def tensor_maps(a, bt):
    """The TMA maps of a (M, K) and bt (N, K), fp8 (or int8) as bytes: boxes
    of 64 rows x 128 bytes, 128-byte swizzle."""
    import torch

    return (
        kdsl.tensor_map(a.view(torch.uint8), box=(BOX, BK), swizzle=128),
        kdsl.tensor_map(bt.view(torch.uint8), box=(BOX, BK), swizzle=128),
    )


def scaled_mm(a, b, scale_a, scale_b, c, maps=None):
    """c = (a @ b) * scale_a * scale_b as ``torch._scaled_mm(a, b, scale_a,
    scale_b, out_dtype=c.dtype)``: a (M, K) row-major and b (K, N)
    column-major float8_e4m3fn CUDA tensors, one-element float32 scales, c
    (M, N) bfloat16 or float32.  ``maps``: ``tensor_maps(a, b.t())`` if the
    caller keeps them."""
    _launch(a, b, scale_a, scale_b, c, maps, block_scaled=False)


def block_scaled_mm(a, b, scale_a, scale_b, c, maps=None):
    """c[m, n] = sum over k blocks kb of (a[m, kb] @ b[kb, n]) scale_a[m, kb]
    scale_b[n // 128, kb]: a, b as in :func:`scaled_mm`, scale_a (M,
    ceil(K / 128)) and scale_b (ceil(N / 128), ceil(K / 128)) float32."""
    _launch(a, b, scale_a, scale_b, c, maps, block_scaled=True)


def _launch(a, b, scale_a, scale_b, c, maps, block_scaled):
    M, N, K, bt = check_shapes(a, b, scale_a, scale_b, c, block_scaled)
    tma_a, tma_b = maps if maps is not None else tensor_maps(a, bt)
    tuned = TUNED[not whole_tiles(M, N, K), block_scaled]
    launch = tuned[persistent_grid(M, N, multiprocessors()), THREADS]
    launch(tma_a, tma_b, c, scale_a, scale_b, M, N, K, shared_mem=config_shared_mem)


def int_mm(a, bt, c, maps=None):
    """c = a @ bt.T, exact in Int32, as ``torch._int_mm(a, bt.T)``: a (M, K)
    and bt (N, K) row-major int8 CUDA tensors (bt is b transposed, K-major:
    the layout torch._int_mm reads fastest), c (M, N) row-major int32; N
    even and K a multiple of 16 (TMA's rows).  ``maps``: ``tensor_maps(a,
    bt)`` if the caller keeps them."""
    import torch

    M, K = a.shape
    N = bt.shape[0]
    if a.dtype != torch.int8 or bt.dtype != torch.int8 or c.dtype != torch.int32:
        raise TypeError(
            f"int_mm takes int8 a and bt and an int32 c, got {a.dtype}, "
            f"{bt.dtype}, {c.dtype}"
        )
    if bt.shape[1] != K or N % 2 or K % 16 or 0 in (M, N, K):
        raise ValueError(
            "int_mm needs a (M, K) and bt (N, K), N even and K a multiple of 16 "
            f"(TMA reads rows of 16-byte multiples), got a {tuple(a.shape)}, bt "
            f"{tuple(bt.shape)}"
        )
    if not (a.is_contiguous() and bt.is_contiguous() and c.is_contiguous()):
        raise ValueError("int_mm needs a, bt and c contiguous (row-major)")
    if tuple(c.shape) != (M, N):
        raise ValueError(f"c must be ({M}, {N}), got {tuple(c.shape)}")
    tma_a, tma_b = maps if maps is not None else tensor_maps(a, bt)
    tuned = TUNED[not whole_tiles(M, N, K), False]
    launch = tuned[persistent_grid(M, N, multiprocessors()), THREADS]
    launch(tma_a, tma_b, c, None, None, M, N, K, shared_mem=config_shared_mem)


# -- references (the tests' and the benchmark's) -----------------------------------------
def reference(a, b, scale_a, scale_b, block_scaled: bool):
    """The product in float64 of the fp8 values (torch tensors, any device):
    per-tensor ``(a @ b) sa sb``; block-scaled each 128-block of K's partial
    product scaled, then summed."""
    import torch

    a64, b64 = a.to(torch.float64), b.to(torch.float64)
    if not block_scaled:
        return a64 @ b64 * (scale_a.double().reshape(()) * scale_b.double().reshape(()))
    M, K = a.shape
    N = b.shape[1]
    sa = scale_a.double().repeat_interleave(SCALE_BLOCK, 1)[:, :K]
    sb = scale_b.double().repeat_interleave(SCALE_BLOCK, 0)[:N]
    sb = sb.repeat_interleave(SCALE_BLOCK, 1)[:, :K]  # (N, K)
    return (a64 * sa) @ (b64 * sb.t())


if __name__ == "__main__":
    print(gemm_fp8.dispatch("bf16").source)
