"""Where a compiled graph's kdsl operator spends its time: the function
Inductor's generated code calls (``overload._kdsl_cuda`` or ``_kdsl_cpu``,
kdsl/torch.py) timed around each call, inside the graph and eagerly
(benchmarks/torch_ops.py on the GPU, benchmarks/host_overhead.py on the
stubbed device)."""

from __future__ import annotations

import time

import torch


def inside_the_graph(
    graph, overload, attr, args, rounds=5, calls=2000, between=None
) -> dict:
    """``{"fn in graph": us, "fn eager": us[, "fn eager, cold": us]}``: ``getattr(overload, attr)``
    timed (``perf_counter_ns`` around the call: its own wall time) at each
    call ``graph()`` makes of it, and called eagerly on ``args`` under
    ``no_grad`` (as the graph calls it); the median call, the best round.
    With ``between`` (a compiled graph without the operator), also
    ``"fn eager, cold"``: the eager call made after each call of
    ``between()``, which leaves the host's caches as a compiled call leaves
    them (if it costs what "fn in graph" costs, the difference from "fn
    eager" is the caches', not something the graph does to the call)."""
    fn = overload.__dict__[attr]
    times = []

    def timed(*a, **kwargs):
        t = time.perf_counter_ns()
        out = fn(*a, **kwargs)
        times.append(time.perf_counter_ns() - t)
        return out

    def eager():
        with torch.no_grad():  # (as inside the graph; the graphs are called
            timed(*args)  # as they are, not to be compiled again for no_grad)

    def cold():
        between()
        eager()

    runs = [("fn in graph", graph), ("fn eager", eager)]
    if between is not None:
        runs.append(("fn eager, cold", cold))
    best = {name: float("inf") for name, _ in runs}
    setattr(overload, attr, timed)  # (the graph's code reads it at each call)
    try:
        for _ in range(rounds):
            for name, call in runs:
                times.clear()
                for _ in range(calls):
                    call()
                if len(times) != calls:  # the graph did not call it
                    raise RuntimeError(f"{name}: {len(times)} calls of {attr}")
                best[name] = min(best[name], sorted(times)[calls // 2] / 1e3)
    finally:
        setattr(overload, attr, fn)
    return best
