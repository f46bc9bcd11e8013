"""``no_overflow=True`` (signed ``+ - *`` stated not to overflow, C's rule
for ``int``) and the facts an ``if`` that leaves states after it: the C++
with and without them, the range analysis's clamped intervals, the
interpreter's check of every operation (E903), folding's (E354), and a
property test that the interpreter's check finds exactly the overflows."""

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import facts_kernels as fk
import kdsl
from kdsl.runtime.interpreter.debug import _overflowed
from kdsl.runtime.nvrtc import compile_to_cubin
from kdsl.transpile import ir
from kdsl.transpile.core.types import Int8, Int32, Int64
from kdsl.transpile.passes.ranges import Ranges

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ports"))
from attention_permute import permute_kernel  # noqa: E402  (llm.c's, as written)


def code(kernel) -> list:
    """The C++ statements of the instance (no comments, no prelude)."""
    src = kernel.dispatch().source
    first = src.find("static __device__ int32_t")
    src = src[first if first >= 0 else src.rindex('extern "C"') :]
    lines = [l.strip() for l in src.splitlines()]
    return [l for l in lines if l and not l.startswith("//")]


# -- the C++ ------------------------------------------------------------------------------
def test_signed_arithmetic_is_plain_where_it_is_stated_not_to_overflow():
    assert code(fk.scaled)[1:4] == [
        "out[0] = a * b + c;",
        "out[1] = -a;",
        "out[2] = a - b;",
    ]
    assert code(fk.scaled_wrapping)[1:4] == [
        "out[0] = kdsl::add(kdsl::mul(a, b), c);",
        "out[1] = kdsl::neg(a);",
        "out[2] = kdsl::sub(a, b);",
    ]
    assert "kdsl::" not in "\n".join(code(fk.wide_scaled))


def test_the_permute_kernel_is_cs_arithmetic_with_its_sizes_positive():
    lines = code(permute_kernel)
    text = "\n".join(lines)
    assert "kdsl::" not in text
    assert "int32_t b = idx / (NH * N * d);" in lines
    assert "int32_t d_ = rest % d;" in lines
    for kernel in (permute_kernel, fk.scaled, fk.wide_scaled):
        inst = kernel.dispatch()
        compile_to_cubin(inst.source, inst.name)


def test_the_option_reaches_device_functions_from_the_kernel_or_their_own():
    lines = code(fk.calls_no_overflow_func)
    assert "return r * C + c;" in lines  # the function's own option
    assert "out[1] = kdsl::add(kdsl::mul(r, C), c);" in lines  # not the kernel's
    assert "return r * C + c;" in code(fk.kernel_states_it_for_funcs)


def test_explain_arith_lists_what_the_facts_leave():
    assert permute_kernel.dispatch().compilation.explain_arith() == ""
    assert fk.scaled.dispatch().compilation.explain_arith() == ""
    report = fk.scaled_wrapping.dispatch().compilation.explain_arith()
    assert "kdsl::mul(a, b): a in [-2147483648, 2147483647] * b" in report


def test_positive_sizes_make_a_positive_product():
    n, c = ir.Var(Int32, "n"), ir.Var(Int32, "c")
    product = ir.BinOp(Int32, "*", n, c)
    positive = ir.Logical(
        kdsl.Boolean,
        "&&",
        ir.BinOp(kdsl.Boolean, ">", n, ir.Const(Int32, 0)),
        ir.BinOp(kdsl.Boolean, ">", c, ir.Const(Int32, 0)),
    )
    body = (ir.Assume(positive, "kdsl.assume(...)"), ir.Declare("x", Int32, product))
    params = (ir.Param("n", Int32), ir.Param("c", Int32))
    for stated, want in ((True, (1, 2**31 - 1)), (False, (-(2**31), 2**31 - 1))):
        f = ir.Function("f", params, body, is_kernel=False, no_overflow=stated)
        assert Ranges(f).of(product, at=body[1]) == want


def test_narrow_types_clamp_too_and_unsigned_ones_wrap():
    a = ir.Var(Int8, "a")
    neg = ir.UnaryOp(Int8, "-", a)
    f = ir.Function(
        "f", (ir.Param("a", Int8),), (ir.Declare("x", Int8, neg),), no_overflow=True
    )
    assert Ranges(f).of(neg) == (-127, 127)  # -(-128) does not happen


def test_a_debug_build_checks_each_operation_on_the_gpu():
    inst = fk.scaled_checked.dispatch()
    lines = code(fk.scaled_checked)
    assert (
        "out[0] = kdsl::checked_add(kdsl::checked_mul(a, b, kdsl_assert, 1), 1, "
        "kdsl_assert, 2);"
    ) in lines
    messages = [m for _, m in inst.transpiled.assertions]
    assert messages[0] == "a * b overflows Int32 (the function states no_overflow=True)"
    assert messages[3].startswith("Int64(a) * b - 1 overflows Int64")
    compile_to_cubin(inst.source, inst.name)
    assert "checked_" not in fk.scaled.dispatch().source  # a release build: plain


