"""The workload table: kdsl's examples against Triton, PyTorch and CuPy, in
one process, on the same inputs (run on a GPU machine).

    python benchmarks/suite.py [--quick] [--family softmax ...]

Each module in ``benchmarks/families/`` describes one family of workloads:

    FAMILY = "softmax"                      # the title of its table and plot
    def cases(quick: bool) -> list[Case]:   # built lazily: allocate inside

A :class:`Case` is one workload at one size.  Its ``runners`` each launch one
implementation once on inputs prepared when the case was built (outputs
preallocated, so a runner times only the kernel and its launch); ``check``
compares kdsl's result with PyTorch's before anything is timed.  Times are
medians of ``triton.testing.do_bench`` (which flushes L2 between
repetitions).  The ratio is kdsl over the fastest peer that ran.

Output: a table per family on stdout, ``suite.json`` and one PNG per family
(throughput against size or width for kdsl and each peer) in ``$OUT`` or
``benchmarks/plots/``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

ROOT = Path(__file__).resolve().parents[1]
FAMILIES = ROOT / "benchmarks" / "families"


@dataclass
class Case:
    family: str  # "softmax"
    label: str  # "bf16 32768x4096": one row of the table
    series: str  # "bf16": one curve of the family's plot (per dtype, say)
    x: float  # the plot's x value: elements, or the row width
    unit: str  # "TB/s" or "TFLOP/s"
    work: float  # bytes moved (TB/s) or floating-point operations (TFLOP/s)
    runners: dict[str, Callable[[], object]]  # "kdsl", "triton", "torch", "cupy"
    check: Optional[Callable[[], None]] = None  # raises if kdsl is wrong
    note: str = ""
    results: dict[str, float] = field(default_factory=dict)  # name -> ms

    def rate(self, name: str) -> float:
        """Throughput of one runner in ``unit``."""
        return self.work / (self.results[name] * 1e-3) / 1e12

    @property
    def ratio(self) -> float:
        peers = [v for k, v in self.results.items() if k != "kdsl"]
        if "kdsl" not in self.results or not peers:
            return float("nan")
        return min(peers) / self.results["kdsl"]


def family_modules(only=None):
    sys.path.insert(0, str(ROOT / "examples"))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    names = sorted(p.stem for p in FAMILIES.glob("*.py") if p.stem != "__init__")
    for name in names:
        if only and name not in only:
            continue
        yield importlib.import_module(f"families.{name}")


def time_ms(fn) -> float:
    import triton.testing

    return float(triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median"))


def run_case(case: Case) -> Case:
    if case.check is not None:
        case.check()
    for name, fn in case.runners.items():
        try:
            for _ in range(3):  # first calls (compiles, autotune searches) untimed
                fn()
            case.results[name] = time_ms(fn)
        except Exception as exc:  # a peer without this op or size
            case.note += f"{name}: {type(exc).__name__}: {exc}".strip()[:200] + "; "
    return case


def print_table(family: str, cases: list[Case]):
    names = ["kdsl"] + sorted({n for c in cases for n in c.runners} - {"kdsl"})
    unit = cases[0].unit
    print(f"\n== {family} ({unit}) ==")
    print(f"{'case':28s}" + "".join(f"{n:>10s}" for n in names) + f"{'ratio':>8s}")
    for c in cases:
        cells = "".join(
            f"{c.rate(n):10.2f}" if n in c.results else f"{'-':>10s}" for n in names
        )
        print(f"{c.label:28s}{cells}{c.ratio:8.2f}  {c.note}")


def plot(family: str, cases: list[Case], out_dir: Path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = sorted({c.series for c in cases})
    fig, axes = plt.subplots(
        1, len(series), figsize=(5 * len(series), 4), squeeze=False
    )
    for ax, s in zip(axes[0], series):
        mine = sorted((c for c in cases if c.series == s), key=lambda c: c.x)
        for name in sorted({n for c in mine for n in c.results}):
            pts = [(c.x, c.rate(name)) for c in mine if name in c.results]
            ax.plot(*zip(*pts), marker="o", label=name)
        ax.set_xscale("log", base=2)
        ax.set_title(f"{family} {s}")
        ax.set_ylabel(mine[0].unit)
        ax.legend()
        ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(out_dir / f"{family.replace(' ', '_')}.png", dpi=90)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer, smaller sizes")
    ap.add_argument("--family", nargs="*", help="only these family modules")
    args = ap.parse_args(argv)
    out_dir = Path(os.environ.get("OUT") or ROOT / "benchmarks" / "plots")
    out_dir.mkdir(parents=True, exist_ok=True)
    report = {}
    for module in family_modules(args.family):
        try:
            cases = [run_case(c) for c in module.cases(args.quick)]
        except Exception as exc:
            print(f"\n== {module.FAMILY}: FAILED {type(exc).__name__}: {exc}")
            report[module.FAMILY] = {"error": f"{type(exc).__name__}: {exc}"}
            continue
        print_table(module.FAMILY, cases)
        plot(module.FAMILY, cases, out_dir)
        report[module.FAMILY] = [
            {
                "label": c.label,
                "unit": c.unit,
                "rates": {n: c.rate(n) for n in c.results},
                "ms": c.results,
                "ratio": c.ratio,
                "note": c.note,
            }
            for c in cases
        ]
    (out_dir / "suite.json").write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
