"""Port of numba/numba, ``numba/cuda/tests/doc_examples/test_vecadd.py``,
``f`` (the vector addition of Numba's CUDA documentation): ``c = a + b``,
one thread an element, found with ``cuda.grid(1)`` and bounded by
``len(c)``.

Differences from the original: ``cuda.grid(1)`` is ``kdsl.grid(1)`` and
the vectors are ``Array[Float32, 1]`` parameters (the original takes
whatever dtype the arrays have; here one instance, Float32).
"""

import kdsl
from kdsl import Array, Float32


@kdsl.kernel
def f(a: Array[Float32, 1], b: Array[Float32, 1], c: Array[Float32, 1]):
    # like threadIdx.x + (blockIdx.x * blockDim.x)
    tid = kdsl.grid(1)
    size = len(c)
    if tid < size:
        c[tid] = a[tid] + b[tid]
