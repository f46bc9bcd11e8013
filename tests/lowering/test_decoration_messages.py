"""Errors at decoration and dispatch are located at the kernel's ``def``
(the parameter, the decorator keyword or the name) with a caret (issue 15,
item 6), and a dtype given to a kernel that takes none says so (item 8)."""

import inspect
import math

import numpy as np
import pytest

import kdsl
from kdsl import Constexpr, Int32, Pointer, thread_idx

F = kdsl.TypeVar("F", bound=kdsl.Float)


@kdsl.kernel
def scale(x: Pointer[F], n: Int32, BLOCK: Constexpr[int] = 128):
    if thread_idx.x < n:
        x[0] = x[0] + x[0]


@kdsl.kernel
def fixed(x: Pointer[kdsl.Float32], n: Int32, BLOCK: Constexpr[int] = 128):
    if thread_idx.x < n:
        x[0] = x[0] + x[0]


@kdsl.kernel
def untyped(x: Pointer[kdsl.Float32], n: Int32):
    if thread_idx.x < n:
        x[0] = x[0] + x[0]


HERE = inspect.getsourcefile(scale.fn)
DEF_LINE = inspect.getsourcelines(scale.fn)[1] + 1  # under the decorator


def _located(exc, line, caret_under):
    text = str(exc)
    first, source, carets = text.splitlines()[:3]
    assert first.startswith(f"{HERE}:{line}:"), text
    col = int(first.split(":")[2])
    assert source.strip().startswith("def "), text
    assert carets.strip() and set(carets.strip()) == {"^"}, text
    start = carets.index("^")
    assert source[start:].startswith(caret_under), text
    assert col == start - 3, text  # the source line is indented by 4
    return text


@pytest.mark.parametrize(
    "call, code, under",
    [
        (lambda: scale.dispatch("f32", 1, BLOCK=2), "E416", "BLOCK: Constexpr[int]"),
        (lambda: scale.dispatch("f32", "64"), "E418", "BLOCK: Constexpr[int]"),
    ],
)
def test_dispatch_errors_of_a_parameter_point_at_it(call, code, under):
    with pytest.raises(kdsl.DSLError) as info:
        call()
    assert info.value.code == code
    _located(info.value, DEF_LINE, under)


@pytest.mark.parametrize(
    "call, code",
    [
        (lambda: scale.dispatch(), "E413"),
        (lambda: scale.dispatch("f32", 1, 2), "E414"),
        (lambda: scale.dispatch("f32", TILE=1), "E415"),
        (lambda: scale.dispatch(kdsl.Int32), "E403"),
        (lambda: scale.dispatch("f33"), "E411"),
    ],
)
def test_other_dispatch_errors_point_at_the_failing_call(call, code):
    with pytest.raises(kdsl.DSLError) as info:
        call()
    assert info.value.code == code
    first, source, carets = str(info.value).splitlines()[:3]
    assert first.startswith(f"{HERE}:"), first
    assert source[carets.index("^") :].startswith("scale.dispatch("), str(info.value)


def test_a_dtype_given_to_a_kernel_without_dtype_parameters():
    with pytest.raises(kdsl.DSLError) as info:
        fixed.dispatch("f16")
    assert info.value.code == "E505"
    assert info.value.message == (
        "dispatch() of 'fixed' got the dtype 'f16' where constexpr 'BLOCK' goes: "
        "'fixed' has no dtype parameters (its types are fixed); pass its "
        "constexprs only, e.g. fixed.dispatch(BLOCK=...)"
    )
    with pytest.raises(kdsl.DSLError) as info:
        untyped.dispatch(kdsl.Float32)
    assert info.value.code == "E505"
    assert "'untyped' has no dtype parameters" in info.value.message
    assert "untyped.dispatch()" in info.value.message


def test_one_dtype_too_many():
    with pytest.raises(kdsl.DSLError) as info:
        scale.dispatch("f32", "f16")
    assert info.value.code == "E505"
    assert info.value.message.startswith(
        "dispatch() of 'scale' got the dtype 'f16' where constexpr 'BLOCK' goes: "
        "'scale' has 1 dtype parameter (F)"
    )


def test_the_plain_int_hint_is_exact():
    with pytest.raises(kdsl.DSLError) as info:

        @kdsl.kernel
        def bad(x: Pointer[kdsl.Float32], BLOCK: int = 256):
            x[0] = 1.0

    assert info.value.code == "E401"
    assert info.value.message == (
        "kernel 'bad': parameter 'BLOCK' is annotated with Python's int; did you "
        "mean `Constexpr[int]` (a compile-time value, one kernel instance per "
        "value) or `Int32` (a run-time argument)?"
    )
    assert "BLOCK: int = 256" in str(info.value)


def test_a_missing_annotation_says_so_in_words():
    with pytest.raises(kdsl.DSLError) as info:

        @kdsl.kernel
        def bad(x: Pointer[kdsl.Float32], n):
            x[0] = 1.0

    assert "parameter 'n' has no annotation" in info.value.message
    assert "inspect" not in str(info.value)


def test_decorator_keywords_are_located_at_the_keyword():
    with pytest.raises(kdsl.DSLError) as info:

        @kdsl.kernel(maxrregcount=100000)
        def bad(x: Pointer[kdsl.Float32]):
            x[0] = 1.0

    text = str(info.value)
    assert info.value.code == "E473"
    assert text.splitlines()[2].strip() == "^" * len("maxrregcount=100000"), text


def test_python_math_points_to_kdsl_math():
    @kdsl.kernel
    def uses_math(x: Pointer[kdsl.Float32]):
        x[0] = math.exp(x[0]) + np.sqrt(x[1])

    with pytest.raises(kdsl.DSLError) as info:
        uses_math.dispatch().source
    assert info.value.code == "E124"
    assert info.value.message == (
        "math.exp is Python's, which a kernel cannot call: use kdsl.math.exp "
        "(typed for every float dtype, lane-wise on vectors)"
    )

    @kdsl.kernel
    def uses_numpy(x: Pointer[kdsl.Float32]):
        x[0] = np.sqrt(x[1])

    with pytest.raises(kdsl.DSLError) as info:
        uses_numpy.dispatch().source
    assert info.value.code == "E124"
    assert "numpy.sqrt is Python's" in info.value.message
    assert "use kdsl.math.sqrt" in info.value.message


def test_autotune_decoration_errors_are_located_at_the_keyword():
    with pytest.raises(kdsl.DSLError) as info:

        @kdsl.autotune(configs=[kdsl.Config(BLOK=128)], key=["n"])
        @kdsl.kernel
        def tuned(x: Pointer[kdsl.Float32], n: Int32, BLOCK: Constexpr[int] = 256):
            x[0] = 1.0

    first, source, carets = str(info.value).splitlines()[:3]
    assert first.startswith(f"{HERE}:") and "error[E" in first
    assert source[carets.index("^") :].startswith("configs=[kdsl.Config(BLOK=128)]")

    with pytest.raises(kdsl.DSLError) as info:

        @kdsl.autotune(configs=[kdsl.Config(BLOCK=128)], key=["m"])
        @kdsl.kernel
        def tuned2(x: Pointer[kdsl.Float32], n: Int32, BLOCK: Constexpr[int] = 256):
            x[0] = 1.0

    first, source, carets = str(info.value).splitlines()[:3]
    assert source[carets.index("^") :].startswith('key=["m"]')
