"""Concurrent stores of one value to a shared element are not a data race
(CUDA programs rely on it: every lane of a warp setting a flag); stores of
different values still are (docs/runtime.md, race checking)."""

import numpy as np
import pytest

import kdsl
from kdsl import Float32, Int32, Pointer, thread_idx


@kdsl.kernel
def flag_from_every_lane(x: Pointer[Int32], out: Pointer[Int32]):
    """Every lane that sees a negative value sets one shared flag to 1."""
    flag = kdsl.shared_array(Int32, 1)
    if thread_idx.x == 0:
        flag[0] = 0
    kdsl.syncthreads()
    if x[thread_idx.x] < 0:
        flag[0] = 1  # several lanes at once: one value
    kdsl.syncthreads()
    out[thread_idx.x] = flag[0]


@kdsl.kernel
def flag_in_two_steps(out: Pointer[Int32]):
    """Lanes 3 and 40 (two warps, two statements) store the same 7."""
    flag = kdsl.shared_array(Int32, 1)
    if thread_idx.x == 3:
        flag[0] = 7
    if thread_idx.x == 40:
        flag[0] = 7
    kdsl.syncthreads()
    out[thread_idx.x] = flag[0]


@kdsl.kernel
def lane_ids_to_one_element(out: Pointer[Int32]):
    """Every lane stores its own index to one element: a real race."""
    s = kdsl.shared_array(Int32, 1)
    s[0] = thread_idx.x
    kdsl.syncthreads()
    out[thread_idx.x] = s[0]


@kdsl.kernel
def two_values_in_two_steps(out: Pointer[Float32]):
    s = kdsl.shared_array(Float32, 1)
    if thread_idx.x == 3:
        s[0] = 1.0
    if thread_idx.x == 40:
        s[0] = 2.0
    kdsl.syncthreads()
    out[thread_idx.x] = s[0]


@kdsl.kernel
def zeros_of_two_signs(out: Pointer[Float32]):
    """0.0 and -0.0 compare equal but are different bits: a race."""
    s = kdsl.shared_array(Float32, 1)
    if thread_idx.x == 3:
        s[0] = 0.0
    if thread_idx.x == 40:
        s[0] = -0.0
    kdsl.syncthreads()
    out[thread_idx.x] = s[0]


@kdsl.kernel
def write_after_read(out: Pointer[Int32]):
    """A lane reads the flag another lane then stores (even its old value)."""
    flag = kdsl.shared_array(Int32, 1)
    if thread_idx.x == 0:
        flag[0] = 0
    kdsl.syncthreads()
    v = flag[0]
    if thread_idx.x == 9:
        flag[0] = v
    out[thread_idx.x] = v


def test_every_lane_storing_one_flag_value_is_not_a_race():
    x = np.arange(64, dtype=np.int32) - 50
    out = np.zeros(64, np.int32)
    flag_from_every_lane.interpret[1, 64](x, out)
    assert (out == 1).all()


def test_two_threads_storing_one_value_in_turn_is_not_a_race():
    out = np.zeros(64, np.int32)
    flag_in_two_steps.interpret[1, 64](out)
    assert (out == 7).all()


@pytest.mark.parametrize(
    "kernel,dtype",
    [
        (lane_ids_to_one_element, np.int32),
        (two_values_in_two_steps, np.float32),
        (zeros_of_two_signs, np.float32),
        (write_after_read, np.int32),
    ],
    ids=lambda k: getattr(k, "name", ""),
)
def test_different_values_or_a_read_still_race(kernel, dtype):
    with pytest.raises(kdsl.InterpretError, match="data race"):
        kernel.interpret[1, 64](np.zeros(64, dtype))
