"""The fast intrinsics (issue 26, item 3): ``kdsl.math.fast_exp`` …
``fast_rsqrt``, one row each of ``core/mathfns.py``'s table.  Their CUDA
spelling and the PTX instruction NVRTC makes of it (the interpreter models
the multiplies of ``__expf``/``__logf`` by their float constants: the PTX
must have those constants), no folding, Float32 only (E252), and the
interpreter within each function's documented bound of a float64 reference
over edge cases and every binade (docs/types.md, "Fast intrinsics")."""

import re
import sys
from pathlib import Path

import numpy as np
import pytest

import kdsl
from kdsl import Float16, Float32, Float64, Int32, Pointer, thread_idx
from kdsl.runtime.nvrtc import compile_to_cubin
from kdsl.transpile import ir
from kdsl.transpile.core import mathfns

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(TESTS / "sass"))
import fast_math_checks as F  # noqa: E402
from test_ptx import ptx_of  # noqa: E402

SPELLING = {
    "fast_exp": "__expf(x[i])",
    "fast_exp2": "kdsl::fast_exp2(x[i])",
    "fast_log": "__logf(x[i])",
    "fast_log2": "__log2f(x[i])",
    "fast_sin": "__sinf(x[i])",
    "fast_cos": "__cosf(x[i])",
    "fast_div": "__fdividef(x[i], y[i])",
    "fast_rsqrt": "kdsl::fast_rsqrt(x[i])",
    "fast_exp2_ftz": "kdsl::fast_exp2_ftz(x[i])",
}


def test_each_renders_as_cudas_intrinsic_or_the_ptx_one():
    src = F.fast_all.dispatch().source
    at = 0
    for name in F.FUNCTIONS:  # in order, whatever the index looks like
        at = src.index(f"] = {SPELLING[name]};", at)
    assert 'asm("ex2.approx.f32 %0, %1;"' in src  # the prelude's, not .ftz
    assert 'asm("ex2.approx.ftz.f32 %0, %1;"' in src  # fast_exp2_ftz's
    assert 'asm("rsqrt.approx.f32 %0, %1;"' in src
    assert compile_to_cubin(src, F.fast_all.dispatch().name)


def test_the_ptx_is_the_instruction_the_interpreter_models():
    """No .ftz but fast_exp2_ftz's (subnormals kept); __expf is one multiply by
    log2(e) rounded to float, then ex2.approx; __logf is lg2.approx, then a
    multiply by ln(2) rounded to float."""
    inst = F.fast_all.dispatch()
    ptx = ptx_of(inst.source, inst.name)
    assert re.findall(r"\S+\.ftz\S*", ptx) == ["ex2.approx.ftz.f32"]
    log2e = f"0f{np.float32(mathfns.LOG2E_F).view(np.uint32):08X}"
    ln2 = f"0f{np.float32(mathfns.LN2_F).view(np.uint32):08X}"
    assert log2e == "0f3FB8AA3B" and ln2 == "0f3F317218"
    assert re.search(
        rf"mul\.rn\.f32\s+(%f\d+), %f\d+, {log2e};\s+ex2\.approx\.f32\s+%f\d+, \1;", ptx
    )
    assert re.search(
        rf"lg2\.approx\.f32\s+(%f\d+), %f\d+;\s+mul\.rn\.f32\s+%f\d+, \1, {ln2};", ptx
    )
    for op in ("ex2", "lg2", "sin", "cos", "rsqrt"):
        assert re.search(rf"\b{op}\.approx\.f32\b", ptx), op
    assert len(re.findall(r"\bex2\.approx\.f32\b", ptx)) == 2  # fast_exp, fast_exp2
    assert len(re.findall(r"\blg2\.approx\.f32\b", ptx)) == 2  # fast_log, fast_log2
    assert re.search(r"\bdiv\.approx\.f32\b", ptx)


@kdsl.kernel
def constants(out: Pointer[Float32]):
    out[0] = kdsl.math.fast_exp(1.0)
    out[1] = kdsl.math.fast_div(1.0, 3.0)
    out[2] = kdsl.math.fast_rsqrt(Int32(4))  # an integer converts to Float32
    out[3] = kdsl.math.exp(1.0)  # the accurate one: never folded either
    out[4] = kdsl.math.sqrt(4.0)  # an exact one folds


