"""attention_tma: a FlashAttention forward on Hopper (sm_90a: H100/H200 only),
``o = softmax(q k^T / sqrt(HEAD_DIM)) v`` per (batch, head), warp-specialised
like examples/gemm_tma.py: a producer warpgroup feeds K and V tiles with TMA,
two or three consumer warpgroups multiply them with wgmma (docs/tensor-cores.md,
"Attention on Hopper").  q, k, v and o are bf16 or f16 of shape (batch,
heads, seq, HEAD_DIM), contiguous, HEAD_DIM 64 or 128, seq a multiple of 128;
the optional causal mask drops key j > query i.

A block computes BM = 64 query rows a consumer of one (batch, head), never
writing the seq x seq scores anywhere: THREADS = 384 (two consumers, BM =
128) or 512 (three, BM = 192: where 192 does not divide seq, the last
block's rows past seq are computed and not stored).  The kernel's
launch_bounds name THREADS: each instance has its block's.

* **warpgroup 0, the producer** (``setmaxnreg(24, inc=False)``): its first
  thread loads the block's Q tile once, then walks the key tiles (BLOCK_N
  rows): waits until a ring stage is free, announces its bytes on the
  stage's "full" mbarrier and issues the TMA copies of the K and V tiles,
  boxes of 64 rows x 64 columns landing in the 128-byte swizzle wgmma reads
  (a row of HEAD_DIM = 128 is two boxes, one block of 64 columns after the
  other);
* **warpgroups 1 .. CONSUMERS, the consumers** (``setmaxnreg`` of what the
  producer leaves: 240 registers for two, 160 for three), rows 0-63, 64-127
  (and 128-191) of the block's: for each key tile, S = Q K^T is HEAD_DIM / 16
  wgmma m64nBLOCK_Nk16 from shared memory (K is (seq, d) row-major: the
  K-major B^T that wgmma reads as it is); the online softmax runs on S in
  the registers, in the accumulator layout (a thread holds two elements of
  rows g and g + 8 of each 8 columns, 4 threads a row: a row's maximum is
  two xor shuffles); P, converted to 16 bits, *is* the A fragment of the
  next wgmma: O += P V is BLOCK_N / 16 wgmma m64nHEAD_DIMk16 with A from
  registers and V read MN-major (``trans_b=True``: V is (seq, d) row-major,
  d contiguous).  Then one thread of each consumer releases the stage.

Two schedules of a consumer (the constexpr OVERLAP):

* **OVERLAP** (FlashAttention-3's intra-warpgroup pipelining): S of tile t
  and P V of tile t - 1 are issued together; the softmax of tile t runs as
  soon as S lands, while the tensor cores still multiply P V.  A consumer
  holds two stages at a time.
* **plain**: S, the softmax, P V, each tile in turn; only the other
  consumers' wgmma overlap this one's softmax.

ORDERED (FlashAttention-3's warp scheduler barrier): the consumers issue
their wgmma groups in turn, an mbarrier each, so that one's softmax meets
the next one's wgmma rather than all softmaxes at once.

At HEAD_DIM 128 the tensor cores bound a tile and OVERLAP with two
consumers is the fastest.  At 64 the exponentials match the tensor cores
(16 MUFU.EX2 a cycle an SM, a score's 256 flops at 4,096 a cycle): the
configurations add three consumers (and ORDERED) to overlap one warp's
softmax with another's wgmma; 192-key tiles (a last one past seq masked)
are there to launch by hand (never the fastest on the H200, so not in
SHAPES). The autotuner picks per seq among SHAPES.  The exponent is exp2(s * scale *
log2(e) - m) with the scale folded into one kdsl.math.fma, and the exp2 is
kdsl.math.fast_exp2_ftz, asked for by name: FlashAttention's exp2, one
MUFU.EX2, where exp2 (subnormal results kept) adds a compare and two
multiplies around it (docs/types.md, "Fast intrinsics"); a probability
below 2**-126 of its row's maximum is 0.  O's rescale is skipped where no
row maximum moved.
Causal: tiles entirely above the diagonal are never loaded, and the blocks
of the longest rows start first.

``attention(q, k, v, causal)`` builds the tensor maps and launches the
autotuned kernel (PyTorch tensors or CuPy arrays on an H100/H200).
"""

import math
import sys
from pathlib import Path

