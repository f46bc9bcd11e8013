"""Kernels with compile options, shared by the emission, golden,
interpreter and GPU tests (``tests/golden/features/option_kernels`` holds
their goldens)."""

import kdsl
from kdsl import Float32, Int32, Pointer, block_dim, block_idx, thread_idx


@kdsl.kernel(launch_bounds=(128, 2), maxrregcount=32)
def bounded_scale(x: Pointer[Float32], n: Int32, s: Float32):
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < n:
        x[i] = x[i] * s


@kdsl.kernel(launch_bounds=256)
def bounded_copy(x: Pointer[Float32], out: Pointer[Float32], n: Int32):
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < n:
        out[i] = x[i]


@kdsl.kernel(maxrregcount=24)
def capped_registers(x: Pointer[Float32], out: Pointer[Float32]):
    """32 values live at once per thread: about 40 registers uncapped."""
    base = thread_idx.x * 32
    v = kdsl.local_array(Float32, 32)
    total = Float32(0)
    for k in kdsl.range_constexpr(32):
        v[k] = x[base + k]
        total = total + v[k]
    s = Float32(0)
    for k in kdsl.range_constexpr(32):
        s = s + v[k] * total
    out[thread_idx.x] = s
