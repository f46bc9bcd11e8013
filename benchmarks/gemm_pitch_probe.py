"""Where the ragged bf16 GEMM loses its time (issue 28): one configuration of
gemm_tma (BN 128, STAGES 4, b row-major, unsplit: what the autotuner picks
at 1009 x 4104 x 4104) on shapes that change one thing at a time, each
against cuBLAS (``torch.matmul``), each result checked first:

* the row pitch alone: 1024 x 4096 x 4096 with a's and/or b's rows 4104
  elements apart (views into wider buffers: 8208-byte pitches, no multiple
  of 128 bytes, and whole tiles, so EDGE false and true both run);
* the ragged extent alone: 1009 rows (whole pitches), and K or N 4104 with
  the operand's rows padded to 4160 elements (8320 bytes: a multiple of 128);
* both: K or N 4104 contiguous, and 1009 x 4104 x 4104 contiguous and padded;
* BN 256 at the ragged shape (fewer box rows per flop), and what copying an
  operand into a padded buffer costs (a fix's price).

    . benchmarks/device_env.sh && python3 -P benchmarks/gemm_pitch_probe.py

Microseconds are medians of ``triton.testing.do_bench`` (L2 flushed).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))


def operand(rows: int, cols: int, pitch: int):
    """A (rows, cols) bf16 matrix whose rows are ``pitch`` elements apart."""
    import torch

    buf = torch.randn(rows, pitch, device="cuda", dtype=torch.bfloat16)
    return buf[:, :cols]


def bench(fn) -> float:
    import triton.testing

    fn()
    return 1e3 * float(
        triton.testing.do_bench(fn, warmup=10, rep=40, return_mode="median")
    )


def main() -> None:
    import torch

    import gemm_tma
    from block_reduce import multiprocessors

    sms = multiprocessors()
    cases = [  # M, N, K, a's pitch, b's pitch, what changes
        (1024, 4096, 4096, 4096, 4096, "aligned"),
        (1024, 4096, 4096, 4104, 4096, "a pitch 8208 B"),
        (1024, 4096, 4096, 4096, 4104, "b pitch 8208 B"),
        (1024, 4096, 4096, 4104, 4104, "a, b pitch 8208 B"),
        (1009, 4096, 4096, 4096, 4096, "M 1009"),
        (1024, 4096, 4104, 4160, 4096, "K 4104, a padded"),
        (1024, 4096, 4104, 4104, 4096, "K 4104 contiguous"),
        (1024, 4104, 4096, 4096, 4160, "N 4104, b padded"),
        (1024, 4104, 4096, 4096, 4104, "N 4104 contiguous"),
        (1009, 4104, 4104, 4160, 4160, "ragged, padded"),
        (1009, 4104, 4104, 4104, 4104, "ragged contiguous"),
    ]
    print(f"{'case':22s} {'shape':16s} {'cuBLAS':>7s} {'EDGE0':>7s} {'EDGE1':>7s}"
          f" {'BN256':>7s} {'x best':>6s}  (us; x: cuBLAS / kdsl)", flush=True)  # fmt: skip
    for M, N, K, pa, pb, what in cases:
        a = operand(M, K, pa)
        b = operand(K, N, pb)
        c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
        ct = torch.empty_like(c)
        want = a @ b
        maps = gemm_tma.tensor_maps(a, b)
        times = {}
        for name, edge, bn in (("EDGE0", False, 128), ("EDGE1", True, 128),
                               ("BN256", True, 256)):  # fmt: skip
            whole = M % 128 == 0 and N % bn == 0 and K % 64 == 0
            if (not edge and not whole) or (bn == 256 and "ragged" not in what):
                continue
            launch = gemm_tma.gemm_tma[(min(sms, gemm_tma.tiles(M, N, bn)),), 384]

            def run(launch=launch, edge=edge, bn=bn):
                launch(*maps, c, None, None, M, N, K, BN=bn, STAGES=4, EDGE=edge,
                       B_ROW_MAJOR=True, SPLIT=1,
                       shared_mem=gemm_tma.shared_mem(bn, 4))  # fmt: skip

            c.fill_(float("nan"))
            run()
            torch.testing.assert_close(c, want, rtol=2e-2, atol=2e-2 * K**0.5)
            times[name] = bench(run)
        peer = bench(lambda: torch.matmul(a, b, out=ct))
        cols = " ".join(
            f"{times[n]:7.1f}" if n in times else f"{'-':>7s}"
            for n in ("EDGE0", "EDGE1", "BN256")
        )
        print(f"{what:22s} {f'{M}x{N}x{K}':16s} {peer:7.1f} {cols}"
              f" {peer / min(times.values()):6.2f}", flush=True)  # fmt: skip
        del a, b, c, ct, want, maps
    # what a padded copy of each operand of 1009 x 4104 x 4104 costs
    a = operand(1009, 4104, 4104)
    b = operand(4104, 4104, 4104)
    pa = torch.empty(1009, 4160, device="cuda", dtype=torch.bfloat16)[:, :4104]
    pb = torch.empty(4104, 4160, device="cuda", dtype=torch.bfloat16)[:, :4104]
    print(f"copy a (1009 x 4104) to pitch 4160: {bench(lambda: pa.copy_(a)):.1f} us;"
          f" b (4104 x 4104): {bench(lambda: pb.copy_(b)):.1f} us", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
