"""What the row-wise and reduction benchmark families share (families/softmax,
layer_norm, rms_norm, reductions): dtypes, tolerances and the check against
PyTorch (torch is imported lazily: it exists only on the GPU machine)."""

from __future__ import annotations

DTYPES = ("f32", "f16", "bf16")


def torch_dtype(name: str):
    import torch

    return {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[name]


def close(got, want, tol: float, what: str) -> None:
    """Raise if |got - want| / (1 + |want|) exceeds ``tol`` anywhere."""
    want = want.float()
    err = ((got.float() - want).abs() / (1 + want.abs())).max().item()
    if not err <= tol:
        raise AssertionError(f"{what}: max error {err:.3g} > {tol:g}")


# one rounding of the output in the dtype (a neighbour of PyTorch's when the
# two Float32 results straddle a rounding boundary)
TOL = {"f32": 1e-5, "f16": 1e-3, "bf16": 8e-3}


# -- the shape sweeps (suite.py --sweep) --------------------------------------
# hidden sizes of models (BERT/GPT-2 768 .. 16384) and widths that are no
# multiple of a power of two: 1000, the prime 3001, 4104 (a multiple of 8
# but not of 128), the prime 12289; the rows are a batch of 4096 tokens, and
# 8 rows for decoding (launch-bound for everyone: the host cost shows)
HIDDEN = [768, 1000, 2048, 3001, 4096, 4104, 5120, 8192, 12289, 16384]
SWEEP_DTYPES = ("f32", "bf16")


def norm_sweep(family: str, case) -> list:
    """The layer-norm / RMSNorm grid: ``(label, build)`` pairs."""
    grid = [(d, 4096, c) for d in SWEEP_DTYPES for c in HIDDEN]
    grid += [(d, 8, 4096) for d in SWEEP_DTYPES]
    return [(f"{d} {r}x{c}", lambda d=d, r=r, c=c: case(d, r, c)) for d, r, c in grid]
