"""The attention backward (examples/attention_backward.py: delta, dk/dv and
dq passes on wgmma, from the TMA forward's log-sum-exp) against PyTorch's
SDPA backward (the flash backend), one device call: bf16, batch 4, 16
heads, 4096 tokens, head dims 128 and 64, causal and not.  Each case is
checked first (dq, dk, dv against SDPA's on the same inputs, max error
relative to the largest element), then timed; one line each.  From the repo
root on the GPU machine:

    . benchmarks/device_env.sh && python3 -P benchmarks/attention_bwd_bench.py [--quick]

TFLOP/s counts the backward's five products, 10 * batch * heads * seq^2 *
head_dim, halved when causal, for both (kdsl's dq pass recomputes two
more: its own work is 7/5 of that).  kdsl's time is its three kernels
(autotuned, the autotuning done before the timing); SDPA's is
``torch.autograd.grad`` through its flash forward's graph.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

CASES = [(128, False), (128, True), (64, False), (64, True)]
TOL = 2.0**-6  # max |kdsl - SDPA| / max |SDPA|, bf16


def time_ms(fn, warmup: int = 5, reps: int = 20) -> float:
    """The median of ``reps`` runs, CUDA events around each."""
    import torch

    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return sorted(times)[len(times) // 2]


def precompile(dtype: str) -> float:
    """Every instance the cases launch, compiled side by side (NVRTC
    releases the GIL); the seconds it took."""
    import torch

    import attention_backward as B
    import attention_tma as A
    from kdsl.runtime import compile as kcompile

    t0 = time.time()
    arch = kcompile.device_arch(torch.cuda.current_device())
    insts = []
    for d, causal in CASES:
        insts.append(B.attention_bwd_delta.dispatch(dtype, HEAD_DIM=d))
        for bm, st in B.DKDV_SHAPES[d]:
            m = dict(HEAD_DIM=d, BLOCK_M=bm, STAGES=st, CAUSAL=causal)
            insts.append(B.attention_bwd_dkdv.dispatch(dtype, **m))
        for bn, st in B.DQ_SHAPES[d]:
            m = dict(HEAD_DIM=d, BLOCK_N=bn, STAGES=st, CAUSAL=causal)
            insts.append(B.attention_bwd_dq.dispatch(dtype, **m))
        for shape in A.SHAPES[d]:
            m = dict(zip(A.NAMES, shape), HEAD_DIM=d, CAUSAL=causal)
            insts.append(A.attention_tma.dispatch(dtype, **m))  # (with lse)
    with ThreadPoolExecutor(16) as pool:
        list(pool.map(lambda i: kcompile.cubin_for(i, arch), insts))
    return time.time() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1024 tokens")
    args = ap.parse_args(argv)
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    import attention_backward as B
    import attention_tma as A

    t0 = time.time()
    batch, heads, seq = 4, 16, 1024 if args.quick else 4096
    print(f"compiled in {precompile('bf16'):.1f} s", flush=True)
    print(f"{'case':22s}{'kdsl ms':>9s}{'TFLOP/s':>9s}{'SDPA ms':>9s}{'TFLOP/s':>9s}"
          f"{'ratio':>7s}  max err dq / dk / dv (vs SDPA)")  # fmt: skip
    failed = False
    for d, causal in CASES:
        dims = (batch, heads, seq, d)
        gen = torch.Generator(device="cuda").manual_seed(d + causal)
        q, k, v, do = (
            torch.randn(dims, device="cuda", dtype=torch.bfloat16, generator=gen)
            for _ in range(4)
        )
        work = 10.0 * batch * heads * seq * seq * d / (2 if causal else 1)
        rate = lambda ms: work / (ms * 1e-3) / 1e12  # noqa: E731
        case = f"d{d} {'causal' if causal else 'full'} s{seq}"

        # SDPA (flash): its forward graph once, its backward timed
        qs, ks, vs = (x.clone().requires_grad_() for x in (q, k, v))
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            out = F.scaled_dot_product_attention(qs, ks, vs, is_causal=causal)
        want = torch.autograd.grad(out, (qs, ks, vs), do, retain_graph=True)

        def sdpa_bwd(out=out, qs=qs, ks=ks, vs=vs):
            torch.autograd.grad(out, (qs, ks, vs), do, retain_graph=True)

        # kdsl: the TMA forward saving lse, then the backward (autotuned here)
        lse = torch.empty(dims[:3], device="cuda", dtype=torch.float32)
        o = A.attention(q, k, v, causal, lse=lse)
        grads = [torch.full_like(q, float("nan")) for _ in range(3)]
        B.attention_backward(q, k, v, o, lse, do, causal, *grads)
        torch.cuda.synchronize()
        errs = [
            ((g.float() - w.float()).abs().max() / w.float().abs().max()).item()
            for g, w in zip(grads, want)
        ]
        bad = any(e > TOL or e != e for e in errs)
        failed |= bad

        def kdsl_bwd(o=o, lse=lse, grads=grads):
            B.attention_backward(q, k, v, o, lse, do, causal, *grads)

        ms = time_ms(kdsl_bwd)
        ref = time_ms(sdpa_bwd)
        err_text = " / ".join(f"{e:.1e}" for e in errs)
        print(
            f"{case:22s}{ms:9.3f}{rate(ms):9.1f}{ref:9.3f}{rate(ref):9.1f}"
            f"{ref / ms:7.2f}  {err_text}{'  WRONG' if bad else ''}",
            flush=True,
        )
        try:  # the configurations the autotuner chose
            best = [
                B.DKDV[d, causal].best_config(q, k, v, do, lse, lse, *grads[1:], seq, 1.0, 1.0),
                B.DQ[d, causal].best_config(q, k, v, do, lse, lse, grads[0], seq, 1.0, 1.0),
            ]  # fmt: skip
            print(f"{'':22s}  tuned: dkdv {best[0]}, dq {best[1]}", flush=True)
        except Exception as exc:  # noqa: BLE001 - a report line, not the result
            print(f"{'':22s}  (tuned configurations unknown: {exc})", flush=True)
        del out, want, qs, ks, vs
    print(f"total {time.time() - t0:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
