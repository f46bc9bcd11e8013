"""``kdsl.assume`` and the range analysis's facts: the C++ with and without
them, the rule of scope (a fact ends where its variable is assigned, a fact
in a branch holds only there), the interpreter's check of every assumption,
the debug build's check on the GPU, ``--explain-arith`` and a property test
that a plain operator the facts allow computes what kdsl's helper does."""

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import facts_kernels as fk
import kdsl
from kdsl.runtime.nvrtc import compile_to_cubin
from kdsl.transpile import ir
from kdsl.transpile.core.types import Boolean, Int32
from kdsl.transpile.cuda.emit import Emitter
from kdsl.transpile.passes import Facts
from kdsl.transpile.passes.ranges import Ranges, type_range

ROOT = Path(__file__).resolve().parents[2]


def body(kernel, *dtypes) -> str:
    """The instance's kernel function (its last function), lines stripped."""
    src = kernel.dispatch(*dtypes).source
    return "\n".join(l.strip() for l in src[src.rindex('extern "C"') :].splitlines())


def code(kernel) -> list:
    """The C++ statements of the kernel (no comments)."""
    return [l for l in body(kernel).splitlines() if l and not l.startswith("//")]


# -- the C++ with and without facts ------------------------------------------------
def test_facts_make_division_remainder_and_the_loop_test_plain():
    with_facts = code(fk.rows)
    assert "for (int32_t j = threadIdx.x; j < n; j += j_step) {" in with_facts
    assert "out[j] = kdsl::add(j / C, j % C);" in with_facts
    without = code(fk.rows_unstated)
    assert (
        "for (int32_t j = threadIdx.x; j < n; j += j_step) {" in without
    )  # j_step >= 1
    assert "out[j] = kdsl::add(kdsl::floordiv(j, C), kdsl::mod(j, C));" in without


def test_the_permute_kernel_keeps_no_floordiv_mod_or_in_range():
    src = fk.permute.dispatch().source
    kernel = src[src.index('extern "C"') :]
    for helper in ("kdsl::floordiv", "kdsl::mod", "kdsl::in_range"):
        assert helper not in kernel
    assert "for (int32_t j = j_start; j < total; j += j_step) {" in kernel
    assert "int32_t b = j / nhnd;" in kernel and "int32_t d_ = rest % d;" in kernel
    unstated = fk.permute_unstated.dispatch().source
    assert unstated.count("kdsl::floordiv(") == 3 and unstated.count("kdsl::mod(") == 3
    assert "kdsl::in_range(j, total, j_step)" in unstated


def test_a_chained_comparison_bounds_a_loaded_value():
    assert "out[i] = i % 8 + i / 8;" in code(fk.chained)


def test_a_grid_stride_loop_needs_a_bounded_grid_in_int32_but_not_in_int64():
    assert "for (int32_t j = j_start; j < n; j += j_step) {" in code(fk.grid_stride)
    # 2**31 - 1 blocks of 1024 threads: the Int32 stride may wrap to <= 0
    assert "for (int32_t j = j_start; kdsl::in_range(j, n, j_step); j += j_step) {" in (
        code(fk.grid_stride_unstated)
    )
    assert "for (int64_t j = start; j < n; j += j_step) {" in code(fk.wide_stride)


def test_a_device_function_uses_its_own_facts():
    src = fk.calls_func.dispatch().source
    assert "return n / 2;" in src


# -- the rule of scope -----------------------------------------------------------------
def test_a_fact_ends_where_its_variable_is_assigned():
    assert code(fk.reassigned) == [
        'extern "C" __global__ void reassigned(int32_t* out, int32_t n) {',
        "out[0] = n / 4;",
        "n = kdsl::sub(n, 10);",
        "out[1] = kdsl::floordiv(n, 4);",
        "}",
    ]


def test_a_fact_in_a_branch_holds_only_there():
    lines = code(fk.in_branch)
    assert "out[0] = n / 4;" in lines
    assert "out[1] = kdsl::floordiv(n, 4);" in lines


def test_a_loop_that_assigns_the_variable_does_not_see_the_fact():
    lines = code(fk.in_loop)
    assert lines.count("out[0] = n / 4;") == 1
    assert "out[1] = kdsl::floordiv(n, 4);" in lines  # n - 1 each iteration
    assert "out[2] = kdsl::floordiv(n, 4);" in lines


def test_an_if_condition_is_a_fact_in_its_then_block_only():
    @kdsl.kernel
    def guarded(out: kdsl.Pointer[Int32], n: Int32):
        if n >= 0:
            out[0] = n // 4
        else:
            out[1] = n // 4
        out[2] = n // 4

    lines = code(guarded)
    assert "out[0] = n / 4;" in lines
    assert "out[1] = kdsl::floordiv(n, 4);" in lines
    assert "out[2] = kdsl::floordiv(n, 4);" in lines


