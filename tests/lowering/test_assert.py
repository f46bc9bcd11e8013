"""assert in kernels: left out of release builds (the code is the same as
without it), compiled in debug builds (KDSL_DEBUG=1 or
@kdsl.kernel(debug=True)) as a check that records the failure in the
launch's assertion record; the interpreter raises DeviceAssertionError at
the assert, naming the thread."""

import inspect
from pathlib import Path

import numpy as np
import pytest

import kdsl
from kdsl import Constexpr, Float32, Int32, Pointer, block_dim, block_idx, thread_idx
from kdsl.runtime.nvrtc import compile_to_cubin
from kdsl.transpile import ir

HERE = Path(__file__).parent


@kdsl.kernel(debug=True)
def gather(x: Pointer[Float32], idx: Pointer[Int32], out: Pointer[Float32], n: Int32):
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < n:
        j = idx[i]
        assert 0 <= j < n, "index out of range"
        out[i] = x[j]


@kdsl.kernel(debug=False)
def gather_release(
    x: Pointer[Float32], idx: Pointer[Int32], out: Pointer[Float32], n: Int32
):
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < n:
        j = idx[i]
        assert 0 <= j < n, "index out of range"
        out[i] = x[j]


@kdsl.kernel
def gather_without(
    x: Pointer[Float32], idx: Pointer[Int32], out: Pointer[Float32], n: Int32
):
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < n:
        j = idx[i]
        out[i] = x[j]


def _code(kernel, name="k") -> str:
    inst = kernel.dispatch()
    src = inst.source
    return src[src.index('extern "C"') :].replace(inst.name, name)


def test_a_release_build_leaves_the_assert_out():
    assert not gather_release.debug
    assert _code(gather_release) == _code(gather_without)
    assert gather_release.dispatch().lowered.assertions == ()


def test_a_debug_build_checks_it(golden):
    inst = gather.dispatch()
    golden.check(
        inst, HERE.parent / "golden" / "features" / "lowering"
    )  # the whole file, header and prelude
    compile_to_cubin(inst.source, inst.name)
    assert [message for _, message in inst.lowered.assertions] == ["index out of range"]
    (span, _), line = inst.lowered.assertions[0], _line_of(gather, "assert 0 <= j")
    assert (span.path, span.line) == (__file__, line)


def test_kdsl_debug_in_the_environment_makes_a_debug_build(monkeypatch):
    monkeypatch.setenv("KDSL_DEBUG", "1")

    @kdsl.kernel
    def checked(x: Pointer[Float32]):
        assert x[0] > 0

    @kdsl.kernel(debug=False)
    def unchecked(x: Pointer[Float32]):
        assert x[0] > 0

    assert checked.debug and not unchecked.debug
    assert "kdsl::assert_failed(kdsl_assert, 1);" in checked.dispatch().source
    assert "assert_failed" not in unchecked.dispatch().source
    monkeypatch.setenv("KDSL_DEBUG", "0")

    @kdsl.kernel
    def release(x: Pointer[Float32]):
        assert x[0] > 0

    assert not release.debug


def _line_of(kernel, text: str) -> int:
    source, first = inspect.getsourcelines(kernel.fn)
    return first + next(k for k, line in enumerate(source) if text in line)


def test_the_interpreter_raises_at_the_assert_naming_the_thread():
    x = np.arange(64, dtype=np.float32)
    idx = np.arange(64, dtype=np.int32)[::-1].copy()
    out = np.zeros(64, np.float32)
    gather.interpret[2, 32](x, idx, out, 64)  # every index in range
    assert out.tolist() == x[::-1].tolist()
    idx[37] = 64
    with pytest.raises(kdsl.DeviceAssertionError) as info:
        gather.interpret[2, 32](x, idx, out, 64)
    err = info.value
    assert isinstance(err, AssertionError) and err.code == "E460"
    assert (err.thread, err.block) == ((5, 0, 0), (1, 0, 0))
    line = _line_of(gather, "assert 0 <= j")
    text = str(err)
    assert text.startswith(f"{__file__}:{line}:9: error[E460]: assertion failed in ")
    assert "thread (5, 0, 0) of block (1, 0, 0): index out of range" in text
    assert 'assert 0 <= j < n, "index out of range"' in text and "^^^" in text


