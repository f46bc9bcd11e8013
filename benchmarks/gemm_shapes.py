"""The GEMM sweep shapes before and after split-K, in one run on a GPU: for
each shape of the gemm and sgemm families' sweeps (benchmarks/families/
gemm.py ``SWEEP_BF16``, ``SWEEP_INT8``; sgemm.py ``SWEEP_SHAPES``), the
examples' host functions as users call them (``gemm_tma.matmul``,
``gemm_int8.gemm``, ``matmul.launch_sgemm``: split-K where they pick it),
the same with ``split=1`` (no split-K: the kernels as they were before it),
and the best peer the suite compares them with (``torch.matmul``, TF32 off
for SGEMM; ``torch._int_mm``), each result checked first:

    . benchmarks/device_env.sh && python3 -P benchmarks/gemm_shapes.py [--family gemm sgemm]

One line a shape: milliseconds (medians of ``triton.testing.do_bench``, L2
flushed, the suite's sweep budgets: warmup 10 ms, 50 ms of repetitions),
the split picked, and kdsl's ratio to the peer (> 1: kdsl faster) before and
after; then the autotuner's tables (each tile configuration's time) and the
worst and median ratio a family.
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


def bench(fn) -> float:
    import triton.testing

    for _ in range(3):  # compiles, autotune searches: untimed
        fn()
    return float(triton.testing.do_bench(fn, warmup=10, rep=50, return_mode="median"))


def bf16_rows():
    import torch

    import gemm_tma
    from families.gemm import SWEEP_BF16

    sms = torch.cuda.get_device_properties(0).multi_processor_count
    for M, N, K in SWEEP_BF16:
        a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
        c = torch.full((M, N), float("nan"), device="cuda", dtype=a.dtype)
        ct = torch.empty_like(c)
        maps = gemm_tma.tensor_maps(a, b)
        want = a @ b
        for split in (None, 1):
            c.fill_(float("nan"))
            gemm_tma.matmul(a, b, c, maps, split=split)
            torch.testing.assert_close(c, want, rtol=2e-2, atol=2e-2 * K**0.5)
        yield (
            f"bf16 {M}x{N}x{K}",
            gemm_tma.split_k(M, N, K, sms),
            bench(lambda: torch.matmul(a, b, out=ct)),
            bench(lambda: gemm_tma.matmul(a, b, c, maps, split=1)),
            bench(lambda: gemm_tma.matmul(a, b, c, maps)),
        )
        del a, b, c, ct, want, maps


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
    p.add_argument("--family", nargs="*", default=["gemm", "sgemm"])
    args = p.parse_args()
    start = time.perf_counter()
    families = {"gemm": (bf16_rows, int8_rows), "sgemm": (sgemm_rows,)}
    print(f"{'shape':24s} {'split':>5s} {'peer ms':>9s} {'before':>9s} {'after':>9s}"
          f" {'ratio before':>12s} {'ratio after':>11s}")  # fmt: skip
    for family in args.family:
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
    if "gemm" in args.family:
        import gemm_tma

        for key, tuned in gemm_tma.TUNED.items():
            if tuned.searches:
                print(f"\ngemm_tma.TUNED{key}:\n{tuned.table()}")
    print(f"\ntotal {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
