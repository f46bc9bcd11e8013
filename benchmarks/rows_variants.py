"""The odd-shape transpose and the wide-row softmax, old kernel against new
on the sweep's shapes, one process (run on a GPU machine): results checked
first, then medians of ``triton.testing.do_bench``; a table last.

    python benchmarks/rows_variants.py
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

import torch  # noqa: E402
import triton.testing  # noqa: E402

import kdsl  # noqa: E402
from kdsl import Int32, Pointer, block_idx, thread_idx  # noqa: E402

import softmax as sm  # noqa: E402
import transpose as tr  # noqa: E402

DT = {"f32": torch.float32, "bf16": torch.bfloat16}
D = kdsl.TypeVar("D", bound=kdsl.Num)


@kdsl.kernel
def tile_copy(a: Pointer[D], out: Pointer[D], rows: Int32, cols: Int32):
    """``out = a`` (both (rows, cols)) moved as ``transpose_tiled`` moves
    bytes, without the transpose: 64 x 64 tiles, 16 clamped loads a thread,
    each of the tile's rows written as a 64-element run by one block, the
    block that writes the run beside it ``ceil(rows / 64)`` blocks later in
    launch order (grid (ceil(rows / 64), ceil(cols / 64)), block (32, 8)).
    At odd widths every run starts and ends inside a 32-byte sector that
    another block writes: timed against a copy, it says whether those
    shared sectors, rather than the transpose, cost the odd shapes."""
    v = kdsl.local_array(D, 16)
    r0 = block_idx.x * 64
    c0 = block_idx.y * 64
    for i in kdsl.range_constexpr(8):
        for c in kdsl.range_constexpr(2):
            row = min(r0 + thread_idx.y + 8 * i, rows - 1)
            col = min(c0 + thread_idx.x + 32 * c, cols - 1)
            v[2 * i + c] = a[row * cols + col]
    for i2 in kdsl.range_constexpr(8):
        for c2 in kdsl.range_constexpr(2):
            row = r0 + thread_idx.y + 8 * i2
            col = c0 + thread_idx.x + 32 * c2
            if row < rows and col < cols:
                out[row * cols + col] = v[2 * i2 + c2]


def bench(fn) -> float:
    return triton.testing.do_bench(fn, warmup=10, rep=60, return_mode="median")


def transposes():
    shapes = [(4097, 4097), (4097, 31), (31, 4097), (12289, 5003), (50257, 768)]
    for d in ("f32", "bf16"):
        for rows, cols in shapes:
            x = torch.randn(rows, cols, device="cuda", dtype=DT[d])
            out = torch.empty(cols, rows, device="cuda", dtype=x.dtype)
            copy = torch.empty_like(x)

            def tiled():
                t = tr.TILED_SIDE
                grid = (-(-cols // t), -(-rows // t))
                tr.transpose_tiled[grid, (32, 8)](x, out, rows, cols, TILE=t)

            def odd():
                t = tr.ODD_SIDE
                grid = (-(-cols // t), -(-rows // t))
                tr.transpose_odd[grid, 256](x, out, rows, cols)

            def picked():
                tr.launch_transpose(x, out)

            times = {}
            runs = [("tiled", tiled), ("launch", picked)]
            if x.element_size() == 2:  # transpose_odd's types
                runs.append(("odd", odd))
            for name, fn in runs:
                out.fill_(float("nan"))
                fn()
                torch.cuda.synchronize()
                assert torch.equal(out, x.t()), (name, d, rows, cols)
                times[name] = bench(fn)
            times["torch"] = bench(lambda: x.t().contiguous())
            times["copy"] = bench(lambda: copy.copy_(x))
            best = min(times["torch"], times["copy"])
            path = "odd" if tr.odd_path(x, out) else "tiled"
            ratios = " ".join(f"{k} {best / times[k]:.2f}" for k, _ in runs)
            yield (f"transpose {d} {rows}x{cols} ({path})", times, ratios)


def tile_copies():
    """tile_copy at odd and power-of-two widths, against a copy."""
    for d in ("f32", "bf16"):
        for rows, cols in ((4097, 4097), (4096, 4096), (12289, 5003)):
            x = torch.randn(rows, cols, device="cuda", dtype=DT[d])
            out = torch.empty_like(x)
            grid = (-(-rows // 64), -(-cols // 64))
            run = lambda: tile_copy[grid, (32, 8)](x, out, rows, cols)  # noqa: E731
            out.fill_(float("nan"))
            run()
            torch.cuda.synchronize()
            assert torch.equal(out, x), (d, rows, cols)
            times = {"tile_copy": bench(run), "copy": bench(lambda: out.copy_(x))}
            ratio = times["copy"] / times["tile_copy"]
            yield f"tile_copy {d} {rows}x{cols}", times, f"of a copy {ratio:.2f}"


def softmaxes():
    """softmax() as planned now against softmax_online in session 8's launch
    (16 warps a block, the whole row in shared memory up to 200 KB) and in
    32 warps, torch and Triton's fused softmax (rows up to 65536)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from families.softmax import TRITON_WIDEST, triton_softmax

    shapes = [(4096, 32000), (1024, 50257), (1024, 128256), (4096, 16384)]
    for d in ("f32", "bf16"):
        for rows, cols in shapes:
            x = torch.randn(rows, cols, device="cuda", dtype=DT[d])
            y = torch.empty_like(x)
            size = x.element_size()
            want = torch.softmax(x.float(), dim=1).to(x.dtype)
            path, _ = sm.plan(rows, cols, size, 132)
            runs = {"new": lambda: sm.softmax(x, y)}
            vec = sm.vector_lanes(cols, size)
            cache = sm.cached_in_shared(cols, size)
            if cols > sm.longest_in_registers(cols, size):
                for warps in (16, 32):

                    def run(warps=warps):
                        sm.softmax_online[rows, 32 * warps](
                            x,
                            y,
                            cols,
                            VEC=vec,
                            WARPS=warps,
                            CACHE=cache,
                            UNROLL=sm.unroll(vec, size),
                            shared_mem=cols * size if cache else 0,
                        )

                    runs[f"online/w{warps}"] = run
            if cols <= TRITON_WIDEST:
                tri = triton_softmax()
                runs["triton"] = lambda: tri(x, y)
            times = {}
            for name, fn in runs.items():
                y.fill_(float("nan"))
                fn()
                torch.cuda.synchronize()
                err = (y.float() - want.float()).abs().max().item()
                assert err < (1e-5 if d == "f32" else 1e-2), (name, d, rows, cols, err)
                times[name] = bench(fn)
            times["torch"] = bench(lambda: torch.softmax(x, dim=1))
            best = min(v for k, v in times.items() if k in ("torch", "triton"))
            yield (
                f"softmax {d} {rows}x{cols} ({path})",
                times,
                f"new/best peer {best / times['new']:.2f}",
            )


def main():
    rows = []
    for label, times, note in itertools.chain(transposes(), tile_copies(), softmaxes()):
        cells = " ".join(f"{k}={v * 1e3:.1f}" for k, v in times.items())
        rows.append(f"{label}: {cells} us | {note}")
        print(rows[-1], flush=True)
    print("\n".join(["", "== summary =="] + rows))


if __name__ == "__main__":
    main()
