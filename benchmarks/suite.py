"""The workload table: kdsl's examples against Triton, PyTorch and CuPy, in
one process, on the same inputs (run on a GPU machine).

    python benchmarks/suite.py [--quick] [--family softmax ...]
    python benchmarks/suite.py --sweep [--family softmax] [--budget 330]
    python benchmarks/suite.py --sweep --list       # the grid, no GPU needed

Each module in ``benchmarks/families/`` describes one family of workloads:

    FAMILY = "softmax"                      # the title of its table and plot
    def cases(quick: bool) -> list[Case]:   # built lazily: allocate inside
    def sweep() -> list[tuple[str, Callable[[], Case]]]:   # the shape sweep

A :class:`Case` is one workload at one size.  Its ``runners`` each launch one
implementation once on inputs prepared when the case was built (outputs
preallocated, so a runner times only the kernel and its launch); ``check``
compares kdsl's result with PyTorch's before anything is timed.  Times are
medians of ``triton.testing.do_bench`` (which flushes L2 between
repetitions).  The ratio is kdsl over the fastest peer that ran.

``--sweep`` runs each family's ``sweep()`` instead: a grid of shapes users
have (odd and prime sizes, multiples of 8 but not of 128, model dimensions:
hidden sizes 768 .. 16384, vocabularies 32000 / 50257 / 128256, head dims 64
and 128, decode M 1 .. 128), each case built just before it runs and freed
after (``label`` and a builder: ``--list`` prints the grid without a GPU).
A failing check or build is a row of its own (``FAILED``), not the end of
the family. ``--budget`` bounds the run: each family gets a share of the
seconds left in proportion to its cases, and the cases past it are listed
as skipped. Shorter timings in a sweep (``do_bench`` warmup 10 ms, 50 ms of
repetitions: medians of hundreds of launches down to the largest shapes).

Output: a table per family on stdout, ``suite.json`` and one PNG per family
(throughput for kdsl and each peer: against size or width, or for a sweep
case by case along its grid, one panel per series) in ``$OUT`` or
``benchmarks/plots/``; ``benchmarks/report.py`` turns the JSON into
RESULTS.md's tables (per family: the worst ratio and its shape, the
median).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
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


TIMING = {"warmup": 25, "rep": 100}  # do_bench's budgets in ms (--sweep: 10, 50)


def time_ms(fn) -> float:
    import triton.testing

    return float(triton.testing.do_bench(fn, return_mode="median", **TIMING))


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


@dataclass
class Row:
    """A sweep case that did not run: its check or its build failed, or the
    budget ran out (a row of the table all the same)."""

    family: str
    label: str
    note: str
    series: str = ""
    x: float = 0.0
    unit: str = ""
    results: dict = field(default_factory=dict)
    runners: dict = field(default_factory=dict)
    ratio: float = float("nan")


def run_sweep(family: str, grid, seconds) -> list:
    """Build, run and free each case of ``grid`` (``(label, build)`` pairs)
    in turn; past ``seconds`` (None: no bound) the rest are skipped."""
    start = time.monotonic()
    rows = []
    for label, build in grid:
        if seconds is not None and time.monotonic() - start > seconds:
            rows.append(Row(family, label, "skipped: the budget ran out"))
            continue
        try:
            case = build()
        except Exception as exc:
            rows.append(Row(family, label, f"FAILED to build: {_brief(exc)}"))
            continue
        try:
            run_case(case)
        except Exception as exc:  # the check: kdsl's result is wrong
            case.results.clear()
            case.note = f"FAILED check: {_brief(exc)}; " + case.note
        case.runners = {n: None for n in case.runners}  # free the tensors
        case.check = None
        rows.append(case)
        _free_gpu_memory()
    return rows


def _brief(exc) -> str:
    return f"{type(exc).__name__}: {exc}".strip().replace("\n", " ")[:200]


def _free_gpu_memory():
    """Give the freed case's tensors back (the next case may be large)."""
    try:
        import torch
    except ImportError:
        return
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def print_table(family: str, cases: list, seconds: float | None = None):
    names = ["kdsl"] + sorted({n for c in cases for n in c.runners} - {"kdsl"})
    unit = next((c.unit for c in cases if c.unit), "")
    took = "" if seconds is None else f", {seconds:.0f} s"
    print(f"\n== {family} ({unit}{took}) ==")
    # a column as wide as its peer's name needs ("kdsl per-tensor"), 10 at least;
    # the case column as wide as the longest label
    widths = [max(10, len(n) + 2) for n in names]
    lw = max([28] + [len(c.label) + 2 for c in cases])
    head = "".join(f"{n:>{w}s}" for n, w in zip(names, widths))
    print(f"{'case':{lw}s}{head}{'ratio':>8s}")
    for c in cases:
        cells = "".join(
            f"{rate(c, n):{w}.2f}" if n in c.results else f"{'-':>{w}s}"
            for n, w in zip(names, widths)
        )
        print(f"{c.label:{lw}s}{cells}{c.ratio:8.2f}  {c.note}")


def rate(case, name: str) -> float:
    """A case's throughput (a Row, which did not run, has none).  By duck
    type: run as a script, this module is ``__main__`` and the families'
    cases are ``suite.Case``, another class (session 8's sweep recorded NaN
    rates so)."""
    return case.rate(name) if hasattr(case, "rate") else float("nan")


