"""The sweeps' worst shapes, launched for Nsight Compute (run on a GPU
machine, through ``bash benchmarks/gpu_session.sh profile``): each target
is compiled, autotuned and checked first, outside the profiled region, then
launched once between ``cudaProfilerStart`` and ``cudaProfilerStop``, so
that ``ncu --profile-from-start off`` records exactly those launches.

    ncu --clock-control none --profile-from-start off --section ... \\
        python3 benchmarks/ncu_targets.py transpose

Targets (issue 28's misses, RESULTS.md session 10):

* ``transpose``: bf16 12289 x 5003 (``transpose_odd``, 0.60 of a copy),
  12288 x 5120 (``transpose_vec``, aligned), f32 12289 x 5003
  (``transpose_odd4``, 0.69), and a device copy of the same bytes, bf16 and
  f32;
* ``gemm``: bf16 ``matmul`` at 1009 x 4104 x 4104 (0.56 of cuBLAS) and
  1024 x 4096 x 4096 (whole tiles), cuBLAS at the first;
* ``decode``: the same at 128 x 4096 x 4096 (0.71 in session 11; cuBLAS
  there) and 64 x 4096 x 4096 (0.75): split-K's launches;
* ``attention``: ``attention_tma`` head dim 64, 8 x 12 x 1024 (0.83 of
  SDPA), and SDPA at the same shape;
* ``sgemm``: ``launch_sgemm`` (Float32) and cuBLAS with TF32 off at 4096³
  and 3000 x 2050 x 1500.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

import torch  # noqa: E402


def transpose() -> list:
    import transpose as tr

    runs = []
    for rows, cols, dtype in (
        (12289, 5003, torch.bfloat16),
        (12288, 5120, torch.bfloat16),
        (12289, 5003, torch.float32),
    ):
        a = torch.randn(rows, cols, device="cuda", dtype=dtype)
        out = torch.empty(cols, rows, device="cuda", dtype=a.dtype)
        tr.launch_transpose(a, out)
        torch.cuda.synchronize()
        assert torch.equal(out, a.T), f"transpose {rows} x {cols}"
        runs.append(lambda a=a, out=out: tr.launch_transpose(a, out))
    for dtype in (torch.bfloat16, torch.float32):
        src = torch.randn(12289 * 5003, device="cuda", dtype=dtype)
        dst = torch.empty_like(src)
        runs.append(lambda src=src, dst=dst: dst.copy_(src))
    return runs


def gemm(shapes=((1009, 4104, 4104), (1024, 4096, 4096))) -> list:
    import gemm_tma

    runs, operands = [], []
    for M, N, K in shapes:
        a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
        c = torch.empty(M, N, device="cuda", dtype=a.dtype)
        maps = gemm_tma.tensor_maps(a, b)
        gemm_tma.matmul(a, b, c, maps=maps)  # the autotuner's search
        torch.testing.assert_close(c, a @ b, rtol=2e-2, atol=2e-2 * K**0.5)
        runs.append(lambda a=a, b=b, c=c, m=maps: gemm_tma.matmul(a, b, c, maps=m))
        operands.append((a, b, c))
    a, b, c = operands[0]  # cuBLAS at the first shape
    runs.append(lambda: torch.matmul(a, b, out=c))
    return runs


def decode() -> list:
    # the decoding shapes furthest behind (session 11: 0.71 and 0.75), their
    # split-K launches as the plan chose them (the slices' sum included)
    return gemm(((128, 4096, 4096), (64, 4096, 4096)))


def attention() -> list:
    import torch.nn.functional as F

    import attention_tma as A

    dims = (8, 12, 1024, 64)
    q, k, v = (torch.randn(dims, device="cuda", dtype=torch.bfloat16) for _ in "qkv")
    o = torch.empty_like(q)
    maps = A.tensor_maps(q, k, v)
    A.attention(q, k, v, False, out=o, maps=maps)  # the autotuner's search
    want = F.scaled_dot_product_attention(q, k, v)
    assert (o.float() - want.float()).abs().max().item() <= 2e-2
    return [
        lambda: A.attention(q, k, v, False, out=o, maps=maps),
        lambda: F.scaled_dot_product_attention(q, k, v, scale=1 / math.sqrt(64)),
    ]


def sgemm() -> list:
    import matmul as ex

    torch.backends.cuda.matmul.allow_tf32 = False  # cuBLAS's exact SGEMM
    runs = []
    for M, N, K in ((4096, 4096, 4096), (3000, 2050, 1500)):
        a = torch.randn(M, K, device="cuda")
        b = torch.randn(K, N, device="cuda")
        c = torch.empty(M, N, device="cuda")
        ex.launch_sgemm(a, b, c)  # the autotuner's search
        want = a.double() @ b.double()
        err = float((c.double() - want).abs().max() / (want.abs().max() + 1))
        assert err <= 1e-5, f"sgemm {M}x{N}x{K}: {err}"
        runs.append(lambda a=a, b=b, c=c: ex.launch_sgemm(a, b, c))
        runs.append(lambda a=a, b=b, c=c: torch.matmul(a, b, out=c))
    return runs


TARGETS = {
    "transpose": transpose,
    "gemm": gemm,
    "decode": decode,
    "attention": attention,
    "sgemm": sgemm,
}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("target", choices=sorted(TARGETS))
    runs = TARGETS[p.parse_args().target]()
    for run in runs:  # once more outside the region: nothing left to compile
        run()
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    for run in runs:
        run()
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()
    print(f"{len(runs)} launches profiled")
    return 0


if __name__ == "__main__":
    sys.exit(main())
