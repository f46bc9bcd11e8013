"""kdsl.math's exact functions beyond the rounding ones: round (C's roundf)
and rint, fmax/fmin, copysign, ldexp, frexp_mantissa/frexp_exponent and
isnan/isinf/isfinite.  Their results and argument types, the CUDA they
become for every float type (compiled by NVRTC), the interpreter against the
fold on edge and random values, and the errors of a wrong exponent.  The GPU
checks are tests/gpu/test_builtins_gpu.py and the differential cases of
tests/gpu/semantics_cases.py."""

import math
import random
import sys
from pathlib import Path

import numpy as np
import pytest

import kdsl
from kdsl import (
    BFloat16,
    Boolean,
    Float16,
    Float32,
    Float64,
    Int16,
    Int32,
    Int64,
    Pointer,
    thread_idx,
)
from kdsl.runtime.nvrtc import compile_to_cubin
from kdsl.transpile.core import lanes, mathfns, values

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "gpu"))
import semantics_cases as sc  # noqa: E402

F = kdsl.TypeVar("F", bound=kdsl.Float)
FLOATS = (Float16, BFloat16, Float32, Float64)
SAME_TYPE = ("round", "rint", "fmax", "fmin", "copysign", "ldexp", "frexp_mantissa")
BOOLEAN = ("isnan", "isinf", "isfinite")


@kdsl.kernel
def new_math(
    x: Pointer[F],
    y: Pointer[F],
    n: Pointer[Int32],
    out: Pointer[F],
    exponent: Pointer[Int32],
    flags: Pointer[Boolean],
    count: Int32,
):
    i = thread_idx.x + kdsl.block_idx.x * kdsl.block_dim.x
    if i < count:
        a, b = x[i], y[i]
        out[7 * i] = kdsl.math.round(a)
        out[7 * i + 1] = kdsl.math.rint(a)
        out[7 * i + 2] = kdsl.math.fmax(a, b)
        out[7 * i + 3] = kdsl.math.fmin(a, b)
        out[7 * i + 4] = kdsl.math.copysign(a, b)
        out[7 * i + 5] = kdsl.math.ldexp(a, n[i])
        out[7 * i + 6] = kdsl.math.frexp_mantissa(a)
        exponent[i] = kdsl.math.frexp_exponent(a)
        flags[3 * i] = kdsl.math.isnan(a)
        flags[3 * i + 1] = kdsl.math.isinf(a)
        flags[3 * i + 2] = kdsl.math.isfinite(a)


def inputs(t, seed=0):
    """Edge values against shifted edge values, random values, and exponents
    from the differential test's list."""
    rng = random.Random(seed)
    edges = sc.edge_values(t)
    xs = edges + [values_random(t, rng) for _ in range(200)]
    ys = xs[7:] + xs[:7]
    ns = [sc.LDEXP_EXPONENTS[k % len(sc.LDEXP_EXPONENTS)] for k in range(len(xs))]
    return xs, ys, ns


def values_random(t, rng):
    x = rng.uniform(-4, 4) * 2.0 ** rng.randint(-30, 30)
    return values.round_float(x, t)


def same(a, b) -> bool:
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return a == b and (not isinstance(a, float) or str(a) == str(b))


@pytest.mark.parametrize("t", FLOATS, ids=lambda t: t.__name__)
def test_the_interpreter_gives_the_fold_on_edge_and_random_values(t):
    xs, ys, ns = inputs(t)
    count = len(xs)
    x, y = lanes.from_values(xs, t), lanes.from_values(ys, t)
    out = np.zeros(7 * count, t.np_dtype)
    exponent, flags = np.zeros(count, np.int32), np.zeros(3 * count, np.bool_)
    new_math.dispatch(t).interpret[(count + 63) // 64, 64](
        x, y, np.array(ns, np.int32), out, exponent, flags, count
    )
    got = lanes.to_values(out, t)
    for k, (a, b, n) in enumerate(zip(xs, ys, ns)):
        args = {"fmax": [a, b], "fmin": [a, b], "copysign": [a, b], "ldexp": [a, n]}
        for j, name in enumerate(SAME_TYPE):
            want = mathfns.fold(name, args.get(name, [a]), t)
            assert same(want, got[7 * k + j]), (name, a, b, n)
        assert exponent[k] == mathfns.fold("frexp_exponent", [a], t), a
        for j, name in enumerate(BOOLEAN):
            assert flags[3 * k + j] == mathfns.fold(name, [a], t), (name, a)


