"""Issue 16, items 4, 6 and 8: kernels that were miscompiled, crashed kdsl
with a raw Python exception or ran without limit.  Each either gives
Python's answer in the interpreter and CUDA that NVRTC compiles, or is a
located DSLError."""

import numpy as np
import pytest

import kdsl
from kdsl.runtime.nvrtc import compile_to_cubin
from snippets import make_kernel

PARAMS = "x: Pointer[D], out: Pointer[D], n: Int32"


def _run(tmp_path, body, helpers="", n=3):
    k, _ = make_kernel(tmp_path, body, helpers, PARAMS)
    inst = k.dispatch("f32")
    compile_to_cubin(inst.source, inst.name)
    x = np.arange(8, dtype=np.float32) + 1
    out = np.zeros(8, np.float32)
    k.interpret[1, 1](x, out, np.int32(n))
    return out, inst.source


def _error(tmp_path, body, helpers="", params=PARAMS):
    k, line = make_kernel(tmp_path, body, helpers, params)
    with pytest.raises(kdsl.DSLError) as info:
        k.dispatch("f32").source
    exc = info.value
    assert exc.span is not None and exc.code != "E999", str(exc)
    if line is not None:
        assert exc.span.line == line, str(exc)
    return exc


def test_a_starred_tuple_is_unpacked_like_python(tmp_path):
    out, _ = _run(
        tmp_path,
        "t = (x[0], x[1])\nu = (*t, Float32(5.0))\n"
        "out[0] = u[1]\nout[1] = u[2]\nout[2] = (Float32(7.0), *t)[0]",
    )
    assert out[:3].tolist() == [2.0, 5.0, 7.0]


def test_starring_a_value_is_a_located_error(tmp_path):
    exc = _error(tmp_path, "out[0] = (*x[0], Float32(5.0))[1]  # <-")
    assert exc.code == "E270"


def test_range_constexpr_gives_the_loop_variable_the_type_range_gives(tmp_path):
    # Int8 arithmetic wraps: 2 * 100 is -56 in both loops
    body = """
    s = Int32(0)
    for k in kdsl.range_constexpr(kdsl.Int8(0), kdsl.Int8(3)):
        s = s + k * kdsl.Int8(100)
    u = Int32(0)
    for j in range(kdsl.Int8(0), kdsl.Int8(3)):
        u = u + j * kdsl.Int8(100)
    out[0] = s.to(Float32)
    out[1] = u.to(Float32)
    """
    out, _ = _run(tmp_path, body)
    assert out[0] == out[1] == 44.0


def test_a_conditional_expression_has_one_type_static_or_not(tmp_path):
    # Int32 and Float32 meet at Float32 either way: 2**24 + 1 rounds to 2**24
    body = """
    a = kdsl.Int32(16777217) if True else Float32(2)
    b = kdsl.Int32(16777217) if n > 0 else Float32(2)
    out[0] = (a - 16777216).to(Float32)
    out[1] = (b - 16777216).to(Float32)
    """
    out, _ = _run(tmp_path, body)
    assert out[0] == out[1] == 0.0


def test_a_static_conditional_still_ignores_an_arm_that_cannot_be_typed(tmp_path):
    out, _ = _run(tmp_path, "v = x[0] if True else undefined_name\nout[0] = v")
    assert out[0] == 1.0


def test_adding_a_float_literal_to_an_integer_variable_is_an_error(tmp_path):
    exc = _error(tmp_path, "j = kdsl.Int32(1)\nj += 0.5  # <-\nout[0] = j.to(Float32)")
    assert exc.code == "E302"


def test_adding_an_integer_literal_to_an_integer_variable_is_fine(tmp_path):
    out, _ = _run(tmp_path, "j = kdsl.Int32(1)\nj += 2\nout[0] = j.to(Float32)")
    assert out[0] == 3.0


def test_a_float_shuffle_lane_is_a_located_error(tmp_path):
    exc = _error(tmp_path, "out[0] = kdsl.shfl_idx(x[0], Float32(1.0))  # <-")
    assert exc.code == "E273"


@pytest.mark.parametrize("index", ["4", "-1", "kdsl.Int64(2**40)"])
def test_a_static_local_index_out_of_range_is_a_located_error(tmp_path, index):
    body = f"a = kdsl.local_array(Float32, 4)\na[{index}] = x[0]  # <-\nout[0] = a[0]"
    assert _error(tmp_path, body).code == "E272"


@pytest.mark.parametrize(
    "annotation",
    ["Pointer[int]", "Array[Float32]", "Pointer[D, 2]", "Array[D, 1.5]"]
    + ["Array[D, 0]", "Array[D, -1]", "Array[D, True]", "Pointer[3]"],
)
def test_a_malformed_annotation_is_a_located_error(tmp_path, annotation):
    with pytest.raises(kdsl.DSLError) as info:
        make_kernel(
            tmp_path, "out[0] = Float32(1)", params=f"x: {annotation}, out: Pointer[D]"
        )
    exc = info.value
    assert exc.code == "E274" and exc.span is not None, str(exc)
    assert "snippet_" in exc.span.path and "^" in str(exc)


def test_a_500_term_sum_is_a_limit_error_not_a_recursion_error(tmp_path):
    body = "out[0] = " + " + ".join(["x[0]"] * 500)
    exc = _error(tmp_path, body)
    assert exc.code == "E271" and "KDSL_MAX_EXPRESSION_DEPTH" in exc.message


def test_the_expression_depth_limit_can_be_raised(tmp_path, monkeypatch):
    monkeypatch.setenv("KDSL_MAX_EXPRESSION_DEPTH", "1000")
    out, _ = _run(tmp_path, "out[0] = " + " + ".join(["x[0]"] * 600))
    assert out[0] == 600.0


def test_an_integer_too_large_for_any_type_is_a_located_error(tmp_path):
    exc = _error(tmp_path, "x[0] = 10**5000  # <-")
    assert exc.code == "E275" and "16610 bits" in exc.message


def test_a_huge_local_array_is_a_limit_error(tmp_path):
    body = "a = kdsl.local_array(Float32, 10**12)  # <-\na[0] = x[0]\nout[0] = a[0]"
    exc = _error(tmp_path, body)
    assert exc.code == "E271" and "KDSL_MAX_LOCAL_BYTES" in exc.message


def test_a_huge_unrolled_loop_fails_fast(tmp_path):
    import time

    body = "for k in kdsl.range_constexpr(200000):  # <-\n    out[0] = x[0]"
    start = time.perf_counter()
    exc = _error(tmp_path, body)
    assert exc.code == "E271" and "KDSL_MAX_UNROLL" in exc.message
    assert time.perf_counter() - start < 2.0


def test_nested_unrolled_loops_count_together(tmp_path, monkeypatch):
    monkeypatch.setenv("KDSL_MAX_UNROLL", "500")
    body = """
    for a in kdsl.range_constexpr(30):
        for b in kdsl.range_constexpr(30):  # <-
            out[0] = x[0]
    """
    assert _error(tmp_path, body).code == "E271"
    monkeypatch.setenv("KDSL_MAX_UNROLL", "0")  # no cap
    out, _ = _run(tmp_path, body.replace("  # <-", ""))
    assert out[0] == 1.0


@pytest.mark.parametrize("expr", ["10**10**9", "1 << 10**12", "(-3) ** 10**8"])
def test_a_gigantic_python_integer_is_refused_before_it_is_computed(tmp_path, expr):
    import time

    start = time.perf_counter()
    exc = _error(tmp_path, f"out[0] = Float32({expr})  # <-")
    assert exc.code == "E275" and time.perf_counter() - start < 2.0
