"""Transpose: kdsl's transpose.py against ``x.t().contiguous()`` (PyTorch)
and, as the reference the target is set against (0.85x), a device-to-device
copy of the same bytes; f32 and bf16, 1024^2 .. 16384^2; the sweep adds
odd, prime and thin shapes (4097 x 4097, 4097 x 31, 12289 x 5003, an
embedding table 50257 x 768) and multiples of 8 but not of 128."""

from __future__ import annotations

from elem_helpers import torch_dtype
from suite import Case

FAMILY = "transpose"


def _case(dtype: str, rows: int, cols: int | None = None) -> Case:
    import torch

    import transpose as ex

    cols = rows if cols is None else cols
    x = torch.randn(rows, cols, device="cuda", dtype=torch_dtype(dtype))
    out = torch.empty(cols, rows, device="cuda", dtype=x.dtype)
    copy = torch.empty_like(x)

    def check():
        ex.launch_transpose(x, out)
        torch.cuda.synchronize()
        if not torch.equal(out, x.t()):
            raise AssertionError(f"transpose {dtype} {rows}x{cols}: differs from x.t()")

    odd = "odd4" if x.element_size() == 4 else "odd"
    path = "vec" if ex.vector_path(x, out) else odd if ex.odd_path(x, out) else "tiled"
    return Case(
        family=FAMILY,
        label=f"{dtype} {rows}x{cols}",
        series=dtype,
        x=rows * cols,
        unit="TB/s",
        work=2 * x.numel() * x.element_size(),
        runners={
            "kdsl": lambda: ex.launch_transpose(x, out),
            "torch": lambda: x.t().contiguous(),
            "d2d copy": lambda: copy.copy_(x),
        },
        check=check,
        note=f"kdsl: transpose_{path}; ",
    )


def cases(quick: bool) -> list[Case]:
    sides = [1024, 4096, 16384] if quick else [1024, 2048, 4096, 8192, 16384]
    return [_case(d, s) for d in ("f32", "bf16") for s in sides]


SWEEP_WEIGHT = 0.6  # seconds a sweep case
SWEEP_SHAPES = [
    (1024, 1024),
    (4096, 4096),
    (4104, 4104),  # a multiple of 8, not of 128: the 16-byte path, ragged tiles
    (4097, 4097),  # odd: no row starts 16-byte aligned
    (4097, 31),  # thin
    (31, 4097),
    (12289, 5003),  # primes
    (50257, 768),  # an embedding table
    (16384, 16384),
]


def sweep():
    return [
        (f"{d} {r}x{c}", lambda d=d, r=r, c=c: _case(d, r, c))
        for d in ("f32", "bf16")
        for r, c in SWEEP_SHAPES
    ]
