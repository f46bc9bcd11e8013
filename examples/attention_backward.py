"""attention_backward: the FlashAttention-2 backward on Hopper's warpgroup
tensor cores (sm_90a: H100/H200 only), the gradients dq, dk, dv of
``o = softmax(q k^T * scale) v`` (scale = 1 / sqrt(HEAD_DIM)) per (batch,
head) from the forward's output o and its saved log-sum-exp, for bf16 or
f16 q, k, v, o, do of shape (batch, heads, seq, HEAD_DIM), contiguous,
HEAD_DIM 64 or 128, seq a multiple of 128, causal or not
(docs/tensor-cores.md, "Attention backward").

With P = softmax(S), S = q k^T * scale, and the incoming gradient do:

    dv = P^T do,  dP = do v^T,  dS = P * (dP - delta),  delta = rowsum(do * o)
    dq = dS k * scale,  dk = dS^T q * scale

and P is recomputed tile by tile from the forward's log-sum-exp (kept in
the log2 domain: ``lse = m + log2(l)`` of the scaled scores times log2(e),
so ``P = exp2(s * scale_log2 - lse)``), never stored.  Three kernels:

* ``attention_bwd_delta``: delta = rowsum(do * o) in Float32, a row spread
  over HEAD_DIM / 8 threads (16 bytes each), reduced with xor shuffles;
* ``attention_bwd_dkdv``: a block owns BLOCK_N = 128 keys (two warpgroups
  of 64), keeps their K and V tiles in shared memory and dk, dv in
  registers, and walks the query tiles (BLOCK_M rows) through a cp.async
  ring of Q and dO tiles: S^T = K Q^T and dP^T = V dO^T are wgmma with both
  operands from shared memory (Q and dO K-major, as K in the forward);
  P^T and dS^T = P^T * (dP^T - delta) are computed in the accumulator
  layout, and, converted to 16 bits, are the register A operands of
  dV += P^T dO and dK += dS^T Q with dO and Q read MN-major
  (``trans_b=True``, as the forward reads V) — no transpose goes through
  shared memory;
* ``attention_bwd_dq``: a block owns BLOCK_M = 128 queries (two
  warpgroups), keeps Q and dO, and walks the key tiles: S = Q K^T and
  dP = dO V^T, dS = P * (dP - delta), dQ += dS K with K read MN-major.

dq is a pass of its own (Triton's tutorial computes it in the same
program; FlashAttention-2 adds it with Float32 atomics): it recomputes
S and dP (7 products a tile pair instead of 5) but writes dq once, in
order, with no atomics and no Float32 buffer, and every kernel is the
register-A, shared-B wgmma pattern of the forward.

The kernels load with cp.async (not TMA), so the CPU interpreter runs them
(slowly: tiny shapes).  ``attention_backward(q, k, v, o, lse, do)``
launches the three; examples/attention_tma.py pairs them with its forward
for ``kdsl.torch`` (``attention_op``).
"""

import math
import sys
from pathlib import Path

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import kdsl
from attention import LOG2E, check_shapes, empty_like
from kdsl import Constexpr, Float32, Int32, Pointer, block_idx, grid_dim, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Float)
THREADS = 256  # two warpgroups: 64 rows (keys or queries) each
KV_ROWS = 128  # keys a dkdv block
Q_ROWS = 128  # queries a dq block
SEQ_MULTIPLE = 128
DELTA_THREADS = 256