# -- facts after an if that leaves -----------------------------------------------------
def test_an_if_that_returns_states_the_negated_condition_after_it():
    lines = code(fk.early_return)
    assert "out[0] = i / 8;" in lines  # i >= 0 after `if i < 0: return`
    assert "out[1] = n / 8;" in lines  # n > i >= 0 after `if i >= n: return`
    assert "out[0] = kdsl::floordiv(i, 8);" in code(fk.no_early_return)


def test_a_break_states_the_negated_condition_in_the_rest_of_the_loop():
    assert "out[t] = v / 4;" in code(fk.break_fact)  # not (v < 0 or v > 1000)
    out = np.full(4, -9, np.int32)
    fk.break_fact.interpret[1, 1](out, np.array([8, 13, -1, 4], np.int32), 4)
    assert out.tolist() == [2, 3, -9, -9]


# -- the interpreter checks every operation ----------------------------------------------
def test_an_overflow_is_a_located_error_naming_the_operands():
    out = np.zeros(3, np.int32)
    fk.scaled.interpret[1, 1](out, -7, 3, 5)
    assert out.tolist() == [-16, 7, -10]
    with pytest.raises(kdsl.AssumptionError) as info:
        fk.scaled.interpret[1, 1](out, 1 << 16, 1 << 15, 0)
    err = info.value
    assert err.code == "E903" and isinstance(err, kdsl.DeviceAssertionError)
    text = str(err)
    assert text.startswith(f"{fk.__file__}:")
    assert "65536 * 32768 is 2147483648, outside Int32" in text
    assert "(in thread (0, 0, 0) of block (0, 0, 0))" in text
    assert "no_overflow=True" in text
    lines = text.splitlines()
    assert lines[1].strip() == "out[0] = a * b + c"
    assert set(lines[2].strip()) == {"^"} and len(lines[2].strip()) == len("a * b")
    with pytest.raises(kdsl.AssumptionError, match=r"-\(-2147483648\) is 2147483648"):
        fk.scaled.interpret[1, 1](out, -(2**31), 0, 0)
    fk.scaled_wrapping.interpret[1, 1](out, 1 << 16, 1 << 15, 0)  # wraps, as stated
    assert out[0] == -(2**31)


def test_a_64_bit_overflow_and_a_device_functions_are_checked():
    out = np.zeros(3, np.int64)
    fk.wide_scaled.interpret[1, 1](out, 3 << 60 >> 2, 2)
    with pytest.raises(kdsl.AssumptionError, match=r"outside Int64"):
        fk.wide_scaled.interpret[1, 1](out, 1 << 62, 2)
    with pytest.raises(kdsl.AssumptionError, match=r"46341 \* 46341 is 2147488281"):
        fk.calls_no_overflow_func.interpret[1, 1](
            np.zeros(2, np.int32), 46341, 46341, 0
        )


def test_the_permute_kernel_gives_the_wrapping_kernels_result():
    B, N, NH, d = 2, 5, 3, 4
    inp = np.arange(B * N * 3 * NH * d, dtype=np.float32)
    outs = {}
    for kernel in (permute_kernel, fk.permute):
        qkv = [np.zeros(B * NH * N * d, np.float32) for _ in range(3)]
        kernel.interpret[2, 64](*qkv, inp, B, N, NH, d)
        outs[kernel] = qkv
    for x, y in zip(outs[permute_kernel], outs[fk.permute]):
        assert np.array_equal(x, y)
    want = inp.reshape(B, N, 3, NH, d)[:, :, 0].transpose(0, 2, 1, 3).ravel()
    assert np.array_equal(outs[fk.permute][0], want)


WIDTHS = {Int32: 32, Int64: 64}


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["+", "-", "*"]),
    st.sampled_from([Int32, Int64]),
    st.data(),
)
def test_the_check_finds_exactly_the_overflows(op, t, data):
    w = WIDTHS[t]
    edge = st.sampled_from([0, 1, -1, 2, -2, 2 ** (w - 1) - 1, -(2 ** (w - 1))])
    value = st.one_of(edge, st.integers(-(2 ** (w - 1)), 2 ** (w - 1) - 1))
    a, b = data.draw(value), data.draw(value)
    exact = a + b if op == "+" else a - b if op == "-" else a * b
    wrapped = (exact + 2 ** (w - 1)) % 2**w - 2 ** (w - 1)
    x, y, r = (np.array([v], t.np_dtype) for v in (a, b, wrapped))
    assert _overflowed(op, (x, y), r, t)[0] == (exact != wrapped)
