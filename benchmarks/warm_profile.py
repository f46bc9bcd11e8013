"""Where the first launch in a new process with a warm cache spends its time.

python benchmarks/warm_profile.py   (run twice: the first run warms the cache)
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

import cupy as cp  # noqa: E402

import vector_add as va  # noqa: E402
from kdsl.runtime import compile as kc  # noqa: E402
from kdsl.runtime.launch import LaunchPlan  # noqa: E402

x = cp.ones(1024, cp.float32)
out = cp.zeros(1024, cp.float32)
cp.cuda.Device().synchronize()
marks = [("start", time.perf_counter())]
inst = va.vector_add.dispatch("f32")
marks.append(("dispatch", time.perf_counter()))
kc.kdsl_fingerprint()
marks.append(("kdsl fingerprint", time.perf_counter()))
kc.transpiled(inst)
marks.append(("source", time.perf_counter()))
cubin = kc.cubin_for(inst, kc.device_arch(0))
marks.append(("cubin", time.perf_counter()))
plan = LaunchPlan(va.vector_add, inst, 0)
marks.append(("module load + packer", time.perf_counter()))
plan.launch((4,), (256,), (x, x, out, 1024), None, 0)
cp.cuda.Device().synchronize()
marks.append(("first launch + sync", time.perf_counter()))
for (_, a), (name, b) in zip(marks, marks[1:]):
    print(f"{name:24s} {(b - a) * 1e3:7.2f} ms")
print(f"{'total':24s} {(marks[-1][1] - marks[0][1]) * 1e3:7.2f} ms")