# -- the interpreter checks every assumption --------------------------------------------
def test_a_false_assumption_is_a_located_error_naming_the_values():
    out = np.zeros(4, np.int32)
    fk.rows.interpret[1, 4](out, 4, 3)
    assert out.tolist() == [0, 1, 2, 1]  # j // 3 + j % 3
    with pytest.raises(kdsl.AssumptionError) as info:
        fk.rows.interpret[1, 4](out, -3, 3)
    err = info.value
    assert isinstance(err, kdsl.DeviceAssertionError) and err.code == "E902"
    text = str(err)
    assert text.startswith(f"{fk.__file__}:")
    assert "kdsl.assume(n >= 0) is false: n = -3" in text
    assert "thread (0, 0, 0) of block (0, 0, 0)" in text
    lines = text.splitlines()
    assert lines[1].strip() == "kdsl.assume(n >= 0)" and set(lines[2].strip()) == {"^"}
    with pytest.raises(
        kdsl.AssumptionError, match=r"kdsl.assume\(C > 0\) is false: C = 0"
    ):
        fk.rows.interpret[1, 4](out, 4, 0)


def test_the_interpreter_names_every_value_and_the_failing_thread():
    x = np.array([0, 3, 9, 1], np.int32)
    with pytest.raises(kdsl.AssumptionError) as info:
        fk.chained.interpret[1, 4](np.zeros(16, np.int32), x, 8)
    assert "kdsl.assume(0 <= i < n) is false: i = 9, n = 8" in str(info.value)
    assert info.value.thread == (2, 0, 0)


def test_a_device_function_checks_its_assumption():
    with pytest.raises(kdsl.AssumptionError, match=r"n = -1"):
        fk.calls_func.interpret[1, 1](np.zeros(1, np.int32), -1)


def test_a_grid_fact_is_checked_against_the_launch():
    out = np.zeros(8, np.int32)
    fk.grid_stride.interpret[2, 2](out, 8)
    assert out.tolist() == list(range(8))


# -- debug and release builds --------------------------------------------------------------
def test_a_debug_build_checks_the_assumption_on_the_gpu_and_a_release_build_does_not():
    debug = fk.checked.dispatch()
    assert "if (!(n >= 0)) {" in debug.source
    assert "kdsl::assert_failed(kdsl_assert, 1);" in debug.source
    (site,) = debug.transpiled.assertions
    assert site[1] == "kdsl.assume(n >= 0) is false"
    compile_to_cubin(debug.source, debug.name)
    release = fk.rows.dispatch()
    assert "assert_failed" not in release.source and "kdsl_assert" not in release.source
    assert "// kdsl.assume(n >= 0)" in release.source  # its source comment only
    compile_to_cubin(release.source, release.name)


def test_the_facts_kernels_compile():
    for k in (fk.permute, fk.chained, fk.grid_stride, fk.wide_stride, fk.calls_func):
        inst = k.dispatch()
        compile_to_cubin(inst.source, inst.name)


# -- which operations stayed wrapped, and why ------------------------------------------------
def test_explain_arith_names_each_helper_and_the_range_that_kept_it():
    report = fk.rows_unstated.dispatch().compilation.explain_arith().splitlines()
    assert len(report) == 3
    assert re.match(
        r".*facts_kernels.py:\d+:18: kdsl::floordiv\(j, C\): C may be zero or negative: in \[-2147483648, 2147483647\]$",
        report[0],
    )
    assert "kdsl::mod(j, C): C may be zero or negative" in report[1]
    assert "kdsl::add(kdsl::floordiv(j, C), kdsl::mod(j, C))" in report[2]
    assert fk.grid_stride.dispatch().compilation.explain_arith() == ""
    loop = fk.grid_stride_unstated.dispatch().compilation.explain_arith()
    assert (
        "kdsl::in_range(j, n, j_step): the step j_step may be zero or negative" in loop
    )


def test_kdsl_transpile_explain_arith():
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "kdsl",
            "tests/facts_kernels.py",
            "-k",
            "rows_unstated",
            "--explain-arith",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "# ==> facts_kernels/rows_unstated <=="
    assert lines[1].startswith("tests/facts_kernels.py:")
    assert "kdsl::floordiv(j, C)" in lines[1]


# -- a property: a plain operator the facts allow is kdsl's operation ---------------------
def _wrap(v):
    return (v + 2**31) % 2**32 - 2**31


def _kdsl(op, a, b):
    """kdsl's Int32 semantics (Python's floor division, wrap-around)."""
    return _wrap(
        {
            "+": a + b,
            "-": a - b,
            "*": a * b,
            "//": a // b if b else 0,
            "%": a % b if b else 0,
        }[op]
    )


