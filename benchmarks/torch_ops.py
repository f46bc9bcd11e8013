"""What a kdsl operator costs a PyTorch program, per call, in one process
(issue 27; docs/pytorch.md, "What a call costs").

    python benchmarks/torch_ops.py [--sizes small,large] [--out DIR]
                                   [--ops gelu,softmax,layer_norm]
    python benchmarks/torch_ops.py --smoke     # CPU tensors, tiny, no timing targets

For gelu, softmax and layer norm (the examples' operators, examples/pytorch/
ops.py) on a small (64 x 1024) and a large (8192 x 8192) tensor, each path's
result is checked against PyTorch's first, then timed:

  torch            PyTorch's own operator, eager
  torch compiled   torch.compile of PyTorch's operator (small tensors only)
  triton           a Triton kernel of the same computation (gelu, softmax),
                   if triton imports
  kdsl bare        kernel[grid, block](..., **config): the tuned config, launched plainly
  kdsl tuned       tuned[grid_fn, block_fn](...): the autotuned launch, key cached
  kdsl host fn     the example's host function (its checks, then the tuned launch)
  kdsl op          the kdsl.torch operator, eager (the fast path)
  kdsl dispatcher  the same operator through torch.library (op.op(...))
  kdsl torch.ops   torch.ops.kdsl_examples.<op>.default(x) under no_grad: the
                   call a compiled graph makes (the dispatcher crossing alone)
  triton op        a torch.library.triton_op of the Triton kernel (gelu), and
                   'triton op compiled', its torch.compile, beside kdsl's
  kdsl compiled    torch.compile(fullgraph=True) of the operator (small only);
                   'overhead' is that graph less the same graph without it
  kdsl graph       the operator captured in a CUDA graph, replayed
  kdsl fn in graph the time inside the function 'kdsl compiled''s graph calls
                   (``_kdsl_cuda``) per call, and 'kdsl fn eager' the same
                   function called eagerly under no_grad, and 'kdsl fn eager,
                   cold' the same after each call of 'empty compiled'
                   (benchmarks/graph_split.py: perf_counter_ns around each
                   call, median)

and forward + backward (``op(x).sum().backward()``, Float32) for torch,
kdsl op and kdsl dispatcher, the forward alone on inputs that require grad
('torch forward', 'kdsl op forward') and, on the GPU, forward + backward
with the autograd engine on the calling thread ('... 1 thread').  For gelu, small, the steps of one launch are
timed alone ("launch steps"): PyTorch's stream queries, CuPy's device
query, an output allocation, the plan's packing and launch through the
driver (kdsl's launch) and through CuPy's ``Function`` (the launch before
it, ``KDSL_CUPY_LAUNCH=1``), ``cuLaunchKernel`` alone, and two
``cuLaunchKernel`` calls: of one function, or of two functions in turn (as
a compiled graph launches its own kernel and the operator's).  Host
microseconds per call: many calls in a loop, synchronised at the end, rounds interleaved, median of the rounds;
GPU microseconds per call: CUDA events around the same loop (for small
tensors the loop is host-bound and the two agree).  Prints a table and the
issue's targets (tuned <= 1.2 x bare, op <= 1.5 x torch, forward + backward
<= 1.5 x torch, compiled overhead <= 5 us), each ratio or difference the
median over the rounds of the two paths timed in the same round (the host's
speed drifts between rounds), writes torch_ops.json and, with
matplotlib, torch_ops.png into --out (default $OUT, else benchmarks/plots).
Budget: under 150 s on an H200 (compiles are skipped past 100 s).
"""

from __future__ import annotations

