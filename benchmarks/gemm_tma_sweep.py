"""Each configuration of examples/gemm_tma.py (the warp-specialised TMA +
wgmma GEMM) at 4096^3 and 8192^3, bf16 and f16, against torch.matmul: one
line each with TFLOP/s and the ratio to cuBLAS (triton.testing.do_bench
medians).  For one device call on an H100/H200, from the repository root
(after `. benchmarks/device_env.sh`):

    python3 -P benchmarks/gemm_tma_sweep.py [--sizes 4096 8192]

First every configuration is compiled (in parallel) and checked on a small
GEMM in a child process with a timeout, so that a configuration that fails
or hangs (a deadlocked mbarrier pipeline cannot be interrupted in-process)
is reported and left out; then the passing ones are checked again and timed
at each size.  A failing candidate prints its error and the sweep goes on.
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run with -P
import children  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

DTYPES = ("bf16", "f16")
SMOKE = (1280, 768, 1024)  # 10 x several tiles, 16 k tiles: the ring wraps


def configs():
    """(dtype, BN, STAGES, persistent): each configuration with one block a
    tile of c and with a persistent grid (one block a multiprocessor)."""
    import gemm_tma

    return [
        (d, bn, s, p)
        for d in DTYPES
        for bn, s in gemm_tma.SHAPES
        for p in (False, True)
    ]


def blocks(M, N, bn, persistent, sms) -> int:
    tiles = (M // 128) * (N // bn)
    return min(tiles, sms) if persistent else tiles


def smoke(todo) -> None:
    """In the child: compile every configuration, then check each on the
    SMOKE size, printing PASS/FAIL lines as it goes."""
    from concurrent.futures import ThreadPoolExecutor

    import cupy as cp
    import ml_dtypes
    import numpy as np

    import gemm_tma
    from kdsl.runtime import compile as kcompile

    insts = {
        (d, bn, s): gemm_tma.gemm_tma.dispatch(d, BN=bn, STAGES=s, part=None)
        for d, bn, s, _ in todo
    }
    broken = {}  # (dtype, BN, STAGES) -> its compile error
    with ThreadPoolExecutor(8) as pool:  # NVRTC releases the GIL
        jobs = {
            k: pool.submit(kcompile.cubin_for, i, "sm_90") for k, i in insts.items()
        }
    for k, job in jobs.items():
        if job.exception() is not None:
            broken[k] = job.exception()
    rng = np.random.default_rng(0)
    M, N, K = SMOKE
    for d, bn, s, p in todo:
        key = (d, bn, s, p)
        print(f"START {key}", flush=True)
        if (d, bn, s) in broken:
            print(f"FAIL {key} compile: {broken[d, bn, s]}", flush=True)
            continue
        try:
            t = ml_dtypes.bfloat16 if d == "bf16" else np.float16
            a = rng.uniform(-1, 1, (M, K)).astype(t)
            bt = rng.uniform(-1, 1, (N, K)).astype(t)
            a_dev, bt_dev = cp.asarray(a), cp.asarray(bt)
            c = cp.asarray(np.full((M, N), np.nan, t))
            maps = gemm_tma.tensor_maps(a_dev, bt_dev)
            grid = (blocks(M, N, bn, p, 7),)  # persistent: 7 blocks, many tiles each
            gemm_tma.gemm_tma[grid, gemm_tma.THREADS](
                *maps, c, None, None, M, N, K, BN=bn, STAGES=s,
                shared_mem=gemm_tma.shared_mem(bn, s),
            )  # fmt: skip
            got = cp.asnumpy(c).astype(np.float64)
            want = a.astype(np.float64) @ bt.astype(np.float64).T
            err = (
                np.nanmax(np.abs(got - want))
                / np.abs(a.astype(np.float64)).sum(1).max()
            )
            nans = int(np.isnan(got).sum())
            tol = 1.6e-2 if d == "bf16" else 2e-3
            if nans or not err <= tol:
                print(
                    f"FAIL {key} error {err:.3g} (tol {tol}), {nans} NaN",
                    flush=True,
                )
            else:
                print(f"PASS {key}", flush=True)
        except Exception as e:  # noqa: BLE001
            print(f"FAIL {key} {type(e).__name__}: {e}", flush=True)


def checked(timeout: float) -> list:
    """The configurations that pass the smoke check, run in children: one
    that hangs is killed and reported, and the next child goes on after it."""
    return children.checked(configs(), __file__, timeout)


def sweep(sizes, passed) -> None:
    import torch
    import triton.testing

    import gemm_tma

    sms = torch.cuda.get_device_properties(0).multi_processor_count

    def bench(fn) -> float:
        return float(
            triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")
        )

    for n in sizes:
        for d in DTYPES:
            t = {"bf16": torch.bfloat16, "f16": torch.float16}[d]
            a = torch.randn(n, n, device="cuda", dtype=t)
            b = torch.randn(n, n, device="cuda", dtype=t)
            bt = b.t().contiguous()
            want = torch.empty(n, n, device="cuda", dtype=t)
            c = torch.empty_like(want)
            flops = 2.0 * n**3
            ms_torch = bench(lambda: torch.matmul(a, b, out=want))
            ref = flops / ms_torch / 1e9
            print(f"{d} {n}^3 torch.matmul: {ref:.0f} TFLOP/s", flush=True)
            maps = gemm_tma.tensor_maps(a, bt)
            best = None
            for dd, bn, s, p in passed:
                if dd != d:
                    continue
                name = f"BN={bn} STAGES={s}{' persistent' if p else ''}"
                try:
                    grid = (blocks(n, n, bn, p, sms),)
                    launch = gemm_tma.gemm_tma[grid, gemm_tma.THREADS]

                    def run(bn=bn, s=s, launch=launch):
                        launch(*maps, c, None, None, n, n, n, BN=bn, STAGES=s,
                               shared_mem=gemm_tma.shared_mem(bn, s))  # fmt: skip

                    c.fill_(float("nan"))
                    run()
                    torch.testing.assert_close(c, want, rtol=2e-2, atol=2e-2 * n**0.5)
                    ms = bench(run)
                    tf = flops / ms / 1e9
                    best = max(best or 0.0, tf)
                    print(f"{d} {n}^3 gemm_tma {name}: {tf:.0f} TFLOP/s "
                          f"({tf / ref:.3f}x torch)", flush=True)  # fmt: skip
                except Exception as e:  # noqa: BLE001
                    print(f"{d} {n}^3 gemm_tma {name}: FAILED "
                          f"{type(e).__name__}: {str(e)[:400]}", flush=True)  # fmt: skip
            if best:
                print(f"{d} {n}^3 best: {best:.0f} TFLOP/s ({best / ref:.3f}x torch)")
            del a, b, bt, want, c, maps
            torch.cuda.empty_cache()


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--smoke-child":
        smoke(eval(sys.argv[2]))  # noqa: S307 - the parent's repr
        return
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[4096, 8192])
    p.add_argument("--timeout", type=float, default=75.0, help="per smoke child")
    args = p.parse_args()
    start = time.perf_counter()
    passed = checked(args.timeout)
    print(
        f"checked in {time.perf_counter() - start:.0f} s: {len(passed)} pass",
        flush=True,
    )
    try:
        sweep(args.sizes, passed)
    except Exception:  # noqa: BLE001 - say what broke, keep the exit clean
        traceback.print_exc()
    print(f"total {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
