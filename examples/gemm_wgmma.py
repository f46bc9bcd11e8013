"""gemm_wgmma: c = a @ b on Hopper's warpgroup tensor cores (sm_90a:
H100/H200 only), for a row-major bf16 or f16 (M, K) matrix ``a`` and ``b``
given transposed, as a row-major (N, K) matrix ``bt`` (``b.T``, made
contiguous: wgmma reads 16-bit B "K-major", each column of B one row of
``bt``), accumulating in Float32; c is (M, N), row-major, of their dtype
(docs/tensor-cores.md, "Hopper").

Each block computes a BM x BN tile of c with BM / 64 warpgroups (128
threads each), warpgroup w the rows 64 w .. 64 w + 63 as one
m64nBNk16 accumulator: BN / 2 Float32 a thread.  The k loop runs a
STAGES-deep cp.async pipeline over BK = 64 wide k tiles: each tile row is
128 bytes, stored with the 128-byte swizzle (16-byte chunk q of row r at
chunk q ^ r % 8, `kdsl.swizzle(r, q, 8)`), the layout wgmma's descriptors
(`kdsl.wgmma_desc(..., swizzle=128, sbo=1024)`) read; while the warpgroups
multiply one stage (4 wgmma_mma_async of k16, one commit) the
copies of the next STAGES - 2 are in flight, and the warpgroups wait only for
the group before (wgmma_wait(1)), so the tensor cores keep multiplying
while the block synchronises and starts the next copies.  STAGES >= 3.

M must be a multiple of BM, N of BN and K of BK (`gemm()` checks; the
mma.sync example examples/gemm_mma.py takes ragged sizes).  The tiles live
in dynamic shared memory: `shared_mem(BM, BN, STAGES)` bytes a block, each
configuration's own (`config_shared_mem`, the autotuner's `shared_mem=`).
"""

import kdsl
from kdsl import Constexpr, Float32, Int32, Pointer, block_idx, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Float)
BK = 64  # a tile row: 64 16-bit elements, 128 bytes, 8 chunks of 16 bytes
CHUNKS = BK // 8


