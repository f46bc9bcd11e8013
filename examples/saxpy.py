"""saxpy: y = a * x + y for every float dtype (half types compute in their own type).

A grid-stride loop works with any block; ``block=256`` is the block of a
grid-only launch, ``saxpy[blocks](a, x, y, n)``.
"""

import kdsl
from kdsl import Int32, Pointer, block_dim, block_idx, grid_dim, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel(block=256)
def saxpy(a: D, x: Pointer[D], y: Pointer[D], n: Int32):
    # A grid-stride loop: any grid and block size covers all n elements.
    start = block_idx.x * block_dim.x + thread_idx.x
    for i in range(start, n, block_dim.x * grid_dim.x):
        y[i] = a * x[i] + y[i]


if __name__ == "__main__":
    print(saxpy.dispatch(kdsl.Float16).source)
