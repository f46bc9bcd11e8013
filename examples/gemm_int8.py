"""gemm_int8: c = a @ bt.T on the tensor cores for Int8 (or Uint8) matrices,
exact in Int32 (docs/tensor-cores.md): a is (M, K) row-major, bt is B transposed,
(N, K) row-major — the layout int8 GEMMs take (cuBLASLt's "TN", what
torch._int_mm reads fastest), in which both operands' k runs along a row.

The structure is examples/gemm_mma.py's: BM x BN block tiles, WM x WN warp
tiles of mma.sync m16n8k32 (Int32x4 accumulators), a STAGES-deep cp.async
pipeline and fragments loaded with ldmatrix (16-byte rows of 16 Int8; no
transpose needed) from XOR-swizzled shared memory.  Int32 sums wrap, as
PTX's mma with .satfinite off does.

`EDGE=False` needs M and N multiples of the tile and K of BK; `EDGE=True`
any M and N, and K a multiple of 16.  `gemm(a, bt, c)` picks the variant
and launches the autotuned kernel.

On Hopper (compute capability 9.0) `gemm` launches instead the TMA + wgmma
pipeline of gemm_fp8.py with Int8 inputs and an Int32 c (``gemm_fp8.int_mm``:
m64nNk32 wgmma with s8 operands) for the operands it takes: int8 torch
tensors, contiguous, N even (any M, and K a multiple of 16, as here: TMA
reads zeros past the edges).  On the H200 (benchmarks/RESULTS.md, session
12) it is 1.00-1.40x torch._int_mm where this kernel is 0.74-0.83x — with
its tensor maps kept by the caller (``gemm(a, bt, c, maps=...)``); built
each call, the two maps cost about 0.13 ms of host time on the H200, which
bounded a small GEMM (0.42x at 1009 x 4104 x 4112) until kdsl.tensor_map
kept each encoding for the memory it describes (made once, since).
This kernel stays the path elsewhere, for Uint8, and in the interpreter
(which cannot run TMA).
"""

import sys
from pathlib import Path

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import kdsl
from kdsl import Constexpr, Int32, Int32x4, Pointer, block_idx, thread_idx

T = kdsl.TypeVar("T", bound=kdsl.Int)


