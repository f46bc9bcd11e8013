"""The int8 GEMM (c = a @ bt.T, int8 in, int32 out) on an H100/H200:
examples/gemm_fp8.py's int8 instance (``int_mm``: TMA + wgmma, Int8 tiles)
and examples/gemm_int8.py's mma.sync kernel against torch._int_mm, at
4096^3, 8192^3, the LLM up projection 4096 x 14336 x 4096 and a ragged
1009 x 4104 x 4112.  One device call, from the repository root (after
`. benchmarks/device_env.sh`):

    python3 -P benchmarks/int8_bench.py [--shapes 4096x4096x4096 ...]

Every instance is compiled first (in parallel).  At each shape each kdsl
result is checked equal to torch._int_mm (torch.equal) before anything is
timed; then, in three rounds, each runner is timed in turn
(triton.testing.do_bench medians) and the ratios are the medians of the
rounds' ratios: ``gemm_int8.gemm`` as a user calls it (on Hopper it
launches ``int_mm``, its tensor maps built each call), ``int_mm`` with the
maps built once, and the mma.sync kernel (autotuned ``gemm_full`` /
``gemm_edge``), each against ``torch._int_mm(a, bt.T)``.  The search's
timings of int_mm's configurations are printed too.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

SHAPES = [
    (4096, 4096, 4096),
    (8192, 8192, 8192),
    (4096, 14336, 4096),
    (1009, 4104, 4112),
]


def compile_all() -> None:
    from concurrent.futures import ThreadPoolExecutor

    import gemm_fp8
    import gemm_int8
    from kdsl.runtime import compile as kcompile

    insts = [
        gemm_fp8.gemm_fp8.dispatch(
            "i32", scale_a=None, scale_b=None, BN=n, STAGES=s, EDGE=e
        )
        for n, s in gemm_fp8.SHAPES
        for e in (False, True)
    ]
    names = ("BM", "BN", "BK", "WM", "WN", "STAGES")
    insts += [
        gemm_int8.gemm_int8.dispatch("i8", **dict(zip(names, s)), EDGE=e)
        for s in gemm_int8.SHAPES
        for e in (False, True)
    ]
    with ThreadPoolExecutor(16) as pool:  # NVRTC releases the GIL
        list(pool.map(lambda i: kcompile.cubin_for(i, "sm_90"), insts))


def run_shape(M: int, N: int, K: int, rounds: int = 3) -> None:
    import torch
    import triton

    import gemm_fp8
    import gemm_int8

    name = f"{M}x{N}x{K}"
    a = torch.randint(-128, 128, (M, K), device="cuda", dtype=torch.int8)
    bt = torch.randint(-128, 128, (N, K), device="cuda", dtype=torch.int8)
    c = torch.empty((M, N), device="cuda", dtype=torch.int32)
    maps = gemm_fp8.tensor_maps(a, bt)
    full = M % 128 == 0 and N % 128 == 0 and K % 64 == 0
    mma = gemm_int8.gemm_full if full else gemm_int8.gemm_edge
    launch_mma = mma[gemm_int8.grid(M, N), gemm_int8.block]
    runners = {
        "torch._int_mm": lambda: torch._int_mm(a, bt.T),
        "gemm_int8.gemm": lambda: gemm_int8.gemm(a, bt, c),
        "int_mm (maps once)": lambda: gemm_fp8.int_mm(a, bt, c, maps),
        "mma.sync": lambda: launch_mma(a, bt, c, M, N, K),
    }
    want = torch._int_mm(a, bt.T)
    for label, run in runners.items():  # checked before timed
        if label == "torch._int_mm":
            continue
        c.fill_(-7)
        run()
        torch.cuda.synchronize()
        assert torch.equal(c, want), f"{name} {label}: differs from torch._int_mm"
    tuned = gemm_fp8.TUNED[not gemm_fp8.whole_tiles(M, N, K), False]
    try:
        for config, ms in tuned.timings(*_int_mm_args(a, bt, c, maps, M, N, K)):
            print(f"{name} int_mm search {config}: {ms} ms")
    except Exception as exc:  # the timings are extra: never lose the run
        print(f"{name} int_mm search timings unavailable: {exc}")
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    for bn in sorted({bn for bn, _ in gemm_fp8.SHAPES}):
        count = gemm_fp8.tiles(M, N, bn)
        print(f"{name} 128 x {bn} tiles: {count}, {count / sms:.2f} waves of {sms}")
    ops = 2.0 * M * N * K
    times = {label: [] for label in runners}
    for _ in range(rounds):
        for label, run in runners.items():
            ms = triton.testing.do_bench(run, warmup=20, rep=80, return_mode="median")
            times[label].append(ms)
    ref = times["torch._int_mm"]
    for label, ms in times.items():
        med = statistics.median(ms)
        ratio = statistics.median(r / t for r, t in zip(ref, ms))
        print(
            f"{name} {label}: {med * 1e3:.1f} us, {ops / med / 1e9:.0f} TOP/s, "
            f"{ratio:.3f}x torch._int_mm (rounds: "
            + ", ".join(f"{t * 1e3:.1f}" for t in ms)
            + ")",
            flush=True,
        )


def _int_mm_args(a, bt, c, maps, M, N, K):
    """int_mm's kernel arguments (what its autotuner keys its search on)."""
    return (*maps, c, None, None, M, N, K)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--shapes", nargs="*", default=None)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    shapes = (
        [tuple(int(v) for v in s.split("x")) for s in args.shapes]
        if args.shapes
        else SHAPES
    )
    import torch

    print(torch.cuda.get_device_name(), "torch", torch.__version__, flush=True)
    compile_all()
    for shape in shapes:
        run_shape(*shape, rounds=args.rounds)


if __name__ == "__main__":
    main()