def plot(family: str, cases: list, out_dir: Path, sweep: bool = False):
    """One panel per series: throughput of kdsl and of each peer against the
    case's x (log2; a default run) or case by case along the grid, each
    labelled with its shape (a sweep, whose shapes are no one axis)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cases = [c for c in cases if c.results]
    if not cases:
        return
    series = sorted({c.series for c in cases})
    width = max(5, max(sum(c.series == s for c in cases) for s in series) * 0.45)
    fig, axes = plt.subplots(
        1, len(series), figsize=(width * len(series), 4.5), squeeze=False
    )
    for ax, s in zip(axes[0], series):
        mine = [c for c in cases if c.series == s]  # a sweep: in its grid's order
        if not sweep:
            mine.sort(key=lambda c: c.x)
        where = {id(c): i for i, c in enumerate(mine)}
        for name in sorted({n for c in mine for n in c.results}):
            pts = [
                (where[id(c)] if sweep else c.x, c.rate(name))
                for c in mine
                if name in c.results
            ]
            style = dict(marker="o", linewidth=2.5 if name == "kdsl" else 1.2)
            ax.plot(*zip(*pts), label=name, **style)
        if sweep:
            ax.set_xticks(range(len(mine)))
            ax.set_xticklabels(
                [c.label.removeprefix(s).strip() for c in mine],
                rotation=60,
                ha="right",
                fontsize=7,
            )
        else:
            ax.set_xscale("log", base=2)
        ax.set_title(f"{family} {s}")
        ax.set_ylabel(mine[0].unit)
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=8)
        ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(out_dir / f"{family.replace(' ', '_')}.png", dpi=90)
    plt.close(fig)


def sweep_grid(module) -> list:
    """The family's sweep: ``(label, build)`` pairs, each build making one
    :class:`Case` (tensors allocated then, on the GPU machine)."""
    return list(module.sweep())


def shares(grids: dict, budget: float) -> dict:
    """Each family's share of ``budget`` seconds, by its cases' weight
    (``SWEEP_WEIGHT``, the seconds one of its cases is expected to take)."""
    weight = {f: len(g) * w for f, (g, w) in grids.items()}
    total = sum(weight.values()) or 1.0
    return {f: budget * weight[f] / total for f in grids}


def to_json(c) -> dict:
    return {
        "label": c.label,
        "series": c.series,
        "x": c.x,
        "unit": c.unit,
        "rates": {n: rate(c, n) for n in c.results},
        "ms": c.results,
        "ratio": c.ratio,
        "note": c.note,
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer, smaller sizes")
    ap.add_argument("--family", nargs="*", help="only these family modules")
    ap.add_argument("--sweep", action="store_true", help="each family's shape sweep")
    ap.add_argument(
        "--budget",
        type=float,
        default=None,
        help="seconds for the whole sweep (default 330 with --sweep)",
    )
    ap.add_argument(
        "--list", action="store_true", help="print the sweep grid, run nothing"
    )
    args = ap.parse_args(argv)
    out_dir = Path(os.environ.get("OUT") or ROOT / "benchmarks" / "plots")
    modules = list(family_modules(args.family))
    if args.sweep or args.list:
        grids = {
            m.FAMILY: (sweep_grid(m), getattr(m, "SWEEP_WEIGHT", 1.0)) for m in modules
        }
        if args.list:
            print_grid(grids)
            return
        TIMING.update(warmup=10, rep=50)
        budget = 330.0 if args.budget is None else args.budget
    out_dir.mkdir(parents=True, exist_ok=True)
    report = {}
    started = time.monotonic()
    for i, module in enumerate(modules):
        t0 = time.monotonic()
        if args.sweep:
            # the seconds left, shared among this family and those after it
            left = {m.FAMILY: grids[m.FAMILY] for m in modules[i:]}
            seconds = shares(left, budget - (t0 - started))[module.FAMILY]
            cases = run_sweep(module.FAMILY, grids[module.FAMILY][0], max(seconds, 0))
        else:
            try:
                cases = [run_case(c) for c in module.cases(args.quick)]
            except Exception as exc:
                print(f"\n== {module.FAMILY}: FAILED {type(exc).__name__}: {exc}")
                report[module.FAMILY] = {"error": f"{type(exc).__name__}: {exc}"}
                continue
        took = time.monotonic() - t0
        print_table(module.FAMILY, cases, took)
        try:
            plot(module.FAMILY, cases, out_dir, sweep=args.sweep)
        except Exception as exc:  # no matplotlib: the tables still count
            print(f"(no plot: {type(exc).__name__}: {exc})")
        report[module.FAMILY] = {
            "seconds": round(took, 1),
            "sweep": args.sweep,
            "cases": [to_json(c) for c in cases],
        }
        (out_dir / "suite.json").write_text(json.dumps(report, indent=2))
    print(f"\nsuite: {time.monotonic() - started:.0f} s")
    (out_dir / "suite.json").write_text(json.dumps(report, indent=2))


def print_grid(grids: dict):
    """The sweep's cases and the seconds they are expected to take (each
    family's ``SWEEP_WEIGHT`` a case)."""
    total = 0.0
    for family, (grid, weight) in grids.items():
        total += len(grid) * weight
        print(f"== {family}: {len(grid)} cases, ~{len(grid) * weight:.0f} s")
        for label, _ in grid:
            print(f"  {label}")
    print(f"total: {sum(len(g) for g, _ in grids.values())} cases, ~{total:.0f} s")


if __name__ == "__main__":
    main()
