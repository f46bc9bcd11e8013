"""examples/attention.py, one device call: every configuration (the
autotuned list and a few more) checked against
torch.nn.functional.scaled_dot_product_attention and timed against it,
bf16, batch 4, 16 heads, 4096 tokens, head dims 64 and 128, causal and not;
one line each.  A configuration that fails prints its error and the sweep
goes on.  From the repo root on the GPU machine:

    . benchmarks/device_env.sh && python3 -P benchmarks/attention_sweep.py [--quick]

``--tma``: examples/attention_tma.py instead, every configuration of its
SHAPES (OVERLAP and plain schedules) and the autotuned host function on
the suite's sweep shapes (benchmarks/families/attention.py SWEEP_SHAPES:
head dims 64 and 128, 1024 ... 4096 tokens and 1152), its tensor maps built
once as the suite's case keeps them.

``--tma-d64``: attention_tma at head dim 64 only, on 8 x 12 x 1024, 4 x 16 x
1152 and 4 x 16 x 4096, full and causal: every configuration of SHAPES[64]
(two consumer warpgroups, THREADS 384, and three, THREADS 512) checked
against SDPA first, then each timed with SDPA, the tuned host function
last; a table of the best of each kind per case at the end (under 100 s on
an H200 with the compiles).

TFLOP/s counts 4 * batch * heads * seq^2 * head_dim, halved when causal.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "benchmarks"))

# (BLOCK_M, BLOCK_N, STAGES, WARP_M): after the autotuned list, candidates
# (WARP_M=2 at head dim 128 fits the registers only with 16-key tiles)
EXTRA = {
    64: [(64, 64, 3, 1), (128, 64, 3, 2), (64, 32, 2, 2), (256, 64, 2, 2)],
    128: [(64, 64, 3, 1), (128, 64, 3, 1), (128, 16, 2, 2), (128, 16, 3, 2)],
}


def time_ms(fn) -> float:
    import triton.testing

    return float(triton.testing.do_bench(fn, warmup=10, rep=50, return_mode="median"))


def _inputs(dims, causal, seed):
    """Random bf16 q, k, v of ``dims`` on the GPU, SDPA's output, the
    multiply-adds counted (4 b h s^2 d, halved when causal) and SDPA's ms."""
    import torch
    import torch.nn.functional as F

    gen = torch.Generator(device="cuda").manual_seed(seed)
    q, k, v = (
        torch.randn(dims, device="cuda", dtype=torch.bfloat16, generator=gen)
        for _ in range(3)
    )
    want = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    batch, heads, seq, d = dims
    work = 4.0 * batch * heads * seq * seq * d / (2 if causal else 1)
    sdpa = time_ms(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))
    return q, k, v, want, work, sdpa


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1024 tokens")
    ap.add_argument("--tma", action="store_true", help="attention_tma, sweep shapes")
    ap.add_argument(
        "--tma-d64", action="store_true", help="attention_tma, head dim 64 configs"
    )
    ap.add_argument("--passed", help="--tma-d64: the file of the checked cases")
    ap.add_argument(
        "--check-only", action="store_true", help="--tma-d64: write --passed, no times"
    )
    args = ap.parse_args(argv)
    if args.tma:
        return tma_sweep()
    if args.tma_d64:
        return tma_d64(args.passed, args.check_only)
    import torch

    import attention as A
    from kdsl.runtime import compile as kcompile

    t0 = time.time()
    batch, heads, seq = 4, 16, 1024 if args.quick else 4096
    shapes = {
        d: A.SHAPES[d] + [s for s in EXTRA[d] if s not in A.SHAPES[d]]
        for d in A.HEAD_DIMS
    }
    arch = kcompile.device_arch(torch.cuda.current_device())
    jobs = [
        (d, causal, shape)
        for d in A.HEAD_DIMS
        for causal in (False, True)
        for shape in shapes[d]
    ]

    def compile_one(job):  # NVRTC releases the GIL: compile side by side
        d, causal, shape = job
        inst = A.attention_fwd.dispatch("bf16", **A.constexprs(d, causal, shape))
        kcompile.cubin_for(inst, arch)

    with ThreadPoolExecutor(16) as pool:
        errors = dict(zip(jobs, pool.map(_capture(compile_one), jobs)))
    print(f"compiled {len(jobs)} instances in {time.time() - t0:.1f} s", flush=True)

    print(f"{'case':24s}{'config':>14s}{'ms':>9s}{'TFLOP/s':>9s}{'SDPA':>9s}"
          f"{'ratio':>7s}{'max err':>9s}")  # fmt: skip
    for d in A.HEAD_DIMS:
        for causal in (False, True):
            dims = (batch, heads, seq, d)
            q, k, v, want, work, sdpa = _inputs(dims, causal, d + causal)
            rate = lambda ms: work / (ms * 1e-3) / 1e12  # noqa: E731
            case = f"d{d} {'causal' if causal else 'full'} s{seq}"
            for shape in shapes[d]:
                config = "x".join(map(str, shape))
                err = errors[(d, causal, shape)]
                if err is not None:
                    print(f"{case:24s}{config:>14s}  compile failed: {err}", flush=True)
                    continue
                try:
                    o = torch.full_like(q, float("nan"))
                    m = A.constexprs(d, causal, shape)
                    launch = A.attention_fwd[
                        A.grid(seq, batch * heads)(m), A.threads(m)
                    ]

                    def run(o=o, launch=launch, m=m, shape=shape):
                        launch(
                            q, k, v, o, None, seq, A.LOG2E / math.sqrt(d), **m,
                            shared_mem=A.shared_mem(d, shape),
                        )  # fmt: skip

                    run()
                    torch.cuda.synchronize()
                    max_err = (o.float() - want.float()).abs().max().item()
                    ms = time_ms(run)
                    flag = "" if max_err <= 2e-2 else "  WRONG"
                    print(
                        f"{case:24s}{config:>14s}{ms:9.3f}{rate(ms):9.1f}"
                        f"{rate(sdpa):9.1f}{sdpa / ms:7.2f}{max_err:9.2e}{flag}",
                        flush=True,
                    )
                except Exception as exc:  # noqa: BLE001 - report and go on
                    msg = str(exc).strip().splitlines()
                    print(f"{case:24s}{config:>14s}  failed: {type(exc).__name__}: "
                          f"{msg[0] if msg else ''}", flush=True)  # fmt: skip
            # the autotuned host function, as users call it
            try:
                o = A.attention(q, k, v, causal)
                torch.cuda.synchronize()
                max_err = (o.float() - want.float()).abs().max().item()
                ms = time_ms(lambda: A.attention(q, k, v, causal, out=o))
                best = A.TUNED[d, causal].best_config(
                    q, k, v, o, None, seq, A.LOG2E / math.sqrt(d)
                )
                print(
                    f"{case:24s}{'tuned':>14s}{ms:9.3f}{rate(ms):9.1f}"
                    f"{rate(sdpa):9.1f}{sdpa / ms:7.2f}{max_err:9.2e}  {best}",
                    flush=True,
                )
            except Exception as exc:  # noqa: BLE001
                print(f"{case:24s}{'tuned':>14s}  failed: {type(exc).__name__}: {exc}")
    print(f"total {time.time() - t0:.1f} s")
    return 0