def test_a_constant_argument_stays_a_call():
    src = constants.dispatch().source
    assert "out[0] = __expf(1.0f);" in src
    assert "out[1] = __fdividef(1.0f, 3.0f);" in src
    assert "out[2] = kdsl::fast_rsqrt(4.0f);" in src
    assert "out[3] = expf(1.0f);" in src and "out[4] = 2.0f;" in src
    calls = [
        e.builtin
        for e in ir.expressions(constants.dispatch().lowered.kernel.body)
        if isinstance(e, ir.BuiltinCall)
    ]
    assert calls == ["math.fast_exp", "math.fast_div", "math.fast_rsqrt", "math.exp"]


@kdsl.kernel
def on_vectors(x: Pointer[Float32]):
    v = x.vec(4)
    v[1] = kdsl.math.fast_sin(v[0])


def test_vectors_go_lane_by_lane():
    assert "return __sinf(a);" in on_vectors.dispatch().source


@pytest.mark.parametrize("t", [Float64, Float16], ids=str)
def test_other_float_types_are_refused(t):
    @kdsl.kernel
    def wide(x: Pointer[t]):
        x[0] = kdsl.math.fast_log(x[1])

    with pytest.raises(
        kdsl.DSLError, match=r"E252.*fast_log.*Float32.*kdsl\.math\.log"
    ):
        wide.dispatch().source


def test_the_rows_say_their_bound_and_never_fold():
    for name in F.FUNCTIONS:
        fn = mathfns.spec(name)
        assert mathfns.approximate(name) and fn.error and fn.fold is None
        assert not mathfns.host_fold(name)
    assert not mathfns.approximate("exp")  # plain exp stays accurate


def test_the_interpreter_is_within_the_documented_bound_of_float64():
    x, y = F.inputs(1 << 14)
    got = F.run_interpreter(x, y)
    results = {
        name: F.measure(name, x, y, got[:, k]) for k, name in enumerate(F.FUNCTIONS)
    }
    bad = {name: [r for r in rows if r["bad"]] for name, rows in results.items()}
    assert not any(bad.values()), F.table(results)
    covered = {
        (name, r["label"]) for name, rows in results.items() for r in rows if r["n"]
    }
    assert ("fast_div", "2^126 < |y| < 2^128") in covered
    assert ("fast_sin", "beyond 100 pi") in covered


def test_what_the_interpreter_models_exactly():
    x = np.array([1.0, 10.0, -3.5, 2.0**-140, 2.0**-149], np.float32)
    y = np.array([2.0**127, -(2.0**126) * 1.5, 3.0, 2.0**127, np.inf], np.float32)
    x[1] = np.inf
    got = F.run_interpreter(x, y)
    # __expf: 2**(x * log2e rounded to float), that power correctly rounded
    y_exp = np.float32(np.float64(x[2]) * mathfns.LOG2E_F)
    assert got[2, 0] == np.float32(2.0 ** np.float64(y_exp))
    # __fdividef beyond 2**126: a signed zero, NaN for an infinite dividend
    assert got[0, 6] == 0 and not np.signbit(got[0, 6])
    assert np.isnan(got[1, 6])
    assert got[3, 6] == 0
    assert got[4, 6] == 0  # x / inf
    # subnormals are kept, not flushed
    assert got[3, 7] == np.float32(1 / np.sqrt(2.0**-140))
    assert got[4, 3] == -149.0


def test_fast_exp2_ftz_flushes_where_fast_exp2_keeps_subnormals():
    x = np.array([-149.5, -126.5, -126.0, 2.0**-140, -(2.0**-149), 3.0], np.float32)
    got = F.run_interpreter(x, np.ones_like(x))
    kept, flushed = got[:, 1], got[:, 8]
    assert kept[0] == np.float32(2.0**-149) and kept[1] == np.float32(2.0**-126.5)
    assert list(flushed[:2]) == [0.0, 0.0] and not np.signbit(flushed[:2]).any()
    assert flushed[2] == np.float32(2.0**-126)  # the smallest normal stays
    assert list(flushed[3:]) == [1.0, 1.0, 8.0]  # subnormal arguments read as 0
