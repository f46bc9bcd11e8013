"""Kernels whose names clash with C++/CUDA names (tests/lowering/test_cpp_names.py,
tests/gpu/test_names_gpu.py): each is renamed in the C++, never in Python."""

import kdsl
from kdsl import Float32, Int32, Pointer, thread_idx, block_idx, block_dim
from kdsl import math as km


@kdsl.func
def sqrt(a: Float32) -> Float32:  # a device function named like CUDA's
    return a + a


@kdsl.kernel
def exp(x: Pointer[Float32], n: Int32):  # the entry is exp_
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < n:
        NULL = x[i]
        π = NULL * Float32(0.5)
        é = sqrt(π) + km.sqrt(NULL)
        ｖ = é  # NFKC: the same variable as v
        v = ｖ + Float32(1.0)
        x[i] = v