def tma_sweep() -> int:
    """attention_tma: each configuration and the tuned host function against
    SDPA on the suite's sweep shapes, one line each (a wrong result is
    flagged, a failure printed and the sweep goes on)."""
    import torch

    import attention_tma as A
    from families.attention import SWEEP_SHAPES
    from kdsl.runtime import compile as kcompile

    t0 = time.time()
    arch = kcompile.device_arch(torch.cuda.current_device())
    jobs = [
        dict(zip(A.NAMES, shape), HEAD_DIM=d, CAUSAL=causal)
        for d in A.HEAD_DIMS
        for causal in (False, True)
        for shape in A.SHAPES[d]
    ]

    def compile_one(m):  # NVRTC releases the GIL: compile side by side
        kcompile.cubin_for(A.attention_tma.dispatch("bf16", **m, lse=None), arch)

    with ThreadPoolExecutor(16) as pool:
        errors = list(pool.map(_capture(compile_one), jobs))
    print(f"compiled {len(jobs)} instances in {time.time() - t0:.1f} s", flush=True)
    print(f"{'case':30s}{'config':>12s}{'ms':>9s}{'TFLOP/s':>9s}{'SDPA':>9s}"
          f"{'ratio':>7s}{'max err':>9s}")  # fmt: skip
    for batch, heads, seq, d in SWEEP_SHAPES:
        for causal in (False, True):
            dims = (batch, heads, seq, d)
            q, k, v, want, work, sdpa = _inputs(dims, causal, seq + d + causal)
            maps = A.tensor_maps(q, k, v)
            o = torch.empty_like(q)
            case = f"d{d} {'causal' if causal else 'full'} {batch}x{heads}x{seq}"
            runs = [
                (
                    "x".join(str(int(m[n])) for n in A.NAMES),
                    err,
                    lambda m=m: A.attention_tma[A.grid(seq, batch * heads), A.THREADS](
                        *maps, o, None, seq, A.LOG2E / math.sqrt(d), **m,
                        shared_mem=A.config_shared_mem(m),
                    ),  # fmt: skip
                )
                for m, err in zip(jobs, errors)
                if m["HEAD_DIM"] == d
                and m["CAUSAL"] == causal
                and (causal or seq % m["BLOCK_N"] == 0)  # what A's prune keeps
            ]
            runs.append(
                ("tuned", None, lambda: A.attention(q, k, v, causal, out=o, maps=maps))
            )
            for config, err, run in runs:
                if err is not None:
                    print(f"{case:30s}{config:>12s}  compile failed: {err}")
                    continue
                try:
                    o.fill_(float("nan"))
                    run()
                    torch.cuda.synchronize()
                    max_err = (o.float() - want.float()).abs().max().item()
                    ms = time_ms(run)
                    flag = "" if max_err <= 2e-2 else "  WRONG"
                    rate = work / (ms * 1e-3) / 1e12
                    print(
                        f"{case:30s}{config:>12s}{ms:9.3f}{rate:9.1f}"
                        f"{work / (sdpa * 1e-3) / 1e12:9.1f}{sdpa / ms:7.2f}"
                        f"{max_err:9.2e}{flag}",
                        flush=True,
                    )
                except Exception as exc:  # noqa: BLE001 - report and go on
                    print(
                        f"{case:30s}{config:>12s}  failed: {type(exc).__name__}: {exc}"
                    )
    print(f"total {time.time() - t0:.1f} s")
    return 0