import argparse
import json
import operator
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# the examples, not the repository root: on the device, kdsl is the laid-out
# package on PYTHONPATH (benchmarks/device_env.sh), which the root's kdsl/
# folder would shadow
sys.path.insert(0, str(ROOT / "examples"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

sys.path.append(str(ROOT / "benchmarks"))  # (after the laid-out kdsl)
from graph_split import inside_the_graph  # noqa: E402


def _example_ops():
    """examples/pytorch/ops.py, loaded once a process (its operators register
    with PyTorch when it runs) under the name the tests load it by."""
    import importlib.util

    module = sys.modules.get("kdsl_example_ops")
    if module is None:
        spec = importlib.util.spec_from_file_location(
            "kdsl_example_ops", ROOT / "examples" / "pytorch" / "ops.py"
        )
        module = sys.modules["kdsl_example_ops"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return module


ops = _example_ops()
import gelu as G  # noqa: E402
import layer_norm as LN  # noqa: E402
import softmax as S  # noqa: E402

START = time.perf_counter()
COMPILE_UNTIL = 100.0  # seconds into the run after which nothing more is compiled
SIZES = {"small": (64, 1024), "large": (8192, 8192)}


# -- timing ---------------------------------------------------------------------------
def sync(device):
    if device == "cuda":
        torch.cuda.synchronize()


class Timings(dict):
    """``{path: (host us, gpu us)}``, the medians of the rounds, and
    ``rounds``: each path's host us in each round."""

    rounds: dict


def timed(paths: dict, device: str, calls: int, rounds: int = 5) -> Timings:
    """``{name: (host us, gpu us)}`` per call of each path: ``calls`` calls a
    round, the rounds interleaved, the median round (Timings: the rounds
    too)."""
    for fn in paths.values():  # warm: compiles, searches, caches
        for _ in range(3):
            fn()
    sync(device)
    host = {name: [] for name in paths}
    gpu = {name: [] for name in paths}
    for _ in range(rounds):
        for name, fn in paths.items():
            if device == "cuda":
                start, end = torch.cuda.Event(True), torch.cuda.Event(True)
                start.record()
            t = time.perf_counter()
            for _ in range(calls):
                fn()
            if device == "cuda":
                end.record()
            sync(device)
            host[name].append((time.perf_counter() - t) / calls * 1e6)
            if device == "cuda":
                gpu[name].append(start.elapsed_time(end) * 1e3 / calls)
    out = Timings(
        (
            name,
            (
                statistics.median(host[name]),
                statistics.median(gpu[name]) if gpu[name] else float("nan"),
            ),
        )
        for name in paths
    )
    out.rounds = host
    return out


def paired(rows, a: str, b: str, how) -> float:
    """``how(a's host us, b's)`` — their ratio or difference — as the median
    over the rounds of the two timed in the same round (the host's speed
    drifts between rounds by more than some gaps the targets ask about;
    within a round both see the same host), or of the medians where the
    rounds were not kept."""
    rounds = getattr(rows, "rounds", {})
    if a in rounds and b in rounds:
        return statistics.median(how(x, y) for x, y in zip(rounds[a], rounds[b]))
    return how(rows[a][0], rows[b][0])


_ratio, _less = operator.truediv, operator.sub


def compiling_allowed() -> bool:
    return time.perf_counter() - START < COMPILE_UNTIL


# -- Triton (optional) ------------------------------------------------------------------
def triton_kernels():
    """``{op: launch(x, y)}`` of Triton kernels, or {} without Triton."""
    try:
        import triton
        import triton.language as tl
    except Exception:  # noqa: BLE001 - not installed here
        return {}

    @triton.jit
    def gelu_k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        v = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
        u = 0.7978845608028654 * (v + 0.044715 * v * v * v)
        t = 2.0 * tl.sigmoid(2.0 * u) - 1.0  # tanh(u)
        tl.store(
            y_ptr + offs, (0.5 * v * (1.0 + t)).to(y_ptr.dtype.element_ty), mask=mask
        )

    @triton.jit
    def softmax_k(x_ptr, y_ptr, cols, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        offs = tl.arange(0, BLOCK)
        mask = offs < cols
        v = tl.load(x_ptr + row * cols + offs, mask=mask, other=-float("inf"))
        v = v.to(tl.float32)
        e = tl.exp(v - tl.max(v, axis=0))
        out = e / tl.sum(e, axis=0)
        tl.store(y_ptr + row * cols + offs, out.to(y_ptr.dtype.element_ty), mask=mask)

    def gelu(x, y):
        n = x.numel()
        gelu_k[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)

    def softmax(x, y):
        rows, cols = x.shape
        softmax_k[(rows,)](x, y, cols, BLOCK=triton.next_power_of_2(cols))

    kernels = {"gelu": gelu, "softmax": softmax}
    try:  # the same gelu kernel as an operator Inductor launches itself
        from torch.library import triton_op, wrap_triton

        @triton_op("kdsl_bench::triton_gelu", mutates_args=())
        def triton_gelu(x: torch.Tensor) -> torch.Tensor:
            y = torch.empty_like(x)
            n = x.numel()
            wrap_triton(gelu_k)[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
            return y

        kernels["gelu op"] = triton_gelu
    except Exception as e:  # noqa: BLE001 - an older PyTorch: no triton_op
        print(f"no triton_op: {e}")
    return kernels


# -- the three operators -----------------------------------------------------------------
def reference(name, x, w):
    if name == "gelu":
        return F.gelu(x, approximate="tanh")
    if name == "softmax":
        return torch.softmax(x, dim=-1)
    return F.layer_norm(x, (x.shape[-1],), w, None, 1e-5)


def kdsl_op(name):
    if name == "layer_norm":
        return lambda x, w: ops.layer_norm(x, w, None, 1e-5)
    op = getattr(ops, name)
    return lambda x, w: op(x)


def dispatcher_op(name):
    op = getattr(ops, name).op
    if name == "layer_norm":
        return lambda x, w: op(x, w, None, 1e-5)
    return lambda x, w: op(x)


def launches(name, x, y, w):
    """``(bare, tuned, host function)`` launch closures of the forward
    kernel on x -> y (GPU only)."""
    if name == "gelu":
        n = x.numel()
        tuned = G.gelu_tuned
        grid, block = G._grid_of(n, x.itemsize)
        args = (x, y, n)
        host = lambda: G.launch_gelu(x, y)  # noqa: E731
        kernel = G.gelu
        make = lambda: G._grid_of(n, x.itemsize)  # noqa: E731
    else:
        rows, cols = x.shape
        if name == "softmax":
            tuned, kernel = S.softmax_rows_tuned, S.softmax_rows
            args = (x, y, rows, cols)
            host = lambda: S.softmax(x, y, online=False)  # noqa: E731
        else:
            tuned, kernel = LN.layer_norm_tuned, LN.layer_norm
            args = (x, w, None, y, rows, cols, 1e-5)
            host = lambda: LN.launch(x, w, None, y, 1e-5)  # noqa: E731

        def make():
            return (
                lambda m: (rows + m["ROWS"] - 1) // m["ROWS"],
                lambda m: (32 * m["WARPS"], m["ROWS"]),
            )

        grid, block = make()
    host()  # searches (if this key is new) and launches once
    config = tuned.best_config(*args).constexprs
    meta = {**tuned._defaults(), **config}
    g, b = grid(meta), block(meta)
    launcher = kernel[g, b]

    def bare():
        launcher(*args, **config)

    def tuned_launch():
        gf, bf = make()
        tuned[gf, bf](*args)

    return bare, tuned_launch, host


def graphed(fn, device):
    """``fn`` captured in a CUDA graph: the replay."""
    fn()
    sync(device)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    return graph.replay


def forward_rows(name, shape, device, dtype, triton, smoke):
    rows, cols = shape
    x = torch.randn(rows, cols, device=device, dtype=dtype)
    w = torch.randn(cols, device=device, dtype=dtype)
    y = torch.empty_like(x)
    want = reference(name, x.float(), w.float())
    op, via = kdsl_op(name), dispatcher_op(name)
    paths = {
        "torch": lambda: reference(name, x, w),
        "kdsl op": lambda: op(x, w),
        "kdsl dispatcher": lambda: via(x, w),
    }
    inductor_call = getattr(torch.ops.kdsl_examples, name).default
    args = (x, w, None, 1e-5) if name == "layer_norm" else (x,)

    def torch_ops():
        with torch.no_grad():
            return inductor_call(*args)

    paths["kdsl torch.ops"] = torch_ops
    small = shape == SIZES["small"]
    compiled = {}
    if device == "cuda":
        bare, tuned, host = launches(name, x, y, w)
        paths.update({"kdsl bare": bare, "kdsl tuned": tuned, "kdsl host fn": host})
        if name in triton:
            yt = torch.empty_like(x)
            paths["triton"] = lambda: triton[name](x, yt)
        if f"{name} op" in triton:
            paths["triton op"] = (lambda t: lambda: t(x))(triton[f"{name} op"])
        paths["kdsl graph"] = graphed(lambda: op(x, w), device)
        paths["torch graph"] = graphed(lambda: reference(name, x, w), device)
        if small and compiling_allowed():
            compiled = {
                "torch compiled": torch.compile(
                    lambda v, u: reference(name, v, u) * 2.0, fullgraph=True
                ),
                "kdsl compiled": torch.compile(
                    lambda v, u: op(v, u) * 2.0, fullgraph=True
                ),
                "empty compiled": torch.compile(lambda v, u: v * 2.0, fullgraph=True),
            }
            if f"{name} op" in triton:
                compiled["triton op compiled"] = torch.compile(
                    (lambda t: lambda v, u: t(v) * 2.0)(triton[f"{name} op"]),
                    fullgraph=True,
                )
            if name == "gelu":
                compiled["kdsl compiled ro"] = torch.compile(
                    lambda v, u: op(v, u) * 2.0, fullgraph=True, mode="reduce-overhead"
                )
                compiled["empty compiled ro"] = torch.compile(
                    lambda v, u: v * 2.0, fullgraph=True, mode="reduce-overhead"
                )
    for label, fn in compiled.items():
        paths[label] = (lambda f: lambda: f(x, w))(fn)
    tol = 2e-2 if dtype == torch.bfloat16 else 1e-5
    scale = want.abs().max().item()
    for label, fn in paths.items():  # checked before timing
        if label in ("kdsl bare", "kdsl tuned", "kdsl host fn"):
            y.fill_(float("nan"))  # written by this launch, not an earlier one
        got = fn()
        if label.startswith("empty") or label.endswith("graph"):
            continue
        if label in ("kdsl bare", "kdsl tuned", "kdsl host fn"):
            got = y
        elif label == "triton":
            got = yt  # noqa: F821 - set with the path
        if "compiled" in label:
            got = got / 2.0
        err = (got.float() - want).abs().max().item()
        if err > tol * max(1.0, scale):
            raise SystemExit(f"{name} {shape} {label}: max error {err} (tol {tol})")
    calls = 20 if smoke else (2000 if small else 20)
    rows = timed(paths, device, calls, rounds=3 if smoke else 5)
    if "kdsl compiled" in compiled:  # where the compiled graph's op spends it
        split = inside_the_graph(
            paths["kdsl compiled"],
            inductor_call,
            "_kdsl_cuda",
            args,
            rounds=3,
            between=paths["empty compiled"],
        )
        rows.update({f"kdsl {k}": (v, float("nan")) for k, v in split.items()})
    return rows


def launch_steps(shape, dtype) -> dict:
    """The steps of one gelu launch on PyTorch tensors, each timed alone."""
    import numpy as np
    import cupy
    from cupy.cuda import driver
    from kdsl.runtime import launch as lmod

    x = torch.randn(*shape, device="cuda", dtype=dtype)
    y = torch.empty_like(x)
    n = x.numel()
    G.launch_gelu(x, y)  # searched, compiled, loaded
    config = G.gelu_tuned.best_config(x, y, n).constexprs
    grid_fn, block_fn = G._grid_of(n, x.itemsize)
    meta = {**G.gelu_tuned._defaults(), **config}
    launcher = G.gelu[grid_fn(meta), block_fn(meta)]
    launcher(x, y, n, **config)

    def plan_of(launcher):
        """``(plan, block)`` the launcher calls (one plan may be kept under
        several keys of the kernel's)."""
        ((launch, block),) = launcher.plans.values()
        return next(p for p in G.gelu._plans.values() if p.launch is launch), block

    plan, block = plan_of(launcher)
    grid = launcher.grid
    os.environ["KDSL_CUPY_LAUNCH"] = "1"
    try:  # the same plan's launch function as CuPy's Function launched it
        via_cupy = lmod._generate(
            plan.kernel,
            plan.instance,
            plan.device,
            plan.function,
            plan.alignment,
            plan.loaded,
        )
    finally:
        del os.environ["KDSL_CUPY_LAUNCH"]
    # a second function of the same parameters (another config of gelu):
    # two functions launched in turn, as a compiled graph launches its own
    # kernel and the operator's, against one function launched twice
    other = next(c.constexprs for c in G.GELU_CONFIGS if c.constexprs != config)
    other_meta = {**meta, **other}
    other_launcher = G.gelu[grid_fn(other_meta), block_fn(other_meta)]
    other_launcher(x, y, n, **other)
    other_plan, other_block = plan_of(other_launcher)
    other_fptr = other_plan.loaded.ptr
    og = (*other_launcher.grid, 1, 1)[:3]
    ob = (*other_block, 1, 1)[:3]
    driven = plan.launch
    values, addresses = driven.__globals__["_parameters"].buffer
    stream = torch.cuda.current_stream().cuda_stream
    fptr, g, b = plan.loaded.ptr, (*grid, 1, 1)[:3], (*block, 1, 1)[:3]
    args = (x, y, n)
    packed = (np.uintp(x.data_ptr()), np.uintp(y.data_ptr()), np.int32(n))
    cupy_stream = lmod._external_stream(stream)
    paths = {
        "torch raw stream": lambda: torch._C._cuda_getCurrentRawStream(0),
        "torch current_stream()": lambda: torch.cuda.current_stream(),
        "cupy getDevice": cupy.cuda.runtime.getDevice,
        "torch.empty_like": lambda: torch.empty_like(x),
        "plan launch, driver": lambda: driven(grid, block, args, None, 0),
        "plan launch, CuPy": lambda: via_cupy(grid, block, args, None, 0),
        "CuPy Function call": lambda: plan.loaded(grid, block, packed, 0, cupy_stream),
        "cuLaunchKernel alone": lambda: driver.launchKernel(
            fptr, *g, *b, 0, stream, addresses, 0
        ),
        "cuLaunchKernel, one function twice": lambda: (
            driver.launchKernel(fptr, *g, *b, 0, stream, addresses, 0),
            driver.launchKernel(fptr, *g, *b, 0, stream, addresses, 0),
        ),
        "cuLaunchKernel, two functions in turn": lambda: (
            driver.launchKernel(fptr, *g, *b, 0, stream, addresses, 0),
            driver.launchKernel(other_fptr, *og, *ob, 0, stream, addresses, 0),
        ),
        "bare launch": lambda: launcher(x, y, n, **config),
        "torch gelu": lambda: F.gelu(x, approximate="tanh"),
    }
    for label in ("plan launch, driver", "plan launch, CuPy", "CuPy Function call"):
        y.fill_(float("nan"))
        paths[label]()
        err = (y.float() - F.gelu(x.float(), approximate="tanh")).abs().max().item()
        if not err < 2e-2 * max(1.0, x.float().abs().max().item()):
            raise RuntimeError(f"launch steps: {label} wrote a wrong result ({err})")
    return timed(paths, "cuda", 2000)


def backward_rows(name, shape, device, smoke):
    rows, cols = shape
    dtype = torch.float64 if smoke else torch.float32
    x = torch.randn(rows, cols, device=device, dtype=dtype, requires_grad=True)
    w = torch.randn(cols, device=device, dtype=dtype, requires_grad=True)
    op, via = kdsl_op(name), dispatcher_op(name)
    ref = reference(name, x, w)
    (gw,) = torch.autograd.grad((ref * ref).sum(), x)
    for f in (op, via):  # checked first
        out = f(x, w)
        (g,) = torch.autograd.grad((out * out).sum(), x)
        err = (g - gw).abs().max().item()
        if err > 1e-3 * max(1.0, gw.abs().max().item()):
            raise SystemExit(f"{name} {shape} backward: max error {err}")

    def step(f):
        def run():
            f(x, w).sum().backward()

        return run

    paths = {
        "torch": step(lambda v, u: reference(name, v, u)),
        "kdsl op": step(op),
        "kdsl dispatcher": step(via),
        # the forward alone (saving for the backward), and both with the
        # autograd engine's backward on this thread (not its CUDA device
        # thread): where the difference is
        "torch forward": lambda: reference(name, x, w),
        "kdsl op forward": lambda: op(x, w),
    }
    if device == "cuda" and hasattr(torch.autograd, "set_multithreading_enabled"):
        for label in ("torch", "kdsl op"):
            paths[f"{label} 1 thread"] = on_this_thread(paths[label])
    small = shape == SIZES["small"]
    calls = 10 if smoke else (500 if small else 10)
    return timed(paths, device, calls, rounds=3 if smoke else 5)


def on_this_thread(run):
    """``run`` with the autograd engine's backward on the calling thread."""

    def inner():
        with torch.autograd.set_multithreading_enabled(False):
            run()

    return inner


# -- the report ------------------------------------------------------------------------
TARGETS = [
    ("autotuned launch / bare launch", "kdsl tuned", "kdsl bare", 1.2),
    ("eager op / torch", "kdsl op", "torch", 1.5),
]


def verdicts(results: dict) -> list:
    lines = []
    for (name, size, part), rows in results.items():
        if size != "small" or part == "launch steps":
            continue
        if part == "forward":
            for what, a, b, limit in TARGETS:
                if a in rows and b in rows:
                    r = paired(rows, a, b, _ratio)
                    ok = "met" if r <= limit else "NOT met"
                    lines.append(f"{name:10s} {what:32s} {r:5.2f} (<= {limit}) {ok}")
            if "triton op compiled" in rows and "empty compiled" in rows:
                d = paired(rows, "triton op compiled", "empty compiled", _less)
                what = "triton_op compiled overhead"
                lines.append(f"{name:10s} {what:32s} {d:5.1f} us (for comparison)")
            if "kdsl compiled" in rows and "torch compiled" in rows:
                d = paired(rows, "kdsl compiled", "torch compiled", _less)
                what = "compiled: kdsl op - torch's"
                lines.append(f"{name:10s} {what:32s} {d:5.1f} us (for comparison)")
            if "kdsl fn in graph" in rows and "empty compiled" in rows:
                d = paired(rows, "kdsl compiled", "empty compiled", _less)
                inside = rows["kdsl fn in graph"][0]
                eager = rows["kdsl fn eager"][0]
                what = "compiled overhead: fn / rest"
                cold = rows.get("kdsl fn eager, cold", (float("nan"),))[0]
                lines.append(
                    f"{name:10s} {what:32s} {inside:5.1f} / {d - inside:5.1f} us"
                    f" (the fn eagerly {eager:5.1f}, after a graph {cold:5.1f})"
                )
            for kind in ("", " ro"):
                a, b = f"kdsl compiled{kind}", f"empty compiled{kind}"
                if a in rows and b in rows:
                    d = paired(rows, a, b, _less)
                    ok = "met" if d <= 5.0 else "NOT met"
                    what = "compiled overhead" + (" (reduce-overhead)" if kind else "")
                    lines.append(f"{name:10s} {what:32s} {d:5.1f} us (<= 5) {ok}")
        elif "kdsl op" in rows:
            r = paired(rows, "kdsl op", "torch", _ratio)
            ok = "met" if r <= 1.5 else "NOT met"
            what = "forward+backward / torch"
            lines.append(f"{name:10s} {what:32s} {r:5.2f} (<= 1.5) {ok}")
    return lines


def table(results: dict) -> str:
    out = []
    for (name, size, part), rows in results.items():
        out.append(f"{name} {size} {part}:")
        for label, (host, gpu) in rows.items():
            out.append(f"  {label:20s} host {host:9.2f} us   gpu {gpu:9.2f} us")
    return "\n".join(out)


def plot(results: dict, path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception:  # noqa: BLE001 - optional
        return
    small = [(k, v) for k, v in results.items() if k[1] == "small"]
    fig, axes = plt.subplots(1, len(small), figsize=(4 * len(small), 4), squeeze=False)
    for ax, ((name, size, part), rows) in zip(axes[0], small):
        labels = list(rows)
        ax.barh(labels, [rows[k][0] for k in labels])
        ax.set_title(f"{name} {part} ({size})", fontsize=9)
        ax.set_xlabel("host us per call")
        ax.tick_params(labelsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="small,large")
    parser.add_argument(
        "--out", default=os.environ.get("OUT") or ROOT / "benchmarks/plots"
    )
    parser.add_argument(
        "--ops", default="gelu,softmax,layer_norm", help="which operators, in order"
    )
    parser.add_argument("--smoke", action="store_true", help="CPU tensors, tiny sizes")
    args = parser.parse_args()
    device = "cpu" if args.smoke else "cuda"
    if args.smoke:
        SIZES["small"] = (4, 64)
        SIZES["large"] = (8, 128)
    triton = triton_kernels() if device == "cuda" else {}
    dtype = torch.float64 if args.smoke else torch.bfloat16
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results = {}
    if device == "cuda" and "small" in args.sizes:
        try:
            steps = launch_steps(SIZES["small"], dtype)
            results[("gelu", "small", "launch steps")] = steps
        except Exception as e:  # noqa: BLE001 - the other rows still run
            print(f"launch steps failed: {type(e).__name__}: {e}")
        print(f"[{time.perf_counter() - START:6.1f} s] launch steps", flush=True)
    for size in args.sizes.split(","):
        shape = SIZES[size]
        for name in args.ops.split(","):
            results[(name, size, "forward")] = forward_rows(
                name, shape, device, dtype, triton, args.smoke
            )
            save(results, device, out)
            results[(name, size, "forward+backward")] = backward_rows(
                name, shape, device, args.smoke
            )
            print(f"[{time.perf_counter() - START:6.1f} s] {name} {size}", flush=True)
            save(results, device, out)  # what is done so far, should time run out
    print(table(results))
    print("\ntargets (small tensors, host time):")
    print("\n".join(verdicts(results)))
    plot(results, out / "torch_ops.png")
    print(f"total {time.perf_counter() - START:.1f} s")


def save(results: dict, device: str, out: Path) -> None:
    data = {
        " ".join(k): {
            label: {
                "host_us": h,
                "gpu_us": g,
                "host_us_rounds": getattr(v, "rounds", {}).get(label),
            }
            for label, (h, g) in v.items()
        }
        for k, v in results.items()
    }
    data["device"] = torch.cuda.get_device_name() if device == "cuda" else "cpu"
    data["torch"] = torch.__version__
    (out / "torch_ops.json").write_text(json.dumps(data, indent=1))


if __name__ == "__main__":
    main()
