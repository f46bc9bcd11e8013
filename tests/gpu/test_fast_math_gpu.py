"""The fast intrinsics on the GPU (issue 26, item 3): ``kdsl.math.fast_exp``
… ``fast_rsqrt`` over 2**18 inputs (edge cases, subnormals, inf, NaN, every
binade, the ranges the bounds name: tests/fast_math_checks.py) against a
float64 reference, each within its documented bound (docs/types.md, "Fast
intrinsics"), and against the interpreter.  ``pytest -s`` prints the
measured maximum error of each function on each domain, and the largest
GPU-to-interpreter distance:

    python -m pytest -s -q -n 0 tests/gpu/test_fast_math_gpu.py
"""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import fast_math_checks as F  # noqa: E402

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")

N = 1 << 18


@pytest.fixture(scope="module")
def runs():
    x, y = F.inputs(N, seed=26)
    out = cp.zeros(9 * N, np.float32)
    F.fast_all[(N + 255) // 256, 256](cp.asarray(x), cp.asarray(y), out, N)
    gpu = cp.asnumpy(out).reshape(N, 9)
    return x, y, gpu, F.run_interpreter(x, y)


def test_the_gpu_is_within_each_documented_bound(runs):
    x, y, gpu, _ = runs
    results = {
        name: F.measure(name, x, y, gpu[:, k]) for k, name in enumerate(F.FUNCTIONS)
    }
    text = F.table(results)
    print("\nGPU against a float64 reference:\n" + text)
    bad = [(n, r["label"]) for n, rows in results.items() for r in rows if r["bad"]]
    assert not bad, f"outside the documented bound: {bad}\n{text}"


def test_the_interpreter_is_within_each_documented_bound(runs):
    x, y, _, interp = runs
    results = {
        name: F.measure(name, x, y, interp[:, k]) for k, name in enumerate(F.FUNCTIONS)
    }
    bad = [(n, r["label"]) for n, rows in results.items() for r in rows if r["bad"]]
    assert not bad, F.table(results)


def test_the_gpu_against_the_interpreter(runs):
    """Printed for every function: the largest ulp distance where both are
    finite, and whether both give NaN (and infinities) at the same inputs.
    fast_exp, fast_exp2 and fast_exp2_ftz are asserted within 2 ulp: the
    interpreter rounds __expf's multiply by log2(e) as the GPU does, and
    flushes what ex2.approx.ftz.f32 flushes, so only the instruction's own
    2 ulp are left."""
    x, y, gpu, interp = runs
    lines = [
        f"{'function':11} {'max ulp':>8} {'at x':>14} {'nan differ':>10} {'inf differ':>10}"
    ]
    worst = {}
    for k, name in enumerate(F.FUNCTIONS):
        g, i = gpu[:, k], interp[:, k]
        both = np.isfinite(g) & np.isfinite(i)
        d = F.ulps(g[both], i[both])
        worst[name] = int(d.max()) if d.size else 0
        at = float(x[both][np.argmax(d)]) if d.size else 0.0
        nan = int(np.sum(np.isnan(g) != np.isnan(i)))
        inf = int(np.sum(np.isinf(g) != np.isinf(i)))
        lines.append(f"{name:11} {worst[name]:8d} {at:14.7g} {nan:10d} {inf:10d}")
    print("\nGPU against the interpreter:\n" + "\n".join(lines))
    exp2s = ("fast_exp", "fast_exp2", "fast_exp2_ftz")
    assert all(worst[name] <= 2 for name in exp2s), "\n".join(lines)
