"""Contraction (issue 26, item 2): ``@kdsl.kernel(contract=True)``,
``@kdsl.func(contract=True)`` and ``kdsl.contract(expr)`` fuse ``a * b + c``
into ``kdsl.math.fma`` by kdsl's rule (passes/contract.py,
docs/language.md "Contraction").  Each rule case as the exact C++ it
becomes, what is never fused, the IR the interpreter runs, the interpreter
against the exact fold of fma (hypothesis), an NVRTC compile and the
option's error."""

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import kdsl
from kdsl import Float16, Float32, Float64, Int32, Pointer, thread_idx
from kdsl.runtime import nvrtc
from kdsl.runtime.nvrtc import compile_to_cubin
from kdsl.transpile import ir
from kdsl.transpile.core import mathfns

from contract_kernels import fused


@kdsl.kernel(contract=True)
def rules(
    x: Pointer[Float32],
    out: Pointer[Float32],
    d: Pointer[Float64],
    h: Pointer[Float16],
    n: Int32,
):
    a = x[0]
    b = x[1]
    c = x[2]
    e = x[3]
    out[0] = a * b + c
    out[1] = c + a * b
    out[2] = a * b - c
    out[3] = c - a * b
    out[4] = a * b + c * e
    out[5] = a * b + c * e + b
    out[6] = e + a * b + c * b
    out[7] = a * b - 2.0
    out[8] = 2.0 - a * b
    p = a * b
    out[9] = p + c
    out[10] = (a * b).to(Float64).to(Float32) + c
    d[0] = d[1] * d[2] + d[3]
    d[4] = (a * b).to(Float64) + d[5]
    h[0] = h[1] * h[2] + h[3]
    out[11] = (a + b) * c + e
    out[12] = a * b * c + e
    out[13] = -(a * b) + c
    i = thread_idx.x
    out[14] = Float32(i * n + 1)


def _lines(inst) -> dict:
    """``out[k] = ...;`` statements of the generated body, by their target."""
    body = inst.source[inst.source.index("extern") :]
    found = {}
    for m in re.finditer(r"^\s+((?:out|d|h)\[\d+\]) = (.*);$", body, re.M):
        found[m.group(1)] = m.group(2)
    return found


def test_each_rule_case_becomes_the_fma_the_rule_says():
    got = _lines(rules.dispatch())
    assert got["out[0]"] == "fmaf(a, b, c)"  # a * b + c
    assert got["out[1]"] == "fmaf(a, b, c)"  # c + a * b
    assert got["out[2]"] == "fmaf(a, b, -c)"  # a * b - c
    assert got["out[3]"] == "fmaf(-a, b, c)"  # c - a * b
    assert got["out[4]"] == "fmaf(a, b, c * e)"  # both products: the left one
    assert got["out[5]"] == "fmaf(a, b, c * e) + b"  # (a*b + c*e) + b
    assert got["out[6]"] == "fmaf(c, b, fmaf(a, b, e))"  # (e + a*b) + c*b
    assert got["out[7]"] == "fmaf(a, b, -2.0f)"  # a constant negated exactly
    assert got["out[8]"] == "fmaf(-a, b, 2.0f)"
    assert got["d[0]"] == "fma(d[1], d[2], d[3])"  # Float64: fma
    assert got["out[11]"] == "fmaf(a + b, c, e)"
    assert got["out[12]"] == "fmaf(a * b, c, e)"  # (a*b)*c is the product


def test_what_is_never_fused():
    got = _lines(rules.dispatch())
    assert got["out[9]"] == "p + c"  # a product stored to a variable
    assert got["out[10]"] == "float(double(a * b)) + c"  # behind a conversion
    assert got["d[4]"] == "double(a * b) + d[5]"  # promoted: a conversion too
    assert got["h[0]"] == "h[1] * h[2] + h[3]"  # Float16: no __hfma-exact fma
    assert got["out[13]"] == "(-(a * b)) + c"  # a negated product is no product
    assert "fma" not in got["out[14]"]  # integers: nothing to fuse


@kdsl.kernel
def per_expression(x: Pointer[Float32], out: Pointer[Float32]):
    a = x[0]
    b = x[1]
    c = x[2]
    out[0] = kdsl.contract(a * b + c) + a * c
    out[1] = a * b + c
    out[2] = kdsl.contract(a * b) + c  # the add is outside
    out[3] = kdsl.contract(a * b - c * b)
    out[4] = kdsl.contract(2.0)  # a constant: nothing to do


def test_kdsl_contract_fuses_inside_its_expression_only():
    got = _lines(per_expression.dispatch())
    assert got["out[0]"] == "fmaf(a, b, c) + a * c"
    assert got["out[1]"] == "a * b + c"
    assert got["out[2]"] == "a * b + c"
    assert got["out[3]"] == "fmaf(a, b, -(c * b))"
    assert got["out[4]"] == "2.0f"


