"""Layer norm forward: kdsl's layer_norm.py against Triton's layer-norm
tutorial kernel (forward, fused) and torch.nn.functional.layer_norm."""

from __future__ import annotations

from functools import lru_cache

from row_helpers import DTYPES, TOL, close, norm_sweep, torch_dtype
from suite import Case

FAMILY = "layer norm"


@lru_cache(maxsize=None)
def triton_layer_norm():
    """Triton's tutorial 05, ``_layer_norm_fwd_fused``: one program a row,
    loops over BLOCK_SIZE columns for the mean, the variance and the output;
    it also stores the mean and 1/std of each row."""
    import triton
    import triton.language as tl

    @triton.jit
    def _layer_norm_fwd_fused(
        X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr
    ):
        row = tl.program_id(0)
        Y += row * stride
        X += row * stride
        mean = 0
        _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
        for off in range(0, N, BLOCK_SIZE):
            cols = off + tl.arange(0, BLOCK_SIZE)
            a = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
            _mean += a
        mean = tl.sum(_mean, axis=0) / N
        _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
        for off in range(0, N, BLOCK_SIZE):
            cols = off + tl.arange(0, BLOCK_SIZE)
            x = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
            x = tl.where(cols < N, x - mean, 0.0)
            _var += x * x
        var = tl.sum(_var, axis=0) / N
        rstd = 1 / tl.sqrt(var + eps)
        tl.store(Mean + row, mean)
        tl.store(Rstd + row, rstd)
        for off in range(0, N, BLOCK_SIZE):
            cols = off + tl.arange(0, BLOCK_SIZE)
            mask = cols < N
            w = tl.load(W + cols, mask=mask)
            b = tl.load(B + cols, mask=mask)
            x = tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
            x_hat = (x - mean) * rstd
            y = x_hat * w + b
            tl.store(Y + cols, y, mask=mask)

    def launch(x, w, b, y, mean, rstd, eps):
        rows, cols = x.shape
        block = min(65536 // x.element_size(), triton.next_power_of_2(cols))
        warps = min(max(block // 256, 1), 8)
        _layer_norm_fwd_fused[(rows,)](
            x,
            y,
            w,
            b,
            mean,
            rstd,
            x.stride(0),
            cols,
            eps,
            BLOCK_SIZE=block,
            num_warps=warps,
        )

    return launch


def _case(dtype: str, rows: int, cols: int) -> Case:
    import torch

    import layer_norm as ex

    t = torch_dtype(dtype)
    x = torch.randn(rows, cols, device="cuda", dtype=t)
    w = torch.rand(cols, device="cuda", dtype=t) + 0.5
    b = torch.randn(cols, device="cuda", dtype=t)
    y, yt = torch.empty_like(x), torch.empty_like(x)
    mean = torch.empty(rows, device="cuda", dtype=torch.float32)
    rstd = torch.empty_like(mean)
    tri = triton_layer_norm()
    F = torch.nn.functional

    def check():
        ex.launch(x, w, b, y, 1e-5)
        want = F.layer_norm(x.float(), (cols,), w.float(), b.float(), 1e-5)
        close(y, want, TOL[dtype], f"layer norm {dtype}")

    return Case(
        family=FAMILY,
        label=f"{dtype} {rows}x{cols}",
        series=dtype,
        x=cols,
        unit="TB/s",
        work=2 * x.numel() * x.element_size(),
        runners={
            "kdsl": lambda: ex.launch(x, w, b, y, 1e-5),
            "triton": lambda: tri(x, w, b, yt, mean, rstd, 1e-5),
            "torch": lambda: F.layer_norm(x, (cols,), w, b, 1e-5),
        },
        check=check,
    )


def cases(quick: bool) -> list[Case]:
    widths = [1024, 4096] if quick else [512, 1024, 2048, 3000, 4096, 8192, 16384]
    return [
        _case(dtype, 4096 if quick else 16384, cols)
        for dtype in DTYPES
        for cols in widths
    ]


SWEEP_WEIGHT = 1.6  # seconds a sweep case (three runners, an autotune search)


def sweep():
    return norm_sweep(FAMILY, _case)
