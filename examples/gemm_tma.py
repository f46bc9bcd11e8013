"""gemm_tma: c = a @ b on Hopper (sm_90a: H100/H200 only), warp-specialised:
one thread of a producer warpgroup feeds the tiles with TMA, two consumer
warpgroups multiply them with wgmma.  ``a`` is a row-major bf16 or f16 (M,
K) matrix and ``b`` either a row-major (K, N) matrix (``matmul``,
``B_ROW_MAJOR=True``: wgmma reads it MN-major, ``trans_b=True``) or given
transposed, as a row-major (N, K) ``bt`` (``gemm``: K-major); c is (M, N),
row-major, of their dtype, with Float32 accumulation (docs/tensor-cores.md,
"A warp-specialised GEMM").

A block computes a BM x BN tile of c (BM = 128) with 3 warpgroups, 384
threads:

* **warpgroup 0, the producer**, gives most of its registers away
  (``setmaxnreg(40, inc=False)``); its first thread walks the k tiles
  (64 wide) and, for each, waits until the ring stage it goes to is free,
  announces the stage's bytes on its "full" mbarrier
  (``mbarrier_arrive_expect_tx``) and issues the TMA copies of the A tile
  (BM x 64) and the B tile (64 x BN; B^T's BN x 64): boxes of 64 x 64
  elements, landing in shared memory already in the 128-byte swizzle that
  wgmma's descriptors read (B's as BN / 64 blocks of 64 columns, 8 KB
  apart: the descriptor's leading byte offset);
* **warpgroups 1 and 2, the consumers** (``setmaxnreg(232)``), compute rows
  0-63 and 64-127 of the tile: each waits for a stage's "full" barrier,
  issues its 4 ``wgmma_mma_async`` (m64nBNk16), and once the wgmma of the
  stage before has finished (``wgmma_wait(1)``) one thread of each
  releases that stage on its "empty" barrier for the producer.

The STAGES-deep ring of full/empty mbarrier pairs is CUTLASS's and Triton's
Hopper pipeline.  Phase k of a barrier has parity k % 2: the consumers wait
on full[s] with the parity of the round ``it // STAGES`` (``it`` counts the
k tiles the block has gone through); the producer waits on empty[s] with
the opposite parity, which a fresh barrier passes at once (every stage
starts empty).  Tiles of c are numbered in groups of GROUP_M rows of tiles
(``tile_origin``), so that blocks running together share A and B tiles in
L2.  Block b computes tiles b, b + grid, b + 2 grid …: with one block a tile
(``grid``) that is one tile; with a persistent grid of one block per SM
(``persistent_grid``, what ``gemm()`` launches) each block loops, the ring running on from one tile
to the next, so the producer loads the next tile while the consumers store
the last one.

With ``EDGE=False`` M must be a multiple of BM, N of BN and K of 64; with
``EDGE=True`` (what ``gemm()`` launches for other sizes) any M, N even and
K a multiple of 8: TMA reads zeros past the edges of a and bt, and the
epilogue stores only the pairs inside c.  The
tiles live in dynamic shared memory, ``shared_mem(BN, STAGES)`` bytes a
block; the autotuner launches each configuration with its own.

Split-K (``SPLIT`` > 1, for few tiles: decoding's small M): a unit of work
is one of the SPLIT slices of a tile's k tiles (``unit_work``), its Float32
sums stored to that slice of ``part``.  With ``arrived`` (a counter for each
warp's 16 rows of each tile, zero), each warp then takes a ticket; the warp
whose ticket is the last (its rows' other slices all stored) adds the
slices up in slice order (``sum_pairs``), rounds once, stores c and zeroes
its counter again: one launch, the same bits whichever block arrives last
(and as matmul.py's ``split_sum`` adds them).  Without ``arrived`` the
sums stay in ``part`` for ``split_sum``.  ``gemm()`` and ``matmul()``
autotune the split with the tile shape (``splits``), and for each shape
time that one launch against two (each split's fastest kernel without
``arrived``, then ``split_sum``: ``_faster_sum``), keeping the cheaper, a
call costing the longer of its GPU and host times (docs/tensor-cores.md,
"Split-K for few tiles").
"""

