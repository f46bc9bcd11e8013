"""Shared by the elementwise, GELU, transpose, histogram and SGEMM benchmark
families (benchmarks/families/): dtypes, sizes and checks. GPU only: torch is
imported inside the functions."""

from __future__ import annotations

DTYPES = ["f32", "f16", "bf16"]
TOL = {"f32": 1e-5, "f16": 2e-3, "bf16": 1.6e-2}


def torch_dtype(short: str):
    import torch

    return {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[short]


def sizes(quick: bool) -> list[int]:
    """Element counts from launch-bound to memory-bound."""
    exps = [16, 20, 24, 28] if quick else [16, 18, 20, 22, 24, 26, 28]
    return [1 << e for e in exps]


# the sweep's element counts: primes (10007, 1000003), an MLP activation of
# 4096 tokens x 14336 (58.7M), a vocabulary's logits 1024 x 50257, 2^24 + 3
# and 2^28 - 1 (a tail in every vector and block)
SWEEP_SIZES = [10007, 1_000_003, (1 << 24) + 3, 1024 * 50257, 4096 * 14336]
SWEEP_SIZES += [(1 << 28) - 1]
SWEEP_DTYPES = ["f32", "bf16"]


def size_label(n: int) -> str:
    """``2^24`` for a power of two, else the count itself."""
    return f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)


def close(got, want, tol: float, what: str):
    """Relative max error of ``got`` against ``want`` (both torch tensors)."""
    g, w = got.double(), want.double()
    err = float((g - w).abs().max() / w.abs().max().clamp_min(1e-30))
    if not err <= tol:
        raise AssertionError(f"{what}: relative error {err:.3g} > {tol}")


def cupy_of(t):
    """A CuPy view of a torch tensor, or None where CuPy lacks the dtype."""
    import torch

    if t.dtype == torch.bfloat16:
        return None
    import cupy as cp

    return cp.from_dlpack(t)