@kdsl.func
def checked_sqrt(v):
    assert v >= 0
    return kdsl.math.sqrt(v)


@kdsl.func
def unchecked_twice(v):
    return v * 2


@kdsl.kernel(debug=True)
def through_functions(x: Pointer[Float32], n: Int32, LIMIT: Constexpr[int] = 10):
    i = thread_idx.x
    assert n <= LIMIT, f"at most {LIMIT} elements"
    if i < n:
        x[i] = unchecked_twice(checked_sqrt(x[i]))


def test_a_device_function_that_asserts_takes_the_record():
    lowered = through_functions.dispatch().lowered
    by_name = {f.name: f for f in lowered.functions}
    assert [p.name for p in by_name["checked_sqrt__f32"].params] == ["v", "kdsl_assert"]
    assert [p.name for p in by_name["unchecked_twice__f32"].params] == ["v"]
    assert lowered.kernel.params[-1] == ir.Param("kdsl_assert", ir.PointerType(Int32))
    assert [m for _, m in lowered.assertions] == ["at most 10 elements", "v >= 0"]
    src = through_functions.dispatch().source
    assert "unchecked_twice__f32(checked_sqrt__f32(x[i], kdsl_assert))" in src
    assert "kdsl::assert_failed(kdsl_assert, 2);" in src
    compile_to_cubin(src, "through_functions")


def test_the_interpreter_raises_in_a_device_function():
    with pytest.raises(kdsl.DeviceAssertionError, match=r"\(2, 0, 0\).*: v >= 0"):
        through_functions.interpret[1, 4](np.array([1, 4, -1, 9], np.float32), 4)
    with pytest.raises(kdsl.DeviceAssertionError, match="at most 10 elements"):
        through_functions.interpret[1, 4](np.ones(4, np.float32), 11)
    x = np.array([1, 4, 16, 9], np.float32)
    through_functions.interpret[1, 4](x, 4)
    assert x.tolist() == [2, 4, 8, 6]


@kdsl.kernel(debug=True)
def static_conditions(x: Pointer[Float32], n: Int32, FLAG: Constexpr[bool] = True):
    assert FLAG, "folded away"
    if thread_idx.x >= n:
        assert FLAG == False, "no thread may get here"  # noqa: E712
    x[0] = 1


def test_static_conditions_fold_or_stay_a_run_time_check():
    inst = static_conditions.dispatch()
    assert [m for _, m in inst.lowered.assertions] == ["no thread may get here"]
    src = inst.source
    assert "    kdsl::assert_failed(kdsl_assert, 1);\n    }" in src  # no if of its own
    compile_to_cubin(src, inst.name)
    static_conditions.interpret[1, 4](np.zeros(1, np.float32), 4)
    with pytest.raises(kdsl.DeviceAssertionError, match=r"thread \(3, 0, 0\)"):
        static_conditions.interpret[1, 4](np.zeros(1, np.float32), 3)


@kdsl.kernel(debug=True)
def no_assertions(x: Pointer[Float32]):
    x[0] = 1


def test_a_debug_build_without_assertions_is_the_release_code():
    inst = no_assertions.dispatch()
    assert inst.lowered.assertions == () and "debug" not in inst.source
    assert len(inst.lowered.kernel.params) == 1


@kdsl.kernel(debug=True)
def vector_condition(x: Pointer[Float32]):
    assert x.vec(4)[0] > 0


def test_a_vector_condition_is_refused():
    with pytest.raises(kdsl.DSLError, match="E112"):
        vector_condition.dispatch().source