@pytest.mark.parametrize("t", FLOATS, ids=lambda t: t.__name__)
def test_the_cuda_compiles_for_every_float_type(t):
    inst = new_math.dispatch(t)
    src = inst.source
    if t is Float32:
        for spelled in ("roundf(a)", "rintf(a)", "fmaxf(a, b)", "fminf(a, b)"):
            assert spelled in src
        for spelled in ("copysignf(a, b)", "ldexpf(a, n[i])"):
            assert spelled in src
        assert "kdsl::frexp_mantissa(a)" in src and "bool(isnan(a))" in src
    if t is Float64:
        assert "round(a)" in src and "ldexp(a, n[i])" in src and "bool(isinf(a))" in src
    if t is Float16:
        assert "__float2half_rn(ldexpf(__half2float(a), n[i]))" in src
        assert "kdsl::frexp_exponent(__half2float(a))" in src
        assert "bool(isfinite(__half2float(a)))" in src
    assert "KDSL_MATHFNS_H" in src
    compile_to_cubin(src, inst.name)


@kdsl.kernel
def no_frexp(x: Pointer[Float32]):
    x[0] = kdsl.math.round(x[1])


def test_the_math_prelude_part_comes_only_with_frexp():
    assert "KDSL_MATHFNS_H" not in no_frexp.dispatch().source


@kdsl.kernel
def folds(out: Pointer[Float32], e: Pointer[Int32], b: Pointer[Boolean]):
    out[0] = kdsl.math.round(2.5)
    out[1] = kdsl.math.rint(2.5)
    out[2] = kdsl.math.fmax(-0.0, 0.0)
    out[3] = kdsl.math.copysign(3, -0.0)  # an integer converts to Float32
    out[4] = kdsl.math.ldexp(0.75, Int64(3))  # a static Int64 in range
    out[5] = kdsl.math.frexp_mantissa(6.0)
    e[0] = kdsl.math.frexp_exponent(6.0)
    b[0] = kdsl.math.isinf(Float32(1e38) * 10)
    b[1] = kdsl.math.isfinite(7)


def test_static_arguments_fold_to_their_result_types():
    body = folds.dispatch().source.split("extern")[1].split("{", 1)[1]
    lines = [s.strip() for s in body.splitlines() if "=" in s and "//" not in s]
    assert lines == [
        "out[0] = 3.0f;",  # roundf(2.5)
        "out[1] = 2.0f;",  # rintf(2.5)
        "out[2] = 0.0f;",
        "out[3] = -3.0f;",
        "out[4] = 6.0f;",
        "out[5] = 0.75f;",
        "e[0] = 3;",
        "b[0] = true;",
        "b[1] = true;",
    ]


@kdsl.kernel
def short_exponent(x: Pointer[Float32], n: Pointer[Int16]):
    x[0] = kdsl.math.ldexp(x[1], n[0])


@kdsl.kernel
def huge_exponent(x: Pointer[Float32]):
    x[0] = kdsl.math.ldexp(x[1], 1 << 40)


@kdsl.kernel
def float_exponent(x: Pointer[Float32]):
    x[0] = kdsl.math.ldexp(x[1], 2.0)


@pytest.mark.parametrize(
    "kernel, got",
    [(short_exponent, "Int16"), (huge_exponent, "Int64"), (float_exponent, "Float32")],
)
def test_the_exponent_of_ldexp_is_an_int32(kernel, got):
    message = rf"kdsl\.math\.ldexp\(\) takes an Int32 exponent, got {got}: convert"
    with pytest.raises(kdsl.DSLError, match=message) as info:
        kernel.dispatch().source
    assert info.value.code == "E251" and info.value.span is not None


@kdsl.kernel
def classified(x: Pointer[Float32], out: Pointer[Int32]):
    out[0] = kdsl.math.isnan(x[0]).to(Int32) + kdsl.math.frexp_exponent(x[0])


def test_boolean_and_int32_results_take_part_in_expressions():
    src = classified.dispatch().source
    assert "int32_t(bool(isnan(x[0])))" in src
    compile_to_cubin(src, "classified")
    out = np.zeros(1, np.int32)
    classified.interpret[1, 1](np.array([np.nan], np.float32), out)
    assert out.tolist() == [1]
