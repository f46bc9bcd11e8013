"""attention: a FlashAttention-2 style forward pass on the tensor cores,
``o = softmax(q k^T / sqrt(HEAD_DIM)) v`` per (batch, head), for bf16 or f16
q, k, v and o of shape (batch, heads, seq, HEAD_DIM), contiguous, with
HEAD_DIM 64 or 128 and an optional causal mask (key j > query i masked out).

One block computes BLOCK_M query rows of one (batch, head) with
BLOCK_M / (16 WARP_M) warps, each warp WARP_M tiles of 16 rows, and never
writes the seq x seq score matrix anywhere: it walks the keys in tiles of
BLOCK_N rows and keeps, per query row, the running maximum m and sum l of
the online softmax and the output accumulator O in registers
(docs/examples.md, "attention: a FlashAttention-style forward").

* Q is read once, straight from global memory into registers, as the
  mma.sync A fragments of the warp's rows: HEAD_DIM / 16 BFloat16x8 a lane
  per 16-row tile (it is used once, so it takes no shared memory).
* K and V tiles stream through a STAGES-deep cp.async pipeline in
  XOR-swizzled shared memory (so ldmatrix reads them without bank
  conflicts).
* S = Q K^T is mma m16n8k16: K is (seq, d) row-major, so its rows are the
  columns of K^T, which is what the B operand (column-major) wants:
  ldmatrix without a transpose.
* The softmax runs in Float32 in the accumulator layout: a lane holds two
  elements of rows g and g + 8 of each 16 x 8 tile, the 4 lanes of a group
  hold a whole row, so a row's maximum is two xor shuffles. The exponent
  is exp2(s * scale * log2(e) - m) with the scale folded into one
  kdsl.math.fma (no fast math anywhere).
* P = exp2(...) goes straight back into the tensor cores: the m16n8
  accumulator fragments of two adjacent key tiles are, converted to 16
  bits, exactly the A fragment of m16n8k16 for those 16 keys. V is
  (seq, d) row-major, the B operand of P V needs it column-major: ldmatrix
  with .trans.
* Causal: tiles entirely above the diagonal are never loaded, the tiles
  that cross it are masked; the blocks of the longest rows start first.
* WARP_M = 2 (head dim 64): a warp's two row tiles share every K and V
  fragment it loads, half the shared-memory reads per mma.

``attention(q, k, v, causal)`` launches the autotuned kernel; seq must be a
multiple of 64 (every tile size divides it: there is no ragged edge).
"""

import math

import kdsl
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
NEG_INF = -math.inf
LOG2E = 1.4426950408889634
# seq must be a multiple of SEQ_MULTIPLE: every BLOCK_M and BLOCK_N divides it
SEQ_MULTIPLE = 64


def _backward(q, k, v, o, lse, grad_o, grad_q, grad_k, grad_v, CAUSAL):
    """The gradients of attention_fwd (its kdsl.torch pairing): the three
    passes of examples/attention_backward.py, from the saved lse."""
    from attention_backward import attention_backward

    attention_backward(q, k, v, o, lse, grad_o, CAUSAL, dq=grad_q, dk=grad_k, dv=grad_v)


