"""fp8 GEMMs on Hopper's tensor cores (examples/gemm_fp8.py: TMA + wgmma,
e4m3 in, bf16 out; sm_90a): the per-tensor kernel (``scaled_mm``, the
contract of ``torch._scaled_mm``) against ``torch._scaled_mm``, and the
block-scaled kernel (``block_scaled_mm``: 1 x 128 activation scales, 128 x
128 weight scales, DeepSeek's layout) against the per-tensor kernel at the
same shape — issue 29's measure for it (0.9x is its target): PyTorch has no
block-scaled GEMM, and DeepGEMM is not installed on the GPU machine.
4096^3, 8192^3 and two LLM MLP shapes (M 4096: N 14336 K 4096, the up
projection; N 4096 K 14336, the down projection); --quick: 4096^3.  Each
result is checked first against the product in float64 (tests/gpu/
fp8_gpu_checks.py's operands and error bound).  The tensor maps are built
once, outside the timing, as a caller keeps them.  torch is imported when
the cases are built, on the GPU machine; benchmarks/fp8_bench.py times
every configuration of the kernels and takes turns between them."""

from __future__ import annotations

import sys
from pathlib import Path

from fp8_bench import SHAPES  # benchmarks/ is on the path: the bench's shapes

FAMILY = "fp8 gemm"

# the sweep: the MLP up projection, both ways (the other shapes are the
# workload table's; the sweep's budget is shared by every family)
SWEEP_SHAPES = [(4096, 14336, 4096)]
SWEEP_WEIGHT = 3.0  # seconds a sweep case (the autotune search of its shape)


def _checks():
    """tests/gpu/fp8_gpu_checks.py (it puts tests/ and examples/ on the path)."""
    gpu_tests = str(Path(__file__).resolve().parents[2] / "tests" / "gpu")
    if gpu_tests not in sys.path:
        sys.path.insert(0, gpu_tests)
    import fp8_gpu_checks

    return fp8_gpu_checks


def _case(M: int, N: int, K: int, block_scaled: bool):
    """One row: the per-tensor kernel against ``torch._scaled_mm``, or the
    block-scaled kernel against the per-tensor one (its operands, same
    shape)."""
    import torch

    import gemm_fp8 as F
    from suite import Case

    C = _checks()
    a, b, sa, sb = C.operands(M, N, K, seed=0, block_scaled=block_scaled)
    maps = F.tensor_maps(a, b.t())
    c = torch.empty((M, N), device="cuda", dtype=torch.bfloat16)
    kind = "block-scaled" if block_scaled else "per-tensor"
    run = F.block_scaled_mm if block_scaled else F.scaled_mm

    def check():
        c.fill_(float("nan"))
        run(a, b, sa, sb, c, maps)
        C._check(c, a, b, sa, sb, "bf16", block_scaled, f"{kind} {M}x{N}x{K}")

    if block_scaled:  # the peer: the per-tensor kernel at this shape
        pa, pb, psa, psb = C.operands(M, N, K, seed=0, block_scaled=False)
        pmaps = F.tensor_maps(pa, pb.t())
        pc = torch.empty_like(c)
        peers = {"kdsl per-tensor": lambda: F.scaled_mm(pa, pb, psa, psb, pc, pmaps)}
        note = "peer: kdsl's per-tensor kernel (issue 29: >= 0.9x)"
    else:
        peers = {
            "torch": lambda: torch._scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16)
        }
        note = "peer: torch._scaled_mm"
    return Case(
        family=FAMILY,
        label=f"e4m3 {kind} {M}x{N}x{K}",
        series=kind,
        x=float(M) * N * K,
        unit="TFLOP/s",
        work=2.0 * M * N * K,
        runners={"kdsl": lambda: run(a, b, sa, sb, c, maps), **peers},
        check=check,
        note=note,
    )


def cases(quick: bool):
    shapes = SHAPES[:1] if quick else SHAPES
    return [_case(*s, block_scaled) for s in shapes for block_scaled in (False, True)]


def sweep():
    return [
        (
            f"e4m3 {'block-scaled' if bs else 'per-tensor'} {M}x{N}x{K}",
            lambda shape=(M, N, K), bs=bs: _case(*shape, bs),
        )
        for M, N, K in SWEEP_SHAPES
        for bs in (False, True)
    ]
