"""The GPU checks of the attention backward (examples/attention_backward.py
paired with examples/attention_tma.py's forward through kdsl.torch), run by
tests/gpu/test_attention_backward_gpu.py in a subprocess of its own with a
timeout (the forward waits on mbarriers: a hang cannot be interrupted
in-process).  Each raises AssertionError with what it saw.

The tolerance is FlashAttention's: against a float32 reference (SDPA's math
on the inputs in float32), kdsl's error in each gradient must be at most
ERR_FACTOR times SDPA's own error in the 16-bit dtype, plus a small floor
(ABS_FLOOR of the reference's largest element)."""

import importlib.util
import sys
from pathlib import Path

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location(
    "kdsl_example_ops", ROOT / "examples" / "pytorch" / "ops.py"
)
ops = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ops)
sys.path.insert(0, str(ROOT / "examples"))
import attention_backward as B  # noqa: E402

ERR_FACTOR = 3.0
ABS_FLOOR = 2.0**-12
DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16}


def _grads(fn, q, k, v, do):
    q, k, v = (x.detach().clone().requires_grad_() for x in (q, k, v))
    out = fn(q, k, v)
    out.backward(do)
    return out.detach(), q.grad, k.grad, v.grad


def compare(dims, causal, dtype, seed=0):
    """The op's output and gradients against SDPA's (same inputs), both
    measured against the float32 reference."""
    gen = torch.Generator(device="cuda").manual_seed(seed)
    q, k, v, do = (
        torch.randn(dims, device="cuda", dtype=DTYPES[dtype], generator=gen)
        for _ in range(4)
    )
    got = _grads(lambda a, b, c: ops.attention(a, b, c, causal), q, k, v, do)
    sdpa = _grads(
        lambda a, b, c: F.scaled_dot_product_attention(a, b, c, is_causal=causal),
        q, k, v, do,
    )  # fmt: skip
    with sdpa_kernel(SDPBackend.MATH):  # float32 throughout (no TF32)
        ref = _grads(
            lambda a, b, c: F.scaled_dot_product_attention(a, b, c, is_causal=causal),
            *(x.float() for x in (q, k, v, do)),
        )
    failures = []
    for name, g, s, r in zip(("o", "dq", "dk", "dv"), got, sdpa, ref):
        g, s = g.float(), s.float()
        assert not torch.isnan(g).any(), f"{dims} causal={causal}: NaN in {name}"
        err = (g - r).abs().max().item()
        bound = ERR_FACTOR * (s - r).abs().max().item()
        bound += ABS_FLOOR * r.abs().max().item()
        if err > bound:
            failures.append(
                f"{dtype} {dims} causal={causal} {name}: max error {err:.3g} > "
                f"{bound:.3g} (SDPA's {(s - r).abs().max().item():.3g})"
            )
    return failures


def gradients(dtype):
    """Head dims 64 and 128, causal and not; batch and heads > 1; seq 384
    (3 tiles: causal query tiles below, across and above the keys) and
    1024."""
    failures = []
    for d in B.HEAD_DIMS:
        for causal in (False, True):
            failures += compare((2, 3, 384, d), causal, dtype, seed=d + causal)
            failures += compare((1, 4, 1024, d), causal, dtype, seed=7 + d)
    assert not failures, "\n".join(failures)


def lse(dtype):
    """The TMA forward's saved log-sum-exp against float32 (log2 domain)."""
    sys.path.insert(0, str(ROOT / "examples"))
    import attention_tma as A

    for d in A.HEAD_DIMS:
        for causal in (False, True):
            gen = torch.Generator(device="cuda").manual_seed(d)
            q, k, v = (
                torch.randn(2, 2, 256, d, device="cuda", dtype=DTYPES[dtype], generator=gen)
                for _ in range(3)
            )  # fmt: skip
            out = torch.full((2, 2, 256), float("nan"), device="cuda")
            A.attention(q, k, v, causal, lse=out)
            s = q.float() @ k.float().transpose(-1, -2) / d**0.5
            if causal:
                s = s.masked_fill(torch.ones_like(s).triu(1).bool(), float("-inf"))
            want = torch.logsumexp(s, -1) * A.LOG2E
            err = (out - want).abs().max().item()
            assert err < 1e-3, f"lse d={d} causal={causal}: max error {err:.3g}"
