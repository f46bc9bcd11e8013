"""kdsl runtime benchmarks (run on a GPU machine; results go to RESULTS.md).

    python benchmarks/bench.py [--quick]

1. cached launch cost: kdsl vs cupy.RawKernel (same source, same arguments)
   vs Triton, host microseconds per launch; and an autotuned launch (kdsl's
   ``launch_add`` vs a ``triton.autotune`` kernel) on PyTorch tensors;
2. cold first call (transpile + compile, empty caches) vs a bare NVRTC
   compile of the same source, and vs Triton's first call;
3. first call in a new process with warm caches;
4. vector_add f32 (scalar and Float32x4) bandwidth vs a device-to-device copy
   and vs a hand-written RawKernel.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

HAND_WRITTEN = r"""
extern "C" __global__ void hand_add(const float* x, const float* y, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = x[i] + y[i];
}
extern "C" __global__ void hand_add4(const float4* x, const float4* y, float4* out, int n4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 a = x[i], b = y[i];
        out[i] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
    }
}
"""


def host_us_per_launch(launches: dict, reps=20000, rounds=9):
    """Median host microseconds per launch for each named launch function.

    The rounds interleave the contenders so that drift of the machine (clock,
    other tenants) affects them alike.
    """
    import cupy as cp

    for launch in launches.values():
        for _ in range(200):
            launch()
    cp.cuda.Device().synchronize()
    samples = {name: [] for name in launches}
    for _ in range(rounds):
        for name, launch in launches.items():
            t = time.perf_counter()
            for _ in range(reps):
                launch()
            samples[name].append((time.perf_counter() - t) / reps * 1e6)
            cp.cuda.Device().synchronize()
    return {name: statistics.median(v) for name, v in samples.items()}


def launch_cost():
    import cupy as cp
    import numpy as np

    import vector_add as va

    n = 1024
    x = cp.ones(n, cp.float32)
    y = cp.ones(n, cp.float32)
    out = cp.zeros(n, cp.float32)
    inst = va.vector_add.dispatch("f32")
    raw = cp.RawKernel(
        inst.source, inst.name, options=("--fmad=false", "-std=c++17"), backend="nvrtc"
    )
    n32 = np.int32(n)
    kd = va.vector_add
    results = host_us_per_launch(
        {
            "kdsl": lambda: kd[4, 256](x, y, out, n),
            "kdsl_instance": lambda: inst[4, 256](x, y, out, n),
            "rawkernel": lambda: raw((4,), (256,), (x, y, out, n32)),
            "rawkernel_int32_per_call": lambda: raw(
                (4,), (256,), (x, y, out, np.int32(n))
            ),
        }
    )
    try:
        import torch
        import triton
        import triton.language as tl

        @triton.jit
        def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            mask = offs < n
            x = tl.load(x_ptr + offs, mask=mask)
            y = tl.load(y_ptr + offs, mask=mask)
            tl.store(out_ptr + offs, x + y, mask=mask)

        @triton.autotune(
            configs=[triton.Config({"BLOCK": b}) for b in (256, 512, 1024)],
            key=["n"],
        )
        @triton.jit
        def add_tuned_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            mask = offs < n
            x = tl.load(x_ptr + offs, mask=mask)
            y = tl.load(y_ptr + offs, mask=mask)
            tl.store(out_ptr + offs, x + y, mask=mask)

        tx = torch.ones(n, device="cuda")
        ty = torch.ones(n, device="cuda")
        to = torch.zeros(n, device="cuda")
        tuned_grid = lambda m: (triton.cdiv(n, m["BLOCK"]),)  # noqa: E731
        results.update(
            host_us_per_launch(
                {
                    "triton": lambda: add_kernel[(4,)](tx, ty, to, n, BLOCK=256),
                    "kdsl_torch": lambda: kd[4, 256](tx, ty, to, n),
                    # autotuned: the configuration's constexprs as keywords
                    "triton_autotuned": lambda: add_tuned_kernel[tuned_grid](
                        tx, ty, to, n
                    ),
                    "kdsl_autotuned": lambda: va.launch_add(tx, ty, to),
                },
                reps=5000,
                rounds=5,
            )
        )
    except Exception as exc:  # noqa: BLE001 - report and go on
        results["triton_error"] = repr(exc)
    return results


COLD = r"""
import os, sys, time
sys.path.insert(0, {examples!r})
t0 = time.perf_counter()
import cupy as cp
import kdsl, vector_add as va
x = cp.ones(1024, cp.float32); out = cp.zeros(1024, cp.float32)
cp.cuda.Device().synchronize()
t = time.perf_counter()
va.vector_add[4, 256](x, x, out, 1024)
cp.cuda.Device().synchronize()
first = time.perf_counter() - t
t = time.perf_counter()
va.vector_add[4, 256](x, x, out, 1024)
cp.cuda.Device().synchronize()
print(first * 1e3, (time.perf_counter() - t) * 1e3)
"""

BARE = r"""
import sys, time
sys.path.insert(0, {examples!r})
import vector_add as va
from cupy.cuda import nvrtc
from kdsl.runtime.nvrtc import cuda_include_dir
src = va.vector_add.dispatch("f32").source
t = time.perf_counter()
p = nvrtc.createProgram(src, "k.cu", [], [])
nvrtc.compileProgram(p, ["-arch=sm_90", "-I" + cuda_include_dir(), "--fmad=false", "-std=c++17", "--device-int128"])
nvrtc.getCUBIN(p)
print((time.perf_counter() - t) * 1e3)
"""

TRITON_COLD = r"""
import time, torch, triton, triton.language as tl
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)
x = torch.ones(1024, device="cuda"); o = torch.zeros(1024, device="cuda")
torch.cuda.synchronize()
t = time.perf_counter()
add_kernel[(4,)](x, x, o, 1024, BLOCK=256)
torch.cuda.synchronize()
print((time.perf_counter() - t) * 1e3)
"""


def _py(code, env, script=None):
    command = (
        [sys.executable, "-P", str(script)]
        if script
        else [sys.executable, "-P", "-c", code]
    )
    out = subprocess.run(
        command,
        env=env,
        cwd="/tmp",
        capture_output=True,
        text=True,
        check=True,
    )
    return [float(v) for v in out.stdout.split()]


def first_calls():
    examples = str(ROOT / "examples")
    results = {
        "cold_ms": [],
        "warm_process_ms": [],
        "bare_nvrtc_ms": [],
        "triton_cold_ms": [],
    }
    for _ in range(5):
        with (
            tempfile.TemporaryDirectory() as cache_dir,
            tempfile.TemporaryDirectory() as tcache,
        ):
            env = dict(os.environ, KDSL_CACHE_DIR=cache_dir, TRITON_CACHE_DIR=tcache)
            results["cold_ms"].append(_py(COLD.format(examples=examples), env)[0])
            results["warm_process_ms"].append(
                _py(COLD.format(examples=examples), env)[0]
            )
            results["bare_nvrtc_ms"].append(_py(BARE.format(examples=examples), env)[0])
            try:
                script = Path(tcache) / "triton_cold.py"  # @triton.jit needs a file
                script.write_text(TRITON_COLD)
                results["triton_cold_ms"].append(
                    _py(script.read_text(), env, script)[0]
                )
            except subprocess.CalledProcessError as exc:
                results["triton_error"] = exc.stderr[-500:]
    return {
        k: statistics.median(v) if isinstance(v, list) and v else v
        for k, v in results.items()
    }


def bandwidth(n=1 << 28):
    import cupy as cp
    import numpy as np

    import vector_add as va

    x = cp.random.random(n, dtype=cp.float32)
    y = cp.random.random(n, dtype=cp.float32)
    out = cp.empty_like(x)
    mod = cp.RawModule(code=HAND_WRITTEN, options=("--fmad=false",))
    hand, hand4 = mod.get_function("hand_add"), mod.get_function("hand_add4")
    bytes_moved = 3 * 4 * n

    def time_ms(fn, reps=20):
        fn()
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        samples = []
        for _ in range(reps):
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            samples.append(cp.cuda.get_elapsed_time(start, stop))
        return statistics.median(samples)

    g = (n + 255) // 256
    g4 = (n // 4 + 255) // 256
    copy_src = cp.random.random(n * 3 // 2, dtype=cp.float32)
    copy_dst = cp.empty_like(copy_src)  # a copy of 1.5n floats moves 3n floats
    runs = {
        "copy": time_ms(lambda: copy_dst.__setitem__(slice(None), copy_src)),
        "kdsl_scalar": time_ms(lambda: va.vector_add[g, 256](x, y, out, n)),
        "kdsl_x4": time_ms(lambda: va.vector_add_x4[g4, 256](x, y, out, n)),
        "hand_scalar": time_ms(lambda: hand((g,), (256,), (x, y, out, np.int32(n)))),
        "hand_x4": time_ms(lambda: hand4((g4,), (256,), (x, y, out, np.int32(n // 4)))),
    }
    va.vector_add_x4[g4, 256](x, y, out, n)
    assert bool(cp.allclose(out, x + y)), "vector_add_x4 is wrong"
    return {k: {"ms": v, "TB/s": bytes_moved / v / 1e9} for k, v in runs.items()}


def main():
    import cupy as cp

    report = {
        "device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
        "launch_us": launch_cost(),
        "first_call": first_calls(),
        "bandwidth": bandwidth(),
    }
    out_dir = os.environ.get("OUT")
    if out_dir:
        Path(out_dir, "bench.json").write_text(json.dumps(report, indent=2))
    L, F, B = report["launch_us"], report["first_call"], report["bandwidth"]
    print(json.dumps(report, indent=2))
    print("\n== summary ==")
    print(
        f"launch: kdsl {L['kdsl']:.2f} us, RawKernel {L['rawkernel']:.2f} us, "
        f"ratio {L['kdsl'] / L['rawkernel']:.2f}; triton {L.get('triton', float('nan')):.2f} us"
    )
    print(
        f"autotuned launch (PyTorch tensors): kdsl {L.get('kdsl_autotuned', float('nan')):.2f} us, "
        f"triton {L.get('triton_autotuned', float('nan')):.2f} us"
    )
    print(
        f"cold first call {F['cold_ms']:.1f} ms vs bare NVRTC {F['bare_nvrtc_ms']:.1f} ms "
        f"(ratio {F['cold_ms'] / F['bare_nvrtc_ms']:.2f}); triton cold {F.get('triton_cold_ms', float('nan')):.1f} ms"
    )
    print(f"warm new process first call {F['warm_process_ms']:.2f} ms")
    for k, v in B.items():
        print(
            f"{k:12s} {v['ms']:.3f} ms  {v['TB/s']:.2f} TB/s  {v['TB/s'] / B['copy']['TB/s']:.3f}x copy"
        )


if __name__ == "__main__":
    main()
