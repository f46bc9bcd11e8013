"""Host microseconds per call of kdsl's launch paths and kdsl.torch's
operator paths, on a machine WITHOUT a GPU: the device is stubbed (device
-1, whose "tensors" are PyTorch CPU tensors; the loaded CUDA function is a
Python no-op), so what is timed is everything up to the driver call.

    python benchmarks/host_overhead.py [--calls N]

It times gelu (examples/gelu.py, examples/pytorch/ops.py) on a 64 x 16 bf16
tensor (the size does not matter to the host path; a small one keeps
PyTorch's own CPU work out of the forward + backward row):

  plain launch     gelu[grid, block](x, y, n, **config)
  tuned launch     gelu_tuned[grid_fn, block_fn](x, y, n), its key cached
  host function    examples/gelu.py's launch_gelu(x, y)
  op eager         ops.gelu(x)
  op dispatcher    ops.gelu.op(x): through torch.library (on the stub the
                   operator's CPU kernel: the function, not its replay)
  op fwd (grad)    ops.gelu(x) on an input that requires grad
  op fwd+bwd       ops.gelu(x).sum().backward() (Float32)
  op softmax       ops.softmax(x), x 64 x 1024 bf16 (softmax_rows)
  op layer norm    ops.layer_norm(x, w, None, 1e-5), the same x
  torch fwd+bwd    F.gelu(x, approximate="tanh").sum().backward() (Float32,
                   on the CPU: PyTorch's own CPU kernels, for scale only)

Replays run compiled (runtime/native.c) where the host can build it;
``--no-native`` times the Python replays.

With ``--compiled`` (about a minute more: Inductor compiles C++), the
compiled graphs too, one OpenMP thread (``torch.set_num_threads(1)``: with
two, the ``* 2.0`` kernel's threads, woken each call on a shared 2-core
machine, made the graphs 2-5x slower and noisy, and the kdsl graph more so):

  compiled op      torch.compile(lambda v: ops.gelu(v) * 2.0, fullgraph=True)
  compiled ops.    the same graph called as torch.ops.kdsl_examples.gelu.default
  compiled v * 2   torch.compile(lambda v: v * 2.0): the graph without the op
  fn in graph      the time spent inside the function Inductor's code calls
                   (``_kdsl_cpu``, made the GPU's ``_kdsl_cuda``: the stub
                   launches nothing), per call of 'compiled op'
                   (benchmarks/graph_split.py: perf_counter_ns around it,
                   median call, best round)
  fn eager         the same function, called eagerly under no_grad, timed alike
  fn eager, cold   the same, each call made after a call of 'compiled v * 2'

Rounds interleave the paths; each is timed in this thread's CPU time
(``time.thread_time``: time the machine's other tenants take is not
counted), and the minimum round counts.  A real launch adds the driver's
cuLaunchKernel (a few microseconds) to every kdsl row alike.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

import torch  # noqa: E402

from kdsl.runtime import autotune as at  # noqa: E402
from kdsl.runtime import compile as kcompile  # noqa: E402
from kdsl.runtime import kernel as kmod  # noqa: E402
from kdsl.runtime import launch as lmod  # noqa: E402


class _NoLaunch:
    ptr = 0  # the CUfunction the driver-level launch is given

    def __call__(self, grid, block, args, shared_mem, stream, **kw):
        pass


def stub_gpu(cupy_launch=False, native=True):
    """A device -1 whose launches do nothing; ``cupy_launch``: the launch
    functions call CuPy's ``Function`` (stubbed) rather than the driver's
    ``cuLaunchKernel`` (stubbed), so the two packings can be compared;
    ``native``: replays run compiled (runtime/native.c), their
    ``cuLaunchKernel`` libc's ``sched_yield`` (a C function that ignores its
    arguments and returns 0)."""
    from cupy.cuda import driver

    device = lambda: -1  # noqa: E731
    for module in (lmod, kmod, at):
        module.current_device = device
    lmod._get_device = device
    lmod._several_gpus = lambda: True  # the packer compares get_device() to -1
    lmod.torch_stream = lambda d: None
    lmod.raw_stream_query = lambda torch: lambda d: 0
    lmod._is_cupy_function = lambda f: not cupy_launch
    driver.launchKernel = lambda *args: None
    lmod._LIMITS[-1] = 1024
    lmod._BLOCK_DIMS[-1] = (1024, 1024, 64)
    kcompile.load_function = lambda inst, d: _NoLaunch()
    at._device_name = lambda d: "stub"
    at._device_arch = lambda: "sm_90a"
    import kdsl.torch as kt

    kt._on_host = lambda args: False  # CPU tensors launch on the stub
    kt._one_gpu = lambda: True  # (replays keep the stub's packers, as on one GPU)
    kt._interpret = None  # (the CPU kernels and the fast path's CPU branch too)
    inspect = kt._inspect  # (the CPU tensors as the stub's)
    kt._inspect = lambda a, k: (lambda f: f and ("cuda", *f[1:]))(inspect(a, k))
    if native:
        import ctypes

        no_launch = ctypes.cast(ctypes.CDLL(None).sched_yield, ctypes.c_void_p)
        if kt._native_configure(no_launch.value, lambda d: 0) is None:
            from kdsl.runtime import native

            print(f"no compiled replay: {native.why()}")
    else:
        kt._NATIVE["module"] = None


def compiled_paths(ops, x) -> dict:
    """The compiled graphs (see the module's docstring), compiled and run."""
    overload = torch.ops.kdsl_examples.gelu.default
    # the stub's "device" tensors are CPU tensors, so Inductor's code calls
    # _kdsl_cpu (the function with its launches interpreted): on the stub,
    # what the GPU's graphs call, the function itself
    overload._kdsl_cpu = overload._kdsl_cuda
    paths = {
        "compiled op": torch.compile(lambda v: ops.gelu(v) * 2.0, fullgraph=True),
        "compiled ops.": torch.compile(lambda v: overload(v) * 2.0, fullgraph=True),
        "compiled v * 2": torch.compile(lambda v: v * 2.0, fullgraph=True),
    }
    want = ops.gelu(x) * 2.0
    for name, fn in paths.items():  # compiled, and the kdsl graphs checked
        got = fn(x)  # (the stub launches nothing: the output is what the
        if "op" in name and got.shape != want.shape:  # allocation left)
            raise SystemExit(f"{name}: shape {tuple(got.shape)}")
    return {name: (lambda f: lambda: f(x))(fn) for name, fn in paths.items()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument(
        "--compiled", action="store_true", help="the compiled graphs too (slow)"
    )
    parser.add_argument(
        "--no-native", action="store_true", help="replays in Python, not compiled"
    )
    parser.add_argument(
        "--cupy-launch",
        action="store_true",
        help="launch through CuPy's Function (stubbed), not the driver's call",
    )
    args = parser.parse_args()
    stub_gpu(args.cupy_launch, not args.no_native)
    import gelu as G

    spec = importlib.util.spec_from_file_location(
        "kdsl_example_ops", ROOT / "examples" / "pytorch" / "ops.py"
    )
    ops = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ops)
    from kdsl.runtime.autotune import Search

    def searched(x):  # the first config, as if a search had chosen it
        y = torch.empty_like(x)
        n = x.numel()
        for tuned, a in (
            (G.gelu_tuned, (x, y, n)),
            (G.gelu_backward_tuned, (x, y, y, n)),
        ):
            key = tuned._key(a)
            tuned.searches[key] = Search(key, best=0)

    x = torch.randn(64, 16, dtype=torch.bfloat16)
    y = torch.empty_like(x)
    n = x.numel()
    searched(x)
    xg = torch.randn(64, 16, requires_grad=True)
    searched(xg)
    import layer_norm as LN
    import softmax as S

    rows = torch.randn(64, 1024, dtype=torch.bfloat16)
    weight = torch.randn(1024, dtype=torch.bfloat16)
    out = torch.empty_like(rows)
    for tuned, a in (
        (S.softmax_rows_tuned, (rows, out, 64, 1024)),
        (LN.layer_norm_tuned, (rows, weight, None, out, 64, 1024, 1e-5)),
    ):
        key = tuned._key(a)
        tuned.searches[key] = Search(key, best=0)
    config = G.gelu_tuned.configs[0].constexprs
    grid_fn, block_fn = G._grid_of(n, x.itemsize)
    meta = {**G.gelu_tuned._defaults(), **config}
    plain = G.gelu[grid_fn(meta), block_fn(meta)]
    F = torch.nn.functional
    paths = {
        "plain launch": lambda: plain(x, y, n, **config),
        "tuned launch": lambda: G.gelu_tuned[G._grid_of(n, x.itemsize)](x, y, n),
        "host function": lambda: G.launch_gelu(x, y),
        "op eager": lambda: ops.gelu(x),
        "op dispatcher": lambda: ops.gelu.op(x),
        "op fwd (grad)": lambda: ops.gelu(xg),
        "op fwd+bwd": lambda: ops.gelu(xg).sum().backward(),
        "torch fwd+bwd": lambda: F.gelu(xg, approximate="tanh").sum().backward(),
        "op softmax": lambda: ops.softmax(rows),
        "op layer norm": lambda: ops.layer_norm(rows, weight, None, 1e-5),
    }
    if args.compiled:
        torch.set_num_threads(1)
        paths.update(compiled_paths(ops, x))
    best = {name: float("inf") for name in paths}
    for fn in paths.values():
        for _ in range(50):
            fn()
    for _ in range(args.rounds):
        for name, fn in paths.items():
            calls = args.calls // 4 if "bwd" in name else args.calls
            t = time.thread_time()
            for _ in range(calls):
                fn()
            best[name] = min(best[name], (time.thread_time() - t) / calls * 1e6)
    if args.compiled:
        from graph_split import inside_the_graph

        overload = torch.ops.kdsl_examples.gelu.default
        split = inside_the_graph(
            paths["compiled op"],
            overload,
            "_kdsl_cpu",
            (x,),
            between=paths["compiled v * 2"],
        )
        best.update(split)
    for name, us in best.items():
        print(f"{name:16s} {us:8.2f} us")
    print(f"tuned / plain    {best['tuned launch'] / best['plain launch']:8.2f}")


if __name__ == "__main__":
    main()
