"""Weird but plausible kernels: each one either transpiles to CUDA that
NVRTC compiles, or is a located DSLError with a clear message — never an
internal error (E999), a Python exception or code NVRTC rejects."""

import numpy as np
import pytest

import kdsl
from kdsl.runtime.nvrtc import compile_to_cubin
from snippets import make_kernel

TWICE = """
@kdsl.func
def inner(a):
    return a * 2

@kdsl.func
def outer(a, b):
    return inner(a) + inner(b)
"""
NOTHING = """
@kdsl.func
def nothing(a):
    a = a + 1
"""
LANE = """
@kdsl.func
def lane():
    return kdsl.lane_id()
"""
G = """
@kdsl.func
def g(a):
    return a + 1
"""
NAMED_LIKE_CUDA = """
@kdsl.func
def exp():
    return Float32(1)

@kdsl.func
def double(float):
    return float * 2
"""
CLAMP = """
@kdsl.func
def clamp(a):
    if a < 0:
        return Float32(0)
    return a
"""

COMPILES = {
    "device functions calling each other": (TWICE, "out[i] = outer(x[i], x[0])"),
    "a built-in name shadowed by a value": ("", "m = 3\nmax = m\nout[i] = x[i] * max"),
    "a pointer under another name": ("", "p = x\nq = out\nq[i] = p[i] + p[0]"),
    "while True with break": (
        "",
        "k = 0\nwhile True:\n    if k >= n:\n        break\n    out[k] = x[k]\n"
        "    k += 1",
    ),
    "return inside a run-time loop": (
        "",
        "for k in range(n):\n    if x[k] < 0:\n        return\n    out[k] = x[k]",
    ),
    "return in an unrolled loop under a run-time if": (
        "",
        "for k in kdsl.range_constexpr(4):\n    if x[k] < 0:\n        return\n"
        "    out[k] = x[k]",
    ),
    "True and False": (
        "",
        "flag = True\nif flag and i < n and not False:\n    out[i] = x[i]",
    ),
    "tuple swap": ("", "a = x[i]\nb = x[0]\na, b = b, a\nout[i] = a - b"),
    "a variable named like a zero-argument device function": (
        LANE,
        "lane = lane()\nout[lane] = x[lane]",
    ),
    "a variable named like a device function's C++ name": (
        G,
        "g__f32 = x[0]\nout[0] = g(g__f32)",
    ),
    "device functions named like CUDA and C++ names": (
        NAMED_LIKE_CUDA,
        "out[0] = exp() + double(x[0])",
    ),
    "C++ keywords as variable names": (
        "",
        "int32_t = 1\ndouble = x[i]\nthreadIdx = i + int32_t\nout[threadIdx] = double",
    ),
    "a device function with two returns": (CLAMP, "out[i] = clamp(x[i])"),
    "chained run-time comparison": ("", "if 0 <= i < n:\n    out[i] = x[i]"),
    "augmented store": ("", "out[i] += x[i]"),
}


@pytest.mark.parametrize("case", sorted(COMPILES))
def test_weird_kernels_that_are_fine_compile(tmp_path, case):
    helpers, body = COMPILES[case]
    k, _ = make_kernel(tmp_path, "i = thread_idx.x\n" + body, helpers)
    inst = k.dispatch("f32")
    compile_to_cubin(inst.source, inst.name)
    # the interpreter runs what the transpiler accepts (no internal error)
    x, out = np.arange(64, dtype=np.float32) - 3, np.zeros(64, np.float32)
    k.interpret[1, 8](x, out, 8)


