"""gemm_mma: c = a @ b on the tensor cores, for row-major bf16 or f16 (M, K)
and (K, N) matrices, accumulating in Float32 (docs/tensor-cores.md).

Each block computes a BM x BN tile of c with (BM / WM) x (BN / WN) warps,
each warp a WM x WN tile as (WM / 16) x (WN / 8) mma.sync m16n8k16
accumulators.  The k loop runs a STAGES-deep cp.async pipeline: while the
warps multiply one BK-wide stage of A and B (fragments loaded with
ldmatrix from XOR-swizzled shared memory, so without bank conflicts), the
copies of the next STAGES - 1 stages are in flight.

`EDGE=False` needs M and N multiples of the tile (BM, BN) and K of BK;
`EDGE=True` takes any M and N and K that are multiples of 8 (a 16-byte
row chunk), zero-filling the copies past the edges and masking the stores.
`gemm(a, b, c)` picks the variant and launches the autotuned kernel.
"""

import kdsl
from kdsl import Constexpr, Float32x4, Int32, Pointer, block_idx, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel(dtypes=["bf16", "f16"], no_overflow=True)
def gemm_mma(
    a: Pointer[D],
    b: Pointer[D],
    c: Pointer[D],
    M: Int32,
    N: Int32,
    K: Int32,
    BM: Constexpr[int] = 128,
    BN: Constexpr[int] = 128,
    BK: Constexpr[int] = 32,
    WM: Constexpr[int] = 64,
    WN: Constexpr[int] = 64,
    STAGES: Constexpr[int] = 3,
    EDGE: Constexpr[bool] = False,
):
    kdsl.assume(M >= 0 and N >= 0 and K >= 0)
    # Shared memory: STAGES tiles of A (BM x BK) and B (BK x BN), each row a
    # run of 16-byte chunks (8 elements), stored at their swizzled places.
    sa = kdsl.shared_array(D.vec(8), (STAGES, BM, BK // 8))
    sb = kdsl.shared_array(D.vec(8), (STAGES, BK, BN // 8))
    acc = kdsl.local_array(Float32x4, (WM // 16, WN // 8))
    fa = kdsl.local_array(D.vec(8), (WM // 16,))
    fb = kdsl.local_array(D.vec(4), (WN // 8,))

    THREADS = BM // WM * (BN // WN) * 32  # a compile-time value
    tid = thread_idx.x
    lane = tid % 32
    warp = tid // 32
    wm = warp // (BN // WN) * WM  # the warp's tile in the block's
    wn = warp % (BN // WN) * WN
    bm = block_idx.y * BM
    bn = block_idx.x * BN
    for i in kdsl.range_constexpr(WM // 16):
        for j in kdsl.range_constexpr(WN // 8):
            acc[i, j] = Float32x4(0.0)

    ktiles = (K + BK - 1) // BK
    a_row = K // 8  # 16-byte chunks in a row of a
    b_row = N // 8  # ... and of b
    for t in range(ktiles + STAGES - 1):
        kt = t - (STAGES - 1)  # the tile multiplied in this iteration
        if kt >= 0:
            kdsl.cp_async_wait(STAGES - 2)  # tile kt has landed ...
            kdsl.syncthreads()  # ... for every thread; stage kt - 1 is free
        if t < ktiles:  # start copying tile t into stage t % STAGES
            stage = t % STAGES
            k0 = t * BK
            for p in kdsl.range_constexpr(BM * BK // 8 // THREADS):
                chunk = p * THREADS + tid
                r = chunk // (BK // 8)
                q = chunk % (BK // 8)
                row = bm + r
                at = row * a_row + k0 // 8 + q  # the chunk in global memory
                kdsl.cp_async(
                    sa,
                    (stage, r, kdsl.swizzle(r, q, BK // 8)),
                    a.vec(8),
                    at,
                    pred=(row < M and k0 + 8 * q < K) if EDGE else True,
                )
            for p in kdsl.range_constexpr(BK * BN // 8 // THREADS):
                chunk = p * THREADS + tid
                r = chunk // (BN // 8)
                q = chunk % (BN // 8)
                row = k0 + r
                at = row * b_row + bn // 8 + q  # the chunk in global memory
                kdsl.cp_async(
                    sb,
                    (stage, r, kdsl.swizzle(r, q, BN // 8)),
                    b.vec(8),
                    at,
                    pred=(row < K and bn + 8 * q < N) if EDGE else True,
                )
        kdsl.cp_async_commit()
        if kt >= 0:  # multiply stage kt % STAGES
            stage = kt % STAGES
            for kk in kdsl.range_constexpr(BK // 16):
                for i in kdsl.range_constexpr(WM // 16):
                    r = wm + i * 16 + lane % 16
                    q = kk * 2 + lane // 16
                    fa[i] = kdsl.ldmatrix(sa, (stage, r, kdsl.swizzle(r, q, BK // 8)))
                for j in kdsl.range_constexpr(WN // 8):
                    r = kk * 16 + lane % 16
                    q = (wn + j * 8) // 8
                    fb[j] = kdsl.ldmatrix(
                        sb, (stage, r, kdsl.swizzle(r, q, BN // 8)), count=2, trans=True
                    )
                for i in kdsl.range_constexpr(WM // 16):
                    for j in kdsl.range_constexpr(WN // 8):
                        acc[i, j] = kdsl.mma_m16n8k16(fa[i], fb[j], acc[i, j])

    # Each lane holds rows g and g + 8, columns 2t and 2t + 1 of each 16 x 8
    # accumulator: two pairs, stored as D x2 at pair index `at`.
    g = lane // 4
    col0 = bn + wn + lane % 4 * 2
    for i in kdsl.range_constexpr(WM // 16):
        for j in kdsl.range_constexpr(WN // 8):
            v = acc[i, j]
            row = bm + wm + i * 16 + g
            col = col0 + j * 8
            at = (row * N + col) // 2
            if not EDGE or row < M and col < N:
                c.vec(2)[at] = D.vec(2)(v[0], v[1])
            if not EDGE or row + 8 < M and col < N:
                c.vec(2)[at + 4 * N] = D.vec(2)(v[2], v[3])  # row + 8


# -- launching ---------------------------------------------------------------------------
# Configurations whose shared tiles fit the 48 KB of static shared memory:
# (BM, BN, BK, WM, WN, STAGES).
SHAPES = [
    (128, 128, 32, 64, 64, 3),
    (128, 64, 32, 64, 32, 4),
    (64, 128, 32, 32, 64, 4),
    (128, 128, 32, 64, 32, 3),
]


def _configs(edge: bool):
    names = ("BM", "BN", "BK", "WM", "WN", "STAGES")
    return [kdsl.Config(**dict(zip(names, s)), EDGE=edge) for s in SHAPES]


gemm_full = kdsl.autotune(configs=_configs(False), key=["M", "N", "K"], restore=[])(
    gemm_mma
)
gemm_edge = kdsl.autotune(configs=_configs(True), key=["M", "N", "K"], restore=[])(
    gemm_mma
)


def grid(M: int, N: int):
    return lambda m: ((N + m["BN"] - 1) // m["BN"], (M + m["BM"] - 1) // m["BM"])


def block(m) -> int:
    return m["BM"] // m["WM"] * (m["BN"] // m["WN"]) * 32


def gemm(a, b, c, interpret: bool = False):
    """c = a @ b for row-major (M, K) a and (K, N) b (CuPy arrays or PyTorch
    tensors; numpy arrays with ``interpret=True``), c (M, N) of their dtype."""
    M, K = a.shape
    N = b.shape[1]
    if K % 8 or N % 8:
        raise ValueError(f"gemm_mma needs K and N multiples of 8, got K={K}, N={N}")
    full = M % 128 == 0 and N % 128 == 0 and K % 32 == 0  # every config's tile
    tuned = gemm_full if full else gemm_edge
    launch = tuned.interpret if interpret else tuned
    launch[grid(M, N), block](a, b, c, M, N, K)


if __name__ == "__main__":
    print(gemm_mma.dispatch("bf16").source)
