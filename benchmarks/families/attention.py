"""Attention forward on the tensor cores: kdsl's examples/attention.py
(FlashAttention-2 style, mma.sync, autotuned) and, on an H100/H200,
examples/attention_tma.py (TMA and wgmma, warp-specialised; its tensor maps
built once, as a caller would keep them), each against
torch.nn.functional.scaled_dot_product_attention and a short Triton
FlashAttention forward (the shape of Triton's tutorial 06, autotuned over a
few configurations), bf16, batch 4, 16 heads, 4096 tokens, head dims 64 and
128, causal and not (--quick: 1024 tokens).  TFLOP/s counts the two
matrix products, 4 * batch * heads * seq^2 * head_dim, halved when causal.
torch and triton are imported when the cases are built, on the GPU machine."""

from __future__ import annotations

import math

FAMILY = "attention"


def _triton_attention():
    """A Triton FlashAttention forward: one program per BM query rows of one
    (batch, head), the online softmax in the log2 domain, autotuned."""
    import triton
    import triton.language as tl

    configs = [
        triton.Config({"BM": bm, "BN": bn}, num_stages=s, num_warps=w)
        for bm, bn, s, w in [
            (128, 64, 3, 8),
            (128, 64, 2, 4),
            (64, 64, 3, 4),
            (128, 32, 3, 4),
        ]
    ]

    @triton.autotune(configs=configs, key=["seq", "D", "CAUSAL"])
    @triton.jit
    def kernel(Q, K, V, O, seq, scale_log2, D: tl.constexpr, CAUSAL: tl.constexpr,
               BM: tl.constexpr, BN: tl.constexpr):  # fmt: skip
        start_m = tl.program_id(0)
        base = tl.program_id(1).to(tl.int64) * seq * D
        rm = start_m * BM + tl.arange(0, BM)
        rn = tl.arange(0, BN)
        rd = tl.arange(0, D)
        q = tl.load(Q + base + rm[:, None] * D + rd[None, :])
        m_i = tl.full([BM], float("-inf"), tl.float32)
        l_i = tl.zeros([BM], tl.float32)
        acc = tl.zeros([BM, D], tl.float32)
        hi = seq
        if CAUSAL:  # key tiles up to the diagonal
            hi = (start_m + 1) * BM
        for n0 in range(0, hi, BN):
            k = tl.load(K + base + (n0 + rn)[None, :] * D + rd[:, None])  # K^T
            s = tl.dot(q, k)
            if CAUSAL:
                s = tl.where(rm[:, None] >= (n0 + rn)[None, :], s, float("-inf"))
            m_new = tl.maximum(m_i, tl.max(s, 1) * scale_log2)
            p = tl.math.exp2(s * scale_log2 - m_new[:, None])
            alpha = tl.math.exp2(m_i - m_new)
            l_i = l_i * alpha + tl.sum(p, 1)
            v = tl.load(V + base + (n0 + rn)[:, None] * D + rd[None, :])
            acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
            m_i = m_new
        out = acc / l_i[:, None]
        tl.store(O + base + rm[:, None] * D + rd[None, :], out.to(O.dtype.element_ty))

    def run(q, k, v, o, causal):
        b, h, seq, d = q.shape
        scale_log2 = 1.4426950408889634 / math.sqrt(d)
        grid = lambda m: (seq // m["BM"], b * h)  # noqa: E731
        kernel[grid](q, k, v, o, seq, scale_log2, D=d, CAUSAL=causal)

    return run


def cases(quick: bool):
    import torch
    import torch.nn.functional as F

    import attention  # examples/, on the path (suite.family_modules)
    import attention_tma
    from suite import Case

    hopper = torch.cuda.get_device_capability() == (9, 0)
    triton_attention = _triton_attention()
    batch, heads, seq = 4, 16, 1024 if quick else 4096
    out = []

    def case(q, k, v, d, causal, kdsl_run, peers, tag="", note=""):
        """One row: ``kdsl_run(o)`` against ``peers``, checked against SDPA."""
        o = torch.empty_like(q)

        def check():
            kdsl_run(o)
            want = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            torch.testing.assert_close(o, want, rtol=2e-2, atol=2e-2)

        kind = "causal" if causal else "full"
        return Case(
            family=FAMILY,
            label=f"bf16 d{d} {kind} s{seq}{tag}",
            series=f"bf16 {kind}{tag}",
            x=d,
            unit="TFLOP/s",
            work=4.0 * batch * heads * seq * seq * d / (2 if causal else 1),
            runners={"kdsl": lambda: kdsl_run(o), **peers},
            check=check,
            note=f"batch {batch}, {heads} heads{note}",
        )

    for d in attention.HEAD_DIMS:
        for causal in (False, True):
            shape = (batch, heads, seq, d)
            q, k, v = (
                torch.randn(shape, device="cuda", dtype=torch.bfloat16)
                for _ in range(3)
            )
            o_triton = torch.empty_like(q)
            sdpa = {
                "torch": lambda q=q, k=k, v=v, c=causal: (
                    F.scaled_dot_product_attention(q, k, v, is_causal=c)
                )
            }
            triton = {
                "triton": lambda q=q, k=k, v=v, o=o_triton, c=causal: (
                    triton_attention(q, k, v, o, c)
                )
            }
            mma_sync = lambda o, q=q, k=k, v=v, c=causal: (  # noqa: E731
                attention.attention(q, k, v, c, out=o)
            )
            out.append(case(q, k, v, d, causal, mma_sync, {**sdpa, **triton}))
            if hopper:  # the tensor maps built once, as a caller keeps them
                maps = attention_tma.tensor_maps(q, k, v)
                tma = lambda o, q=q, k=k, v=v, c=causal, m=maps: (  # noqa: E731
                    attention_tma.attention(q, k, v, c, out=o, maps=m)
                )
                note = "; kdsl: TMA + wgmma"
                out.append(case(q, k, v, d, causal, tma, sdpa, " tma", note))
    return out


SWEEP_WEIGHT = 4.0  # seconds a sweep case (Triton's autotune search per shape)
# (batch, heads, seq, head_dim): the default's two, GPT-2/BERT (12 heads of
# 64, 1024 tokens), a Llama layer (32 heads of 128, one 4096-token
# sequence), 2048 tokens, and a length no power of two (1152 = 9 x 128)
SWEEP_SHAPES = [
    (4, 16, 4096, 64),
    (4, 16, 4096, 128),
    (8, 12, 1024, 64),
    (1, 32, 4096, 128),
    (2, 16, 2048, 128),
    (4, 16, 1152, 64),
]


def _sweep_case(batch, heads, seq, d, causal):
    """kdsl's TMA kernel on an H100/H200 (else the mma.sync one) against SDPA
    and the Triton forward."""
    import torch
    import torch.nn.functional as F

    import attention
    import attention_tma
    from suite import Case

    shape = (batch, heads, seq, d)
    q, k, v = (
        torch.randn(shape, device="cuda", dtype=torch.bfloat16) for _ in range(3)
    )
    o, o_triton = torch.empty_like(q), torch.empty_like(q)
    triton_attention = _triton_attention()
    if torch.cuda.get_device_capability() == (9, 0):
        maps = attention_tma.tensor_maps(q, k, v)
        run = lambda: attention_tma.attention(q, k, v, causal, out=o, maps=maps)  # noqa
        note = "kdsl: TMA + wgmma"
    else:
        run = lambda: attention.attention(q, k, v, causal, out=o)  # noqa: E731
        note = "kdsl: mma.sync"

    def check():
        run()
        want = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        torch.testing.assert_close(o, want, rtol=2e-2, atol=2e-2)

    kind = "causal" if causal else "full"
    return Case(
        family=FAMILY,
        label=f"bf16 d{d} {kind} b{batch} h{heads} s{seq}",
        series=f"bf16 d{d} {kind}",
        x=seq,
        unit="TFLOP/s",
        work=4.0 * batch * heads * seq * seq * d / (2 if causal else 1),
        runners={
            "kdsl": run,
            "torch": lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal),
            "triton": lambda: triton_attention(q, k, v, o_triton, causal),
        },
        check=check,
        note=note,
    )


def sweep():
    return [
        (
            f"bf16 d{d} {'causal' if c else 'full'} b{b} h{h} s{s}",
            lambda shape=(b, h, s, d), c=c: _sweep_case(*shape, c),
        )
        for b, h, s, d in SWEEP_SHAPES
        for c in (False, True)
    ]
