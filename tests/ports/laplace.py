"""Port of numba/numba, numba/cuda/tests/doc_examples/test_laplace.py,
``solve_heat_equation``: the heat equation on a rod held at T = 0 at both
ends, ``timesteps`` explicit steps in one launch, the two buffers swapping
roles each step and one grid-wide barrier (``grid.sync()``) between steps.

Differences from the original:
* The buffers are pointers with their length ``size`` (Numba passes
  arrays and reads ``len(buf_0)``): each step picks ``data`` and
  ``next_data`` in an if/else, as the original does, which kdsl allows for
  pointers (a C++ pointer variable) but not for ``Array`` views, whose
  shape and strides would have to change with them (E314).
* ``k`` is a Float32 (Numba types the Python float it is passed as float64,
  and computes the step in float64).
* ``cuda.grid(1)`` is spelled out.
"""

import kdsl
from kdsl import Float32, Int32, Pointer, block_dim, block_idx, thread_idx


@kdsl.kernel
def solve_heat_equation(
    buf_0: Pointer[Float32],
    buf_1: Pointer[Float32],
    size: Int32,
    timesteps: Int32,
    k: Float32,
):
    i = block_idx.x * block_dim.x + thread_idx.x
    # Don't continue if our index is outside the domain
    if i >= size:
        return
    for step in range(timesteps):
        # Select the buffer from the previous timestep
        if step % 2 == 0:
            data = buf_0
            next_data = buf_1
        else:
            data = buf_1
            next_data = buf_0
        curr_temp = data[i]
        if i == 0:
            # Left wall is held at T = 0
            next_temp = curr_temp + k * (data[i + 1] - (2 * curr_temp))
        elif i == size - 1:
            # Right wall is held at T = 0
            next_temp = curr_temp + k * (data[i - 1] - (2 * curr_temp))
        else:
            # Interior points are a weighted average of their neighbors
            next_temp = curr_temp + k * (data[i - 1] - (2 * curr_temp) + data[i + 1])
        # Write new value to the next buffer
        next_data[i] = next_temp
        # Wait for every thread to write before moving on
        kdsl.grid_sync()
