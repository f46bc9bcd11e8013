"""Port of numba/numba, numba/cuda/tests/doc_examples/test_laplace.py,
``solve_heat_equation``: the heat equation on a rod held at T = 0 at both
ends, ``timesteps`` explicit steps in one launch, the two buffers swapping
roles each step and one grid-wide barrier (``grid.sync()``) between steps.

Differences from the original:
* Workaround (kdsl gap): Numba swaps which buffer is ``data`` and which
  ``next_data`` each step by reassigning the names; kdsl cannot reassign an
  array in run-time control flow (E314), so each step calls ``heat_step``
  with the buffers in the step's order.
* ``k`` is a Float32 (Numba types the Python float it is passed as float64,
  and computes the step in float64).
* ``cuda.grid(1)`` is spelled out.
"""

import kdsl
from kdsl import Array, Float32, Int32, block_dim, block_idx, thread_idx


@kdsl.func
def heat_step(data, next_data, i, k):
    curr_temp = data[i]
    if i == 0:
        # Left wall is held at T = 0
        next_temp = curr_temp + k * (data[i + 1] - (2 * curr_temp))
    elif i == data.shape[0] - 1:
        # Right wall is held at T = 0
        next_temp = curr_temp + k * (data[i - 1] - (2 * curr_temp))
    else:
        # Interior points are a weighted average of their neighbors
        next_temp = curr_temp + k * (data[i - 1] - (2 * curr_temp) + data[i + 1])
    next_data[i] = next_temp


@kdsl.kernel
def solve_heat_equation(
    buf_0: Array[Float32, 1], buf_1: Array[Float32, 1], timesteps: Int32, k: Float32
):
    i = block_idx.x * block_dim.x + thread_idx.x
    # Don't continue if our index is outside the domain
    if i >= buf_0.shape[0]:
        return
    for step in range(timesteps):
        # The buffer of the previous timestep, then the next one
        if step % 2 == 0:
            heat_step(buf_0, buf_1, i, k)
        else:
            heat_step(buf_1, buf_0, i, k)
        # Wait for every thread to write before moving on
        kdsl.grid_sync()