def _cxx(op, a, b):
    """C++'s plain operator on int32_t where it is defined (None: undefined)."""
    if op in ("//", "%") and b == 0:
        return None
    q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1) if op in ("//", "%") else 0
    v = {"+": a + b, "-": a - b, "*": a * b, "//": q, "%": a - q * b if b else 0}[op]
    return v if -(2**31) <= v < 2**31 else None


def _with_facts(op, lo_a, hi_a, lo_b, hi_b):
    """A function: assume lo_a <= a <= hi_a and lo_b <= b <= hi_b, then
    ``x = a op b``; its C++ and its ranges."""
    a, b = ir.Var(Int32, "a"), ir.Var(Int32, "b")

    def within(v, lo, hi):
        return ir.Logical(
            Boolean,
            "&&",
            ir.BinOp(Boolean, "<=", ir.Const(Int32, lo), v),
            ir.BinOp(Boolean, "<=", v, ir.Const(Int32, hi)),
        )

    cond = ir.Logical(Boolean, "&&", within(a, lo_a, hi_a), within(b, lo_b, hi_b))
    value = ir.BinOp(Int32, op, a, b)
    f = ir.Function(
        "f",
        (ir.Param("a", Int32), ir.Param("b", Int32)),
        (ir.Assume(cond, "kdsl.assume(...)"), ir.Declare("x", Int32, value)),
        ret=None,
        is_kernel=False,
    )
    ranges = Ranges(f)
    text = Emitter.function(f, Facts(ranges=ranges))
    return text, ranges, f


ints = st.integers(-(2**31), 2**31 - 1)


@st.composite
def intervals(draw):
    """An Int32 interval: any, or a short one (often non-negative), where
    plain operators become possible."""
    if draw(st.booleans()):
        return tuple(sorted((draw(ints), draw(ints))))
    lo = draw(st.one_of(st.integers(-1000, 1000), st.integers(0, 2**31 - 1), ints))
    hi = min(lo + draw(st.integers(0, 1 << draw(st.integers(0, 31)))), 2**31 - 1)
    return (lo, hi)


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(["+", "-", "*", "//", "%"]),
    intervals(),
    intervals(),
    st.data(),
)
def test_a_plain_operator_is_kdsls_operation_wherever_the_facts_allow_it(
    op, ra, rb, data
):
    text, ranges, f = _with_facts(op, *ra, *rb)
    (line,) = [l for l in text.splitlines() if "int32_t x =" in l]
    plain = "kdsl::" not in line
    event(f"{op} plain" if plain else f"{op} helper")
    decl = f.body[1]
    lo, hi = ranges.of(decl.init, at=decl)
    for _ in range(20):
        a = data.draw(st.integers(*ra))
        b = data.draw(st.integers(*rb))
        if op in ("//", "%") and b == 0:
            continue
        exact = _kdsl(op, a, b)
        assert lo <= exact <= hi  # the range holds every value the facts allow
        if plain:
            assert _cxx(op, a, b) == exact, (line, a, b)


def test_facts_are_sound_before_the_assume():
    """A fact holds from the assume on: the same expression before it is
    still the helper."""

    @kdsl.kernel
    def before(out: kdsl.Pointer[Int32], n: Int32):
        out[0] = n // 4
        kdsl.assume(n >= 0)
        out[1] = n // 4

    lines = code(before)
    assert lines.index("out[0] = kdsl::floordiv(n, 4);") < lines.index(
        "out[1] = n / 4;"
    )


def test_a_fact_about_a_wrapped_product_says_nothing_about_the_exact_one():
    @kdsl.kernel
    def product(out: kdsl.Pointer[Int32], a: Int32, b: Int32):
        kdsl.assume(a * b > 0)
        out[0] = a * b // 2
        out[1] = a // 2

    lines = code(product)
    assert "out[0] = kdsl::mul(a, b) / 2;" in lines  # the wrapped value is > 0
    assert "out[1] = kdsl::floordiv(a, 2);" in lines


def test_a_loop_counter_is_bounded_by_a_fact_on_its_stop():
    @kdsl.kernel
    def counted(out: kdsl.Pointer[Int32], n: Int32):
        kdsl.assume(n <= 1000)
        for i in range(n):
            out[i] = i * 1000 + i // 3

    @kdsl.kernel
    def uncounted(out: kdsl.Pointer[Int32], n: Int32):
        for i in range(n):
            out[i] = i * 1000 + i // 3

    assert "out[i] = i * 1000 + i / 3;" in code(counted)
    assert "out[i] = kdsl::add(kdsl::mul(i, 1000), i / 3);" in code(uncounted)
