"""Sum and max of a whole array: kdsl's reduce_sum.py against a Triton sum
(one program a block of elements, an atomic add of its partial sum),
torch.sum / torch.amax and cupy.sum / cupy.max (no bfloat16 in CuPy)."""

from __future__ import annotations

from functools import lru_cache

from elem_helpers import SWEEP_DTYPES, SWEEP_SIZES, size_label
from row_helpers import DTYPES, torch_dtype
from suite import Case

FAMILY = "reductions"


@lru_cache(maxsize=None)
def triton_sum():
    import triton
    import triton.language as tl

    @triton.jit
    def sum_kernel(x_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
        offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + offs, mask=offs < n, other=0.0).to(tl.float32)
        tl.atomic_add(out_ptr, tl.sum(x, axis=0))

    def launch(x, out):
        out.zero_()
        block = 8192
        sum_kernel[(triton.cdiv(x.numel(), block),)](
            x, out, x.numel(), BLOCK_SIZE=block, num_warps=8
        )

    return launch


def _case(op: str, dtype: str, n: int) -> Case:
    import torch

    import reduce_sum as ex

    x = torch.randn(n, device="cuda", dtype=torch_dtype(dtype))
    out = torch.empty(1, device="cuda", dtype=torch.float32)
    kdsl_op = ex.sum_into if op == "sum" else ex.max_into
    runners = {"kdsl": lambda: kdsl_op(x, out)}
    if op == "sum":
        tout = torch.empty(1, device="cuda", dtype=torch.float32)
        tri = triton_sum()
        runners["triton"] = lambda: tri(x, tout)
        runners["torch"] = lambda: torch.sum(x)
    else:
        runners["torch"] = lambda: torch.amax(x)
    if dtype != "bf16":
        import cupy

        cx = cupy.asarray(x)
        runners["cupy"] = (
            (lambda: cupy.sum(cx)) if op == "sum" else (lambda: cupy.max(cx))
        )

    def check():
        kdsl_op(x, out)
        if op == "max":
            want = x.float().max().item()
            assert out.item() == want, (out.item(), want)
        else:
            want = x.double().sum().item()
            err = abs(out.item() - want)
            assert err <= 1e-6 * x.double().abs().sum().item() + 1e-6, err

    return Case(
        family=FAMILY,
        label=f"{op} {dtype} {size_label(n)}",
        series=f"{op} {dtype}",
        x=n,
        unit="TB/s",
        work=n * x.element_size(),
        runners=runners,
        check=check,
    )


def cases(quick: bool) -> list[Case]:
    sizes = (
        [1 << 20, 1 << 26] if quick else [1 << k for k in (16, 18, 20, 22, 24, 26, 28)]
    )
    return [
        _case(op, dtype, n) for op in ("sum", "max") for dtype in DTYPES for n in sizes
    ]


SWEEP_WEIGHT = 0.9  # seconds a sweep case


def sweep():
    return [
        (f"{op} {d} {size_label(n)}", lambda op=op, d=d, n=n: _case(op, d, n))
        for op in ("sum", "max")
        for d in SWEEP_DTYPES
        for n in SWEEP_SIZES[1::2]  # 1000003, 1024 x 50257, 2^28 - 1
    ]