def test_the_ir_marks_kdsl_contract_and_the_rewrite_fuses_it():
    inst = per_expression.dispatch()
    lowered, rewritten = inst.lowered, inst.rewritten
    marked = [
        e for e in ir.expressions(lowered.kernel.body) if getattr(e, "contract", 0)
    ]
    assert len(marked) == 2  # out[0]'s add, out[3]'s subtraction
    calls = [
        e
        for e in ir.expressions(rewritten.kernel.body)
        if isinstance(e, ir.BuiltinCall) and e.builtin == "math.fma"
    ]
    assert len(calls) == 2
    assert not lowered.kernel.contract and rules.dispatch().lowered.kernel.contract


@kdsl.kernel(contract=True)
def vectors(x: Pointer[Float32], out: Pointer[Float32]):
    v = x.vec(4)
    w = out.vec(4)
    w[0] = v[0] * v[1] + v[2]


def test_vectors_fuse_lane_by_lane():
    body = vectors.dispatch().source.split("// w[0] = v[0] * v[1] + v[2]")[1]
    assert "return fmaf(a, b, c);" in body and "a * b" not in body


@kdsl.func
def plain_dot(a: Float32, b: Float32, c: Float32):
    return a * b + c


@kdsl.func(contract=True)
def fused_dot(a: Float32, b: Float32, c: Float32):
    return a * b + c


@kdsl.kernel
def calls_both(x: Pointer[Float32], out: Pointer[Float32]):
    out[0] = plain_dot(x[0], x[1], x[2]) + x[0] * x[1]
    out[1] = fused_dot(x[0], x[1], x[2])


@kdsl.kernel(contract=True)
def contracted_caller(x: Pointer[Float32], out: Pointer[Float32]):
    out[0] = plain_dot(x[0], x[1], x[2])


def _function_body(source: str, name: str) -> str:
    start = source.index(name)
    return source[start : source.index("\n}", start)]


def test_device_functions_contract_by_their_own_option_or_the_kernels():
    src = calls_both.dispatch().source
    assert "return a * b + c;" in _function_body(src, "plain_dot")
    assert "return fmaf(a, b, c);" in _function_body(src, "fused_dot")
    assert "plain_dot(x[0], x[1], x[2]) + x[0] * x[1]" in src  # the kernel: not
    src = contracted_caller.dispatch().source
    assert "return fmaf(a, b, c);" in _function_body(src, "plain_dot")


def test_the_ir_printer_shows_the_option_and_the_marks():
    from kdsl.transpile.ir.printer import format_function

    assert format_function(rules.dispatch().lowered.kernel).startswith("kernel rules(")
    assert " contract:\n" in format_function(rules.dispatch().lowered.kernel)
    text = format_function(per_expression.dispatch().lowered.kernel)
    assert " contract:\n" not in text and "contract((" in text


def test_nvrtc_keeps_fmad_false():
    """kdsl's contraction is its own: NVRTC never contracts."""
    assert "--fmad=false" in nvrtc.EXACT_OPTIONS


def test_nvrtc_compiles_the_contracted_code():
    for k in (rules, per_expression, vectors, calls_both, contracted_caller):
        inst = k.dispatch()
        assert compile_to_cubin(inst.source, inst.name)


def test_contract_takes_a_bool():
    with pytest.raises(kdsl.DSLError, match=r"E473.*contract.*True"):

        @kdsl.kernel(contract="yes")
        def bad(x: Pointer[Float32]):
            x[0] = x[0]

    with pytest.raises(kdsl.DSLError, match=r"E473.*contract"):

        @kdsl.func(contract=1)
        def bad_func(a: Float32):
            return a


# -- the interpreter computes the fused node exactly like the fold ---------------------
@kdsl.kernel
def fused64(
    x: Pointer[Float64], y: Pointer[Float64], z: Pointer[Float64], out: Pointer[Float64]
):
    i = thread_idx.x
    out[i] = kdsl.contract(x[i] * y[i] - z[i])


def _fma(a, b, c, t=Float32):
    return mathfns.fold("fma", [float(a), float(b), float(c)], t)


def _same(want: float, got) -> bool:
    got = float(got)
    return (want != want and got != got) or (want == got and str(want) == str(got))


