"""Markdown tables for RESULTS.md from a ``suite.json`` that
``benchmarks/suite.py`` wrote (one table per family: throughput of kdsl and
of each peer, and kdsl's ratio to the fastest peer).

    python benchmarks/report.py suite.json > tables.md
"""

from __future__ import annotations

import json
import sys


def tables(report: dict) -> str:
    out = []
    for family, rows in report.items():
        if isinstance(rows, dict):  # {"error": ...}
            out.append(f"**{family}**: failed: {rows['error']}\n")
            continue
        unit = rows[0]["unit"]
        peers = sorted({p for r in rows for p in r["rates"]} - {"kdsl"})
        out.append(f"**{family}** ({unit}; ratio = kdsl / fastest peer)\n")
        out.append("| case | kdsl | " + " | ".join(peers) + " | ratio |")
        out.append("|---" * (len(peers) + 3) + "|")
        for r in rows:
            cells = [f"{r['rates'][p]:.2f}" if p in r["rates"] else "–" for p in peers]
            kdsl = f"{r['rates']['kdsl']:.2f}" if "kdsl" in r["rates"] else "–"
            ratio = r["ratio"]
            ratio = "–" if ratio != ratio else f"{ratio:.2f}"
            out.append(
                f"| {r['label']} | {kdsl} | " + " | ".join(cells) + f" | {ratio} |"
            )
        out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        print(tables(json.load(f)))
