"""An interpreter error in a statement that called a device function points
at that statement, not at the last line the function ran (it pointed at the
function's ``return``)."""

import numpy as np
import pytest

import kdsl
from kdsl import Float32, Pointer, thread_idx


@kdsl.func
def doubled(v):
    return v + v


@kdsl.kernel
def every_lane_stores(x: Pointer[Float32], out: Pointer[Float32]):
    s = kdsl.shared_array(Float32, 1)
    s[0] = doubled(x[thread_idx.x])  # the race
    kdsl.syncthreads()
    out[thread_idx.x] = s[0]


@kdsl.kernel
def reads_past_the_end(x: Pointer[Float32], out: Pointer[Float32]):
    out[thread_idx.x] = doubled(x[thread_idx.x]) + x[thread_idx.x + 32]  # past x


@pytest.mark.parametrize(
    "kernel, line",
    [
        (every_lane_stores, "s[0] = doubled("),
        (reads_past_the_end, "+ x[thread_idx.x + 32]"),
    ],
)
def test_the_error_points_at_the_calling_statement(kernel, line):
    x = np.arange(32, dtype=np.float32)  # (lanes storing one value do not race)
    with pytest.raises(kdsl.InterpretError) as info:
        kernel.interpret[1, 32](x, np.zeros(32, np.float32))
    assert line in str(info.value)
    assert "return v + v" not in str(info.value)