@kdsl.kernel(
    dtypes=["bf16", "f16"], backward=kdsl.host_backward(_backward), no_overflow=True
)
def attention_fwd(
    q: Pointer[D],
    k: Pointer[D],
    v: Pointer[D],
    o: Pointer[D],
    lse: Pointer[Float32] | None,  # each row's log-sum-exp (log2 domain), or None
    seq: Int32,
    scale_log2: Float32,  # the softmax scale times log2(e)
    HEAD_DIM: Constexpr[int] = 64,
    BLOCK_M: Constexpr[int] = 64,
    BLOCK_N: Constexpr[int] = 64,
    STAGES: Constexpr[int] = 2,
    CAUSAL: Constexpr[bool] = False,
    WARP_M: Constexpr[int] = 1,
):
    kdsl.assume(seq >= 0)
    # WARP_M: 16-row tiles a warp computes. Each K and V fragment a warp
    # reads from shared memory feeds WARP_M mma: with 1, an ldmatrix x4 (512
    # bytes) feeds 2 mma, and shared memory, not the tensor cores, sets the
    # pace; 2 halves that traffic for twice the registers.
    CH = HEAD_DIM // 8  # 16-byte chunks in a row of q, k, v
    THREADS = BLOCK_M // (16 * WARP_M) * 32
    # dynamic shared memory: STAGES tiles of K and of V, BLOCK_N rows each
    sk = kdsl.dynamic_shared_array(D.vec(8), STAGES * BLOCK_N * CH)
    sv = kdsl.dynamic_shared_array(D.vec(8), STAGES * BLOCK_N * CH)
    # registers (local arrays indexed only at compile time), per 16-row tile i
    qf = kdsl.local_array(D.vec(8), (WARP_M, HEAD_DIM // 16))  # Q's A fragments
    s = kdsl.local_array(Float32x4, (WARP_M, BLOCK_N // 8))  # S, then P
    acc = kdsl.local_array(Float32x4, (WARP_M, HEAD_DIM // 8))  # O, unnormalised
    m = kdsl.local_array(Float32, (WARP_M, 2))  # rows g, g + 8: running max
    l = kdsl.local_array(Float32, (WARP_M, 2))  # ... this lane's part of the sum
    pa = kdsl.local_array(D.vec(8), (WARP_M,))  # P's A fragments, 16 keys

    tid = thread_idx.x
    lane = tid % 32
    warp = tid // 32
    g = lane // 4  # this lane's rows are g and g + 8 of each 16-row tile ...
    t4 = lane % 4  # ... and its columns 2 t4, 2 t4 + 1 of each 8
    if CAUSAL:  # the blocks with the most key tiles first
        m0 = (grid_dim.x - 1 - block_idx.x) * BLOCK_M
    else:
        m0 = block_idx.x * BLOCK_M
    head = block_idx.y * seq  # the first row of this (batch, head)
    row0 = m0 + warp * (16 * WARP_M) + g  # this lane's first query row
    if CAUSAL:  # key tiles up to the diagonal
        ntiles = (m0 + BLOCK_M + BLOCK_N - 1) // BLOCK_N
    else:
        ntiles = seq // BLOCK_N

    # Q's A fragments, read once straight from global memory (no shared
    # memory: the tile is used once): a[0:2] row g, a[2:4] row g + 8, columns
    # 2 t4, 2 t4 + 1 of the 16-column slice kk; a[4:8] the same 8 columns on.
    for i in kdsl.range_constexpr(WARP_M):
        qrow = (head + row0 + i * 16) * (HEAD_DIM // 2) + t4  # in pairs
        for kk in kdsl.range_constexpr(HEAD_DIM // 16):
            x0 = q.vec(2)[qrow + kk * 8]
            x1 = q.vec(2)[qrow + kk * 8 + 4 * HEAD_DIM]  # row g + 8
            x2 = q.vec(2)[qrow + kk * 8 + 4]  # columns + 8
            x3 = q.vec(2)[qrow + kk * 8 + 4 * HEAD_DIM + 4]
            qf[i, kk] = D.vec(8)(x0[0], x0[1], x1[0], x1[1], x2[0], x2[1], x3[0], x3[1])
        for j in kdsl.range_constexpr(HEAD_DIM // 8):
            acc[i, j] = Float32x4(0.0)
        for h in kdsl.range_constexpr(2):
            m[i, h] = NEG_INF
            l[i, h] = 0.0

    # The pipeline: iteration t starts copying key tile t into stage
    # t % STAGES and computes tile t - (STAGES - 1), whose copies have landed.
    for t in range(ntiles + STAGES - 1):
        kt = t - (STAGES - 1)  # the tile computed in this iteration
        if kt >= 0:
            kdsl.cp_async_wait(STAGES - 2)  # tile kt has landed ...
            kdsl.syncthreads()  # ... for every thread; stage kt - 1 is free
        if t < ntiles:  # K and V rows t * BLOCK_N ..., chunk c of row r at
            stage = t % STAGES  # (r, swizzle(r, c)) of the stage
            for p in kdsl.range_constexpr(BLOCK_N * CH // THREADS):
                idx = p * THREADS + tid
                r = idx // CH
                c = idx % CH
                src = (head + t * BLOCK_N + r) * CH + c
                dst = (stage * BLOCK_N + r) * CH + kdsl.swizzle(r, c, CH)
                kdsl.cp_async(sk, dst, k.vec(8), src)
                kdsl.cp_async(sv, dst, v.vec(8), src)
        kdsl.cp_async_commit()  # (an empty group past the end keeps the count)
        if kt < 0:
            continue
        kv0 = kt % STAGES * BLOCK_N  # the stage's first row in sk and sv

        # S = Q K^T for BLOCK_N keys: ldmatrix x4 of K gives the B fragments
        # of two 8-key tiles (matrices: keys 0-7 | dims 0-7, keys 0-7 | dims
        # 8-15, keys 8-15 | dims 0-7, keys 8-15 | dims 8-15)
        for i in kdsl.range_constexpr(WARP_M):
            for j in kdsl.range_constexpr(BLOCK_N // 8):
                s[i, j] = Float32x4(0.0)
        for kk in kdsl.range_constexpr(HEAD_DIM // 16):
            for jp in kdsl.range_constexpr(BLOCK_N // 16):
                r = jp * 16 + lane // 16 * 8 + lane % 8
                c = kk * 2 + lane // 8 % 2
                kb = kdsl.ldmatrix(sk, (kv0 + r) * CH + kdsl.swizzle(r, c, CH))
                kb0 = D.vec(4)(kb[0], kb[1], kb[2], kb[3])
                kb1 = D.vec(4)(kb[4], kb[5], kb[6], kb[7])
                for i in kdsl.range_constexpr(WARP_M):
                    s[i, 2 * jp] = kdsl.mma_m16n8k16(qf[i, kk], kb0, s[i, 2 * jp])
                    s[i, 2 * jp + 1] = kdsl.mma_m16n8k16(
                        qf[i, kk], kb1, s[i, 2 * jp + 1]
                    )

        for i in kdsl.range_constexpr(WARP_M):
            # Causal: mask the keys after each row in the tiles that cross the
            # diagonal. s[i, j][e] is row 16 i + g + 8 (e // 2) of the warp's,
            # key 8 j + 2 t4 + e % 2 of the tile's.
            if CAUSAL:
                n0 = kt * BLOCK_N
                if n0 + BLOCK_N - 1 > m0:
                    for j in kdsl.range_constexpr(BLOCK_N // 8):
                        for e in kdsl.range_constexpr(4):
                            key = n0 + j * 8 + t4 * 2 + e % 2
                            if key > row0 + i * 16 + e // 2 * 8:
                                s[i, j][e] = NEG_INF

            # The online softmax of rows g (h = 0: elements 0, 1 of each
            # tile) and g + 8 (h = 1: elements 2, 3), in the log2 domain: the
            # new maximum m of the scaled scores, the old sum and O rescaled
            # by exp2(m_old - m), P = exp2(s * scale_log2 - m). A row lives in
            # the 4 lanes of a group: its maximum is two xor shuffles; its sum
            # is only reduced at the end.
            for h in kdsl.range_constexpr(2):
                mx = kdsl.math.fmax(s[i, 0][2 * h], s[i, 0][2 * h + 1])
                for j in kdsl.range_constexpr(1, BLOCK_N // 8):
                    mx = kdsl.math.fmax(
                        mx, kdsl.math.fmax(s[i, j][2 * h], s[i, j][2 * h + 1])
                    )
                mx = kdsl.math.fmax(mx, kdsl.shfl_xor(mx, 1))
                mx = kdsl.math.fmax(mx, kdsl.shfl_xor(mx, 2))
                # every row sees key 0 in its first tile: the maximum is finite
                m_new = kdsl.math.fmax(m[i, h], mx * scale_log2)
                alpha = kdsl.math.exp2(m[i, h] - m_new)  # 0 on the first tile
                m[i, h] = m_new
                total = Float32(0.0)
                for j in kdsl.range_constexpr(BLOCK_N // 8):
                    for e in kdsl.range_constexpr(2 * h, 2 * h + 2):
                        p = kdsl.math.exp2(
                            kdsl.math.fma(s[i, j][e], scale_log2, -m_new)
                        )
                        s[i, j][e] = p
                        total += p
                l[i, h] = l[i, h] * alpha + total
                for j in kdsl.range_constexpr(HEAD_DIM // 8):
                    acc[i, j][2 * h] = acc[i, j][2 * h] * alpha
                    acc[i, j][2 * h + 1] = acc[i, j][2 * h + 1] * alpha

        # O += P V, 16 keys at a time. P's A fragment for keys 16 kk .. + 15 is
        # the two accumulator tiles 2 kk and 2 kk + 1 converted to 16 bits
        # (a[0:4] = rows g, g + 8 of keys 2t, 2t + 1; a[4:8] the same 8 keys
        # on). ldmatrix x4 .trans of V gives the B fragments of two 8-column
        # tiles of O (matrices: keys 0-7 | dims 0-7, keys 8-15 | dims 0-7,
        # keys 0-7 | dims 8-15, keys 8-15 | dims 8-15).
        for kk in kdsl.range_constexpr(BLOCK_N // 16):
            for i in kdsl.range_constexpr(WARP_M):
                a = s[i, 2 * kk]
                b = s[i, 2 * kk + 1]
                pa[i] = D.vec(8)(a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3])
            for jp in kdsl.range_constexpr(HEAD_DIM // 16):
                r = kk * 16 + lane // 8 % 2 * 8 + lane % 8
                c = jp * 2 + lane // 16
                vb = kdsl.ldmatrix(
                    sv, (kv0 + r) * CH + kdsl.swizzle(r, c, CH), trans=True
                )
                vb0 = D.vec(4)(vb[0], vb[1], vb[2], vb[3])
                vb1 = D.vec(4)(vb[4], vb[5], vb[6], vb[7])
                for i in kdsl.range_constexpr(WARP_M):
                    acc[i, 2 * jp] = kdsl.mma_m16n8k16(pa[i], vb0, acc[i, 2 * jp])
                    acc[i, 2 * jp + 1] = kdsl.mma_m16n8k16(
                        pa[i], vb1, acc[i, 2 * jp + 1]
                    )

    # O / l: each row's sum is spread over its 4 lanes. The lane holds
    # columns 8 j + 2 t4, 8 j + 2 t4 + 1 of rows g and g + 8: D x2 pairs.
    for i in kdsl.range_constexpr(WARP_M):
        for h in kdsl.range_constexpr(2):
            total = l[i, h] + kdsl.shfl_xor(l[i, h], 1)
            total = total + kdsl.shfl_xor(total, 2)
            inv = 1.0 / total
            if lse is not None:  # for the backward: log2 of the row's sum
                if t4 == 0:  # of exp2(s * scale_log2), m + log2(l)
                    lse[head + row0 + i * 16 + h * 8] = m[i, h] + kdsl.math.log2(total)
            at = ((head + row0 + i * 16 + h * 8) * HEAD_DIM + t4 * 2) // 2  # pairs
            for j in kdsl.range_constexpr(HEAD_DIM // 8):
                first = acc[i, j][2 * h] * inv  # column 8 j + 2 t4
                second = acc[i, j][2 * h + 1] * inv  # and the next
                o.vec(2)[at + j * 4] = D.vec(2)(first, second)


# -- launching ---------------------------------------------------------------------------
# (BLOCK_M, BLOCK_N, STAGES, WARP_M) per head dim: 4 or 8 warps, two stages.
# Two 16-row tiles a warp (WARP_M=2) fit the registers only with head dim 64
# (with 128 they spill: tests/tensorcores/test_attention.py checks).
SHAPES = {
    64: [(128, 64, 2, 1), (64, 64, 2, 1), (128, 64, 2, 2), (128, 32, 2, 2)],
    128: [(128, 64, 2, 1), (64, 64, 2, 1), (128, 32, 2, 1)],
}
HEAD_DIMS = tuple(SHAPES)
NAMES = ("BLOCK_M", "BLOCK_N", "STAGES", "WARP_M")


def constexprs(head_dim: int, causal: bool, shape: tuple) -> dict:
    """The constexpr values of one configuration, checked: the kernel's
    loops assume them (the copy loop, for one, gives each thread the same
    number of 16-byte chunks of a K or V tile)."""
    block_m, block_n, stages, warp_m = shape
    m = dict(zip(NAMES, shape), HEAD_DIM=head_dim, CAUSAL=causal)
    if (
        head_dim % 16
        or block_m % (16 * warp_m)
        or block_n % 16
        or block_n * (head_dim // 8) % threads(m)
        or stages < 2
    ):
        raise ValueError(
            f"attention_fwd cannot run {dict(zip(NAMES, shape))} at head dim"
            f" {head_dim}: BLOCK_M must be a multiple of 16 * WARP_M, BLOCK_N of"
            " 16, the BLOCK_N * HEAD_DIM / 8 chunks of a tile a multiple of the"
            " threads, and STAGES at least 2"
        )
    return m


def threads(m) -> int:
    """Threads a block: a warp per WARP_M 16-row tiles (m: the constexprs)."""
    return m["BLOCK_M"] // (16 * m["WARP_M"]) * 32


block = threads  # the launch's block, a function of the configuration


def config_shared_mem(m) -> int:
    """Dynamic shared memory bytes of a configuration (m: its constexprs):
    STAGES K and V tiles (Q lives in registers). The autotuner's
    shared_mem=, so that each configuration gets its own."""
    return 2 * m["STAGES"] * m["BLOCK_N"] * m["HEAD_DIM"] * 2


def shared_mem(head_dim: int, shape: tuple) -> int:
    """The same for a head dim and one of SHAPES."""
    return config_shared_mem(constexprs(head_dim, False, shape))


def _divides(configs, args):
    """The configurations whose tiles divide seq (seq is in the key)."""
    seq = args["seq"]
    return [
        c
        for c in configs
        if seq % c.constexprs["BLOCK_M"] == 0 and seq % c.constexprs["BLOCK_N"] == 0
    ]


def _tuned(head_dim: int, causal: bool):
    configs = [kdsl.Config(**constexprs(head_dim, causal, s)) for s in SHAPES[head_dim]]
    return kdsl.autotune(configs=configs, key=["seq"], prune=_divides, restore=[])(
        attention_fwd
    )


# one autotuned kernel per (head dim, causal): constexprs a config fixes
TUNED = {(d, c): _tuned(d, c) for d in HEAD_DIMS for c in (False, True)}


def grid(seq: int, batch_heads: int):
    return lambda m: (seq // m["BLOCK_M"], batch_heads)


def check_shapes(q, k, v, out, multiple: int = SEQ_MULTIPLE) -> tuple:
    """(batch * heads, seq, head_dim) of a valid call (seq a multiple of
    ``multiple``), else a ValueError."""
    if not (q.shape == k.shape == v.shape == out.shape) or len(q.shape) != 4:
        raise ValueError(
            "attention needs q, k, v and out of one shape (batch, heads, seq, head_dim),"
            f" got {tuple(q.shape)}, {tuple(k.shape)}, {tuple(v.shape)},"
            f" {tuple(out.shape)}"
        )
    for name, x in (("q", q), ("k", k), ("v", v), ("out", out)):
        if not _contiguous(x):
            raise ValueError(f"attention needs contiguous arrays: {name} is not")
    batch, heads, seq, head_dim = q.shape
    if head_dim not in HEAD_DIMS:
        raise ValueError(f"attention takes head_dim 64 or 128, got {head_dim}")
    if seq % multiple:
        raise ValueError(
            f"attention needs seq a multiple of {multiple} (the tiles have no"
            f" ragged edge), got {seq}"
        )
    return batch * heads, seq, head_dim


def _contiguous(x) -> bool:
    if hasattr(x, "is_contiguous"):  # a PyTorch tensor
        return x.is_contiguous()
    return x.flags.c_contiguous  # numpy, CuPy


def empty_like(x):
    if type(x).__module__.startswith("torch"):
        import torch

        return torch.empty_like(x)
    if type(x).__module__.startswith("cupy"):
        import cupy

        return cupy.empty_like(x)
    import numpy

    return numpy.empty_like(x)


def attention(
    q, k, v, causal: bool = False, out=None, interpret: bool = False, lse=None
):
    """softmax(q k^T / sqrt(head_dim)) v for contiguous (batch, heads, seq,
    head_dim) bf16 or f16 q, k, v (CuPy arrays or PyTorch tensors; numpy
    arrays with ``interpret=True``, which runs the first configuration in the
    CPU interpreter, slowly); returns ``out`` (allocated if None).  ``lse``:
    a contiguous (batch, heads, seq) float32 array that receives each row's
    log-sum-exp in the log2 domain (examples/attention_backward.py)."""
    out = empty_like(q) if out is None else out
    bh, seq, head_dim = check_shapes(q, k, v, out)
    if lse is not None and tuple(lse.shape) != tuple(q.shape[:3]):
        raise ValueError(
            f"attention needs lse of shape {tuple(q.shape[:3])}, got {tuple(lse.shape)}"
        )
    scale_log2 = LOG2E / math.sqrt(head_dim)
    tuned = TUNED[head_dim, bool(causal)]
    # in the interpreter: the first configuration whose tiles divide seq
    launch = tuned.interpret if interpret else tuned
    launch[grid(seq, bh), block](
        q, k, v, out, lse, seq, scale_log2, shared_mem=config_shared_mem
    )
    return out


if __name__ == "__main__":
    print(attention_fwd.dispatch("bf16").source)
