"""Review findings: generated C++ and the interpreter agree with Python."""

import re

import numpy as np
import pytest

import kdsl
from kdsl import Int32, Pointer, thread_idx
from kdsl.runtime.nvrtc import compile_to_cubin


@kdsl.kernel
def reassigned_loop_variable(out: Pointer[Int32], n: Int32):
    c = 0
    for k in range(n):
        k += 3
        c += k
    out[thread_idx.x] = c


def test_reassigning_the_loop_variable_does_not_change_the_iterations():
    inst = reassigned_loop_variable.dispatch()
    compile_to_cubin(inst.source, inst.name)
    counter = re.search(r"for \(int32_t (\w+) = 0;", inst.source).group(1)
    assert not re.search(rf"^\s*{counter} = ", inst.source, re.M)  # C++ would skip
    out = np.zeros(1, np.int32)
    reassigned_loop_variable.interpret[1, 1](out, 7)
    assert out[0] == sum(k + 3 for k in range(7))


@kdsl.kernel
def loop_variable_shadows_a_value(out: Pointer[Int32], n: Int32):
    x = 5
    for x in range(n):
        out[1] = x
    out[0] = x  # Python: n - 1, not 5


def test_loop_variable_that_shadows_a_value_does_not_exist_after_the_loop():
    with pytest.raises(kdsl.DSLError, match=r"E309.*run-time loop at line"):
        loop_variable_shadows_a_value.dispatch().source


@kdsl.kernel
def first_assigned_in_an_elif(out: Pointer[Int32], n: Int32):
    i = thread_idx.x
    if i == n:
        return
    elif i == 1:
        w = 10
    else:
        w = i
    out[i] = w


def test_name_first_assigned_in_an_elif_is_hoisted_before_the_if():
    inst = first_assigned_in_an_elif.dispatch()
    compile_to_cubin(inst.source, inst.name)
    out = np.full(4, -1, np.int32)
    first_assigned_in_an_elif.interpret[1, 4](out, 2)
    assert out.tolist() == [0, 10, -1, 3]
