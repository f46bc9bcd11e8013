"""Elementwise add: kdsl's ``add`` (examples/vector_add.py, tuned) against
Triton's vector-add tutorial kernel, torch.add and cupy.add, f32/f16/bf16,
2^16 .. 2^28 elements."""

from __future__ import annotations

from functools import lru_cache

from elem_helpers import (
    DTYPES,
    SWEEP_DTYPES,
    SWEEP_SIZES,
    cupy_of,
    size_label,
    sizes,
    torch_dtype,
)
from suite import Case

FAMILY = "elementwise add"


@lru_cache(maxsize=None)
def triton_add():
    """Triton's tutorial 01: BLOCK_SIZE elements a program, masked tail."""
    import triton
    import triton.language as tl

    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
        offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        y = tl.load(y_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, x + y, mask=mask)

    def launch(x, y, out):
        n = out.numel()
        add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)

    return launch


def _case(dtype: str, n: int) -> Case:
    import torch

    import vector_add as ex

    x = torch.randn(n, device="cuda", dtype=torch_dtype(dtype))
    y = torch.randn(n, device="cuda", dtype=torch_dtype(dtype))
    out, out_t, out_c = torch.empty_like(x), torch.empty_like(x), torch.empty_like(x)
    tri = triton_add()
    runners = {
        "kdsl": lambda: ex.launch_add(x, y, out),
        "triton": lambda: tri(x, y, out_t),
        "torch": lambda: torch.add(x, y, out=out_t),
    }
    cx, cy, co = cupy_of(x), cupy_of(y), cupy_of(out_c)
    if cx is not None:
        import cupy as cp

        runners["cupy"] = lambda: cp.add(cx, cy, out=co)

    def check():  # also runs the autotune search, before anything is timed
        ex.launch_add(x, y, out)
        torch.cuda.synchronize()
        if not torch.equal(out, x + y):
            raise AssertionError(f"add {dtype} {n}: differs from torch")

    return Case(
        family=FAMILY,
        label=f"{dtype} {size_label(n)}",
        series=dtype,
        x=n,
        unit="TB/s",
        work=3 * n * x.element_size(),
        runners=runners,
        check=check,
    )


def cases(quick: bool) -> list[Case]:
    return [_case(d, n) for d in DTYPES for n in sizes(quick)]


SWEEP_WEIGHT = 1.2  # seconds a sweep case (four runners)


def sweep():
    return [
        (f"{d} {size_label(n)}", lambda d=d, n=n: _case(d, n))
        for d in SWEEP_DTYPES
        for n in SWEEP_SIZES
    ]
