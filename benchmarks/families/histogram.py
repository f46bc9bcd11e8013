"""256-bin histogram over [lo, hi): kdsl's histogram.py against torch.histc
and cupy.histogram (f32; bf16 where the peer has it), 2^16 .. 2^28 values."""

from __future__ import annotations

from elem_helpers import SWEEP_SIZES, cupy_of, size_label, sizes, torch_dtype
from suite import Case

FAMILY = "histogram"
LO, HI = -2.0, 2.0


def _case(dtype: str, n: int) -> Case:
    import torch

    import histogram as ex

    x = torch.randn(n, device="cuda", dtype=torch_dtype(dtype))
    counts = torch.zeros(256, device="cuda", dtype=torch.int32)

    def check():
        counts.zero_()
        ex.launch_histogram(x, counts, LO, HI)
        v = x.float()
        lo, hi = torch.tensor(LO, device="cuda"), torch.tensor(HI, device="cuda")
        inside = v[(v >= lo) & (v < hi)]
        scale = torch.tensor(256.0, device="cuda") / (hi - lo)
        bins = ((inside - lo) * scale).to(torch.int32).clamp_max(255)
        want = torch.bincount(bins, minlength=256).to(torch.int32)
        if not torch.equal(counts, want):
            raise AssertionError(f"histogram {dtype} {n}: differs from bincount")

    runners = {
        "kdsl": lambda: ex.launch_histogram(x, counts, LO, HI),
        "torch": lambda: torch.histc(x, bins=256, min=LO, max=HI),
    }
    cx = cupy_of(x)
    if cx is not None:
        import cupy as cp

        runners["cupy"] = lambda: cp.histogram(cx, bins=256, range=(LO, HI))
    return Case(
        family=FAMILY,
        label=f"{dtype} {size_label(n)}",
        series=dtype,
        x=n,
        unit="TB/s",
        work=n * x.element_size(),
        runners=runners,
        check=check,
    )


def cases(quick: bool) -> list[Case]:
    return [_case(d, n) for d in ("f32", "bf16") for n in sizes(quick)]


SWEEP_WEIGHT = 0.6  # seconds a sweep case


def sweep():
    return [
        (f"{d} {size_label(n)}", lambda d=d, n=n: _case(d, n))
        for d in ("f32", "bf16")
        for n in SWEEP_SIZES[1::2]
    ]
