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
