"""smooth: a 1-D Gaussian blur, out[i] = sum_k TAPS[k] * x[i + k - RADIUS]
(zero outside the array), Float32.

The filter taps are a module-level numpy array: a kernel that reads it gets
it as a ``__constant__`` table in the generated file (``__constant__ float
TAPS[9] = {...};``, the values spelt exactly). Constant memory is the right
place for filter weights: every thread of a warp reads the same tap at the
same time, which the constant cache serves in one broadcast (the CUDA
samples' convolutionSeparable keeps its kernel there for the same reason).
Changing TAPS before the first compile changes the instance (its values are
part of the source cache's key).

Why it is fast otherwise: each block stages its BLOCK inputs plus a halo of
RADIUS on each side in shared memory once, so each input is read from
global memory once rather than 2 * RADIUS + 1 times; the tap loop is
unrolled (``#pragma unroll``) so the taps become constant-bank operands of
the multiplies. The sum runs in tap order with ``kdsl.math.fma``, the same
bits on the GPU and in the interpreter.

Launch with ``ceil(n / BLOCK)`` blocks of exactly BLOCK threads:
``block="BLOCK"`` makes ``smooth[(n + 255) // 256](x, out, n)`` do so (and
refuses a launch with another block).
"""

import numpy as np

import kdsl
from kdsl import Constexpr, Float32, Int32, Pointer, block_idx, thread_idx

RADIUS = 4
_k = np.arange(-RADIUS, RADIUS + 1, dtype=np.float64)
_g = np.exp(-0.5 * (_k / 2.0) ** 2)
TAPS = (_g / _g.sum()).astype(np.float32)  # sigma 2, normalised: sums to ~1


@kdsl.kernel(block="BLOCK", no_overflow=True)
def smooth(
    x: Pointer[Float32], out: Pointer[Float32], n: Int32, BLOCK: Constexpr[int] = 256
):
    window = kdsl.shared_array(Float32, BLOCK + 2 * RADIUS)
    t = thread_idx.x
    first = block_idx.x * BLOCK - RADIUS  # the x index of window[0]
    j = first + t
    window[t] = x[j] if j >= 0 and j < n else Float32(0)
    if t < 2 * RADIUS:  # the right halo
        j = first + BLOCK + t
        window[BLOCK + t] = x[j] if j < n else Float32(0)
    kdsl.syncthreads()
    i = block_idx.x * BLOCK + t
    if i < n:
        acc = Float32(0)
        for k in kdsl.range(2 * RADIUS + 1, unroll=2 * RADIUS + 1):
            acc = kdsl.math.fma(TAPS[k], window[t + k], acc)
        out[i] = acc


if __name__ == "__main__":
    print(smooth.dispatch().source)
