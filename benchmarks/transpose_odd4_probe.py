"""What limits ``transpose_odd4`` (examples/transpose.py) on the sweep's odd
Float32 shapes: the kernel as ``launch_transpose`` runs it (WIN 16, TROWS
64, launch bounds (256, 8)) against ``transpose_tiled`` (what those shapes
took before), the same kernel with the registers ptxas picks alone (40: 6
blocks an SM), the larger tiles (124 x 60: WIN 32; 60 x 124: TROWS 128;
launch bounds (256, 6)), a probe that issues the kernel's global loads and
stores and nothing else (no tile, no barrier: its output is wrong, only its
time counts), the same with 16 threads an out row (``global only 16``,
added after session 12's run), a device-to-device copy of the same bytes and PyTorch's
``x.t().contiguous()``.

    . benchmarks/device_env.sh && python3 -P benchmarks/transpose_odd4_probe.py

Microseconds are medians of ``triton.testing.do_bench`` (warmup 10 ms, 50
ms of repetitions); ratios are the copy's time over each one's. Every
kernel's result but the probe's is checked against ``x.t()`` before it is
timed.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

import kdsl  # noqa: E402
from kdsl import Int32, Pointer, Vector, block_idx, thread_idx  # noqa: E402

import transpose as ex  # noqa: E402

D = kdsl.TypeVar("D", bound=kdsl.Num)

SHAPES = [(12289, 5003), (4097, 4097), (50257, 768)]

# transpose_odd4 as written, under other launch bounds (or none)
odd4_free = kdsl.kernel(dtypes=["f32"])(ex.transpose_odd4.definition.fn)
odd4_six = kdsl.kernel(dtypes=["f32"], launch_bounds=(256, 6))(
    ex.transpose_odd4.definition.fn
)


@kdsl.kernel(dtypes=["f32"], launch_bounds=(256, 8))
def global_only(a: Pointer[D], out: Pointer[D], rows: Int32, cols: Int32):
    """transpose_odd4's 4 window loads and 4 vector stores a thread (WIN
    16, TROWS 64), at the same addresses, the loaded vectors stored as they
    are."""
    L = 4
    LOG = 2
    SIDE = 60
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
    blk = kdsl.local_array(Vector[D, L], 4)
    for p in kdsl.range_constexpr(4):
        f = min(r0 + tid // 16 + 16 * p, rows - 1) * cols + c0
        blk[p] = av[min((f >> LOG) + k, last)]
    kk = tid % 8
    ii = tid // 8
    g0 = (c0 + ii) * rows + r0
    lo = (0 - g0) & (L - 1)
    for p3 in kdsl.range_constexpr(4):
        i = ii + 32 * (p3 % 2)
        kv = kk + 8 * (p3 // 2)
        r = lo + kv * L
        if i < wv and r0 + r + L <= rows and r < hv:
            ov[((g0 + lo) >> LOG) + 8 * (p3 % 2) * rows + kv] = blk[p3]


@kdsl.kernel(dtypes=["f32"], launch_bounds=(256, 8))
def global_only_16(a: Pointer[D], out: Pointer[D], rows: Int32, cols: Int32):
    """``global_only`` with bf16 ``transpose_odd``'s store mapping: 16
    threads an out row (a warp stores 2 out rows x 256 bytes, not 4 x 128);
    the same loads, and stores of the same vectors of out. (Added after the
    session-12 run: not measured yet.)"""
    L = 4
    LOG = 2
    SIDE = 60
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
    blk = kdsl.local_array(Vector[D, L], 4)
    for p in kdsl.range_constexpr(4):
        f = min(r0 + tid // 16 + 16 * p, rows - 1) * cols + c0
        blk[p] = av[min((f >> LOG) + k, last)]
    ii = tid // 16
    g0 = (c0 + ii) * rows + r0
    lo = (0 - g0) & (L - 1)  # the same for out rows 16 apart
    for p3 in kdsl.range_constexpr(4):
        i = ii + 16 * p3
        r = lo + k * L
        if i < wv and r0 + r + L <= rows and r < hv:
            ov[((g0 + lo) >> LOG) + 4 * p3 * rows + k] = blk[p3]


def bench_us(fn) -> float:
    import triton.testing

    for _ in range(3):
        fn()
    return 1e3 * float(
        triton.testing.do_bench(fn, warmup=10, rep=50, return_mode="median")
    )


def main():
    import torch

    names = [
        "tiled",
        "odd4",
        "odd4 40 regs",
        "odd4 124x60",
        "odd4 60x124",
        "global only",
        "global only 16",
    ]
    print(
        "| f32 shape | copy us | torch us | "
        + " | ".join(f"{n} us" for n in names)
        + " | "
        + " | ".join(f"{n} / copy" for n in names)
        + " |"
    )
    print("|---" * (3 + 2 * len(names)) + "|")
    for rows, cols in SHAPES:
        x = torch.randn(rows, cols, device="cuda", dtype=torch.float32)
        out = torch.empty(cols, rows, device="cuda", dtype=x.dtype)
        scratch = torch.empty_like(out)
        copy = torch.empty_like(x)
        assert ex.odd_path(x, out)

        def tiled():
            t = ex.TILED_SIDE
            grid = (-(-cols // t), -(-rows // t))
            ex.transpose_tiled[grid, (32, 8)](x, out, rows, cols, TILE=t)

        def odd4(kernel, win=16, trows=64):
            grid = (-(-cols // ((win - 1) * 4)), -(-rows // (trows - 4)))
            return lambda: kernel[grid, 256](x, out, rows, cols, WIN=win, TROWS=trows)

        runs = {
            "tiled": tiled,
            "odd4": lambda: ex.launch_transpose(x, out),
            "odd4 40 regs": odd4(odd4_free),
            "odd4 124x60": odd4(odd4_six, 32, 64),
            "odd4 60x124": odd4(odd4_six, 16, 128),
        }
        us = {}
        for name, fn in runs.items():
            out.fill_(7.0)
            fn()
            torch.cuda.synchronize()
            assert torch.equal(out, x.t()), (name, rows, cols)
            us[name] = bench_us(fn)
        grid = (-(-cols // 60), -(-rows // 60))
        us["global only"] = bench_us(
            lambda: global_only[grid, 256](x, scratch, rows, cols)
        )
        us["global only 16"] = bench_us(
            lambda: global_only_16[grid, 256](x, scratch, rows, cols)
        )
        us["copy"] = bench_us(lambda: copy.copy_(x))
        us["torch"] = bench_us(lambda: x.t().contiguous())
        print(
            f"| {rows} x {cols} | {us['copy']:.1f} | {us['torch']:.1f} | "
            + " | ".join(f"{us[n]:.1f}" for n in names)
            + " | "
            + " | ".join(f"{us['copy'] / us[n]:.2f}" for n in names)
            + " |",
            flush=True,
        )


if __name__ == "__main__":
    main()