import functools
import sys
import time
from pathlib import Path
from typing import NamedTuple

# the siblings (block_reduce.py ...) import by name however this file is
# loaded: `python examples/x.py`, `from examples.x import ...`, kdsl-transpile
if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import kdsl
from block_reduce import multiprocessors
from matmul import (
    SPLITS,
    empty_f32,
    partial_sums_size,
    slice_adder,
    slice_size,
    zeros_i32,
)
from kdsl import (
    Constexpr,
    Float32,
    Int32,
    Pointer,
    Uint64,
    block_idx,
    grid_dim,
    thread_idx,
)

D = kdsl.TypeVar("D", bound=kdsl.Float)
BM = 128  # rows of c a block computes: 64 for each consumer warpgroup
BK = 64  # a tile row: 64 16-bit elements, 128 bytes, 8 chunks of 16 bytes
CHUNKS = BK // 8
BOX = 64  # the TMA box: 64 rows x 64 columns (8 KB), for a and bt alike
THREADS = 384  # a producer warpgroup and two consumers


@kdsl.func
def tile_origin(tile, tiles_m, tiles_n, group_m):
    """Row and column, in tiles, of c's tile number ``tile``: tiles are
    numbered in groups of ``group_m`` rows of tiles, down each column of a
    group, so that the blocks running together share their A and B tiles
    in L2 (the order of Triton's tutorial)."""
    in_group = group_m * tiles_n
    first_m = tile // in_group * group_m
    group_rows = min(tiles_m - first_m, group_m)
    return first_m + tile % in_group % group_rows, tile % in_group // group_rows


@kdsl.func
def unit_work(unit, tiles, ktiles, split):
    """Work unit ``unit`` of a GEMM whose ``tiles`` tiles of c are each
    split into ``split`` slices of their ``ktiles`` k tiles (split-K): its
    tile, its first k tile and how many.  Slice ``unit // tiles`` of tile
    ``unit % tiles``, so that the blocks running together take different
    tiles of the same slice; with ``split`` 1, a unit is a tile."""
    if split == 1:
        return unit, 0, ktiles
    s = unit // tiles
    first = s * ktiles // split
    return unit % tiles, first, (s + 1) * ktiles // split - first


@kdsl.func
def sum_pairs(part, at, apart, split):
    """The ``split`` slices' pair ``at`` of split-K's partial sums (``apart``
    pairs from one slice to the next) added in slice order, as split_sum
    adds them: the same bits whichever block arrives last."""
    total = part.vec(2)[at]
    for s in kdsl.range_constexpr(1, split):
        total = total + part.vec(2)[s * apart + at]
    return total