VEC = "v = x.vec(4)[i]\n"
ERRORS = {
    # (helpers, body with the expected line marked '# <-', code, words)
    "a device function without a value, assigned": (
        NOTHING,
        "v = nothing(x[i])  # <-\nout[i] = v",
        "E303",
        "nothing() returns no value",
    ),
    "a device function without a value, in an expression": (
        NOTHING,
        "out[i] = nothing(x[i]) + x[i]  # <-",
        "E106",
        "returns nothing",
    ),
    "syncthreads as a value": (
        "",
        "v = kdsl.syncthreads()  # <-",
        "E303",
        "kdsl.syncthreads() returns no value",
    ),
    "a shadowed built-in called": (
        "",
        "max = 3\nout[i] = max(x[i], x[0])  # <-",
        "E208",
        "an Int32 is not callable",
    ),
    "thread_idx as an index": (
        "",
        "out[thread_idx] = x[0]  # <-",
        "E106",
        "thread_idx.x",
    ),
    "thread_idx in arithmetic": ("", "j = thread_idx + 1  # <-", "E106", "thread_idx"),
    "thread_idx.w": ("", "out[0] = x[thread_idx.w]  # <-", "E318", "thread_idx"),
    "x.vec(5)": ("", "v = x.vec(5)  # <-", "E108", "lanes must be one of"),
    "x.vec(n)": ("", "v = x.vec(n)  # <-", "E304", "compile time"),
    "x.vec(4.0)": ("", "v = x.vec(4.0)  # <-", "E236", "must be an integer"),
    "range with a Float bound": (
        "",
        "for k in range(Float32(3)):  # <-\n    out[k] = x[k]",
        "E223",
        "integers, got Float32",
    ),
    "range over a loaded float": (
        "",
        "for k in range(x[0]):  # <-\n    out[k] = x[k]",
        "E223",
        "integers",
    ),
    "if on a vector": (
        "",
        VEC + "if v:  # <-\n    out[i] = x[i]",
        "E112",
        "no single truth value",
    ),
    "if on a vector comparison": (
        "",
        VEC + "if v > 0:  # <-\n    out[i] = x[i]",
        "E112",
        "Booleanx4",
    ),
    "a vector ternary condition": ("", VEC + "w = v if v else v  # <-", "E112", ""),
    "not of a vector": ("", VEC + "w = not v  # <-", "E112", "'not'"),
    "and of a vector": (
        "",
        VEC + "if v and i < n:  # <-\n    out[i] = x[i]",
        "E112",
        "'and'",
    ),
    "a vector indexed twice": ("", VEC + "w = v[0, 1]  # <-", "E320", "one index"),
    "a tuple passed to a device function": (
        G,
        "out[i] = g((x[i], x[i]))  # <-",
        "E211",
        "pointers and arrays",
    ),
    "a bare return in a function that returns a value": (
        """
        @kdsl.func
        def f(a):
            if a < 0:
                return  # <-
            return a
        """,
        "out[i] = f(x[i])",
        "E315",
        "needs one too",
    ),
    "a function that can end without its value": (
        """
        @kdsl.func
        def f(a):  # <-
            if a < 0:
                return a
        """,
        "out[i] = f(x[i])",
        "E308",
        "end it with a return",
    ),
    "a kernel called from a kernel": ("", "k(x, out, n)  # <-", "E212", "kernel 'k'"),
    "a plain Python function": (
        "def h(a):\n    return a",
        "out[0] = h(x[0])  # <-",
        "E209",
        "@kdsl.func",
    ),
    "a dtype parameter inside a device function": (
        """
        @kdsl.func
        def f(a):
            return a * D(2)  # <-
        """,
        "out[0] = f(x[0])",
        "E210",
        "a.dtype(2)",
    ),
    "None": ("", "v = None  # <-", "E202", "None"),
    "comparing a pointer with a number": (
        "",
        "if x == 0:  # <-\n    out[0] = x[0]",
        "E347",
        "a pointer takes p + k",
    ),
    "a run-time loop variable after its loop": (
        "",
        "for k in range(n):\n    out[k] = x[k]\nout[0] = x[k]  # <-",
        "E309",
        "does not exist after it",
    ),
    "a constexpr as a run-time loop variable": (
        "",
        "for BLOCK in range(3):  # <-\n    out[BLOCK] = x[BLOCK]",
        "E240",
        "compile-time parameter",
    ),
    "range_constexpr with step 0": (
        "",
        "for k in kdsl.range_constexpr(0, 3, 0):  # <-\n    out[k] = x[k]",
        "E222",
        "zero",
    ),
    "unroll=0": (
        "",
        "for k in kdsl.range(n, unroll=0):  # <-\n    out[k] = x[k]",
        "E224",
        "1 or more",
    ),
    "a run-time unroll": (
        "",
        "for k in kdsl.range(n, unroll=n):  # <-\n    out[k] = x[k]",
        "E304",
        "unroll=",
    ),
    "a float shared-array shape": (
        "",
        "s = kdsl.shared_array(Float32, 2.5)  # <-",
        "E236",
        "must be an integer",
    ),
    "range as a value": ("", "r = range(3)  # <-", "E220", "iterable of a for loop"),
}
INTERNAL = ("Error:", "Traceback", "_Dim3", "PointerValue", "NoneType", "builtin_")


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_weird_kernels_that_are_wrong_are_located_errors(tmp_path, case):
    helpers, body, code, words = ERRORS[case]
    params = "x: Pointer[D], out: Pointer[D], n: Int32, BLOCK: Constexpr[int] = 4"
    k, line = make_kernel(tmp_path, "i = thread_idx.x\n" + body, helpers, params)
    with pytest.raises(kdsl.DSLError) as info:
        k.dispatch("f32").source
    exc, text = info.value, str(info.value)
    assert exc.code == code, text
    assert exc.span is not None and exc.span.line == line, text
    assert words in exc.message, text
    assert not any(fragment in text for fragment in INTERNAL), text


def test_a_shape_index_out_of_range_is_a_located_error(tmp_path):
    k, line = make_kernel(
        tmp_path,
        "out[0] = a.shape[2]  # <-",
        params="a: kdsl.Array[D, 2], out: Pointer[D]",
    )
    with pytest.raises(kdsl.DSLError) as info:
        k.dispatch("f32").source
    assert info.value.code == "E322" and info.value.span.line == line
    assert "out of range" in info.value.message
