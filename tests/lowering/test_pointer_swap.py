"""Pointer variables reassigned in run-time control flow (E314 before):
the CUDA (a pointer variable), NVRTC, the interpreter against numpy."""

import sys
from pathlib import Path

import numpy as np
import pytest

import kdsl
from kdsl import Float32, Pointer
from kdsl.runtime.nvrtc import compile_to_cubin
from kdsl.transpile.errors import DSLError

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))
import pointer_swap_kernels as K  # noqa: E402

GOLDEN = TESTS / "golden" / "features" / "pointer_swap_kernels"
KERNELS = [K.ping_pong, K.pick_by_step, K.read_either, K.per_thread_choice]


def body(inst) -> str:
    return inst.source.split('extern "C"', 1)[1]


def test_a_swap_is_pointer_variables_and_a_temporary():
    src = body(K.ping_pong.dispatch())
    assert "float* src = a;" in src and "float* dst = b;" in src
    # Python evaluates both values first: src's is kept for dst
    assert "float* dst_value = src;" in src
    assert "src = dst;" in src and "dst = dst_value;" in src


def test_pointers_first_assigned_in_a_branch_are_declared_before_it():
    src = body(K.pick_by_step.dispatch())
    assert "float* data;" in src and "float* next_data;" in src
    assert "data = a;" in src and "next_data = a;" in src


def test_a_variable_of_read_only_pointers_is_const():
    src = body(K.read_either.dispatch())
    assert "const float* src = a;" in src and "src = b;" in src
    assert "const float* a" in src and "const float* b" in src


def test_writes_through_the_variable_make_every_source_writable():
    src = body(K.pick_by_step.dispatch())
    assert "(float* a, float* b," in src


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.name)
def test_they_compile(kernel):
    inst = kernel.dispatch()
    compile_to_cubin(inst.source, inst.name)


@pytest.mark.parametrize("steps", [0, 1, 4, 5])
def test_ping_pong_in_the_interpreter(steps):
    a0 = np.arange(40, dtype=np.float32)
    a, b = a0.copy(), np.zeros(40, np.float32)
    K.ping_pong.interpret[1, 64](a, b, 40, steps)
    last = a if steps % 2 == 0 else b
    assert last.tobytes() == (a0 + np.float32(steps)).tobytes()


def test_pick_by_step_in_the_interpreter():
    a0 = np.linspace(-1, 1, 100, dtype=np.float32)
    a, b = a0.copy(), np.zeros(100, np.float32)
    K.pick_by_step.interpret[1, 128](a, b, 100, 3)  # a->b, b->a, a->b
    assert b.tobytes() == (a0 * np.float32(8)).tobytes()


def test_read_either_in_the_interpreter():
    a, b = np.zeros(32, np.float32), np.ones(32, np.float32)
    out = np.full(32, 7, np.float32)
    K.read_either.interpret[1, 32](a, b, out, 1)
    assert (out == 1).all()
    K.read_either.interpret[1, 32](a, b, out, 0)
    assert (out == 0).all()


def test_threads_choosing_different_arrays_is_refused_by_the_interpreter():
    a, b, out = np.zeros(32, np.float32), np.ones(32, np.float32), np.zeros(32)
    with pytest.raises(kdsl.InterpretError, match=r"E722.*'src'"):
        K.per_thread_choice.interpret[1, 32](a, b, out.astype(np.float32))


def test_a_pointer_of_another_element_type_is_refused():
    @kdsl.kernel
    def bad(a: Pointer[Float32], b: Pointer[kdsl.Int32], k: kdsl.Int32):
        p = a
        if k > 0:
            p = b
        p[0] = 1

    with pytest.raises(DSLError, match=r"E313"):
        bad.dispatch().source


def test_golden(golden):
    golden.check_kernel(K.pick_by_step, GOLDEN)
    assert {p.stem for p in GOLDEN.glob("*.cu")} == {"pick_by_step"}


def test_a_device_functions_pointer_variable_belongs_to_its_callers():
    a, b = np.zeros(32, np.float32), np.ones(32, np.float32)
    out = np.full(32, 7, np.float32)
    K.pick_in_a_function.interpret[1, 32](a, b, out, 1)
    assert (out[1::2] == 1).all() and (out[0::2] == 7).all()
    inst = K.pick_in_a_function.dispatch()
    compile_to_cubin(inst.source, inst.name)