@kdsl.kernel(dtypes=["bf16", "f16"], launch_bounds=(THREADS, 1), no_overflow=True)
def gemm_tma(
    tma_a: kdsl.TensorMap,
    tma_b: kdsl.TensorMap,
    c: Pointer[D],
    part: Pointer[Float32] | None,
    arrived: Pointer[Int32] | None,
    M: Int32,
    N: Int32,
    K: Int32,
    BN: Constexpr[int] = 256,
    STAGES: Constexpr[int] = 4,
    GROUP_M: Constexpr[int] = 8,
    EDGE: Constexpr[bool] = False,
    B_ROW_MAJOR: Constexpr[bool] = False,
    SPLIT: Constexpr[int] = 1,
):
    kdsl.assume(M >= 0 and N >= 0 and K >= 0)
    # The ring: STAGES tiles of A (BM rows) and of B^T (BN rows), each row 8
    # chunks of 16 bytes, each box a multiple of 1024 bytes (kdsl aligns the
    # buffer to 1024 bytes: the 128-byte swizzle's pattern), and two
    # mbarriers a stage: full (the tiles have landed) and empty (both
    # consumers are done with them).
    sa = kdsl.dynamic_shared_array(D.vec(8), STAGES * BM * CHUNKS)
    sb = kdsl.dynamic_shared_array(D.vec(8), STAGES * BN * CHUNKS)
    full = kdsl.shared_array(Uint64, (STAGES,))
    empty = kdsl.shared_array(Uint64, (STAGES,))

    tid = thread_idx.x
    group = tid // 128  # 0: the producer; 1, 2: the consumers
    if EDGE:  # TMA reads zeros past the matrices' edges: round the tiles up
        tiles_m = (M + BM - 1) // BM
        tiles_n = (N + BN - 1) // BN
        ktiles = (K + BK - 1) // BK
    else:
        tiles_m = M // BM
        tiles_n = N // BN
        ktiles = K // BK

    if tid == 0:  # one arrival (with bytes) fills a stage, two free it
        for st in kdsl.range_constexpr(STAGES):
            kdsl.mbarrier_init(full, st, 1)
            kdsl.mbarrier_init(empty, st, 2)
        kdsl.fence_mbarrier_init()
    kdsl.syncthreads()

    # The block's units of work (tiles of c, or with SPLIT > 1 slices of
    # their k tiles: `unit_work`): block_idx.x, then every grid_dim.x-th
    # (one a block when the grid has one block per unit; a persistent grid
    # loops). The ring runs on across units: `it` counts the k tiles this
    # thread has loaded (or multiplied), and numbers their stage and its
    # round.
    tiles = tiles_m * tiles_n
    units = tiles * SPLIT
    if group == 0:  # the producer
        kdsl.setmaxnreg(40, inc=False)
        if tid == 0:
            unit = block_idx.x
            it = 0
            while unit < units:
                tile, k_first, k_count = unit_work(unit, tiles, ktiles, SPLIT)
                tm, tn = tile_origin(tile, tiles_m, tiles_n, GROUP_M)
                for kt in range(k_count):
                    s = it % STAGES
                    # wait until round it // STAGES - 1 of stage s was
                    # released (parity 1 in the first round: passes at once)
                    kdsl.mbarrier_wait(empty, s, it // STAGES % 2 ^ 1)
                    kdsl.mbarrier_arrive_expect_tx(full, s, (BM + BN) * BK * 2)
                    k0 = (k_first + kt) * BK
                    for i in kdsl.range_constexpr(BM // BOX):  # A: BM // 64 boxes
                        dst = (s * BM + i * BOX) * CHUNKS
                        kdsl.tma_load(sa, dst, tma_a, (k0, tm * BM + i * BOX), full, s)
                    for i in kdsl.range_constexpr(BN // BOX):  # B: BN // 64 boxes
                        dst = (s * BN + i * BOX) * CHUNKS
                        n0 = tn * BN + i * BOX
                        if B_ROW_MAJOR:  # 64 rows of k x 64 columns of b
                            kdsl.tma_load(sb, dst, tma_b, (n0, k0), full, s)
                        else:  # 64 rows of bt (columns of b) x 64 of k
                            kdsl.tma_load(sb, dst, tma_b, (k0, n0), full, s)
                    it += 1
                unit += grid_dim.x
    else:  # a consumer: rows 64 (group - 1) .. + 63 of each tile
        kdsl.setmaxnreg(232)
        acc = kdsl.local_array(Float32, (BN // 2,))  # set by each tile's first wgmma
        rows = (group - 1) * 64
        lane = tid % 32
        # a k16 step: 32 bytes along A's and B^T's rows; 16 rows of 128 bytes
        # down B's (row-major b: MN-major, its 64-column blocks 8 KB apart)
        b_step = 128 if B_ROW_MAJOR else 2
        b_lbo = BOX * 128 if B_ROW_MAJOR else 16
        unit = block_idx.x
        it = 0
        while unit < units:
            tile, k_first, k_count = unit_work(unit, tiles, ktiles, SPLIT)
            tm, tn = tile_origin(tile, tiles_m, tiles_n, GROUP_M)
            if not EDGE or tm * BM + rows < M:
                for kt in range(k_count):
                    stage = it % STAGES
                    kdsl.mbarrier_wait(full, stage, it // STAGES % 2)  # it has landed
                    da = kdsl.wgmma_desc(sa, (stage * BM + rows) * CHUNKS)
                    db = kdsl.wgmma_desc(sb, stage * BN * CHUNKS, lbo=b_lbo)
                    kdsl.wgmma_fence()
                    # kt 0: D = A B
                    kdsl.wgmma_mma_async(
                        acc, da, db, D, scale_d=kt > 0, trans_b=B_ROW_MAJOR
                    )
                    for kk in kdsl.range_constexpr(1, BK // 16):  # k16 steps
                        kdsl.wgmma_mma_async(
                            acc, da + 2 * kk, db + b_step * kk, D, trans_b=B_ROW_MAJOR
                        )
                    kdsl.wgmma_commit()
                    kdsl.wgmma_wait(1, acc)  # the wgmma of k tile it - 1 is done ...
                    if kt > 0 and tid % 128 == 0:  # ... so its stage is free
                        kdsl.mbarrier_arrive(empty, (it - 1) % STAGES)
                    it += 1
                kdsl.wgmma_wait(0, acc)  # the tile's last wgmma: its stage is free
            else:  # 64 rows all past c's last (M 64 or less: decoding): the
                # stages passed on, the tensor cores left to the other warpgroup
                for kt in range(k_count):
                    kdsl.mbarrier_wait(full, it % STAGES, it // STAGES % 2)
                    if kt > 0 and tid % 128 == 0:
                        kdsl.mbarrier_arrive(empty, (it - 1) % STAGES)
                    it += 1
            if tid % 128 == 0:
                kdsl.mbarrier_arrive(empty, (it - 1) % STAGES)

            # Thread l of warp w (of the warpgroup) holds, for each 8-column
            # block j, rows 16 w + l // 4 and + 8, columns 8 j + 2 (l % 4)
            # and + 1: two pairs.  (The producer is loading the next unit.)
            warp = tid % 128 // 32
            row = tm * BM + rows + warp * 16 + lane // 4
            col0 = tn * BN + lane % 4 * 2
            has_rows = not EDGE or row - lane // 4 < M  # the warp's first row is in c
            if SPLIT == 1:
                for j in kdsl.range_constexpr(BN // 8):
                    col = col0 + j * 8  # even, and N is: the pair is in or out
                    at = (row * N + col) // 2
                    if not EDGE or row < M and col < N:
                        c.vec(2)[at] = D.vec(2)(acc[4 * j], acc[4 * j + 1])
                    if not EDGE or row + 8 < M and col < N:  # row + 8
                        c.vec(2)[at + 4 * N] = D.vec(2)(acc[4 * j + 2], acc[4 * j + 3])
            elif has_rows:
                # split-K: the unrounded sums of slice s of the k tiles go to
                # slice s of part; the warp that computes these 16 rows for
                # the tile's last slice to arrive adds the slices up in slice
                # order and rounds once (without `arrived`, split_sum does)
                apart = slice_size(M, N) // 2  # pairs from a slice to the next
                past = unit // tiles * apart
                for j in kdsl.range_constexpr(BN // 8):
                    col = col0 + j * 8
                    at = (row * N + col) // 2
                    if not EDGE or row < M and col < N:
                        part.vec(2)[past + at] = Float32.vec(2)(
                            acc[4 * j], acc[4 * j + 1]
                        )
                    if not EDGE or row + 8 < M and col < N:
                        part.vec(2)[past + at + 4 * N] = Float32.vec(2)(
                            acc[4 * j + 2], acc[4 * j + 3]
                        )
                if arrived is not None:
                    # the slice's stores before the ticket (CUDA's
                    # threadFenceReduction): a fence, the warp together,
                    # one ticket the warp; the last takes the others' sums
                    kdsl.threadfence()
                    kdsl.syncwarp()
                    counter = tile * 8 + (group - 1) * 4 + warp
                    ticket = 0
                    if lane == 0:
                        ticket = kdsl.atomic_add(
                            arrived, counter, 1, order="acq_rel", scope="device"
                        )
                    ticket = kdsl.shfl_idx(ticket, 0)
                    if ticket == SPLIT - 1:  # every slice's sums are in part
                        kdsl.threadfence()
                        # 512 / BN 8-column blocks at a time (4 or 2: as many
                        # as the registers hold): their loads all first (a
                        # store between them would keep the next from
                        # starting), then their stores to c
                        GATHER = 512 // BN
                        sums = kdsl.local_array(Float32, (4 * GATHER,))
                        for q in kdsl.range_constexpr(BN // 8 // GATHER):
                            for g in kdsl.range_constexpr(GATHER):
                                col = col0 + (q * GATHER + g) * 8
                                at = (row * N + col) // 2
                                if not EDGE or row < M and col < N:
                                    low = sum_pairs(part, at, apart, SPLIT)
                                    sums[4 * g] = low[0]
                                    sums[4 * g + 1] = low[1]
                                if not EDGE or row + 8 < M and col < N:
                                    high = sum_pairs(part, at + 4 * N, apart, SPLIT)
                                    sums[4 * g + 2] = high[0]
                                    sums[4 * g + 3] = high[1]
                            for g in kdsl.range_constexpr(GATHER):
                                col = col0 + (q * GATHER + g) * 8
                                at = (row * N + col) // 2
                                if not EDGE or row < M and col < N:
                                    c.vec(2)[at] = D.vec(2)(
                                        sums[4 * g], sums[4 * g + 1]
                                    )
                                if not EDGE or row + 8 < M and col < N:
                                    c.vec(2)[at + 4 * N] = D.vec(2)(
                                        sums[4 * g + 2], sums[4 * g + 3]
                                    )
                        if lane == 0:  # zero again, for the next launch
                            arrived[counter] = 0
            unit += grid_dim.x


# -- launching ---------------------------------------------------------------------------
# (BN, STAGES): 128- or 256-wide tiles, as deep a ring as shared memory holds;
# 64-wide ones only for shapes whose 128-wide tiles leave multiprocessors
# idle (decoding's small M: twice the tiles, so more of the SMs stream the
# weights before split-K has to; ``_prune``).
SHAPES = [
    (256, 4),
    (256, 3),
    (128, 6),
    (128, 4),
    (64, 8),
]


def shared_mem(BN: int, STAGES: int) -> int:
    """Dynamic shared memory bytes of one configuration (its ring)."""
    return STAGES * (BM + BN) * BK * 2


# split-K: each slice at least MIN_SLICE k tiles (the ring fills and drains
# once a slice).  With the slices added in the kernel (one launch, a
# workspace kept from call to call) the autotuner's time of a split
# configuration is what a call costs, so the search picks the split too.
MIN_SLICE = 4


def splits(M: int, N: int, K: int, BN: int, sms: int) -> list:
    """The SPLITs worth timing for this shape with BN-wide tiles: 1, and,
    where the tiles of c leave ``sms`` multiprocessors idle, each of SPLITS
    whose units (tiles x slices) still fit one wave, each slice at least
    MIN_SLICE k tiles (decoding: M 1 .. 128 with N and K large, where a tile
    a block leaves most SMs idle while the weights stream through the rest)."""
    n = tiles(M, N, BN)
    ktiles = -(-K // BK)
    return [
        s
        for s in SPLITS
        if s == 1 or n * s <= sms and ktiles >= MIN_SLICE * s and s * M * N < 2**30
    ]


def most_split(M: int, N: int, K: int, sms: int) -> int:
    """The largest SPLIT any configuration may take for this shape (what
    the workspace must hold)."""
    return max(max(splits(M, N, K, bn, sms)) for bn, _ in SHAPES)


def _prune(configs, args):
    """The autotuner's prune=: the tile shapes, each with the splits
    ``splits`` allows for its tiles; 64-wide tiles only where 128-wide ones
    do not fill the multiprocessors."""
    M, N, K = args["M"], args["N"], args["K"]
    sms = multiprocessors()
    few = tiles(M, N, 128) < sms
    return [
        c
        for c in configs
        if c.constexprs["SPLIT"] in splits(M, N, K, c.constexprs["BN"], sms)
        and (few or c.constexprs["BN"] > 64)
    ]


def _tuned(edge: bool, b_row_major: bool, split):
    """The autotuned kernel over the tile shapes: with ``split`` None each
    with every split ``splits`` allows (pruned per shape), else with that
    split only (a caller's ``split=``)."""
    choices = SPLITS if split is None else (split,)
    configs = [
        kdsl.Config(BN=n, STAGES=s, EDGE=edge, B_ROW_MAJOR=b_row_major, SPLIT=k)
        for k in choices
        for n, s in SHAPES
    ]
    prune = _prune if split is None else None
    return kdsl.autotune(configs=configs, key=["M", "N", "K"], restore=[], prune=prune)(
        gemm_tma
    )


# (EDGE, B_ROW_MAJOR, SPLIT) -> the autotuned kernel: the tile shapes with
# split-K's SPLIT slices, or with SPLIT None with the splits the shape allows
# (what gemm() and matmul() launch).  EDGE: any M, N even, K a multiple of 8
# (TMA's 16-byte row strides; a row-major b: N a multiple of 8 too): the edge
# tiles read zeros past the ends and store only what is in c
TUNED = {
    (e, r, k): _tuned(e, r, k)
    for e in (False, True)
    for r in (False, True)
    for k in (None, *SPLITS)
}
gemm_tuned = TUNED[False, False, 1]
gemm_edge = TUNED[True, False, 1]


def config_shared_mem(m) -> int:
    """The autotuner's shared_mem=: each configuration gets its own ring."""
    return shared_mem(m["BN"], m["STAGES"])


def tiles(M: int, N: int, BN: int) -> int:
    """Tiles of c (the edge ones included)."""
    return -(-M // BM) * -(-N // BN)


def grid(M: int, N: int):
    """One block a tile of c."""
    return lambda m: (tiles(M, N, m["BN"]),)


def persistent_grid(M: int, N: int, sms: int):
    """One block a multiprocessor (``sms`` of them; one block fits on each),
    each looping over its tiles (or with SPLIT, its units: slices of them)."""
    return lambda m: (min(sms, tiles(M, N, m["BN"]) * m.get("SPLIT", 1)),)


def tensor_maps(a, bt):
    """The TMA maps of a (M, K) and bt (N, K) — or b (K, N): boxes of 64 x
    64, 128-byte swizzle (the layout `kdsl.wgmma_desc(..., swizzle=128)`
    reads)."""
    return (
        kdsl.tensor_map(a, box=(BOX, BK), swizzle=128),
        kdsl.tensor_map(bt, box=(BOX, BK), swizzle=128),
    )


def check_shapes(a, bt, c, b_row_major: bool = False) -> tuple:
    """``(M, N, K)``, or ValueError for sizes the kernel does not take
    (``b_row_major``: the second operand is b (K, N), not bt (N, K))."""
    M, K = a.shape
    if b_row_major:
        K_b, N = bt.shape
        ok = K_b == K and N % 8 == 0
        need = "N and K multiples of 8, a (M, K) and b (K, N)"
    else:
        N = bt.shape[0]
        ok = bt.shape[1] == K and N % 2 == 0
        need = "N even and K a multiple of 8, a (M, K) and bt (N, K)"
    if not ok or K % 8 or K == 0 or M == 0 or N == 0:
        name = "b" if b_row_major else "bt"
        raise ValueError(
            f"gemm_tma needs {need} (TMA reads rows of a multiple of 16 bytes),"
            f" got a {tuple(a.shape)}, {name} {tuple(bt.shape)}"
        )
    if tuple(c.shape) != (M, N):
        raise ValueError(f"c must be ({M}, {N}), got {tuple(c.shape)}")
    return M, N, K


def whole_tiles(M: int, N: int, K: int) -> bool:
    """Whether every configuration's tiles divide c and the k tiles K."""
    return M % BM == 0 and N % 256 == 0 and K % BK == 0


def gemm(a, bt, c, maps=None, split=None):
    """c = a @ bt.T for row-major (M, K) a and (N, K) bt (CuPy arrays or
    PyTorch tensors on an H100/H200), c (M, N) of their dtype.  ``maps``:
    the tensor maps of a and bt, if the caller keeps them (built otherwise:
    kdsl.tensor_map encodes the same memory once, the rest is Python).  ``split``: split-K's slices (one of SPLITS;
    None: the autotuner picks among those ``splits`` allows; 1: no split-K)."""
    _launch(a, bt, c, maps, False, split)


def matmul(a, b, c, maps=None, split=None):
    """c = a @ b for row-major (M, K) a and (K, N) b, as torch.matmul takes
    them (CuPy arrays or PyTorch tensors on an H100/H200; N and K multiples
    of 8), c (M, N) of their dtype: wgmma reads b MN-major, no transposed
    copy.  ``maps``: the tensor maps of a and b, if the caller keeps them;
    ``split`` as for ``gemm``."""
    _launch(a, b, c, maps, True, split)


def _launch(a, b, c, maps, b_row_major, split):
    # what a call of this shape launches, worked out once (the autotuned
    # kernel and its grid, the workspace's size, how the slices are added):
    # a decoding GEMM's kernel takes 15-30 us, and Python's work per call
    # adds to it
    plan = _PLANS.get((a.shape, b.shape, c.shape, b_row_major, split))
    if plan is None or plan[0] != multiprocessors():
        plan = _plan(a, b, c, maps, b_row_major, split)
    _, launch, M, N, K, floats, counters, two = plan
    tma_a, tma_b = maps if maps is not None else tensor_maps(a, b)
    part = arrived = None
    if floats:  # the slices' sums, and a counter for each warp's rows of a tile
        part, arrived = workspace(c, floats, counters)
    if two is not None:  # the slices' sums stay in part; split_sum adds them
        launch(tma_a, tma_b, c, part, None, M, N, K)
        two.add(part, c, M, N)
    else:
        launch(tma_a, tma_b, c, part, arrived, M, N, K, shared_mem=config_shared_mem)


class TwoLaunches(NamedTuple):
    """A plan's split-K in two launches: the configuration (its constexpr
    values) of the kernel that stores its slices' sums, and ``add``,
    split_sum's launch that adds them (``add(part, c, M, N)``)."""

    config: dict
    add: object


# (a's, b's and c's shapes, b_row_major, split) -> what _launch launches
_PLANS: dict = {}


def _plan(a, b, c, maps, b_row_major, split) -> tuple:
    """The shapes checked, and what a call with them launches: (the
    multiprocessors, the launch, M, N, K, the workspace's Float32 and Int32
    elements, and None where the kernel adds the slices, else TwoLaunches)."""
    M, N, K = check_shapes(a, b, c, b_row_major)
    if split is not None and (
        split not in SPLITS or split * M * N >= 2**30 or split > -(-K // BK)
    ):  # every slice at least one k tile (an empty one would free a stage)
        raise ValueError(
            f"gemm_tma: split-K's split must be one of {SPLITS} and at most"
            f" the {-(-K // BK)} k tiles, got {split}"
        )
    sms = multiprocessors()
    most = most_split(M, N, K, sms) if split is None else split
    floats = counters = 0
    if most > 1:
        floats = partial_sums_size(M, N, most)
        counters = 8 * tiles(M, N, 128)
    # A persistent grid: one block a multiprocessor, each looping over its
    # tiles (on the H200 1-3 % faster than a block a tile at 4096^3 and
    # 8192^3: no block start-up per tile, and the next tile's first loads
    # overlap this tile's epilogue).
    tuned = TUNED[not whole_tiles(M, N, K), b_row_major, split]
    launch = tuned[persistent_grid(M, N, sms), THREADS]
    two = None
    if split is None and most > 1:  # one launch or two: whichever is faster
        if maps is None:
            maps = tensor_maps(a, b)
        launch, two = _faster_sum(launch, tuned, maps, c, M, N, K, floats, counters)
    if len(_PLANS) > 1024:  # shapes made on the fly: forget them
        _PLANS.clear()
    plan = _PLANS[a.shape, b.shape, c.shape, b_row_major, split] = (
        sms,
        launch,
        M,
        N,
        K,
        floats,
        counters,
        two,
    )
    return plan


def _faster_sum(launch, tuned, maps, c, M, N, K, floats, counters) -> tuple:
    """Split-K's two ways of adding the slices, each timed whole on these
    arguments: one launch, the last warp to arrive adding them (``launch``,
    its tile shape and split autotuned), against, for each split, the
    fastest tile shape of the kernel that only stores its slices (the same
    autotuner's search with ``arrived`` None) followed by ``split_sum``.
    Both add the slices in slice order: the same bits.  A call costs the
    longer of its time on the GPU (L2 flushed before each call, median of
    20) and its time on the host (two launches' Python: 31-52 us a call on
    the H200's host, more than a decoding GEMM takes on the GPU), as a
    stream of calls does.  Returns the cheaper's launch and None (one
    launch) or its TwoLaunches."""
    from kdsl.runtime.benchmark import Bench

    part, arrived = workspace(c, floats, counters)
    one = (*maps, c, part, arrived, M, N, K)
    two = (*maps, c, part, None, M, N, K)
    launch(*one, shared_mem=config_shared_mem)  # the searches: one launch, and
    launch(*two, shared_mem=config_shared_mem)  # the kernel that only stores
    runs = [(launch, None)]
    for config in fastest_per_split(tuned.timings(*two)):
        runs.append(two_launches(config.constexprs, launch.grid, two))

    def call(run, second):  # second: None, or the TwoLaunches of run
        if second is None:
            run(*one, shared_mem=config_shared_mem)
        else:
            run(*two)
            second.add(part, c, M, N)

    bench = Bench("gemm_tma", {}, None)
    try:
        costs = []
        for run in runs:
            gpu = bench.time(lambda run=run: call(*run), 3, 20)
            costs.append(max(gpu, host_ms(lambda run=run: call(*run))))
    finally:
        bench.close()
    return runs[faster(costs)]


def two_launches(m: dict, grid, args) -> tuple:
    """The launches of split-K in two: configuration ``m``'s kernel that
    stores its slices (its instance for ``args``, whose ``arrived`` is None,
    on ``grid(m)``) and TwoLaunches with split_sum's.  Instances' own
    launches: nothing to key on at each call (host time counts, above)."""
    _, _, c, part, _, M, N, _ = args
    store = gemm_tma.instance_for(args, m)[grid(m), THREADS]
    store = functools.partial(store, shared_mem=shared_mem(m["BN"], m["STAGES"]))
    return store, TwoLaunches(m, slice_adder(part, c, M, N, m["SPLIT"]))


def host_ms(call, n: int = 20) -> float:
    """Milliseconds of host time a ``call`` takes (its launches queued, not
    waited for): the lesser of two runs of ``n`` calls' average."""
    spent = []
    for _ in range(2):
        start = time.perf_counter()
        for _ in range(n):
            call()
        spent.append((time.perf_counter() - start) / n * 1e3)
    return min(spent)


def fastest_per_split(timings) -> list:
    """From an autotuner search's (config, ms or None) pairs, for each SPLIT
    above 1 the fastest configuration (the earlier on a tie), by SPLIT."""
    best: dict = {}
    for config, ms in timings:
        s = config.constexprs["SPLIT"]
        if ms is not None and s > 1 and (s not in best or ms < best[s][1]):
            best[s] = (config, ms)
    return [best[s][0] for s in sorted(best)]


def faster(times) -> int:
    """The position of the fastest of ``times`` (the earlier on a tie: the
    one-launch split comes first)."""
    return times.index(min(times))


# (library, device, stream) -> split-K's workspace there
_WORKSPACES: dict = {}
_STREAM: list = []  # PyTorch's device -> current stream query, once imported


def workspace(like, floats: int, counters: int) -> tuple:
    """Split-K's workspace for launches on the current stream of ``like``'s
    device and library (PyTorch or CuPy): ``floats`` Float32 partial sums
    and ``counters`` Int32 arrival counters, zero.  Kept from one call to
    the next (a launch leaves every counter zero again: the last warp to
    arrive resets its own), and made larger when a call needs more; one a
    stream, so that launches on two streams never share counters."""
    if type(like).__module__.startswith("torch"):
        if not _STREAM:
            import torch

            from kdsl.runtime.launch import raw_stream_query

            _STREAM.append(raw_stream_query(torch))
        device = like.get_device()
        key = ("torch", device, _STREAM[0](device))
    else:
        import cupy

        key = ("cupy", like.device.id, cupy.cuda.get_current_stream().ptr)
    # (part, arrived, their sizes): a tensor's len() is a Python call of
    # PyTorch's, a few of which a decoding GEMM's host time can do without
    have = _WORKSPACES.get(key)
    if have is None or have[2] < floats or have[3] < counters:
        if have is not None:
            floats, counters = max(floats, have[2]), max(counters, have[3])
        part, arrived = empty_f32(like, floats), zeros_i32(like, counters)
        have = _WORKSPACES[key] = (part, arrived, floats, counters)
    return have[0], have[1]


if __name__ == "__main__":
    print(gemm_tma.dispatch("bf16").source)