@kdsl.kernel(dtypes=["bf16", "f16"], no_overflow=True)
def gemm_wgmma(
    a: Pointer[D],
    bt: Pointer[D],
    c: Pointer[D],
    M: Int32,
    N: Int32,
    K: Int32,
    BM: Constexpr[int] = 128,
    BN: Constexpr[int] = 128,
    STAGES: Constexpr[int] = 4,
):
    kdsl.assume(M >= 0 and N >= 0 and K >= 0)
    # STAGES tiles of A (BM rows) and of B^T (BN rows), each row 8 chunks;
    # every tile a multiple of 1024 bytes, so each starts on the swizzle
    # pattern (kdsl aligns the buffer to 1024 bytes for wgmma_desc).
    sa = kdsl.dynamic_shared_array(D.vec(8), STAGES * BM * CHUNKS)
    sb = kdsl.dynamic_shared_array(D.vec(8), STAGES * BN * CHUNKS)
    acc = kdsl.local_array(Float32, (BN // 2,))  # set by the first wgmma

    THREADS = BM // 64 * 128
    tid = thread_idx.x
    group = tid // 128  # this thread's warpgroup: rows 64 group .. + 63
    bm = block_idx.y * BM
    bn = block_idx.x * BN

    ktiles = K // BK
    row_chunks = K // 8  # 16-byte chunks in a row of a and of bt
    # Tile t is copied STAGES - 2 iterations before it is multiplied, and
    # each iteration waits only for the wgmma group before its own (wait 1):
    # the group of tile kt runs while the next iteration waits for its tile
    # and starts its copies, into the stage of tile kt - 2, finished by then.
    AHEAD = STAGES - 2
    for t in range(ktiles + AHEAD):
        kt = t - AHEAD  # the tile multiplied in this iteration
        if kt >= 0:
            kdsl.cp_async_wait(AHEAD - 1)  # tile kt has landed ...
            kdsl.fence_proxy_async()  # ... where wgmma reads (the async proxy)
            kdsl.syncthreads()  # ... for every thread; wgmma of kt - 2 is done
        if t < ktiles:  # start copying tile t into stage t % STAGES
            stage = t % STAGES
            k0 = t * CHUNKS
            for p in kdsl.range_constexpr(BM * CHUNKS // THREADS):
                chunk = p * THREADS + tid
                r = chunk // CHUNKS
                q = chunk % CHUNKS
                at = (stage * BM + r) * CHUNKS + kdsl.swizzle(r, q, CHUNKS)
                src = (bm + r) * row_chunks + k0 + q  # the chunk in global memory
                kdsl.cp_async(sa, at, a.vec(8), src)
            for p in kdsl.range_constexpr(BN * CHUNKS // THREADS):
                chunk = p * THREADS + tid
                r = chunk // CHUNKS
                q = chunk % CHUNKS
                at = (stage * BN + r) * CHUNKS + kdsl.swizzle(r, q, CHUNKS)
                src = (bn + r) * row_chunks + k0 + q
                kdsl.cp_async(sb, at, bt.vec(8), src)
        kdsl.cp_async_commit()
        if kt >= 0:  # multiply stage kt % STAGES: 4 k16 steps of 32 bytes
            stage = kt % STAGES
            da = kdsl.wgmma_desc(sa, (stage * BM + group * 64) * CHUNKS)
            db = kdsl.wgmma_desc(sb, stage * BN * CHUNKS)
            kdsl.wgmma_fence()
            kdsl.wgmma_mma_async(acc, da, db, D, scale_d=kt > 0)  # kt 0: D = A B
            for kk in kdsl.range_constexpr(1, BK // 16):
                kdsl.wgmma_mma_async(acc, da + 2 * kk, db + 2 * kk, D)
            kdsl.wgmma_commit()
            kdsl.wgmma_wait(1, acc)  # the group of tile kt - 1 is done
    kdsl.wgmma_wait(0, acc)  # and the last one

    # Thread l of warp w (of the warpgroup) holds, for each 8-column block j,
    # rows 16 w + l // 4 and + 8, columns 8 j + 2 (l % 4) and + 1: two pairs.
    lane = tid % 32
    row = bm + group * 64 + tid % 128 // 32 * 16 + lane // 4
    col0 = bn + lane % 4 * 2
    for j in kdsl.range_constexpr(BN // 8):
        at = (row * N + col0 + j * 8) // 2
        v0 = acc[4 * j]
        v1 = acc[4 * j + 1]
        v2 = acc[4 * j + 2]  # row + 8
        v3 = acc[4 * j + 3]
        c.vec(2)[at] = D.vec(2)(v0, v1)
        c.vec(2)[at + 4 * N] = D.vec(2)(v2, v3)


# -- launching ---------------------------------------------------------------------------
# (BM, BN, STAGES): one or two consumer warpgroups, 128- or 256-wide tiles.
SHAPES = [
    (128, 128, 4),
    (128, 256, 4),
    (128, 128, 5),
    (64, 256, 4),
]


def shared_mem(BM: int, BN: int, STAGES: int) -> int:
    """Dynamic shared memory bytes of one configuration."""
    return STAGES * (BM + BN) * BK * 2


def config_shared_mem(m) -> int:
    """The autotuner's shared_mem=: each configuration gets its own."""
    return shared_mem(m["BM"], m["BN"], m["STAGES"])


gemm_tuned = kdsl.autotune(
    configs=[kdsl.Config(BM=m, BN=n, STAGES=s) for m, n, s in SHAPES],
    key=["M", "N", "K"],
    restore=[],
)(gemm_wgmma)


def grid(M: int, N: int):
    return lambda m: (N // m["BN"], M // m["BM"])


def block(m) -> int:
    return m["BM"] // 64 * 128


def gemm(a, bt, c, interpret: bool = False):
    """c = a @ bt.T for row-major (M, K) a and (N, K) bt (CuPy arrays or
    PyTorch tensors on an sm_90 GPU; numpy arrays with ``interpret=True``),
    c (M, N) of their dtype."""
    M, K = a.shape
    N = bt.shape[0]
    if M % 128 or N % 256 or K % BK or K == 0:
        raise ValueError(
            f"gemm_wgmma needs M a multiple of 128, N of 256 and K of {BK}, "
            f"got M={M}, N={N}, K={K}"
        )
    if interpret:  # the first configuration (the interpreter does not tune)
        bm, bn, stages = SHAPES[0]
        launch = gemm_wgmma.interpret[(N // bn, M // bm), bm // 64 * 128]
        launch(a, bt, c, M, N, K, shared_mem=shared_mem(bm, bn, stages))
        return
    gemm_tuned[grid(M, N), block](a, bt, c, M, N, K, shared_mem=config_shared_mem)


if __name__ == "__main__":
    print(gemm_wgmma.dispatch("bf16").source)
