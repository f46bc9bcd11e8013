"""kdsl.math.fdim, the worked example of a math function in
docs/contributing.md: one row of ``core/mathfns.py``'s table.  Its fold on
the rule's cases, the interpreter against the fold on edge and random values
for every float type, the CUDA it becomes (compiled by NVRTC) and the fold
of static arguments."""

import math
import random
import sys
from pathlib import Path

import numpy as np
import pytest

import kdsl
from kdsl import BFloat16, Float16, Float32, Float64, Int32, Pointer, thread_idx
from kdsl.runtime.nvrtc import compile_to_cubin
from kdsl.transpile.core import lanes, mathfns, values

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "gpu"))
import semantics_cases as sc  # noqa: E402

F = kdsl.TypeVar("F", bound=kdsl.Float)
FLOATS = (Float16, BFloat16, Float32, Float64)


@kdsl.kernel
def fdim_kernel(x: Pointer[F], y: Pointer[F], out: Pointer[F], count: Int32):
    i = thread_idx.x + kdsl.block_idx.x * kdsl.block_dim.x
    if i < count:
        out[i] = kdsl.math.fdim(x[i], y[i])


def test_the_fold_follows_cs_rule():
    fold = lambda x, y, t=Float32: mathfns.fold("fdim", [x, y], t)  # noqa: E731
    assert fold(5.0, 3.0) == 2.0
    assert str(fold(3.0, 5.0)) == "0.0" and str(fold(-0.0, 0.0)) == "0.0"
    assert str(fold(2.0, 2.0)) == "0.0"
    assert fold(math.inf, 1.0) == math.inf and str(fold(math.inf, math.inf)) == "0.0"
    assert math.isnan(fold(math.nan, 1.0)) and math.isnan(fold(1.0, math.nan))
    # rounded once to float, then to the half type, as the GPU's fdimf
    assert fold(1.0, -(2.0**-30)) == 1.0
    assert fold(65504.0, -65504.0, Float16) == math.inf
    assert fold(1e308, -1e308, Float64) == math.inf


def inputs(t, seed=0):
    rng = random.Random(seed)
    edges = sc.edge_values(t)
    xs = edges + [
        values.round_float(rng.uniform(-4, 4) * 2.0 ** rng.randint(-20, 20), t)
        for _ in range(200)
    ]
    return xs, xs[5:] + xs[:5]


@pytest.mark.parametrize("t", FLOATS, ids=lambda t: t.__name__)
def test_the_interpreter_gives_the_fold(t):
    xs, ys = inputs(t)
    count = len(xs)
    out = np.zeros(count, t.np_dtype)
    fdim_kernel.dispatch(t).interpret[(count + 63) // 64, 64](
        lanes.from_values(xs, t), lanes.from_values(ys, t), out, count
    )
    for a, b, got in zip(xs, ys, lanes.to_values(out, t)):
        want = mathfns.fold("fdim", [a, b], t)
        if math.isnan(want):
            assert math.isnan(got), (a, b, got)
        else:
            assert str(want) == str(got), (a, b, want, got)


@pytest.mark.parametrize("t", FLOATS, ids=lambda t: t.__name__)
def test_the_cuda_compiles_for_every_float_type(t):
    inst = fdim_kernel.dispatch(t)
    src = inst.source
    spelled = {
        Float32: "fdimf(x[i], y[i])",
        Float64: "fdim(x[i], y[i])",
        Float16: "__float2half_rn(fdimf(__half2float(x[i]), __half2float(y[i])))",
    }
    if t in spelled:
        assert spelled[t] in src, src
    compile_to_cubin(src, inst.name)


@kdsl.kernel
def static_fdim(out: Pointer[Float32]):
    out[0] = kdsl.math.fdim(Float32(5.5), 2.0)
    out[1] = kdsl.math.fdim(1, 3)  # integers convert to Float32


def test_static_arguments_fold():
    src = static_fdim.dispatch().source
    assert "fdimf" not in src
    assert "out[0] = 3.5f;" in src and "out[1] = 0.0f;" in src, src
