"""Three workarounds the ported kernels needed, now unnecessary: float("-inf")
in a kernel, a range_constexpr variable's name reused by a later run-time
loop, and a local array declared in each iteration of an unrolled loop."""

import numpy as np
import pytest

import kdsl
from kdsl import Float32, Int32, Int64, Pointer
from kdsl.runtime.nvrtc import compile_to_cubin


@kdsl.kernel
def running_max(x: Pointer[Float32], out: Pointer[Float32], n: Int32):
    m = Float32(float("-inf"))
    for k in range(n):
        m = max(m, x[k])
    out[0] = m
    out[1] = Float32(float("nan"))
    out[2] = Float32(float("+inf"))


def test_float_of_a_string_literal_is_a_constant():
    src = running_max.dispatch().source
    assert "float m = -INFINITY;" in src
    assert "out[1] = __int_as_float(0x7fc00000);" in src  # a NaN keeps its bits
    assert "out[2] = INFINITY;" in src
    compile_to_cubin(src, "running_max")
    out = np.zeros(3, np.float32)
    running_max.interpret[1, 1](np.array([-5, -2, -9], np.float32), out, 3)
    assert out[0] == -2 and np.isnan(out[1]) and out[2] == np.inf


@kdsl.kernel
def bad_float(out: Pointer[Float32]):
    out[0] = Float32(float("lots"))


def test_float_of_another_string_is_a_located_error():
    with pytest.raises(kdsl.DSLError, match=r"E106.*the string 'lots'") as info:
        bad_float.dispatch().source
    assert info.value.span.line == bad_float.fn.__code__.co_firstlineno + 2


@kdsl.kernel
def reused_names(x: Pointer[Float32], n: Int64):
    acc = Float32(0)
    for k in kdsl.range_constexpr(Int32(3)):
        acc += x[k]
    for k in range(n):
        acc += x[k]
    for k in kdsl.range_constexpr(2):
        acc += x[k]
    x[0] = acc


def test_a_constexpr_loop_variable_name_can_serve_a_later_run_time_loop():
    src = reused_names.dispatch().source
    compile_to_cubin(src, "reused_names")
    x = np.arange(1, 6, dtype=np.float32)
    reused_names.interpret[1, 1](x, 5)
    assert x[0] == (1 + 2 + 3) + (1 + 2 + 3 + 4 + 5) + (1 + 2)


@kdsl.kernel
def per_iteration_scratch(x: Pointer[Float32]):
    for k in kdsl.range_constexpr(2):
        t = kdsl.local_array(Float32, 4)
        t[0] = x[k]
        x[k] = t[0] * 2


def test_each_unrolled_iteration_may_declare_its_own_local_array():
    src = per_iteration_scratch.dispatch().source
    assert "float t[4];" in src and "float t_2[4];" in src
    compile_to_cubin(src, "per_iteration_scratch")
    x = np.array([1.5, 2.5], np.float32)
    per_iteration_scratch.interpret[1, 1](x)
    np.testing.assert_array_equal(x, [3, 5])


T = kdsl.TypeVar("T", bound=kdsl.Num)


@kdsl.kernel(dtypes=[Int32, Float32])
def per_type(x: Pointer[T]):
    if T == Int32:
        x[0] = x[0] + 1
    elif T != Float32:
        x[0] = x[0]
    else:
        x[0] = x[0] * Float32(2)


def test_a_dtype_parameter_compares_with_a_type_at_compile_time():
    # it was E106 (a type is not a number): the ported reduce7 needed a flag
    ints = per_type.dispatch(Int32).source
    floats = per_type.dispatch(Float32).source
    assert "kdsl::add(x[0], 1)" in ints and "x[0] * 2.0f" not in ints
    assert "x[0] * 2.0f" in floats and "kdsl::add" not in floats.split("extern")[1]
    compile_to_cubin(ints, "per_type__i32")


@kdsl.kernel
def lanes_in_branches(x: Pointer[Float32], out: Pointer[Float32], n: Int32):
    acc = kdsl.local_array(Float32, (2, 4))
    for c in kdsl.range_constexpr(2):
        for k in kdsl.range_constexpr(4):
            acc[c, k] = 0
        if c * 4 < n:
            v = x.vec(4)[c]
            for lane in kdsl.range_constexpr(4):  # unrolled inside a run-time if
                acc[c, lane] = v[lane]
    for c in kdsl.range_constexpr(2):
        if c * 4 < n:
            for lane in kdsl.range_constexpr(4):  # the same name, later
                out[c * 4 + lane] = acc[c, lane] + acc[c, 3 - lane]


def test_a_range_constexpr_variable_in_run_time_branches_stays_static():
    # the loop variable of an unrolled loop is a compile-time value in every
    # iteration, also inside a run-time branch and when the name is reused
    # after it: no C++ variable for it, and a lane index stays static (E116)
    src = lanes_in_branches.dispatch().source
    body = src[src.index("void lanes_in_branches") :]
    assert "int32_t k" not in body and "int32_t lane" not in body
    compile_to_cubin(src, "lanes_in_branches")
    x = np.arange(8, dtype=np.float32)
    out = np.zeros(8, np.float32)
    lanes_in_branches.interpret[1, 1](x, out, 8)
    np.testing.assert_array_equal(out, x + x.reshape(2, 4)[:, ::-1].reshape(8))
