"""RMSNorm forward: kdsl's rms_norm.py against a Triton kernel written as the
layer-norm tutorial writes its forward pass (one program a row, a loop over
BLOCK_SIZE columns) and torch.nn.functional.rms_norm."""

from __future__ import annotations

from functools import lru_cache

from row_helpers import DTYPES, TOL, close, norm_sweep, torch_dtype
from suite import Case

FAMILY = "rms norm"


@lru_cache(maxsize=None)
def triton_rms_norm():
    import triton
    import triton.language as tl

    @triton.jit
    def _rms_norm_fwd(X, Y, W, stride, N, eps, BLOCK_SIZE: tl.constexpr):
        row = tl.program_id(0)
        Y += row * stride
        X += row * stride
        _sq = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
        for off in range(0, N, BLOCK_SIZE):
            cols = off + tl.arange(0, BLOCK_SIZE)
            a = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
            _sq += a * a
        rrms = 1 / tl.sqrt(tl.sum(_sq, axis=0) / N + eps)
        for off in range(0, N, BLOCK_SIZE):
            cols = off + tl.arange(0, BLOCK_SIZE)
            mask = cols < N
            w = tl.load(W + cols, mask=mask)
            x = tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
            tl.store(Y + cols, x * rrms * w, mask=mask)

    def launch(x, w, y, eps):
        rows, cols = x.shape
        block = min(65536 // x.element_size(), triton.next_power_of_2(cols))
        warps = min(max(block // 256, 1), 8)
        _rms_norm_fwd[(rows,)](
            x, y, w, x.stride(0), cols, eps, BLOCK_SIZE=block, num_warps=warps
        )

    return launch


def _case(dtype: str, rows: int, cols: int) -> Case:
    import torch

    import rms_norm as ex

    t = torch_dtype(dtype)
    x = torch.randn(rows, cols, device="cuda", dtype=t)
    w = torch.rand(cols, device="cuda", dtype=t) + 0.5
    y, yt = torch.empty_like(x), torch.empty_like(x)
    tri = triton_rms_norm()

    def torch_rms_norm(a, weight):  # F.rms_norm from PyTorch 2.4 on
        F = torch.nn.functional
        if hasattr(F, "rms_norm"):
            return F.rms_norm(a, (cols,), weight, 1e-6)
        return a * torch.rsqrt(a.float().pow(2).mean(-1, keepdim=True) + 1e-6) * weight

    def check():
        ex.launch(x, None, w, y, 1e-6)
        want = torch_rms_norm(x.float(), w.float())
        close(y, want, TOL[dtype], f"rms norm {dtype}")

    return Case(
        family=FAMILY,
        label=f"{dtype} {rows}x{cols}",
        series=dtype,
        x=cols,
        unit="TB/s",
        work=2 * x.numel() * x.element_size(),
        runners={
            "kdsl": lambda: ex.launch(x, None, w, y, 1e-6),
            "triton": lambda: tri(x, w, yt, 1e-6),
            "torch": lambda: torch_rms_norm(x, w),
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