@kdsl.kernel(dtypes=["i8", "u8"], no_overflow=True)
def gemm_int8(
    a: Pointer[T],
    bt: Pointer[T],
    c: Pointer[Int32],
    M: Int32,
    N: Int32,
    K: Int32,
    BM: Constexpr[int] = 128,
    BN: Constexpr[int] = 128,
    BK: Constexpr[int] = 64,
    WM: Constexpr[int] = 64,
    WN: Constexpr[int] = 64,
    STAGES: Constexpr[int] = 3,
    EDGE: Constexpr[bool] = False,
):
    kdsl.assume(M >= 0 and N >= 0 and K >= 0)
    # STAGES tiles of A (BM x BK) and of B transposed (BN x BK): rows of
    # 16-byte chunks (16 elements each) at their swizzled places.
    sa = kdsl.shared_array(T.vec(16), (STAGES, BM, BK // 16))
    sb = kdsl.shared_array(T.vec(16), (STAGES, BN, BK // 16))
    acc = kdsl.local_array(Int32x4, (WM // 16, WN // 8))
    fa = kdsl.local_array(T.vec(16), (WM // 16,))
    fb = kdsl.local_array(T.vec(8), (WN // 8,))

    THREADS = BM // WM * (BN // WN) * 32  # a compile-time value
    tid = thread_idx.x
    lane = tid % 32
    warp = tid // 32
    wm = warp // (BN // WN) * WM
    wn = warp % (BN // WN) * WN
    bm = block_idx.y * BM
    bn = block_idx.x * BN
    for i in kdsl.range_constexpr(WM // 16):
        for j in kdsl.range_constexpr(WN // 8):
            acc[i, j] = Int32x4(0)

    ktiles = (K + BK - 1) // BK
    row_chunks = K // 16  # 16-byte chunks in a row of a and of bt
    for t in range(ktiles + STAGES - 1):
        kt = t - (STAGES - 1)  # the tile multiplied in this iteration
        if kt >= 0:
            kdsl.cp_async_wait(STAGES - 2)
            kdsl.syncthreads()
        if t < ktiles:  # start copying tile t into stage t % STAGES
            stage = t % STAGES
            k0 = t * BK
            for p in kdsl.range_constexpr(BM * BK // 16 // THREADS):
                chunk = p * THREADS + tid
                r = chunk // (BK // 16)
                q = chunk % (BK // 16)
                row = bm + r
                at = row * row_chunks + k0 // 16 + q  # the chunk in global memory
                kdsl.cp_async(
                    sa,
                    (stage, r, kdsl.swizzle(r, q, BK // 16)),
                    a.vec(16),
                    at,
                    pred=(row < M and k0 + 16 * q < K) if EDGE else True,
                )
            for p in kdsl.range_constexpr(BN * BK // 16 // THREADS):
                chunk = p * THREADS + tid
                r = chunk // (BK // 16)
                q = chunk % (BK // 16)
                row = bn + r
                at = row * row_chunks + k0 // 16 + q  # the chunk in global memory
                kdsl.cp_async(
                    sb,
                    (stage, r, kdsl.swizzle(r, q, BK // 16)),
                    bt.vec(16),
                    at,
                    pred=(row < N and k0 + 16 * q < K) if EDGE else True,
                )
        kdsl.cp_async_commit()
        if kt >= 0:  # multiply stage kt % STAGES
            stage = kt % STAGES
            for kk in kdsl.range_constexpr(BK // 32):
                for i in kdsl.range_constexpr(WM // 16):
                    # matrices: rows 0-7 / 8-15 of k 0-15, then of k 16-31
                    r = wm + i * 16 + lane % 16
                    q = kk * 2 + lane // 16
                    fa[i] = kdsl.ldmatrix(sa, (stage, r, kdsl.swizzle(r, q, BK // 16)))
                for j in kdsl.range_constexpr(WN // 8):
                    # matrices: columns 0-7 of k 0-15, then of k 16-31
                    r = wn + j * 8 + lane % 8
                    q = kk * 2 + lane // 8 % 2
                    fb[j] = kdsl.ldmatrix(
                        sb, (stage, r, kdsl.swizzle(r, q, BK // 16)), count=2
                    )
                for i in kdsl.range_constexpr(WM // 16):
                    for j in kdsl.range_constexpr(WN // 8):
                        acc[i, j] = kdsl.mma_m16n8k32(fa[i], fb[j], acc[i, j])

    # Each lane holds rows g and g + 8, columns 2t and 2t + 1 of each 16 x 8
    # accumulator: two pairs, stored as Int32 x2 at pair index `at`.
    g = lane // 4
    col0 = bn + wn + lane % 4 * 2
    for i in kdsl.range_constexpr(WM // 16):
        for j in kdsl.range_constexpr(WN // 8):
            v = acc[i, j]
            row = bm + wm + i * 16 + g
            col = col0 + j * 8
            at = (row * N + col) // 2
            if not EDGE or row < M and col < N:
                c.vec(2)[at] = Int32.vec(2)(v[0], v[1])
            if not EDGE or row + 8 < M and col < N:
                c.vec(2)[at + 4 * N] = Int32.vec(2)(v[2], v[3])  # row + 8


# -- launching ---------------------------------------------------------------------------
# (BM, BN, BK, WM, WN, STAGES), each within 48 KB of static shared memory.
SHAPES = [
    (128, 128, 64, 64, 64, 3),
    (128, 64, 64, 64, 32, 4),
    (64, 128, 64, 32, 64, 4),
    (128, 128, 64, 64, 32, 3),
]


def _configs(edge: bool):
    names = ("BM", "BN", "BK", "WM", "WN", "STAGES")
    return [kdsl.Config(**dict(zip(names, s)), EDGE=edge) for s in SHAPES]


gemm_full = kdsl.autotune(configs=_configs(False), key=["M", "N", "K"], restore=[])(
    gemm_int8
)
gemm_edge = kdsl.autotune(configs=_configs(True), key=["M", "N", "K"], restore=[])(
    gemm_int8
)


def grid(M: int, N: int):
    return lambda m: ((N + m["BN"] - 1) // m["BN"], (M + m["BM"] - 1) // m["BM"])


def block(m) -> int:
    return m["BM"] // m["WM"] * (m["BN"] // m["WN"]) * 32


def hopper_operands(a, bt, c) -> bool:
    """Whether gemm_fp8.int_mm (TMA + wgmma, sm_90a) takes these operands:
    int8 CUDA torch tensors on a compute capability 9.0 GPU, contiguous, N
    even (a and bt's K a multiple of 16, as gemm checks)."""
    torch = sys.modules.get("torch")  # only torch tensors have TMA maps here
    if torch is None or not all(isinstance(t, torch.Tensor) for t in (a, bt, c)):
        return False
    return (
        a.is_cuda
        and torch.cuda.get_device_capability(a.device) == (9, 0)
        and a.dtype == bt.dtype == torch.int8
        and c.dtype == torch.int32
        and bt.shape[0] % 2 == 0
        and all(t.is_contiguous() for t in (a, bt, c))
    )


def gemm(a, bt, c, interpret: bool = False, maps=None):
    """c = a @ bt.T for int8 (or uint8) a (M, K) and bt (N, K), c (M, N) Int32:
    on Hopper the TMA + wgmma kernel (``gemm_fp8.int_mm``) where it takes
    the operands, else the mma.sync one.  ``maps``: ``gemm_fp8.tensor_maps(a,
    bt)``, kept by a caller that multiplies the same tensors again (the
    Hopper path builds them otherwise, each call; kdsl.tensor_map encodes
    the same memory once)."""
    M, K = a.shape
    N = bt.shape[0]
    if K % 16:
        raise ValueError(f"gemm_int8 needs K a multiple of 16, got K={K}")
    if not interpret and hopper_operands(a, bt, c):
        import gemm_fp8

        gemm_fp8.int_mm(a, bt, c, maps)
        return
    full = M % 128 == 0 and N % 128 == 0 and K % 64 == 0  # every config's tile
    tuned = gemm_full if full else gemm_edge
    launch = tuned.interpret if interpret else tuned
    launch[grid(M, N), block](a, bt, c, M, N, K)


if __name__ == "__main__":
    print(gemm_int8.dispatch("i8").source)