# the siblings (attention.py ...) import by name however this file is
# loaded: `python examples/x.py`, `from examples.x import ...`, kdsl-transpile
if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import attention_backward as backward
import kdsl
from attention import LOG2E, NEG_INF, check_shapes, empty_like
from kdsl import (
    Constexpr,
    Float32,
    Int32,
    Pointer,
    Uint64,
    Vector,
    block_idx,
    grid_dim,
    thread_idx,
)

D = kdsl.TypeVar("D", bound=kdsl.Float)
BOX = 64  # the TMA box: 64 rows x 64 columns (128-byte rows, 8 KB)
THREADS = 384  # the default block: a producer warpgroup and two consumers
SEQ_MULTIPLE = 128  # seq must be a multiple of it (every BLOCK_N but 192 divides it)
REGISTERS = 64 * 1024  # an SM's registers, all of them the block's
PRODUCER_REGS = 24  # what the producer warpgroup keeps (setmaxnreg)


def _backward(
    tma_q, tma_k, tma_v, o, lse, grad_o, grad_tma_q, grad_tma_k, grad_tma_v, CAUSAL
):
    """The gradients of attention_tma (its kdsl.torch pairing; a tensor map
    stands for its tensor: tma_q is q): examples/attention_backward.py's
    three passes, from the saved lse."""
    backward.attention_backward(
        tma_q, tma_k, tma_v, o, lse, grad_o, CAUSAL,
        dq=grad_tma_q, dk=grad_tma_k, dv=grad_tma_v,
    )  # fmt: skip


