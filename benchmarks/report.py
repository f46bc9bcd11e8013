"""Markdown tables for RESULTS.md from a ``suite.json`` that
``benchmarks/suite.py`` wrote: first a summary, one line a family — its
cases, the WORST ratio of kdsl to the fastest peer and the shape it was
measured at, the median ratio, and the cases that failed or did not run —
then one table per family (throughput of kdsl and of each peer, the ratio).

    python benchmarks/report.py suite.json > tables.md
"""

from __future__ import annotations

import json
import statistics
import sys


def family_rows(entry) -> list | None:
    """The cases of one family in either layout suite.py wrote (a list, or
    ``{"cases": [...], "seconds": ...}``); None for a family that failed."""
    if isinstance(entry, list):
        return entry
    if "error" in entry:
        return None
    return entry["cases"]


def measured(rows: list) -> list:
    """The rows with a ratio (kdsl and a peer both timed)."""
    return [r for r in rows if r["ratio"] == r["ratio"]]


def summary(report: dict) -> str:
    out = [
        "| family | cases | worst ratio | at | median ratio | failed / not run | time |",
        "|---|---|---|---|---|---|---|",
    ]
    for family, entry in report.items():
        rows = family_rows(entry)
        if rows is None:
            out.append(f"| {family} | – | – | – | – | {entry['error'][:60]} | – |")
            continue
        ok = measured(rows)
        others = [r for r in rows if r not in ok]
        failed = sum("FAILED" in r["note"] for r in others)
        skipped = len(others) - failed
        lost = f"{failed} failed, {skipped} not run" if others else "–"
        took = entry.get("seconds") if isinstance(entry, dict) else None
        took = "–" if took is None else f"{took:.0f} s"
        if not ok:
            out.append(f"| {family} | {len(rows)} | – | – | – | {lost} | {took} |")
            continue
        worst = min(ok, key=lambda r: r["ratio"])
        median = statistics.median(r["ratio"] for r in ok)
        out.append(
            f"| {family} | {len(rows)} | {worst['ratio']:.2f} | {worst['label']} "
            f"| {median:.2f} | {lost} | {took} |"
        )
    return "\n".join(out) + "\n"


def tables(report: dict) -> str:
    out = []
    for family, entry in report.items():
        rows = family_rows(entry)
        if rows is None:
            out.append(f"**{family}**: failed: {entry['error']}\n")
            continue
        unit = next((r["unit"] for r in rows if r["unit"]), "")
        peers = sorted({p for r in rows for p in r["rates"]} - {"kdsl"})
        out.append(f"**{family}** ({unit}; ratio = kdsl / fastest peer)\n")
        out.append("| case | kdsl | " + " | ".join(peers) + " | ratio | note |")
        out.append("|---" * (len(peers) + 4) + "|")
        for r in rows:
            cells = [f"{r['rates'][p]:.2f}" if p in r["rates"] else "–" for p in peers]
            kdsl = f"{r['rates']['kdsl']:.2f}" if "kdsl" in r["rates"] else "–"
            ratio = r["ratio"]
            ratio = "–" if ratio != ratio else f"{ratio:.2f}"
            note = r["note"].strip().rstrip(";")[:120]
            out.append(
                f"| {r['label']} | {kdsl} | "
                + " | ".join(cells)
                + f" | {ratio} | {note} |"
            )
        out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        report = json.load(f)
    print(summary(report))
    print(tables(report))
