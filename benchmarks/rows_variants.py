"""The odd-shape transpose and the wide-row softmax, old kernel against new
on the sweep's shapes, one process (run on a GPU machine): results checked
first, then medians of ``triton.testing.do_bench``; a table last.

    python benchmarks/rows_variants.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

import torch  # noqa: E402
import triton.testing  # noqa: E402

import softmax as sm  # noqa: E402
import transpose as tr  # noqa: E402

DT = {"f32": torch.float32, "bf16": torch.bfloat16}


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

            times = {}
            for name, fn in (("tiled", tiled), ("odd", odd)):
                out.fill_(float("nan"))
                fn()
                torch.cuda.synchronize()
                assert torch.equal(out, x.t()), (name, d, rows, cols)
                times[name] = bench(fn)
            times["torch"] = bench(lambda: x.t().contiguous())
            times["copy"] = bench(lambda: copy.copy_(x))
            best = min(times["torch"], times["copy"])
            yield (
                f"transpose {d} {rows}x{cols}",
                times,
                f"tiled {best / times['tiled']:.2f} odd {best / times['odd']:.2f}",
            )


def softmaxes():
    shapes = [(4096, 32000), (1024, 50257), (1024, 128256), (64, 128256), (4096, 16384)]
    for d in ("f32", "bf16"):
        for rows, cols in shapes:
            x = torch.randn(rows, cols, device="cuda", dtype=DT[d])
            y = torch.empty_like(x)
            size = x.element_size()
            want = torch.softmax(x.float(), dim=1).to(x.dtype)
            path, p = sm.plan(rows, cols, size, 132)
            runs = {"new": lambda: sm.softmax(x, y)}
            if path == "online":
                vec = p["VEC"]
                nvec = cols // vec
                for label, keep, part, widths in (
                    ("whole", nvec, False, (16, 32)),  # session 8: all or nothing
                    ("k200", min(nvec, 200 * 1024 // (vec * size)), True, (16,)),
                    ("k112", min(nvec, 112 * 1024 // (vec * size)), True, (16, 32)),
                    ("k96", min(nvec, 96 * 1024 // (vec * size)), True, (16,)),
                ):
                    cache = keep * vec * size <= 200 * 1024
                    for warps in widths:

                        def run(keep=keep, part=part, warps=warps, cache=cache):
                            sm.softmax_online[rows, 32 * warps](
                                x,
                                y,
                                cols,
                                keep,
                                VEC=vec,
                                WARPS=warps,
                                CACHE=cache,
                                UNROLL=p["UNROLL"],
                                PART=part and keep < nvec,
                                shared_mem=keep * vec * size if cache else 0,
                            )

                        runs[f"{label}/w{warps}"] = run
            times = {}
            for name, fn in runs.items():
                y.fill_(float("nan"))
                fn()
                torch.cuda.synchronize()
                err = (y.float() - want.float()).abs().max().item()
                assert err < (1e-5 if d == "f32" else 1e-2), (name, d, rows, cols, err)
                times[name] = bench(fn)
            times["torch"] = bench(lambda: torch.softmax(x, dim=1))
            yield (
                f"softmax {d} {rows}x{cols} ({path}, keep {p.get('keep')})",
                times,
                f"new/torch {times['torch'] / times['new']:.2f}",
            )


def main():
    rows = []
    for label, times, note in list(transposes()) + list(softmaxes()):
        cells = " ".join(f"{k}={v * 1e3:.1f}" for k, v in times.items())
        rows.append(f"{label}: {cells} us | {note}")
        print(rows[-1], flush=True)
    print("\n".join(["", "== summary =="] + rows))


if __name__ == "__main__":
    main()
