"""Row softmax: kdsl's softmax.py against Triton's fused-softmax tutorial
kernel and torch.softmax, rows x widths from 1024 to 16384 and the odd 3000;
the sweep adds hidden sizes, odd widths and vocabulary rows (32000, 50257,
128256) from one row (decoding) to thousands."""

from __future__ import annotations

from functools import lru_cache

from row_helpers import DTYPES, HIDDEN, SWEEP_DTYPES, TOL, close, torch_dtype
from suite import Case

FAMILY = "softmax"
TRITON_WIDEST = 65536  # a row of 65536 Float32 is 128 registers a thread


@lru_cache(maxsize=None)
def triton_softmax():
    """Triton's tutorial 02 (fused softmax): one program a row, the row in
    registers (BLOCK_SIZE: the next power of two), computed in float32."""
    import triton
    import triton.language as tl

    @triton.jit
    def softmax_kernel(
        out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK_SIZE: tl.constexpr
    ):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))
        x = x.to(tl.float32)
        num = tl.exp(x - tl.max(x, axis=0))
        y = num / tl.sum(num, axis=0)
        tl.store(out_ptr + row * out_stride + cols, y, mask=mask)

    def launch(x, y):
        rows, cols = x.shape
        block = triton.next_power_of_2(cols)
        warps = 16 if block >= 4096 else 8 if block >= 2048 else 4
        softmax_kernel[(rows,)](
            y, x, x.stride(0), y.stride(0), cols, BLOCK_SIZE=block, num_warps=warps
        )

    return launch


def _case(dtype: str, rows: int, cols: int) -> Case:
    import torch

    import softmax as ex

    x = torch.randn(rows, cols, device="cuda", dtype=torch_dtype(dtype))
    y = torch.empty_like(x)
    yt = torch.empty_like(x)
    tri = triton_softmax()

    runners = {"kdsl": lambda: ex.softmax(x, y)}
    note = ""
    if cols <= TRITON_WIDEST:
        runners["triton"] = lambda: tri(x, yt)
    else:  # the tutorial keeps the whole row in registers: it spills
        note = f"triton: a row in registers, not run past {TRITON_WIDEST}; "
    runners["torch"] = lambda: torch.softmax(x, dim=1)

    def check():
        ex.softmax(x, y)
        close(y, torch.softmax(x.float(), dim=1), TOL[dtype], f"softmax {dtype}")

    return Case(
        family=FAMILY,
        label=f"{dtype} {rows}x{cols}",
        series=dtype,
        x=cols,
        unit="TB/s",
        work=2 * x.numel() * x.element_size(),
        runners=runners,
        check=check,
        note=note,
    )


def cases(quick: bool) -> list[Case]:
    widths = [1024, 3000, 4096] if quick else [1024, 2048, 3000, 4096, 8192, 16384]
    out = []
    for dtype in DTYPES:
        for cols in widths:
            rows = 32768 if cols <= 4096 else 8192
            out.append(_case(dtype, 4096 if quick else rows, cols))
    return out


SWEEP_WEIGHT = 1.2  # seconds a sweep case (three runners, an autotune search)
# vocabulary rows: one (decoding a token), 7 (a few sequences: the split
# kernel), 64, and a batch of 1024 (a block a row)
VOCAB = [(1, 32000), (7, 32000), (4096, 32000), (7, 50257), (1024, 50257)]
VOCAB += [(1, 128256), (7, 128256), (64, 128256), (1024, 128256)]


def sweep():
    grid = [(d, 4096, c) for d in SWEEP_DTYPES for c in HIDDEN[:7]]
    grid += [(d, r, c) for d in SWEEP_DTYPES for r, c in VOCAB]
    return [(f"{d} {r}x{c}", lambda d=d, r=r, c=c: _case(d, r, c)) for d, r, c in grid]