@kdsl.kernel(dtypes=["bf16", "f16"])
def attention_bwd_delta(
    o: Pointer[D],
    do: Pointer[D],
    delta: Pointer[Float32],
    HEAD_DIM: Constexpr[int] = 128,
):
    # thread tid: chunk tid % CH (8 elements) of row tid // CH of the block's
    CH = HEAD_DIM // 8
    tid = thread_idx.x
    row = block_idx.x * (DELTA_THREADS // CH) + tid // CH
    at = row * CH + tid % CH
    x = o.vec(8)[at]
    y = do.vec(8)[at]
    total = Float32(x[0]) * Float32(y[0])
    for e in kdsl.range_constexpr(1, 8):
        total += Float32(x[e]) * Float32(y[e])
    for e in kdsl.range_constexpr(3 + HEAD_DIM // 128):  # log2(CH) steps
        total += kdsl.shfl_xor(total, 1 << e)
    if tid % CH == 0:
        delta[row] = total


@kdsl.kernel(dtypes=["bf16", "f16"], launch_bounds=(THREADS, 1))
def attention_bwd_dkdv(
    q: Pointer[D],
    k: Pointer[D],
    v: Pointer[D],
    do: Pointer[D],
    lse: Pointer[Float32],  # the forward's, log2 domain
    delta: Pointer[Float32],
    dk: Pointer[D],
    dv: Pointer[D],
    seq: Int32,
    scale_log2: Float32,  # the softmax scale times log2(e)
    scale: Float32,  # the softmax scale
    HEAD_DIM: Constexpr[int] = 128,
    BLOCK_M: Constexpr[int] = 64,
    STAGES: Constexpr[int] = 2,
    CAUSAL: Constexpr[bool] = False,
):
    # Shared memory, every tile in blocks of 64 columns (ROWS x 128 bytes,
    # chunk q of row r at swizzle(r, q, 8)): this block's K and V (KV_ROWS
    # rows), then STAGES tiles of Q and of dO (BLOCK_M rows); the log-sum-exp
    # and delta of each stage's rows, in pairs.
    CH = HEAD_DIM // 8  # 16-byte chunks in a row
    COLS = HEAD_DIM // 64
    sk = kdsl.dynamic_shared_array(D.vec(8), KV_ROWS * CH)
    sv = kdsl.dynamic_shared_array(D.vec(8), KV_ROWS * CH)
    sq = kdsl.dynamic_shared_array(D.vec(8), STAGES * BLOCK_M * CH)
    sdo = kdsl.dynamic_shared_array(D.vec(8), STAGES * BLOCK_M * CH)
    slse = kdsl.shared_array(Float32.vec(2), (STAGES * BLOCK_M // 2,))
    sdelta = kdsl.shared_array(Float32.vec(2), (STAGES * BLOCK_M // 2,))
    # registers: S^T (then P^T) and dP^T of 64 keys x BLOCK_M queries, dV and
    # dK of 64 keys x HEAD_DIM, the A fragments of P^T and dS^T
    sacc = kdsl.local_array(Float32, (BLOCK_M // 2,))
    pacc = kdsl.local_array(Float32, (BLOCK_M // 2,))
    dvacc = kdsl.local_array(Float32, (HEAD_DIM // 2,))
    dkacc = kdsl.local_array(Float32, (HEAD_DIM // 2,))
    pf = kdsl.local_array(D.vec(8), (BLOCK_M // 16,))
    dsf = kdsl.local_array(D.vec(8), (BLOCK_M // 16,))

    tid = thread_idx.x
    group = tid // 128  # this warpgroup's keys: 64 group .. + 63 of the block's
    lane = tid % 32
    t4 = lane % 4  # this thread's columns (queries): 8 j + 2 t4, + 1
    n0 = block_idx.x * KV_ROWS  # the block's first key
    head = block_idx.y * seq  # the first row of this (batch, head)
    key0 = n0 + group * 64 + tid % 128 // 32 * 16 + lane // 4  # its keys: key0, + 8
    if CAUSAL:  # queries before the block's first key see none of its keys
        first = n0 // BLOCK_M
    else:
        first = 0
    count = seq // BLOCK_M - first  # the query tiles this block walks

    # K and V once (the first cp.async group), then query tile `first + t`
    # in iteration t, computed STAGES - 1 iterations later
    for p in kdsl.range_constexpr(KV_ROWS * CH // THREADS):
        idx = p * THREADS + tid
        r = idx // CH
        c = idx % CH
        dst = (c // 8 * KV_ROWS + r) * 8 + kdsl.swizzle(r, c % 8, 8)
        at = (head + n0 + r) * CH + c  # 16 bytes of key n0 + r
        kdsl.cp_async(sk, dst, k.vec(8), at)
        kdsl.cp_async(sv, dst, v.vec(8), at)
    kdsl.cp_async_commit()
    for i in range(HEAD_DIM // 2):
        dvacc[i] = 0.0
        dkacc[i] = 0.0

    ka = kdsl.wgmma_desc(sk, group * 64 * 8)  # this warpgroup's 64 keys, K-major
    va = kdsl.wgmma_desc(sv, group * 64 * 8)
    for t in range(count + STAGES - 1):
        mt = t - (STAGES - 1)  # the tile computed in this iteration
        if mt >= 0:
            kdsl.cp_async_wait(STAGES - 2)  # tile mt (and K, V) have landed ...
            kdsl.fence_proxy_async()  # ... where wgmma reads them
            kdsl.syncthreads()  # ... for every thread; tile mt - 1's stage is free
        if t < count:
            stage = t % STAGES
            m0 = (first + t) * BLOCK_M
            for p in kdsl.range_constexpr(BLOCK_M * CH // THREADS):
                idx = p * THREADS + tid
                r = idx // CH
                c = idx % CH
                dst = ((stage * COLS + c // 8) * BLOCK_M + r) * 8
                dst += kdsl.swizzle(r, c % 8, 8)
                src = (head + m0 + r) * CH + c
                kdsl.cp_async(sq, dst, q.vec(8), src)
                kdsl.cp_async(sdo, dst, do.vec(8), src)
            if tid < BLOCK_M // 2:
                at = (head + m0) // 2 + tid
                kdsl.cp_async(slse, stage * BLOCK_M // 2 + tid, lse.vec(2), at)
                kdsl.cp_async(sdelta, stage * BLOCK_M // 2 + tid, delta.vec(2), at)
        kdsl.cp_async_commit()
        if mt < 0:
            continue
        stage = mt % STAGES
        m0 = (first + mt) * BLOCK_M
        base = stage * COLS * BLOCK_M * 8  # the stage's Q and dO tiles
        qb = kdsl.wgmma_desc(sq, base)  # K-major: B^T of S^T = K Q^T
        dob = kdsl.wgmma_desc(sdo, base)
        # MN-major (queries x HEAD_DIM as stored): B of dV += P^T dO and
        # dK += dS^T Q, 64 columns a block, the next block BLOCK_M rows on
        qn = kdsl.wgmma_desc(sq, base, lbo=BLOCK_M * 128)
        don = kdsl.wgmma_desc(sdo, base, lbo=BLOCK_M * 128)

        # S^T = K Q^T and dP^T = V dO^T: k16 step kk is 32 bytes into column
        # block kk // 4 (the descriptors count 16 bytes)
        kdsl.wgmma_fence()
        for kk in kdsl.range_constexpr(HEAD_DIM // 16):
            step_a = kk // 4 * KV_ROWS * 8 + kk % 4 * 2
            step_b = kk // 4 * BLOCK_M * 8 + kk % 4 * 2
            kdsl.wgmma_mma_async(sacc, ka + step_a, qb + step_b, D, scale_d=kk > 0)
        kdsl.wgmma_commit()
        for kk in kdsl.range_constexpr(HEAD_DIM // 16):
            step_a = kk // 4 * KV_ROWS * 8 + kk % 4 * 2
            step_b = kk // 4 * BLOCK_M * 8 + kk % 4 * 2
            kdsl.wgmma_mma_async(pacc, va + step_a, dob + step_b, D, scale_d=kk > 0)
        kdsl.wgmma_commit()
        kdsl.wgmma_wait(1, sacc)  # S^T is done (dP^T may still run)

        # P^T = exp2(s * scale_log2 - lse[query]): sacc[i] is key key0 + 8
        # (i // 2 % 2), query m0 + 8 (i // 4) + 2 t4 + i % 2; causal: 0 where
        # the key comes after the query
        for j in kdsl.range_constexpr(BLOCK_M // 8):
            ls = slse[stage * BLOCK_M // 2 + j * 4 + t4]
            for e in kdsl.range_constexpr(4):
                x = kdsl.math.exp2(
                    kdsl.math.fma(sacc[4 * j + e], scale_log2, -ls[e % 2])
                )
                if CAUSAL:
                    query = m0 + j * 8 + t4 * 2 + e % 2
                    if key0 + e // 2 * 8 > query:
                        x = 0.0
                sacc[4 * j + e] = x
        # dV += P^T dO: elements 8 j .. 8 j + 7 of P^T are, in 16 bits, the A
        # fragment of queries 16 j .. 16 j + 15; dO's 16 rows of them start
        # 16 * 128 bytes further each step
        for j in kdsl.range_constexpr(BLOCK_M // 16):
            pf[j] = D.vec(8)(
                sacc[8 * j],
                sacc[8 * j + 1],
                sacc[8 * j + 2],
                sacc[8 * j + 3],
                sacc[8 * j + 4],
                sacc[8 * j + 5],
                sacc[8 * j + 6],
                sacc[8 * j + 7],
            )
        kdsl.wgmma_fence()
        for j in kdsl.range_constexpr(BLOCK_M // 16):
            kdsl.wgmma_mma_async(dvacc, pf[j], don + j * 128, D, trans_b=True)
        kdsl.wgmma_commit()
        kdsl.wgmma_wait(1, pacc)  # dP^T is done (dV may still run)

        # dS^T = P^T (dP^T - delta[query]), then dK += dS^T Q
        for j in kdsl.range_constexpr(BLOCK_M // 8):
            dl = sdelta[stage * BLOCK_M // 2 + j * 4 + t4]
            for e in kdsl.range_constexpr(4):
                pacc[4 * j + e] = sacc[4 * j + e] * (pacc[4 * j + e] - dl[e % 2])
        for j in kdsl.range_constexpr(BLOCK_M // 16):
            dsf[j] = D.vec(8)(
                pacc[8 * j],
                pacc[8 * j + 1],
                pacc[8 * j + 2],
                pacc[8 * j + 3],
                pacc[8 * j + 4],
                pacc[8 * j + 5],
                pacc[8 * j + 6],
                pacc[8 * j + 7],
            )
        kdsl.wgmma_fence()
        for j in kdsl.range_constexpr(BLOCK_M // 16):
            kdsl.wgmma_mma_async(dkacc, dsf[j], qn + j * 128, D, trans_b=True)
        kdsl.wgmma_commit()
        kdsl.wgmma_wait(0, dvacc)  # every group is done ...
        kdsl.wgmma_wait(0, dkacc)  # (dK's registers are read after this too)

    # dV and dK * scale as pairs: columns 8 c + 2 t4, + 1 of keys key0, key0 + 8
    for h in kdsl.range_constexpr(2):
        at = ((head + key0 + h * 8) * HEAD_DIM + t4 * 2) // 2  # in pairs
        for c in kdsl.range_constexpr(HEAD_DIM // 8):
            x0 = dvacc[4 * c + 2 * h]
            x1 = dvacc[4 * c + 2 * h + 1]
            dv.vec(2)[at + c * 4] = D.vec(2)(x0, x1)
            y0 = dkacc[4 * c + 2 * h] * scale
            y1 = dkacc[4 * c + 2 * h + 1] * scale
            dk.vec(2)[at + c * 4] = D.vec(2)(y0, y1)


@kdsl.kernel(dtypes=["bf16", "f16"], launch_bounds=(THREADS, 1))
def attention_bwd_dq(
    q: Pointer[D],
    k: Pointer[D],
    v: Pointer[D],
    do: Pointer[D],
    lse: Pointer[Float32],  # the forward's, log2 domain
    delta: Pointer[Float32],
    dq: Pointer[D],
    seq: Int32,
    scale_log2: Float32,
    scale: Float32,
    HEAD_DIM: Constexpr[int] = 128,
    BLOCK_N: Constexpr[int] = 64,
    STAGES: Constexpr[int] = 2,
    CAUSAL: Constexpr[bool] = False,
):
    # Shared memory as in attention_bwd_dkdv: this block's Q and dO (Q_ROWS
    # rows), then STAGES tiles of K and of V (BLOCK_N rows)
    CH = HEAD_DIM // 8
    COLS = HEAD_DIM // 64
    sq = kdsl.dynamic_shared_array(D.vec(8), Q_ROWS * CH)
    sdo = kdsl.dynamic_shared_array(D.vec(8), Q_ROWS * CH)
    sk = kdsl.dynamic_shared_array(D.vec(8), STAGES * BLOCK_N * CH)
    sv = kdsl.dynamic_shared_array(D.vec(8), STAGES * BLOCK_N * CH)
    # registers: S (then P, then dS) and dP of 64 queries x BLOCK_N keys, dQ
    # of 64 queries x HEAD_DIM, dS's A fragments
    sacc = kdsl.local_array(Float32, (BLOCK_N // 2,))
    pacc = kdsl.local_array(Float32, (BLOCK_N // 2,))
    dqacc = kdsl.local_array(Float32, (HEAD_DIM // 2,))
    dsf = kdsl.local_array(D.vec(8), (BLOCK_N // 16,))
    ls = kdsl.local_array(Float32, (2,))
    dl = kdsl.local_array(Float32, (2,))

    tid = thread_idx.x
    group = tid // 128  # this warpgroup's queries: 64 group .. + 63 of the block's
    lane = tid % 32
    t4 = lane % 4  # this thread's columns (keys): 8 j + 2 t4, + 1
    if CAUSAL:  # the blocks with the most key tiles first
        m0 = (grid_dim.x - 1 - block_idx.x) * Q_ROWS
    else:
        m0 = block_idx.x * Q_ROWS
    head = block_idx.y * seq
    row0 = m0 + group * 64 + tid % 128 // 32 * 16 + lane // 4  # its rows: row0, + 8
    if CAUSAL:  # key tiles up to the diagonal
        ntiles = (m0 + Q_ROWS) // BLOCK_N
    else:
        ntiles = seq // BLOCK_N

    for p in kdsl.range_constexpr(Q_ROWS * CH // THREADS):
        idx = p * THREADS + tid
        r = idx // CH
        c = idx % CH
        dst = (c // 8 * Q_ROWS + r) * 8 + kdsl.swizzle(r, c % 8, 8)
        at = (head + m0 + r) * CH + c  # 16 bytes of query m0 + r
        kdsl.cp_async(sq, dst, q.vec(8), at)
        kdsl.cp_async(sdo, dst, do.vec(8), at)
    kdsl.cp_async_commit()
    for h in kdsl.range_constexpr(2):
        ls[h] = lse[head + row0 + h * 8]
        dl[h] = delta[head + row0 + h * 8]
    for i in range(HEAD_DIM // 2):
        dqacc[i] = 0.0

    qa = kdsl.wgmma_desc(sq, group * 64 * 8)  # this warpgroup's 64 queries
    doa = kdsl.wgmma_desc(sdo, group * 64 * 8)
    for t in range(ntiles + STAGES - 1):
        nt = t - (STAGES - 1)
        if nt >= 0:
            kdsl.cp_async_wait(STAGES - 2)
            kdsl.fence_proxy_async()
            kdsl.syncthreads()
        if t < ntiles:
            stage = t % STAGES
            for p in kdsl.range_constexpr(BLOCK_N * CH // THREADS):
                idx = p * THREADS + tid
                r = idx // CH
                c = idx % CH
                dst = ((stage * COLS + c // 8) * BLOCK_N + r) * 8
                dst += kdsl.swizzle(r, c % 8, 8)
                src = (head + t * BLOCK_N + r) * CH + c
                kdsl.cp_async(sk, dst, k.vec(8), src)
                kdsl.cp_async(sv, dst, v.vec(8), src)
        kdsl.cp_async_commit()
        if nt < 0:
            continue
        stage = nt % STAGES
        n0 = nt * BLOCK_N
        base = stage * COLS * BLOCK_N * 8
        kb = kdsl.wgmma_desc(sk, base)  # K-major: B^T of S = Q K^T
        vb = kdsl.wgmma_desc(sv, base)
        kn = kdsl.wgmma_desc(sk, base, lbo=BLOCK_N * 128)  # MN-major: B of dS K

        kdsl.wgmma_fence()
        for kk in kdsl.range_constexpr(HEAD_DIM // 16):
            step_a = kk // 4 * Q_ROWS * 8 + kk % 4 * 2
            step_b = kk // 4 * BLOCK_N * 8 + kk % 4 * 2
            kdsl.wgmma_mma_async(sacc, qa + step_a, kb + step_b, D, scale_d=kk > 0)
        kdsl.wgmma_commit()
        for kk in kdsl.range_constexpr(HEAD_DIM // 16):
            step_a = kk // 4 * Q_ROWS * 8 + kk % 4 * 2
            step_b = kk // 4 * BLOCK_N * 8 + kk % 4 * 2
            kdsl.wgmma_mma_async(pacc, doa + step_a, vb + step_b, D, scale_d=kk > 0)
        kdsl.wgmma_commit()
        kdsl.wgmma_wait(1, sacc)  # S is done (dP may still run)

        # P = exp2(s * scale_log2 - lse[row]): sacc[i] is row row0 + 8 (i // 2
        # % 2), key n0 + 8 (i // 4) + 2 t4 + i % 2; then dS = P (dP - delta[row])
        for i in kdsl.range_constexpr(BLOCK_N // 2):
            x = kdsl.math.exp2(kdsl.math.fma(sacc[i], scale_log2, -ls[i // 2 % 2]))
            if CAUSAL:
                if n0 + i // 4 * 8 + t4 * 2 + i % 2 > row0 + i // 2 % 2 * 8:
                    x = 0.0
            sacc[i] = x
        kdsl.wgmma_wait(0, pacc)
        for i in kdsl.range_constexpr(BLOCK_N // 2):
            sacc[i] = sacc[i] * (pacc[i] - dl[i // 2 % 2])
        for j in kdsl.range_constexpr(BLOCK_N // 16):
            dsf[j] = D.vec(8)(
                sacc[8 * j],
                sacc[8 * j + 1],
                sacc[8 * j + 2],
                sacc[8 * j + 3],
                sacc[8 * j + 4],
                sacc[8 * j + 5],
                sacc[8 * j + 6],
                sacc[8 * j + 7],
            )
        # dQ += dS K: keys 16 j .. + 15 a step, K's 16 rows of them 2048 bytes on
        kdsl.wgmma_fence()
        for j in kdsl.range_constexpr(BLOCK_N // 16):
            kdsl.wgmma_mma_async(dqacc, dsf[j], kn + j * 128, D, trans_b=True)
        kdsl.wgmma_commit()
        kdsl.wgmma_wait(0, dqacc)

    for h in kdsl.range_constexpr(2):
        at = ((head + row0 + h * 8) * HEAD_DIM + t4 * 2) // 2
        for c in kdsl.range_constexpr(HEAD_DIM // 8):
            x0 = dqacc[4 * c + 2 * h] * scale
            x1 = dqacc[4 * c + 2 * h + 1] * scale
            dq.vec(2)[at + c * 4] = D.vec(2)(x0, x1)


# -- launching ---------------------------------------------------------------------------
# per head dim: dkdv's (BLOCK_M, STAGES) and dq's (BLOCK_N, STAGES)
# (the registers: dkdv's accumulators are 2 x BLOCK_M / 2 + 2 x HEAD_DIM / 2
# floats a thread, dq's 2 x BLOCK_N / 2 + HEAD_DIM / 2; BLOCK_M = 128 at
# HEAD_DIM 128 spills, tests/tensorcores/test_attention_backward.py checks)
DKDV_SHAPES = {64: [(128, 2), (64, 2), (128, 3)], 128: [(64, 2), (64, 3)]}
DQ_SHAPES = {64: [(128, 2), (64, 2)], 128: [(64, 2), (128, 2)]}
HEAD_DIMS = (64, 128)


def dkdv_shared_mem(m) -> int:
    """Dynamic shared memory bytes of a dkdv configuration: K, V and STAGES
    tiles of Q and of dO."""
    return (2 * KV_ROWS + 2 * m["STAGES"] * m["BLOCK_M"]) * m["HEAD_DIM"] * 2


def dq_shared_mem(m) -> int:
    """The same for dq: Q, dO and STAGES tiles of K and of V."""
    return (2 * Q_ROWS + 2 * m["STAGES"] * m["BLOCK_N"]) * m["HEAD_DIM"] * 2


def _tuned(kernel, shapes, names, head_dim, causal):
    configs = [
        kdsl.Config(**dict(zip(names, s)), HEAD_DIM=head_dim, CAUSAL=causal)
        for s in shapes[head_dim]
    ]
    return kdsl.autotune(configs=configs, key=["seq"], restore=[])(kernel)


DKDV = {
    (d, c): _tuned(attention_bwd_dkdv, DKDV_SHAPES, ("BLOCK_M", "STAGES"), d, c)
    for d in HEAD_DIMS
    for c in (False, True)
}
DQ = {
    (d, c): _tuned(attention_bwd_dq, DQ_SHAPES, ("BLOCK_N", "STAGES"), d, c)
    for d in HEAD_DIMS
    for c in (False, True)
}


def delta_grid(rows: int, head_dim: int) -> int:
    return rows // (DELTA_THREADS // (head_dim // 8))


def attention_backward(
    q, k, v, o, lse, do, causal=False, dq=None, dk=None, dv=None, interpret=False
):
    """dq, dk, dv of attention(q, k, v, causal) given its output ``o``, its
    log-sum-exp ``lse`` ((batch, heads, seq) Float32, log2 domain, as
    attention_tma.attention(..., lse=) writes it) and the gradient ``do``
    of o; contiguous (batch, heads, seq, head_dim) bf16 or f16 PyTorch
    tensors or CuPy arrays on an H100/H200 (numpy arrays with
    ``interpret=True``: the first configurations, in the CPU interpreter).
    Returns (dq, dk, dv), allocated where None."""
    bh, seq, head_dim = check_shapes(q, k, v, o, SEQ_MULTIPLE)
    check_shapes(q, k, v, do, SEQ_MULTIPLE)
    if tuple(lse.shape) != tuple(q.shape[:3]):
        raise ValueError(
            f"attention_backward needs lse of shape {tuple(q.shape[:3])}, got"
            f" {tuple(lse.shape)}"
        )
    dq = empty_like(q) if dq is None else dq
    dk = empty_like(k) if dk is None else dk
    dv = empty_like(v) if dv is None else dv
    delta = _empty_f32(lse)
    scale = 1.0 / math.sqrt(head_dim)
    scale_log2 = LOG2E * scale
    rows = bh * seq
    kernels = (attention_bwd_delta, DKDV[head_dim, bool(causal)])
    kernels += (DQ[head_dim, bool(causal)],)
    if interpret:  # the first configuration of each
        kernels = tuple(kern.interpret for kern in kernels)
    delta_k, dkdv_k, dq_k = kernels
    delta_k[delta_grid(rows, head_dim), DELTA_THREADS](o, do, delta, HEAD_DIM=head_dim)
    args = (q, k, v, do, lse, delta)
    dkdv_k[(seq // KV_ROWS, bh), THREADS](
        *args, dk, dv, seq, scale_log2, scale, shared_mem=dkdv_shared_mem
    )
    dq_k[(seq // Q_ROWS, bh), THREADS](
        *args, dq, seq, scale_log2, scale, shared_mem=dq_shared_mem
    )
    return dq, dk, dv


def _empty_f32(like):
    """An empty float32 array of ``like``'s shape, where ``like`` lives."""
    if type(like).__module__.startswith("torch"):
        import torch

        return torch.empty(like.shape, dtype=torch.float32, device=like.device)
    if type(like).__module__.startswith("cupy"):
        import cupy

        return cupy.empty(like.shape, cupy.float32)
    import numpy

    return numpy.empty(like.shape, numpy.float32)


if __name__ == "__main__":
    print(attention_bwd_dkdv.dispatch("bf16").source)
