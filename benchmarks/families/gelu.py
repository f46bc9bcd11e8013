"""GELU (tanh approximation), forward and backward: kdsl's gelu.py (tuned)
against a Triton tutorial-style kernel and PyTorch
(``F.gelu(approximate="tanh")``, ``aten.gelu_backward``), f32/f16/bf16,
2^16 .. 2^28 elements."""

from __future__ import annotations

from functools import lru_cache

from elem_helpers import (
    DTYPES,
    SWEEP_DTYPES,
    SWEEP_SIZES,
    TOL,
    close,
    size_label,
    sizes,
    torch_dtype,
)
from suite import Case

FAMILY = "gelu"


@lru_cache(maxsize=None)
def triton_gelu():
    """Forward and backward in the style of Triton's tutorials: float32
    inside, ``0.5 x (1 + tanh(u))`` written as ``x * sigmoid(2u)``."""
    import triton
    import triton.language as tl

    @triton.jit
    def gelu_fwd(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
        offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
        u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        y = x * tl.sigmoid(2.0 * u)
        tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)

    @triton.jit
    def gelu_bwd(x_ptr, g_ptr, o_ptr, n, BLOCK_SIZE: tl.constexpr):
        offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
        g = tl.load(g_ptr + offs, mask=mask).to(tl.float32)
        u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        t = 2.0 * tl.sigmoid(2.0 * u) - 1.0
        du = 0.7978845608028654 * (1.0 + 3.0 * 0.044715 * x * x)
        d = 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * du
        tl.store(o_ptr + offs, (g * d).to(o_ptr.dtype.element_ty), mask=mask)

    def fwd(x, y):
        n = x.numel()
        gelu_fwd[(triton.cdiv(n, 1024),)](x, y, n, BLOCK_SIZE=1024)

    def bwd(x, g, o):
        n = x.numel()
        gelu_bwd[(triton.cdiv(n, 1024),)](x, g, o, n, BLOCK_SIZE=1024)

    return fwd, bwd


def _forward(dtype: str, n: int) -> Case:
    import torch
    import torch.nn.functional as F

    import gelu as ex

    x = torch.randn(n, device="cuda", dtype=torch_dtype(dtype))
    y, yt = torch.empty_like(x), torch.empty_like(x)
    fwd, _ = triton_gelu()

    def check():
        ex.launch_gelu(x, y)
        close(y, F.gelu(x.float(), approximate="tanh"), TOL[dtype], f"gelu {dtype}")

    return Case(
        family=FAMILY,
        label=f"fwd {dtype} {size_label(n)}",
        series=f"fwd {dtype}",
        x=n,
        unit="TB/s",
        work=2 * n * x.element_size(),
        runners={
            "kdsl": lambda: ex.launch_gelu(x, y),
            "triton": lambda: fwd(x, yt),
            "torch": lambda: F.gelu(x, approximate="tanh"),
        },
        check=check,
    )


def _backward(dtype: str, n: int) -> Case:
    import torch

    import gelu as ex

    x = torch.randn(n, device="cuda", dtype=torch_dtype(dtype))
    g = torch.randn_like(x)
    o, ot = torch.empty_like(x), torch.empty_like(x)
    _, bwd = triton_gelu()
    aten = torch.ops.aten.gelu_backward

    def check():
        ex.launch_gelu_backward(x, g, o)
        want = aten(g.float(), x.float(), approximate="tanh")
        close(o, want, TOL[dtype], f"gelu backward {dtype}")

    return Case(
        family=FAMILY,
        label=f"bwd {dtype} {size_label(n)}",
        series=f"bwd {dtype}",
        x=n,
        unit="TB/s",
        work=3 * n * x.element_size(),
        runners={
            "kdsl": lambda: ex.launch_gelu_backward(x, g, o),
            "triton": lambda: bwd(x, g, ot),
            "torch": lambda: aten(g, x, approximate="tanh"),
        },
        check=check,
    )


def cases(quick: bool) -> list[Case]:
    out = []
    for d in DTYPES:
        out += [_forward(d, n) for n in sizes(quick)]
        out += [_backward(d, n) for n in sizes(quick)]
    return out


SWEEP_WEIGHT = 1.0  # seconds a sweep case


def sweep():
    grid = []
    for d in SWEEP_DTYPES:
        for n in SWEEP_SIZES[1:]:  # 10007 elements: launch-bound, as the add shows
            grid.append((f"fwd {d} {size_label(n)}", lambda d=d, n=n: _forward(d, n)))
            grid.append((f"bwd {d} {size_label(n)}", lambda d=d, n=n: _backward(d, n)))
    return grid
