"""benchmarks/graph_split.py, which splits a compiled graph's kdsl operator
cost into the function Inductor's code calls and the rest (torch_ops.py's
'kdsl fn in graph' rows, host_overhead.py --compiled): it must time the
calls the graph makes, and only those."""

import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

import kdsl  # noqa: E402
import kdsl.torch as kt  # noqa: E402
from kdsl import Float64, Int32, Pointer, block_idx, thread_idx  # noqa: E402

sys.path.append(str(Path(__file__).resolve().parents[2] / "benchmarks"))
from graph_split import inside_the_graph  # noqa: E402


@kdsl.kernel
def twice(x: Pointer[Float64], y: Pointer[Float64], n: Int32):
    i = block_idx.x * 64 + thread_idx.x
    if i < n:
        y[i] = x[i] * 2.0


@kt.op("kdsl_split::twice")
def twice_op(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    n = x.numel()
    twice[kt.blocks(n, 64), 64](x, y, n)
    return y


def test_it_times_each_call_the_compiled_graph_makes_of_the_function():
    x = torch.randn(40, dtype=torch.float64)
    # the operator alone: an elementwise node beside it would cost a C++
    # kernel's build (Inductor on the CPU), 10 s for nothing tested here
    graph = torch.compile(lambda a: twice_op(a), fullgraph=True)
    assert torch.equal(graph(x), x * 2.0)
    overload = torch.ops.kdsl_split.twice.default
    fn = overload._kdsl_cpu
    seen, between = [], []
    split = inside_the_graph(
        lambda: seen.append(graph(x)),
        overload,
        "_kdsl_cpu",
        (x,),
        rounds=2,
        calls=3,
        between=lambda: between.append(1),
    )
    assert sorted(split) == ["fn eager", "fn eager, cold", "fn in graph"]
    assert all(0.0 < us < float("inf") for us in split.values())
    assert len(seen) == 6 and all(torch.equal(y, x * 2.0) for y in seen)
    assert len(between) == 6  # once before each cold call
    assert overload._kdsl_cpu is fn  # put back


def test_a_graph_that_does_not_call_the_function_is_refused():
    x = torch.randn(40, dtype=torch.float64)
    overload = torch.ops.kdsl_split.twice.default
    fn = overload._kdsl_cpu
    with pytest.raises(RuntimeError, match="fn in graph: 0 calls of _kdsl_cpu"):
        inside_the_graph(lambda: x * 2.0, overload, "_kdsl_cpu", (x,), calls=3)
    assert overload._kdsl_cpu is fn
