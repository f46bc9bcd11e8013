"""Transpose: kdsl's transpose.py against ``x.t().contiguous()`` (PyTorch)
and, as the reference the target is set against (0.85x), a device-to-device
copy of the same bytes; f32 and bf16, 1024^2 .. 16384^2."""

from __future__ import annotations

from elem_helpers import torch_dtype
from suite import Case

FAMILY = "transpose"


def _case(dtype: str, side: int) -> Case:
    import torch

    import transpose as ex

    x = torch.randn(side, side, device="cuda", dtype=torch_dtype(dtype))
    out, copy = torch.empty_like(x), torch.empty_like(x)

    def check():
        ex.launch_transpose(x, out)
        torch.cuda.synchronize()
        if not torch.equal(out, x.t()):
            raise AssertionError(f"transpose {dtype} {side}: differs from x.t()")

    return Case(
        family=FAMILY,
        label=f"{dtype} {side}x{side}",
        series=dtype,
        x=side * side,
        unit="TB/s",
        work=2 * x.numel() * x.element_size(),
        runners={
            "kdsl": lambda: ex.launch_transpose(x, out),
            "torch": lambda: x.t().contiguous(),
            "d2d copy": lambda: copy.copy_(x),
        },
        check=check,
    )


def cases(quick: bool) -> list[Case]:
    sides = [1024, 4096, 16384] if quick else [1024, 2048, 4096, 8192, 16384]
    return [_case(d, s) for d in ("f32", "bf16") for s in sides]
