"""The GEMM shapes, old and new choices side by side, in one run on a GPU.

bf16 (``--family gemm``): the gemm family's sweep (benchmarks/families/
gemm.py ``SWEEP_BF16``) and the decoding grid (M 1, 16, 64, 128 with N x K
4096 x 4096, 4096 x 14336 and 14336 x 4096), b row-major as torch.matmul
takes it.  Per shape, each result checked first: cuBLAS (``torch.matmul``),
``gemm_tma.matmul`` unsplit (``split=1``), the old choice (session 9's
``split_k``: slices of 48 k tiles or more, summed by a second launch,
``split_sum``) and the new (``matmul()`` as it is: the autotuner picks tile
shape and split together, the slices added in the kernel, and the plan
keeps that or two launches, whichever costs less: ``+sum`` in the config
column); its host time a call; the configuration chosen.  ``--only``
picks shapes, ``--new-only`` leaves out the unsplit and old columns.  Then where the old two-launch
split lost its time: 16 x 4096 x 4096 split 4 (session 9's first rule,
slices of 8 k tiles or more) profiled with torch.profiler (each kernel's
time and the gap between them) against the one-launch split; and the
ragged shapes' EDGE kernel against the whole-tile kernel on the nearby
whole shape.  int8 and SGEMM (``--family int8 sgemm``) as before: before
and after split-K.

    . benchmarks/device_env.sh && python3 -P benchmarks/gemm_shapes.py [--family gemm int8 sgemm]

Milliseconds are medians of ``triton.testing.do_bench`` (L2 flushed, warmup
10 ms, 50 ms of repetitions); ratios are cuBLAS's time over kdsl's (> 1:
kdsl faster).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "benchmarks"))

DECODE = [
    (m, n, k)
    for m in (1, 16, 64, 128)
    for n, k in ((4096, 4096), (4096, 14336), (14336, 4096))
]


def bench(fn) -> float:
    import triton.testing

    for _ in range(3):  # compiles, autotune searches: untimed
        fn()
    return float(triton.testing.do_bench(fn, warmup=10, rep=50, return_mode="median"))


def host_us(fn, n: int = 200) -> float:
    """Host time a call (the launches queued, not waited for), microseconds."""
    import torch

    torch.cuda.synchronize()
    spent = 0.0
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        spent += time.perf_counter() - t0
    torch.cuda.synchronize()
    return spent / n * 1e6


def old_split(M: int, N: int, K: int, sms: int, min_slice: int = 48) -> int:
    """Session 9's ``split_k``: 1 when the 128 x 128 tiles fill half the SMs;
    else the most slices that fit one wave, each ``min_slice`` k tiles or
    more (48 at the session's end; 8 as first chosen)."""
    import gemm_tma
    from matmul import SPLITS

    n = gemm_tma.tiles(M, N, 128)
    if 2 * n > sms:
        return 1
    ktiles = -(-K // gemm_tma.BK)
    fit = [
        s
        for s in SPLITS
        if n * s <= sms and ktiles >= min_slice * s and s * M * N < 2**30
    ]
    return max(fit, default=1)


def old_matmul(a, b, c, maps, split: int) -> None:
    """Session 9's ``matmul()`` with ``split`` slices: the split kernel
    storing the partial sums (a buffer from the allocator each call), then
    ``split_sum`` adding them (two launches)."""
    import gemm_tma
    from block_reduce import multiprocessors
    from matmul import partial_sums, sum_slices

    if split == 1:
        gemm_tma.matmul(a, b, c, maps, split=1)
        return
    M, K = a.shape
    N = b.shape[1]
    part = partial_sums(c, M, N, split)
    tuned = gemm_tma.TUNED[not gemm_tma.whole_tiles(M, N, K), True, split]
    launch = tuned[gemm_tma.persistent_grid(M, N, multiprocessors()), gemm_tma.THREADS]
    launch(*maps, c, part, None, M, N, K, shared_mem=gemm_tma.config_shared_mem)
    sum_slices(part, c, M, N, split)


def chosen(M: int, N: int, K: int) -> str:
    """The configuration matmul() chose at this shape: the autotuner's
    search with the in-kernel sum, or (``+sum``) the plan's two launches,
    the split kernel then split_sum."""
    import gemm_tma

    for key, plan in gemm_tma._PLANS.items():
        two = plan[-1]
        if key[0] == (M, K) and key[1] == (K, N) and key[4] is None and two:
            m = two.config
            return f"BN{m['BN']} S{m['STAGES']} x{m['SPLIT']}+sum"
    tuned = gemm_tma.TUNED[not gemm_tma.whole_tiles(M, N, K), True, None]
    for search in tuned.searches.values():
        if tuple(search.key[0]) == (M, N, K) and "int32" in str(search.key[1]):
            m = search.times[search.best][0].constexprs
            return f"BN{m['BN']} S{m['STAGES']} x{m['SPLIT']}"
    for search in tuned.searches.values():  # no workspace: unsplit only
        if tuple(search.key[0]) == (M, N, K):
            m = search.times[search.best][0].constexprs
            return f"BN{m['BN']} S{m['STAGES']} x{m['SPLIT']}"
    return "?"


def bf16_shapes(only=None) -> list:
    """The sweep and the decoding grid; ``only``: those of these "MxNxK"."""
    from families.gemm import SWEEP_BF16

    shapes = SWEEP_BF16 + [s for s in DECODE if s not in SWEEP_BF16]
    if only:
        shapes = [s for s in shapes if "x".join(map(str, s)) in only]
    return shapes


def bf16_table(log, only=None, new_only=False) -> None:
    """The side-by-side table (see the module docstring); ``new_only``:
    cuBLAS and matmul() as it is, the other columns left out (nan)."""
    import torch

    import gemm_tma

    sms = torch.cuda.get_device_properties(0).multi_processor_count
    head = (f"{'shape':20s} {'cuBLAS':>8s} {'unsplit':>8s} {'old':>8s} {'new':>8s}"
            f" {'x unspl':>7s} {'x old':>6s} {'x new':>6s} {'old split':>9s}"
            f" {'new config':>14s} {'host old':>8s} {'host new':>8s}")  # fmt: skip
    print(head + "   (us; x: cuBLAS / kdsl)", flush=True)
    ratios = {"unsplit": [], "old": [], "new": []}
    for M, N, K in bf16_shapes(only):
        try:
            a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
            b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
            c = torch.full((M, N), float("nan"), device="cuda", dtype=a.dtype)
            ct = torch.empty_like(c)
            maps = gemm_tma.tensor_maps(a, b)
            want = a @ b
            split = old_split(M, N, K, sms)
            runs = {
                "unsplit": lambda: gemm_tma.matmul(a, b, c, maps, split=1),
                "old": lambda: old_matmul(a, b, c, maps, split),
                "new": lambda: gemm_tma.matmul(a, b, c, maps),
            }
            if new_only:
                runs = {"new": runs["new"]}
            for name, run in runs.items():  # results first
                c.fill_(float("nan"))
                run()
                torch.testing.assert_close(c, want, rtol=2e-2, atol=2e-2 * K**0.5)
            c.fill_(float("nan"))
            runs["new"]()
            new_bits = c.clone()
            runs["new"]()  # the cached workspace, its counters zero again
            assert torch.equal(
                c, new_bits
            ), f"{M}x{N}x{K}: matmul() not the same bits twice"
            peer = bench(lambda: torch.matmul(a, b, out=ct)) * 1e3
            nan = float("nan")
            us = {name: bench(run) * 1e3 for name, run in runs.items()}
            host = {
                name: host_us(run) for name, run in runs.items() if name != "unsplit"
            }
            us, host = {"unsplit": nan, "old": nan} | us, {"old": nan} | host
            for name in runs:
                ratios[name].append(peer / us[name])
            line = (f"{M}x{N}x{K}".ljust(20) + f" {peer:8.1f} {us['unsplit']:8.1f}"
                    f" {us['old']:8.1f} {us['new']:8.1f} {peer / us['unsplit']:7.2f}"
                    f" {peer / us['old']:6.2f} {peer / us['new']:6.2f} {split:9d}"
                    f" {chosen(M, N, K):>14s} {host['old']:8.1f} {host['new']:8.1f}")  # fmt: skip
            print(line, flush=True)
            del a, b, c, ct, want, maps, new_bits
        except Exception:  # noqa: BLE001 - say what broke, go on
            traceback.print_exc()
    for name, r in ratios.items():
        if r:
            print(f"bf16 {name}: worst {min(r):.2f}, median {statistics.median(r):.2f}"
                  f" ({len(r)} shapes)", flush=True)  # fmt: skip
    for key, tuned in gemm_tma.TUNED.items():
        if tuned.searches:
            log.write(f"\ngemm_tma.TUNED{key}:\n{tuned.table()}\n")


def profile_split() -> None:
    """16 x 4096 x 4096: the old two-launch split 4 and the new one-launch
    matmul() under torch.profiler, L2 flushed before each call: each
    kernel's mean time and the mean gap from one kernel's end to the
    next's start within a call."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    import gemm_tma

    M, N, K = 16, 4096, 4096
    a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(M, N, device="cuda", dtype=a.dtype)
    maps = gemm_tma.tensor_maps(a, b)
    flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
    for what, run in (
        ("old: split 4, two launches", lambda: old_matmul(a, b, c, maps, 4)),
        ("new: matmul()", lambda: gemm_tma.matmul(a, b, c, maps)),
        ("unsplit", lambda: gemm_tma.matmul(a, b, c, maps, split=1)),
    ):
        for _ in range(3):
            run()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(20):
                flush.zero_()
                run()
            torch.cuda.synchronize()
        kernels = [
            e for e in prof.events()
            if e.device_type.name == "CUDA"
            and ("gemm_tma" in e.name or "split_sum" in e.name)
        ]  # fmt: skip
        kernels.sort(key=lambda e: e.time_range.start)
        by: dict = {}
        for e in kernels:
            by.setdefault(e.name.split("(")[0][:40], []).append(
                e.time_range.elapsed_us()
            )
        gaps = [
            n.time_range.start - k.time_range.end
            for k, n in zip(kernels, kernels[1:])
            if "gemm_tma" in k.name and "split_sum" in n.name
        ]
        parts = ", ".join(
            f"{k} {statistics.mean(v):.1f} us x{len(v)}" for k, v in by.items()
        )
        gap = f"; gap gemm -> split_sum {statistics.mean(gaps):.1f} us" if gaps else ""
        print(f"{what}: {parts}{gap}; do_bench {bench(run) * 1e3:.1f} us,"
              f" host {host_us(run):.1f} us a call", flush=True)  # fmt: skip


def edge_diag() -> None:
    """The EDGE kernel against the whole-tile one on a whole shape (the same
    work), and the ragged shapes' tiles: each at the configuration the
    autotuner picks for it, unsplit."""
    import torch

    import gemm_tma
    from block_reduce import multiprocessors

    sms = multiprocessors()
    for M, N, K in (
        (1024, 4096, 4096),
        (1009, 4104, 4104),
        (3072, 5120, 2048),
        (3000, 5000, 2056),
    ):
        a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
        c = torch.empty(M, N, device="cuda", dtype=a.dtype)
        maps = gemm_tma.tensor_maps(a, b)
        out = []
        for edge in (False, True):
            if not edge and not gemm_tma.whole_tiles(M, N, K):
                continue
            tuned = gemm_tma.TUNED[edge, True, 1]
            run = lambda t=tuned: t[
                gemm_tma.persistent_grid(M, N, sms), gemm_tma.THREADS
            ](
                *maps, c, None, None, M, N, K, shared_mem=gemm_tma.config_shared_mem
            )  # noqa: E731
            run()
            torch.testing.assert_close(c, a @ b, rtol=2e-2, atol=2e-2 * K**0.5)
            ms = bench(run)
            out.append(f"{'EDGE' if edge else 'whole'} {ms * 1e3:.1f} us"
                       f" ({2 * M * N * K / ms / 1e9:.0f} TFLOP/s)")  # fmt: skip
        print(f"{M}x{N}x{K}: " + ", ".join(out), flush=True)


def int8_rows():
    import torch

    import gemm_int8
    from families.gemm import SWEEP_INT8

    for M, N, K in SWEEP_INT8:
        a = torch.randint(-128, 128, (M, K), device="cuda", dtype=torch.int8)
        bt = torch.randint(-128, 128, (N, K), device="cuda", dtype=torch.int8)
        c = torch.empty(M, N, device="cuda", dtype=torch.int32)
        ct = torch.empty_like(c)
        gemm_int8.gemm(a, bt, c)
        assert torch.equal(c, torch._int_mm(a, bt.T))
        kdsl_ms = bench(lambda: gemm_int8.gemm(a, bt, c))
        peer = bench(lambda: ct.copy_(torch._int_mm(a, bt.T)))
        yield f"int8 {M}x{N}x{K}", 1, peer, kdsl_ms, kdsl_ms


def sgemm_rows():
    import torch

    import matmul
    from families.sgemm import SWEEP_SHAPES

    torch.backends.cuda.matmul.allow_tf32 = False  # cuBLAS SGEMM, not TF32
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    for M, N, K in SWEEP_SHAPES:
        a = torch.randn(M, K, device="cuda")
        b = torch.randn(K, N, device="cuda")
        c = torch.full((M, N), float("nan"), device="cuda")
        ct = torch.empty_like(c)
        want = a.double() @ b.double()
        for split in (None, 1):
            c.fill_(float("nan"))
            matmul.launch_sgemm(a, b, c, split=split)
            # against the largest value (an element near 0 has the absolute
            # error of a K-long Float32 sum: 5.5e-5 of (|c| + 1) at K 1000)
            err = float((c.double() - want).abs().max() / want.abs().max())
            assert err <= 1e-5, f"sgemm {M}x{N}x{K} split={split}: error {err:.3g}"
        split = 1 if matmul.warp_path(a, b, c) else matmul.sgemm_split(M, N, K, sms)
        yield (
            f"f32 {M}x{N}x{K}",
            split,
            bench(lambda: torch.matmul(a, b, out=ct)),
            bench(lambda: matmul.launch_sgemm(a, b, c, split=1)),
            bench(lambda: matmul.launch_sgemm(a, b, c)),
        )
        del a, b, c, ct, want


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--family", nargs="*", default=["gemm", "int8", "sgemm"])
    p.add_argument("--log", default=None, help="where the autotuner's tables go")
    p.add_argument("--only", nargs="*", help="bf16 shapes MxNxK (default: all)")
    p.add_argument("--no-diag", action="store_true", help="no profile, no EDGE table")
    p.add_argument("--new-only", action="store_true", help="cuBLAS and matmul() only")
    args = p.parse_args()
    start = time.perf_counter()
    log = open(args.log, "w") if args.log else sys.stdout
    if "gemm" in args.family:
        bf16_table(log, args.only, args.new_only)
        if not args.no_diag:
            print("\n-- where the split's time goes (16 x 4096 x 4096)", flush=True)
            profile_split()
            print(
                "\n-- the EDGE kernel and the ragged shapes (unsplit, autotuned)",
                flush=True,
            )
            edge_diag()
    families = {"int8": (int8_rows,), "sgemm": (sgemm_rows,)}
    print(f"\n{'shape':24s} {'split':>5s} {'peer ms':>9s} {'before':>9s} {'after':>9s}"
          f" {'ratio before':>12s} {'ratio after':>11s}")  # fmt: skip
    for family in [f for f in args.family if f in families]:
        before, after = [], []
        for rows in families[family]:
            try:
                for label, split, peer, ms0, ms1 in rows():
                    before.append(peer / ms0)
                    after.append(peer / ms1)
                    print(f"{label:24s} {split:5d} {peer:9.4f} {ms0:9.4f} {ms1:9.4f}"
                          f" {peer / ms0:12.2f} {peer / ms1:11.2f}", flush=True)  # fmt: skip
            except Exception:  # noqa: BLE001 - say what broke, go on
                traceback.print_exc()
        if after:
            print(f"{family}: worst {min(before):.2f} -> {min(after):.2f}, median "
                  f"{statistics.median(before):.2f} -> {statistics.median(after):.2f}"
                  f" ({len(after)} shapes)", flush=True)  # fmt: skip
    print(f"\ntotal {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
