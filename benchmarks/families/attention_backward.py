"""The attention backward on Hopper (examples/attention_backward.py: its
delta, dk/dv and dq passes on wgmma, from examples/attention_tma.py's saved
log-sum-exp; sm_90a) against PyTorch's SDPA backward (the flash backend:
``torch.autograd.grad`` through its forward's graph, kept from one call to
the next), bf16, batch 4, 16 heads, head dims 128 and 64, causal and not,
at 1024, 2048 and 4096 tokens (--quick: 1024).  dq, dk and dv are checked
against SDPA's first (max error over the largest element, 2^-6).  TFLOP/s counts
the backward's five products, 10 * batch * heads * seq^2 * head_dim,
halved when causal, for both (kdsl's dq pass recomputes two more).  torch
is imported when the cases are built, on the GPU machine;
benchmarks/attention_bwd_bench.py is the same comparison with the chosen
configurations printed."""

from __future__ import annotations

from attention_bwd_bench import CASES, TOL  # benchmarks/: the bench's cases

FAMILY = "attention backward"

SWEEP_WEIGHT = 4.0  # seconds a sweep case (two autotune searches)


def _case(batch: int, heads: int, seq: int, d: int, causal: bool):
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    import attention_backward as B
    import attention_tma as A
    from suite import Case

    dims = (batch, heads, seq, d)
    gen = torch.Generator(device="cuda").manual_seed(d + causal)
    q, k, v, do = (
        torch.randn(dims, device="cuda", dtype=torch.bfloat16, generator=gen)
        for _ in range(4)
    )
    qs, ks, vs = (x.clone().requires_grad_() for x in (q, k, v))
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        out = F.scaled_dot_product_attention(qs, ks, vs, is_causal=causal)
    lse = torch.empty(dims[:3], device="cuda", dtype=torch.float32)
    o = A.attention(q, k, v, causal, lse=lse)  # the forward, saving lse
    grads = [torch.empty_like(q) for _ in range(3)]

    def kdsl_backward():
        B.attention_backward(q, k, v, o, lse, do, causal, *grads)

    def check():
        for g in grads:
            g.fill_(float("nan"))
        kdsl_backward()
        want = torch.autograd.grad(out, (qs, ks, vs), do, retain_graph=True)
        for name, g, w in zip(("dq", "dk", "dv"), grads, want):
            err = ((g.float() - w.float()).abs().max() / w.float().abs().max()).item()
            assert err <= TOL, f"{name}: max error {err:.2e} > {TOL:.2e}"

    kind = "causal" if causal else "full"
    return Case(
        family=FAMILY,
        label=f"bf16 d{d} {kind} b{batch} h{heads} s{seq}",
        series=f"bf16 d{d} {kind}",
        x=seq,
        unit="TFLOP/s",
        work=10.0 * batch * heads * seq * seq * d / (2 if causal else 1),
        runners={
            "kdsl": kdsl_backward,
            "torch": lambda: torch.autograd.grad(
                out, (qs, ks, vs), do, retain_graph=True
            ),
        },
        check=check,
        note="peer: SDPA's flash backward",
    )


def cases(quick: bool):
    # a line per configuration over the sequence length (the plot's x), 4096
    # tokens being issue 29's target
    seqs = (1024,) if quick else (1024, 2048, 4096)
    return [_case(4, 16, s, d, causal) for d, causal in CASES for s in seqs]


def sweep():
    # head dim 128 at 4k tokens (issue 29's target) and a short sequence;
    # the workload table has the rest
    return [
        (
            f"bf16 d128 {'causal' if c else 'full'} b{b} h{h} s{s}",
            lambda shape=(b, h, s), c=c: _case(*shape, 128, c),
        )
        for b, h, s, c in ((4, 16, 4096, True), (8, 12, 1024, False))
    ]
