"""vector_add: out = x + y, elementwise, for every float and integer dtype.

Two kernels: a scalar one (one element per thread) and a ``.vec(4)`` one that
moves 16 bytes per load for Float32 (four elements per thread).

``block="BLOCK"`` ties the block to the BLOCK constexpr: launch with
``vector_add[(n + 255) // 256](x, y, out, n)`` (256 threads a block), or
``vector_add[(n + 127) // 128](x, y, out, n, BLOCK=128)``; a launch with
another block (``vector_add[grid, 128]`` at BLOCK=256) is refused.
"""

import kdsl
from kdsl import Constexpr, Int32, Pointer, block_idx, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Num)


@kdsl.kernel(block="BLOCK")
def vector_add(
    x: Pointer[D], y: Pointer[D], out: Pointer[D], n: Int32, BLOCK: Constexpr[int] = 256
):
    i = block_idx.x * BLOCK + thread_idx.x
    if i < n:
        out[i] = x[i] + y[i]


@kdsl.kernel(dtypes=[kdsl.Float32], block="BLOCK")
def vector_add_x4(
    x: Pointer[D], y: Pointer[D], out: Pointer[D], n: Int32, BLOCK: Constexpr[int] = 256
):
    """n must be a multiple of 4 and the pointers 16-byte aligned."""
    i = block_idx.x * BLOCK + thread_idx.x
    if i < n // 4:
        xv = x.vec(4)
        yv = y.vec(4)
        ov = out.vec(4)
        ov[i] = xv[i] + yv[i]


if __name__ == "__main__":
    for dtype in vector_add.supported_dtypes:
        print(vector_add.dispatch(dtype).name)
    print(vector_add_x4.dispatch(kdsl.Float32).source)