@kdsl.func
def scores(sacc, dq, dk, like, THREADS, BLOCK_N, HEAD_DIM):
    """Issues S = Q K^T into sacc: HEAD_DIM / 16 wgmma m64nBLOCK_Nk16 of the
    type of ``like`` (a dtype has no value in a device function), Q (BM rows
    a column block, 64 a consumer) and K through descriptors; k16 step kk is
    32 bytes into column block kk // 4 (the descriptors count 16 bytes)."""
    BM = 64 * (THREADS // 128 - 1)
    for kk in kdsl.range_constexpr(HEAD_DIM // 16):
        step_q = kk // 4 * BM * 8 + kk % 4 * 2
        step_k = kk // 4 * BLOCK_N * 8 + kk % 4 * 2
        kdsl.wgmma_mma_async(sacc, dq + step_q, dk + step_k, like.dtype, scale_d=kk > 0)
    kdsl.wgmma_commit()


@kdsl.func
def softmax_tile(sacc, m, l, alpha, n0, row0, t4, diagonal, scale_log2):
    """One key tile's online softmax on S in sacc, left as P (in 32 bits):
    masks it (causal tiles across the diagonal), then for rows g (h = 0:
    elements 4 c, 4 c + 1) and g + 8 (h = 1: 4 c + 2, 4 c + 3), in the log2
    domain, the new maximum m of the scaled scores, the old sum l rescaled
    by alpha = exp2(m_old - m) (O is, later), P = exp2(s * scale_log2 - m)."""
    BLOCK_N = len(sacc) * 2
    # sacc[i] is row row0 + 8 (i // 2 % 2), key n0 + 8 (i // 4) + 2 t4 + i % 2
    if diagonal:
        for i in kdsl.range_constexpr(BLOCK_N // 2):
            if n0 + i // 4 * 8 + t4 * 2 + i % 2 > row0 + i // 2 % 2 * 8:
                sacc[i] = NEG_INF
    for h in kdsl.range_constexpr(2):
        mx = kdsl.math.fmax(sacc[2 * h], sacc[2 * h + 1])
        for c in kdsl.range_constexpr(1, BLOCK_N // 8):
            pair = kdsl.math.fmax(sacc[4 * c + 2 * h], sacc[4 * c + 2 * h + 1])
            mx = kdsl.math.fmax(mx, pair)
        mx = kdsl.math.fmax(mx, kdsl.shfl_xor(mx, 1))
        mx = kdsl.math.fmax(mx, kdsl.shfl_xor(mx, 2))
        # every row sees key 0 in its first tile: the maximum is finite
        m_new = kdsl.math.fmax(m[h], mx * scale_log2)
        alpha[h] = kdsl.math.fast_exp2_ftz(m[h] - m_new)  # 0 on the first tile
        m[h] = m_new
        total = Float32(0.0)
        for c in kdsl.range_constexpr(BLOCK_N // 8):
            for e in kdsl.range_constexpr(2):
                x = kdsl.math.fast_exp2_ftz(
                    kdsl.math.fma(sacc[4 * c + 2 * h + e], scale_log2, -m_new)
                )
                sacc[4 * c + 2 * h + e] = x
                total += x
        l[h] = l[h] * alpha[h] + total


@kdsl.func
def mask_tail(sacc, n0, t4, seq):
    """The keys from seq on of S (sacc, the tile of keys n0 ..) to -inf: a
    last tile past the sequence's end (192 keys where 192 does not divide
    seq; the rows it loaded there are the next head's, or TMA's zeros)."""
    for i in kdsl.range_constexpr(len(sacc)):
        if n0 + i // 4 * 8 + t4 * 2 + i % 2 >= seq:
            sacc[i] = NEG_INF


@kdsl.func
def rescale(oacc, alpha):
    """O to the new maximum: elements 4 c, 4 c + 1 are of row g (alpha[0]),
    4 c + 2, 4 c + 3 of row g + 8 (alpha[1]); skipped where neither row's
    maximum moved (alpha 1: the products would be O itself), as it mostly
    stays after the first tiles."""
    if alpha[0] == 1.0 and alpha[1] == 1.0:
        return
    for c in kdsl.range_constexpr(len(oacc) // 4):
        for i in kdsl.range_constexpr(4):
            oacc[4 * c + i] = oacc[4 * c + i] * alpha[i // 2]


@kdsl.func
def pack(p, sacc, like):
    """P in 16 bits (the type of ``like``) into p: elements 8 j .. 8 j + 7 of
    S are A's fragment for keys 16 j .. 16 j + 15."""
    for j in kdsl.range_constexpr(len(p)):
        p[j] = Vector[like.dtype, 8](
            sacc[8 * j],
            sacc[8 * j + 1],
            sacc[8 * j + 2],
            sacc[8 * j + 3],
            sacc[8 * j + 4],
            sacc[8 * j + 5],
            sacc[8 * j + 6],
            sacc[8 * j + 7],
        )


@kdsl.func
def values(oacc, p, sv, at, like):
    """Issues O += P V: 16 keys a wgmma of the type of ``like``, P from the
    registers, V (the stage at ``at`` of sv) read MN-major, 64 columns to a
    128-byte row, the next 64 on at the leading byte offset (BLOCK_N rows
    on); the 16 rows of step j 16 * 128 bytes on."""
    BLOCK_N = len(p) * 16
    dv = kdsl.wgmma_desc(sv, at, lbo=BLOCK_N * 128)
    for j in kdsl.range_constexpr(BLOCK_N // 16):
        kdsl.wgmma_mma_async(oacc, p[j], dv + j * 128, like.dtype, trans_b=True)
    kdsl.wgmma_commit()


@kdsl.kernel(
    dtypes=["bf16", "f16"],
    launch_bounds=("THREADS", 1),
    backward=kdsl.host_backward(_backward),
    no_overflow=True,
)
def attention_tma(
    tma_q: kdsl.TensorMap,
    tma_k: kdsl.TensorMap,
    tma_v: kdsl.TensorMap,
    o: Pointer[D],
    lse: Pointer[Float32] | None,  # each row's log-sum-exp (log2 domain), or None
    seq: Int32,
    scale_log2: Float32,  # the softmax scale times log2(e)
    HEAD_DIM: Constexpr[int] = 128,
    BLOCK_N: Constexpr[int] = 128,
    STAGES: Constexpr[int] = 2,
    CAUSAL: Constexpr[bool] = False,
    OVERLAP: Constexpr[bool] = True,  # the softmax overlaps P V (see below)
    THREADS: Constexpr[int] = 384,  # 384: two consumer warpgroups, 512: three
    ORDERED: Constexpr[bool] = False,  # the consumers issue wgmma in turn
):
    kdsl.assume(seq >= 0)
    CONSUMERS = THREADS // 128 - 1  # consumer warpgroups, 64 query rows each
    BM = 64 * CONSUMERS  # the block's query rows
    # each consumer's registers: what the producer leaves of the SM's, in
    # steps of 8, at most 240 (two consumers: 240, three: 160)
    REGS = min(240, (REGISTERS - 128 * PRODUCER_REGS) // (128 * CONSUMERS) // 8 * 8)
    # Shared memory, every tile in blocks of 64 columns (128-byte rows, 8
    # chunks of 16 bytes), block j of a tile of R rows R * 64 elements on: Q
    # (BM rows), then STAGES tiles of K and of V (BLOCK_N rows each), and
    # the mbarriers: q (Q has landed), full (a stage's K and V have), empty
    # (every consumer is done with a stage).
    COLS = HEAD_DIM // 64  # blocks of 64 columns in a row
    sq = kdsl.dynamic_shared_array(D.vec(8), BM * HEAD_DIM // 8)
    sk = kdsl.dynamic_shared_array(D.vec(8), STAGES * BLOCK_N * HEAD_DIM // 8)
    sv = kdsl.dynamic_shared_array(D.vec(8), STAGES * BLOCK_N * HEAD_DIM // 8)
    qbar = kdsl.shared_array(Uint64, (1,))
    full = kdsl.shared_array(Uint64, (STAGES,))
    empty = kdsl.shared_array(Uint64, (STAGES,))
    if ORDERED:  # turn c: consumer c may issue its next wgmma (a warp each)
        turns = kdsl.shared_array(Uint64, (CONSUMERS,))

    tid = thread_idx.x
    group = tid // 128  # 0: the producer; 1 .. CONSUMERS: the consumers
    if CAUSAL:  # the blocks with the most key tiles first
        m0 = (grid_dim.x - 1 - block_idx.x) * BM
    else:
        m0 = block_idx.x * BM
    head = block_idx.y * seq  # the first row of this (batch, head)
    if CAUSAL:  # key tiles up to the diagonal
        ntiles = (m0 + BM + BLOCK_N - 1) // BLOCK_N
        if BM % 128 != 0:  # (the last block's rows past seq need none past it)
            ntiles = min(ntiles, (seq + BLOCK_N - 1) // BLOCK_N)
    else:
        ntiles = seq // BLOCK_N
        if 128 % BLOCK_N != 0:  # (192 keys: a last tile past seq's end, masked)
            ntiles = (seq + BLOCK_N - 1) // BLOCK_N
    TAIL = 128 % BLOCK_N != 0 and not CAUSAL  # (causal masks them on the diagonal)

    if tid == 0:  # one arrival (with bytes) fills Q or a stage, CONSUMERS free one
        kdsl.mbarrier_init(qbar, 0, 1)
        for st in kdsl.range_constexpr(STAGES):
            kdsl.mbarrier_init(full, st, 1)
            kdsl.mbarrier_init(empty, st, CONSUMERS)
        if ORDERED:
            for c in kdsl.range_constexpr(CONSUMERS):
                kdsl.mbarrier_init(turns, c, 4)
        kdsl.fence_mbarrier_init()
    kdsl.syncthreads()

    if group == 0:  # the producer
        kdsl.setmaxnreg(PRODUCER_REGS, inc=False)
        if tid == 0:
            kdsl.mbarrier_arrive_expect_tx(qbar, 0, BM * HEAD_DIM * 2)
            for j in kdsl.range_constexpr(COLS):
                for i in kdsl.range_constexpr(BM // BOX):
                    dst = (j * BM + i * BOX) * 8
                    kdsl.tma_load(
                        sq, dst, tma_q, (j * 64, head + m0 + i * BOX), qbar, 0
                    )
            for t in range(ntiles):
                s = t % STAGES
                # wait until round t // STAGES - 1 of stage s was released
                # (parity 1 in the first round: passes at once)
                kdsl.mbarrier_wait(empty, s, t // STAGES % 2 ^ 1)
                kdsl.mbarrier_arrive_expect_tx(full, s, 2 * BLOCK_N * HEAD_DIM * 2)
                for j in kdsl.range_constexpr(COLS):
                    for i in kdsl.range_constexpr(BLOCK_N // BOX):
                        dst = ((s * COLS + j) * BLOCK_N + i * BOX) * 8
                        row = head + t * BLOCK_N + i * BOX
                        kdsl.tma_load(sk, dst, tma_k, (j * 64, row), full, s)
                        kdsl.tma_load(sv, dst, tma_v, (j * 64, row), full, s)
    else:  # a consumer: rows 64 (group - 1) .. + 63 of the block's
        kdsl.setmaxnreg(REGS)
        # registers: S (then P in 32 bits) and O in the accumulator layout,
        # P's A fragments, and the running maximum m and this thread's part
        # of the sum l of rows g (h = 0) and g + 8 (h = 1)
        sacc = kdsl.local_array(Float32, (BLOCK_N // 2,))
        oacc = kdsl.local_array(Float32, (HEAD_DIM // 2,))
        p = kdsl.local_array(D.vec(8), (BLOCK_N // 16,))
        m = kdsl.local_array(Float32, (2,))
        l = kdsl.local_array(Float32, (2,))
        alpha = kdsl.local_array(Float32, (2,))  # the factors that rescale O
        for i in range(HEAD_DIM // 2):  # (a loop ptxas unrolls: registers)
            oacc[i] = 0.0
        for h in kdsl.range_constexpr(2):
            m[h] = NEG_INF
            l[h] = 0.0
        # (nothing is in flight: this wait keeps the zeros of O before the
        # first wgmma, where ptxas wants an accumulator's definitions)
        kdsl.wgmma_wait(0, oacc)
        rows = (group - 1) * 64
        lane = tid % 32
        t4 = lane % 4  # this thread's columns: 2 t4, 2 t4 + 1 of each 8
        row0 = m0 + rows + tid % 128 // 32 * 16 + lane // 4  # its rows: row0, + 8
        dq = kdsl.wgmma_desc(sq, rows * 8)  # this consumer's 64 rows of Q
        # (causal) the first key tile that crosses this consumer's diagonal
        first_diagonal = (m0 + rows) // BLOCK_N
        kdsl.mbarrier_wait(qbar, 0, 0)
        if ORDERED:  # (FlashAttention-3's warp scheduler barrier) the
            # consumers issue their wgmma in turn, 1, 2, .., so that one's
            # softmax runs while the next one's wgmma do; the first goes first
            me = group - 1
            after = group % CONSUMERS  # the consumer whose turn is next
            if me == 0 and lane == 0:
                kdsl.mbarrier_arrive(turns, 0)
        if OVERLAP:
            # FlashAttention-3's intra-warpgroup pipelining: the softmax of
            # key tile t runs while the tensor cores multiply P V of tile t -
            # 1, issued right after S = Q K^T of tile t.  Tile 0 first:
            kdsl.mbarrier_wait(full, 0, 0)
            kdsl.wgmma_fence()
            scores(sacc, dq, kdsl.wgmma_desc(sk, 0), D(0.0), THREADS, BLOCK_N, HEAD_DIM)
            kdsl.wgmma_wait(0, sacc)
            diagonal = CAUSAL and 0 >= first_diagonal
            if TAIL:
                if ntiles == 1:
                    mask_tail(sacc, Int32(0), t4, seq)
            softmax_tile(sacc, m, l, alpha, Int32(0), row0, t4, diagonal, scale_log2)
            pack(p, sacc, D(0.0))
            for t in range(1, ntiles):
                s = t % STAGES
                rescale(oacc, alpha)  # to tile t - 1's maximum
                kdsl.mbarrier_wait(full, s, t // STAGES % 2)
                if ORDERED:  # this consumer's turn t - 1 (its parity: t + 1's)
                    kdsl.mbarrier_wait(turns, me, (t + 1) % 2)
                kdsl.wgmma_fence()
                dk = kdsl.wgmma_desc(sk, s * COLS * BLOCK_N * 8)
                scores(sacc, dq, dk, D(0.0), THREADS, BLOCK_N, HEAD_DIM)
                values(oacc, p, sv, (t - 1) % STAGES * COLS * BLOCK_N * 8, D(0.0))
                if ORDERED:
                    if lane == 0:  # the next consumer's turn
                        kdsl.mbarrier_arrive(turns, after)
                kdsl.wgmma_wait(1, sacc)  # S of tile t (P V of t - 1 may still run)
                diagonal = CAUSAL and t >= first_diagonal
                if TAIL:
                    if t == ntiles - 1:
                        mask_tail(sacc, t * BLOCK_N, t4, seq)
                softmax_tile(
                    sacc, m, l, alpha, t * BLOCK_N, row0, t4, diagonal, scale_log2
                )
                kdsl.wgmma_wait(0, oacc)
                if tid % 128 == 0:  # this consumer is done with tile t - 1
                    kdsl.mbarrier_arrive(empty, (t - 1) % STAGES)
                pack(p, sacc, D(0.0))
            # P V of the last tile
            rescale(oacc, alpha)
            kdsl.wgmma_fence()
            values(oacc, p, sv, (ntiles - 1) % STAGES * COLS * BLOCK_N * 8, D(0.0))
            kdsl.wgmma_wait(0, oacc)
            if tid % 128 == 0:
                kdsl.mbarrier_arrive(empty, (ntiles - 1) % STAGES)
        else:
            # each tile in turn: S, the softmax, P V (the two consumers
            # overlap each other on the tensor cores)
            for t in range(ntiles):
                s = t % STAGES
                kdsl.mbarrier_wait(full, s, t // STAGES % 2)  # K and V have landed
                if ORDERED:  # this consumer's turn 2 t: S
                    kdsl.mbarrier_wait(turns, me, 0)
                kdsl.wgmma_fence()
                dk = kdsl.wgmma_desc(sk, s * COLS * BLOCK_N * 8)
                scores(sacc, dq, dk, D(0.0), THREADS, BLOCK_N, HEAD_DIM)
                if ORDERED:
                    if lane == 0:  # the next consumer's turn
                        kdsl.mbarrier_arrive(turns, after)
                kdsl.wgmma_wait(0, sacc)
                diagonal = CAUSAL and t >= first_diagonal
                if TAIL:
                    if t == ntiles - 1:
                        mask_tail(sacc, t * BLOCK_N, t4, seq)
                softmax_tile(
                    sacc, m, l, alpha, t * BLOCK_N, row0, t4, diagonal, scale_log2
                )
                rescale(oacc, alpha)
                pack(p, sacc, D(0.0))
                if ORDERED:  # turn 2 t + 1: P V
                    kdsl.mbarrier_wait(turns, me, 1)
                kdsl.wgmma_fence()
                values(oacc, p, sv, s * COLS * BLOCK_N * 8, D(0.0))
                if ORDERED:
                    if lane == 0:
                        kdsl.mbarrier_arrive(turns, after)
                kdsl.wgmma_wait(0, oacc)
                if tid % 128 == 0:  # this consumer is done with the stage
                    kdsl.mbarrier_arrive(empty, s)

        # O / l: each row's sum is spread over its 4 threads. The thread
        # holds columns 8 c + 2 t4, + 1 of rows row0 and row0 + 8: pairs.
        for h in kdsl.range_constexpr(2):
            total = l[h] + kdsl.shfl_xor(l[h], 1)
            total = total + kdsl.shfl_xor(total, 2)
            row = row0 + h * 8
            if BM % 128 == 0 or row < seq:  # (BM 192: the last block's rows
                inv = 1.0 / total  # past seq are computed, not stored)
                if lse is not None:  # for the backward: log2 of the row's sum
                    if t4 == 0:  # of exp2(s * scale_log2), m + log2(l)
                        lse[head + row] = m[h] + kdsl.math.log2(total)
                at = ((head + row) * HEAD_DIM + t4 * 2) // 2  # in pairs
                for c in kdsl.range_constexpr(HEAD_DIM // 8):
                    x0 = oacc[4 * c + 2 * h] * inv  # column 8 c + 2 t4
                    x1 = oacc[4 * c + 2 * h + 1] * inv  # and the next
                    o.vec(2)[at + c * 4] = D.vec(2)(x0, x1)


# -- launching ---------------------------------------------------------------------------
# (BLOCK_N, STAGES, OVERLAP, THREADS, ORDERED) per head dim, as deep a ring
# as shared memory holds (OVERLAP: a consumer holds two stages at a time,
# tile t - 1's V and tile t's K).  At d = 128 the tensor cores bound a tile
# and two consumers with OVERLAP are the fastest.  At d = 64 the
# exponentials match the tensor cores (docs/tensor-cores.md, "Attention on
# Hopper"): three-consumer blocks (THREADS 512, BM 192, FlashAttention-3's
# block at d = 64; 160 registers a consumer) beside session 9's best
# two-consumer one. Kept from the H200 run of session 10 (RESULTS.md; 13
# configurations timed at 1024, 1152 and 4096 tokens): each of these three
# was the fastest at some length (two consumers at 1024 tokens, where three
# leave too few blocks; three, ORDERED or not, at 1152 and 4096); 192-key
# tiles (BLOCK_N 192) and the configurations without OVERLAP never were.
# The autotuner picks per seq.
SHAPES = {
    64: [
        (128, 6, True, 384, False),
        (128, 6, True, 512, False),
        (128, 6, True, 512, True),
    ],
    128: [
        (128, 3, True, 384, False),
        (128, 2, True, 384, False),
        (64, 4, True, 384, False),
    ],
}
HEAD_DIMS = tuple(SHAPES)
NAMES = ("BLOCK_N", "STAGES", "OVERLAP", "THREADS", "ORDERED")


def threads(m) -> int:
    """The block of a configuration (m: its constexprs): a producer
    warpgroup and the consumers (THREADS; 384 if not given)."""
    return m.get("THREADS", THREADS)


def block_m(m) -> int:
    """The query rows of a block: 64 a consumer warpgroup."""
    return 64 * (threads(m) // 128 - 1)


def config_shared_mem(m) -> int:
    """Dynamic shared memory bytes of a configuration (m: its constexprs):
    the Q tile and STAGES tiles of K and of V."""
    return (block_m(m) + 2 * m["STAGES"] * m["BLOCK_N"]) * m["HEAD_DIM"] * 2


def shared_mem(head_dim: int, shape: tuple) -> int:
    """The same for a head dim and one of SHAPES."""
    return config_shared_mem(dict(zip(NAMES, shape), HEAD_DIM=head_dim))


def constexprs(head_dim: int, causal: bool, shape: tuple) -> dict:
    """The constexprs of one of SHAPES."""
    return dict(zip(NAMES, shape), HEAD_DIM=head_dim, CAUSAL=causal)


def _tuned(head_dim: int, causal: bool):
    configs = [kdsl.Config(**constexprs(head_dim, causal, s)) for s in SHAPES[head_dim]]
    return kdsl.autotune(configs=configs, key=["seq"], prune=_fits, restore=[])(
        attention_tma
    )


def _fits(configs, args):
    """The configurations whose key tiles divide seq when every row reads
    them all, or whose last tile past seq's end is masked: causal blocks
    (they stop at the diagonal) and 192-key tiles (TMA fills rows past the
    tensor with zeros)."""
    return [
        c
        for c in configs
        if c.constexprs["CAUSAL"]
        or 128 % c.constexprs["BLOCK_N"] != 0
        or args["seq"] % c.constexprs["BLOCK_N"] == 0
    ]


# one autotuned kernel per (head dim, causal): constexprs a config fixes
TUNED = {(d, c): _tuned(d, c) for d in HEAD_DIMS for c in (False, True)}


def grid(seq: int, batch_heads: int):
    """The grid of a configuration (a function of its constexprs): a block
    per BM query rows (the last one partial where BM = 192 does not divide
    seq) of each (batch, head)."""
    return lambda m: (-(-seq // block_m(m)), batch_heads)


def tensor_maps(q, k, v):
    """The TMA maps of q, k and v as (batch * heads * seq, head_dim) matrices:
    boxes of 64 x 64, 128-byte swizzle."""
    return tuple(
        kdsl.tensor_map(x.reshape(-1, x.shape[-1]), box=(BOX, 64), swizzle=128)
        for x in (q, k, v)
    )


def attention(q, k, v, causal: bool = False, out=None, maps=None, lse=None):
    """softmax(q k^T / sqrt(head_dim)) v for contiguous (batch, heads, seq,
    head_dim) bf16 or f16 q, k, v on an H100/H200 (PyTorch tensors or CuPy
    arrays); returns ``out`` (allocated if None).  ``maps``: the tensor maps
    of q, k and v, if the caller keeps them (built otherwise: kdsl.tensor_map
    encodes the same memory once).  ``lse``: a contiguous (batch, heads, seq) float32 array
    that receives each row's log-sum-exp in the log2 domain (m + log2(l) of
    the scores times scale * log2(e)), what attention_backward needs."""
    out = empty_like(q) if out is None else out
    bh, seq, head_dim = check_shapes(q, k, v, out, SEQ_MULTIPLE)
    if lse is not None and tuple(lse.shape) != tuple(q.shape[:3]):
        raise ValueError(
            f"attention needs lse of shape {tuple(q.shape[:3])}, got {tuple(lse.shape)}"
        )
    tma_q, tma_k, tma_v = maps if maps is not None else tensor_maps(q, k, v)
    scale_log2 = LOG2E / math.sqrt(head_dim)
    TUNED[head_dim, bool(causal)][grid(seq, bh), threads](
        tma_q, tma_k, tma_v, out, lse, seq, scale_log2, shared_mem=config_shared_mem
    )
    return out


if __name__ == "__main__":
    print(attention_tma.dispatch("bf16").source)
