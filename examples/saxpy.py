"""saxpy: y = a * x + y for every float dtype (half types compute in their
own type; two roundings, as written: ``kdsl.math.fma`` would fuse them).

A grid-stride loop: any grid and block size covers all n elements, so a
launch can size the grid to the GPU (a few blocks per SM) rather than to
the data. Each step moves 16-byte vectors (``x.vec(L)``, ``L = 128 //
D.width`` lanes), and the last ``n % L`` elements are done one by one by the
first block (so a block needs at least L threads). The pointers must be
16-byte aligned (checked at launch). ``block=256`` is the block of a
grid-only launch, ``saxpy[blocks](a, x, y, n)``.

Two facts (``kdsl.assume``, checked by the interpreter and debug builds)
make the index arithmetic plain C++: ``n`` is a size (never negative), and
the grid has at most 65535 blocks (a grid-stride loop needs no more), so the
Int32 stride ``block_dim.x * grid_dim.x`` is positive and the loop's test is
``j < n / L``.
"""

import kdsl
from kdsl import Int32, Pointer, block_dim, block_idx, grid_dim, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel(block=256)
def saxpy(a: D, x: Pointer[D], y: Pointer[D], n: Int32):
    kdsl.assume(n >= 0)
    kdsl.assume(grid_dim.x <= 65535)
    L = 128 // D.width
    xv = x.vec(L)
    yv = y.vec(L)
    start = block_idx.x * block_dim.x + thread_idx.x
    for j in range(start, n // L, block_dim.x * grid_dim.x):
        yv[j] = a * xv[j] + yv[j]
    t = n // L * L + thread_idx.x
    if block_idx.x == 0 and t < n:
        y[t] = a * x[t] + y[t]


if __name__ == "__main__":
    print(saxpy.dispatch(kdsl.Float16).source)