_f32 = st.floats(width=32, allow_nan=True, allow_infinity=True)
_f64 = st.floats(allow_nan=True, allow_infinity=True)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_f32, _f32, _f32), min_size=1, max_size=32))
def test_the_interpreter_equals_the_fold_of_fma(triples):
    x, y, z = (np.array(col, np.float32) for col in zip(*triples))
    n = len(x)
    out = np.zeros(4 * n, np.float32)
    with np.errstate(all="ignore"):
        fused.interpret[1, n](x, y, z, out)
    with np.errstate(all="ignore"):
        for i in range(n):
            a, b, c = x[i], y[i], z[i]
            assert _same(_fma(a, b, c), out[4 * i]), (a, b, c)
            assert _same(_fma(a, b, -c), out[4 * i + 1]), (a, b, c)
            assert _same(_fma(-a, b, c), out[4 * i + 2]), (a, b, c)
            inner = np.float32(_fma(a, b, c * b))  # c * b: float32, rounded
            assert _same(float(inner + a), out[4 * i + 3]), (a, b, c)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(_f64, _f64, _f64), min_size=1, max_size=16))
def test_the_interpreter_equals_the_fold_of_fma_in_float64(triples):
    x, y, z = (np.array(col, np.float64) for col in zip(*triples))
    out = np.zeros(len(x), np.float64)
    with np.errstate(all="ignore"):
        fused64.interpret[1, len(x)](x, y, z, out)
    for i in range(len(x)):
        assert _same(_fma(x[i], y[i], -z[i], Float64), out[i]), (x[i], y[i], z[i])


def test_the_vectorised_float_fma_is_the_exact_fold_near_ties():
    """The interpreter's float fma (round-to-odd in float64) against the
    exact rational fold on sums built to land next to a rounding tie of
    float: ``(1 + a 2**-23) * 2**-24 (1 - a 2**-23) + (1 + c 2**-23)`` and
    products nearly cancelled by the addend."""
    rng = np.random.default_rng(7)
    n = 4000
    a = rng.integers(1, 1 << 11, n).astype(np.float64)
    c = 2 * rng.integers(0, 1 << 11, n).astype(np.float64) + 1  # odd: ties go up
    x = 1 + a * 2.0**-23
    # the product is 2**-24 (1 - a**2 2**-46): the sum is a float tie plus
    # less than double's last bit, so a float64 sum lands on the tie
    y = np.ldexp(1 - a * 2.0**-23, -24)
    z = 1 + c * 2.0**-23
    x2 = rng.standard_normal(n).astype(np.float32).astype(np.float64)
    y2 = rng.standard_normal(n).astype(np.float32).astype(np.float64)
    z2 = (-(x2 * y2) * (1 + rng.standard_normal(n) * 2.0**-20)).astype(np.float32)
    xs, ys, zs = (
        np.concatenate(p) for p in ((x, x2), (y, y2), (z, z2.astype(np.float64)))
    )
    got = mathfns._fma_float(xs, ys, zs)
    for i in range(len(xs)):
        want = float(np.float32(mathfns._fma(Float32, xs[i], ys[i], zs[i])))
        assert _same(want, got[i]), (xs[i], ys[i], zs[i])
    naive = (xs * ys + zs).astype(np.float32)
    assert (naive != got.astype(np.float32)).any()  # the cases the test is for


def test_a_case_that_rounds_twice_without_fusion():
    """``(1 + 2**-23) * 2**-24 (1 - 2**-23) + (1 + 2**-23)``: rounded once
    it is ``1 + 2**-23``; the product rounded first gives ``1 + 2**-22``
    (and so would a float64 sum rounded to float)."""
    x = np.array([1 + 2**-23], np.float32)
    y = np.array([2**-24 * (1 - 2**-23)], np.float32)
    z = np.array([1 + 2**-23], np.float32)
    out = np.zeros(4, np.float32)
    fused.interpret[1, 1](x, y, z, out)
    assert out[0] == np.float32(1 + 2**-23)
    assert np.float32(x[0] * y[0]) + z[0] == np.float32(1 + 2**-22)


def test_one_function_as_two_kernels_gets_two_sources_through_the_disk_cache(
    tmp_path, monkeypatch
):
    """The runtime's source cache (what launches and the SASS tests read)
    keys on the kernel's options: the exact and the contracted kernel of
    one Python function differ (they were one cache entry before)."""
    import contract_kernels as K

    monkeypatch.setenv("KDSL_CACHE_DIR", str(tmp_path))
    exact, fused_ = K.nbody_exact.dispatch(), K.nbody_contracted.dispatch()
    assert exact.name == fused_.name == "nbody_forces__128"
    exact, fused_ = exact.cached.source, fused_.cached.source
    assert "fmaf(" not in exact and "ax = fmaf(dx, s, ax);" in fused_


GOLDEN = (
    Path(__file__).resolve().parents[1] / "golden" / "features" / "contract_kernels"
)


def test_golden(golden):
    """The contracted n-body kernel's file (``fmaf`` where the rule fuses)."""
    import contract_kernels as K

    golden.check_kernel(K.nbody_contracted, GOLDEN)
