"""SGEMM at the suite's sweep shapes (``benchmarks/families/sgemm.py``'s
SWEEP_SHAPES), before and after a change, in one run on a GPU:

    . benchmarks/device_env.sh
    python3 -P benchmarks/sgemm_shapes.py [--before PATH/examples/matmul.py]

For each shape: ``torch.matmul`` with TF32 off (cuBLAS's exact Float32
SGEMM), ``launch_sgemm`` of this tree, ``launch_sgemm`` of the matmul.py
given by ``--before`` (an earlier tree's, loaded beside this one), and
``sgemm_warp`` launched directly (BM 128, BK 16, GROUP 8, UNROLL 2; EDGE
unless the tiles are whole) with split-K in 1 .. 4 slices (what
``warp_split`` chooses between), and for c less than a tile high
``launch_sgemm``'s former path, ``sgemm_vec`` with split-K forced to 2,
4, 8 slices. Each is checked against a float64 product
first (the suite's tolerance), then timed by ``triton.testing.do_bench``
(median, L2 flushed between repetitions) and printed as TFLOP/s and as a
ratio to cuBLAS. Then the autotuners' tables (which configuration
``launch_sgemm`` runs per shape). About 30 s with cold caches.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "benchmarks"))

FORCED = (1, 2, 3, 4)  # sgemm_warp's slices of k, launched directly
SMALL = (2, 4, 8)  # sgemm_vec's slices of k forced, for M < 128


def load_before(path: str):
    spec = importlib.util.spec_from_file_location("matmul_before", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def forced_warp(ex, split: int):
    """``sgemm_warp`` (one fixed configuration) with ``split`` slices of k;
    None where it cannot run (c smaller than a tile, too little k)."""
    cfg = dict(BM=128, BN=128, BK=16, GROUP=8, UNROLL=2)

    def make(a, b, c):
        M, K = a.shape
        N = b.shape[1]
        if not ex.edge_path(a, b, c) or K < split * 16:
            return None
        edge = not ex.warp_path(a, b, c)
        vec = ex.vector_path(a, b, c)
        short = M < 128
        part = None if split == 1 else ex.partial_sums(c, M, N, split)
        grid = ex.sgemm_warp_grid(M, N, split)(cfg)
        launch = ex.sgemm_warp[grid, 256]

        def run():
            launch(a, b, c, part, M, N, K, EDGE=edge, VEC=vec, SHORT=short, **cfg)
            if part is not None:
                ex.sum_slices(part, c, M, N, split)

        return run

    return make


def forced_small(ex, split: int):
    """``launch_sgemm`` with ``split`` forced (``sgemm_vec`` or ``sgemm``)
    where c is less than a tile high (M < 128); None elsewhere."""

    def make(a, b, c):
        if a.shape[0] >= 128:
            return None
        return lambda: ex.launch_sgemm(a, b, c, split=split)

    return make


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", help="an earlier examples/matmul.py")
    args = parser.parse_args()

    import torch
    import triton.testing

    import matmul as ex
    from families.sgemm import SWEEP_SHAPES

    torch.backends.cuda.matmul.allow_tf32 = False
    start = time.time()
    print(torch.cuda.get_device_name(), "| torch", torch.__version__)
    runners = [("after", lambda a, b, c: lambda: ex.launch_sgemm(a, b, c))]
    if args.before:
        old = load_before(args.before)
        runners.append(("before", lambda a, b, c: lambda: old.launch_sgemm(a, b, c)))
    runners += [(f"warp/{s}", forced_warp(ex, s)) for s in FORCED]
    runners += [(f"small/{s}", forced_small(ex, s)) for s in SMALL]

    header = f"{'shape':>16s} {'cuBLAS':>7s}" + "".join(
        f" {name:>13s}" for name, _ in runners
    )
    print("TFLOP/s (ratio to cuBLAS); warp/s: sgemm_warp with s slices of k")
    print(header)
    ratios = {name: [] for name, _ in runners}
    for M, N, K in SWEEP_SHAPES:
        g = torch.Generator(device="cuda").manual_seed(M + N + K)
        a = torch.randn(M, K, device="cuda", generator=g)
        b = torch.randn(K, N, device="cuda", generator=g)
        c = torch.empty(M, N, device="cuda")
        want = a.double() @ b.double()
        scale = float(want.abs().max()) + 1

        def bench(fn) -> float:
            return float(
                triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")
            )

        flop = 2.0 * M * N * K
        base = bench(lambda: torch.matmul(a, b, out=c))
        line = f"{f'{M}x{N}x{K}':>16s} {flop / base / 1e9:7.1f}"
        for name, make in runners:
            try:
                fn = make(a, b, c)
                if fn is None:
                    line += f" {'-':>13s}"
                    continue
                c.fill_(float("nan"))
                fn()  # compiles, autotunes
                torch.cuda.synchronize()
                err = float((c.double() - want).abs().max()) / scale
                if not err <= 1e-5:
                    line += f" {f'BAD {err:.1e}':>13s}"
                    continue
                ms = bench(fn)
                ratios[name].append(base / ms)
                line += f" {flop / ms / 1e9:6.1f} ({base / ms:4.2f})"
            except Exception as exc:  # print and go on
                line += f" {type(exc).__name__:>13s}"
                print(f"  {name} {M}x{N}x{K}: {exc}"[:300], file=sys.stderr)
        print(line, flush=True)
    print()
    for name, rs in ratios.items():
        if rs:
            print(
                f"{name:>10s}: worst {min(rs):.2f}, median {statistics.median(rs):.2f}"
                f" over {len(rs)} shapes"
            )
    tuned = {"whole tiles": ex.sgemm_warp_tuned}
    for (vec, short), t in ex.EDGE_TUNED.items():
        tuned[f"EDGE VEC={vec} SHORT={short}"] = t
    for label, t in tuned.items():
        try:
            print(f"\nsgemm_warp, {label}:\n{t.table()}")
        except Exception as exc:
            print(f"\nsgemm_warp, {label}: no table ({type(exc).__name__}: {exc})")
    print(f"\n{time.time() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