D64_SHAPES = [(8, 12, 1024, 64), (4, 16, 1152, 64), (4, 16, 4096, 64)]
# session 9's head-dim-64 configurations (two consumers, unordered), and
# candidates tried beside SHAPES[64]: (BLOCK_N, STAGES, OVERLAP, THREADS, ORDERED)
D64_OLD = [
    (128, 4, False, 384, False),
    (128, 2, False, 384, False),
    (64, 4, False, 384, False),
    (128, 6, True, 384, False),
]
D64_EXTRA = [
    (192, 4, True, 384, False),
    (192, 4, False, 384, False),
    (128, 4, False, 384, True),
    (128, 6, True, 384, True),
]


def tma_d64(passed=None, check_only=False) -> int:
    """attention_tma at head dim 64: each configuration (2 or 3 consumer
    warpgroups) against SDPA, results checked before anything is timed.
    ``check_only``: check the configurations not in D64_OLD (session 9's,
    known to work), appending each passing "case|config" to the file
    ``passed`` as it passes (a kernel that hangs leaves its line out: run
    this under ``timeout``); else, given ``passed``, time D64_OLD and what
    it lists (the tuned host function only if every one is there)."""
    import torch
    import torch.nn.functional as F

    import attention_tma as A
    import kdsl
    from kdsl.runtime import compile as kcompile

    t0 = time.time()
    arch = kcompile.device_arch(torch.cuda.current_device())
    shapes = D64_OLD + [s for s in A.SHAPES[64] + D64_EXTRA if s not in D64_OLD]
    jobs = [A.constexprs(64, causal, s) for causal in (False, True) for s in shapes]

    def compile_one(m):  # NVRTC releases the GIL: compile side by side
        # (lse=None: the instance without lse, the one the launches run)
        kcompile.cubin_for(A.attention_tma.dispatch("bf16", **m, lse=None), arch)

    with ThreadPoolExecutor(16) as pool:
        errors = list(pool.map(_capture(compile_one), jobs))
    print(f"compiled {len(jobs)} instances in {time.time() - t0:.1f} s", flush=True)
    name = lambda m: "x".join(str(int(m[n])) for n in A.NAMES)  # noqa: E731
    listed = None
    if passed is not None and not check_only:
        listed = set(Path(passed).read_text().split("\n"))
    log = open(passed, "a") if check_only else None
    cases = []
    for batch, heads, seq, d in D64_SHAPES:
        for causal in (False, True):
            dims = (batch, heads, seq, d)
            gen = torch.Generator(device="cuda").manual_seed(seq + causal)
            q, k, v = (
                torch.randn(dims, device="cuda", dtype=torch.bfloat16, generator=gen)
                for _ in range(3)
            )
            want = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            maps = A.tensor_maps(q, k, v)
            o = torch.empty_like(q)
            case = f"d{d} {'causal' if causal else 'full'} {batch}x{heads}x{seq}"
            runs = []
            for m, err in zip(jobs, errors):
                if m["CAUSAL"] != causal or not A._fits(
                    [kdsl.Config(**m)], {"seq": seq}
                ):
                    continue
                if err is not None:
                    print(f"{case:28s}{name(m):>16s}  compile failed: {err}")
                    continue
                launch = A.attention_tma[A.grid(seq, batch * heads), A.threads(m)]
                kind = "old" if tuple(m[n] for n in A.NAMES) in D64_OLD else "new"
                runs.append(
                    (
                        name(m),
                        kind,
                        # every name bound now: the timing loop runs these
                        # after this case's loop iteration has moved on
                        lambda m=m, launch=launch, maps=maps, o=o, seq=seq, d=d: (
                            launch(
                                *maps, o, None, seq, A.LOG2E / math.sqrt(d), **m,
                                shared_mem=A.config_shared_mem(m),
                            )
                        ),  # fmt: skip
                    )
                )
            new = [r for r in runs if r[1] == "new"]
            if check_only:
                runs = new
            elif listed is None or all(f"{case}|{r[0]}" in listed for r in new):
                runs.append(
                    (
                        "tuned",
                        "tuned",
                        lambda q=q, k=k, v=v, c=causal, o=o, maps=maps: (
                            A.attention(q, k, v, c, out=o, maps=maps)
                        ),
                    )
                )
            if listed is not None:
                runs = [r for r in runs if r[1] != "new" or f"{case}|{r[0]}" in listed]
            checked = []
            for config, kind, run in runs:  # every result first
                try:
                    o.fill_(float("nan"))
                    run()
                    torch.cuda.synchronize()
                    max_err = (o.float() - want.float()).abs().max().item()
                except Exception as exc:  # noqa: BLE001 - report and go on
                    print(
                        f"{case:28s}{config:>16s}  failed: {type(exc).__name__}: {exc}"
                    )
                    continue
                if not max_err <= 2e-2:
                    print(f"{case:28s}{config:>16s}  WRONG: max err {max_err:.3g}")
                    continue
                checked.append((config, kind, run, max_err))
                if log is not None:
                    log.write(f"{case}|{config}\n")
                    log.flush()
            cases.append((case, dims, causal, q, k, v, checked))
    print(f"checked in {time.time() - t0:.1f} s", flush=True)
    if check_only:
        n = sum(len(c[-1]) for c in cases)
        print(f"{n} (case, configuration) pairs passed; listed in {passed}")
        return 0
    print(f"{'case':28s}{'config':>16s}{'ms':>9s}{'TFLOP/s':>9s}{'SDPA':>9s}"
          f"{'ratio':>7s}{'max err':>9s}")  # fmt: skip
    summary = []
    for case, dims, causal, q, k, v, checked in cases:
        batch, heads, seq, d = dims
        work = 4.0 * batch * heads * seq * seq * d / (2 if causal else 1)
        sdpa = time_ms(
            lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        )
        best = {}
        for config, kind, run, max_err in checked:
            ms = time_ms(run)
            if kind not in best or ms < best[kind][0]:
                best[kind] = (ms, config)
            print(
                f"{case:28s}{config:>16s}{ms:9.3f}{work / ms / 1e9:9.1f}"
                f"{work / sdpa / 1e9:9.1f}{sdpa / ms:7.2f}{max_err:9.2e}",
                flush=True,
            )
        summary.append((case, sdpa, best))
    print("\nthe best of session 9's configurations (old), the others (new) and")
    print("the tuned host function, x SDPA (config: BLOCK_N x STAGES x OVERLAP x")
    print("THREADS x ORDERED):")
    kinds = ["old", "new", "tuned"]
    print(f"{'case':28s}{'SDPA ms':>9s}" + "".join(f"{k:>24s}" for k in kinds))
    for case, sdpa, best in summary:
        cells = [
            f"{sdpa / best[k][0]:.2f} ({best[k][1]})" if k in best else "-"
            for k in kinds
        ]
        print(f"{case:28s}{sdpa:9.3f}" + "".join(f"{c:>24s}" for c in cells))
    print(f"total {time.time() - t0:.1f} s")
    return 0


def _capture(fn):
    """fn's exception's first line, or None: one failing compile does not stop
    the others."""

    def run(job):
        try:
            fn(job)
            return None
        except Exception as exc:  # noqa: BLE001
            lines = str(exc).strip().splitlines() or [type(exc).__name__]
            traceback.clear_frames(exc.__traceback__)
            return f"{type(exc).__name__}: {lines[0]}"

    return run


if __name__ == "__main__":
    sys.exit(main())
