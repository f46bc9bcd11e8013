"""What limits ``transpose_odd`` (examples/transpose.py): the kernel against a
probe that issues the same global loads and stores and nothing else (no
shared tile, no barrier: its output is wrong, only its time counts), a
device-to-device copy of the same bytes and PyTorch's ``x.t().contiguous()``,
on the sweep's bf16 shapes that take ``transpose_odd``.

    . benchmarks/device_env.sh && python3 -P benchmarks/transpose_odd_probe.py

Microseconds are medians of ``triton.testing.do_bench`` (warmup 10 ms, 50
ms of repetitions); ratios are the copy's time over each one's. The
kernel's result is checked against ``x.t()`` before it is timed.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

import kdsl  # noqa: E402
from kdsl import Int32, Pointer, Vector, block_idx, thread_idx  # noqa: E402

D = kdsl.TypeVar("D", bound=kdsl.Num)

SHAPES = [(12289, 5003), (4097, 4097), (50257, 768)]


@kdsl.kernel(dtypes=["bf16"])
def global_only(a: Pointer[D], out: Pointer[D], rows: Int32, cols: Int32):
    """transpose_odd's 8 window loads and 8 vector stores a thread, at the
    same addresses, the loaded vectors stored as they are."""
    L = 8
    LOG = 3
    SIDE = 15 * L
    PASSES = 8
    av = a.vec(L)
    ov = out.vec(L)
    n = rows * cols
    last = n // L - 1
    tid = thread_idx.x
    k = tid % 16
    r0 = block_idx.y * SIDE
    c0 = block_idx.x * SIDE
    hv = min(SIDE, rows - r0)
    wv = min(SIDE, cols - c0)
    blk = kdsl.local_array(Vector[D, L], PASSES)
    for p in kdsl.range_constexpr(PASSES):
        f = min(r0 + tid // 16 + 16 * p, rows - 1) * cols + c0
        blk[p] = av[min((f >> LOG) + k, last)]
    for p3 in kdsl.range_constexpr(PASSES):
        i = tid // 16 + 16 * p3
        g = (c0 + i) * rows + r0
        r = ((0 - g) & (L - 1)) + k * L
        if i < wv and r0 + r + L <= rows and r < hv:
            ov[(g + r) >> LOG] = blk[p3]


def bench_us(fn) -> float:
    import triton.testing

    for _ in range(3):
        fn()
    return 1e3 * float(
        triton.testing.do_bench(fn, warmup=10, rep=50, return_mode="median")
    )


def main():
    import torch

    import transpose as ex

    print(
        "| bf16 shape | copy us | torch us | transpose_odd us | global only us "
        "| odd / copy | global only / copy |"
    )
    print("|---|---|---|---|---|---|---|")
    for rows, cols in SHAPES:
        x = torch.randn(rows, cols, device="cuda", dtype=torch.bfloat16)
        out = torch.empty(cols, rows, device="cuda", dtype=x.dtype)
        scratch = torch.empty_like(out)
        copy = torch.empty_like(x)
        assert ex.odd_path(x, out)
        ex.launch_transpose(x, out)
        torch.cuda.synchronize()
        assert torch.equal(out, x.t()), (rows, cols)
        t = ex.ODD_SIDE
        grid = (-(-cols // t), -(-rows // t))
        us = {
            "copy": bench_us(lambda: copy.copy_(x)),
            "torch": bench_us(lambda: x.t().contiguous()),
            "odd": bench_us(lambda: ex.transpose_odd[grid, 256](x, out, rows, cols)),
            "probe": bench_us(lambda: global_only[grid, 256](x, scratch, rows, cols)),
        }
        print(
            f"| {rows} x {cols} | {us['copy']:.1f} | {us['torch']:.1f} | "
            f"{us['odd']:.1f} | {us['probe']:.1f} | {us['copy'] / us['odd']:.2f} | "
            f"{us['copy'] / us['probe']:.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
