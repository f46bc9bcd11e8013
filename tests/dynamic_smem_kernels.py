"""Kernels on dynamic shared memory, shared by the emission, golden,
interpreter and GPU tests (``tests/golden/features/dynamic_smem_kernels``
holds their goldens)."""

import kdsl
from kdsl import (
    Float32,
    Float64,
    Int8,
    Int32,
    Pointer,
    block_dim,
    block_idx,
    thread_idx,
)


@kdsl.kernel
def reverse_segments(
    x: Pointer[Float32],
    tags: Pointer[Int8],
    out: Pointer[Float32],
    out_tags: Pointer[Int8],
    sums: Pointer[Float64],
    seg: Int32,
):
    """Each block reverses its segment of ``seg`` values and tags through
    dynamic shared memory, and sums its values (each thread its share into
    ``partial``, then thread 0 in thread order)."""
    values = kdsl.dynamic_shared_array(Float32, seg)
    marks = kdsl.dynamic_shared_array(Int8, seg)
    partial = kdsl.dynamic_shared_array(Float64)  # the rest: one per thread
    t = thread_idx.x
    base = block_idx.x * seg
    acc = Float64(0)
    for i in range(t, seg, block_dim.x):
        values[i] = x[base + i]
        marks[i] = tags[base + i]
        acc += x[base + i].to(Float64)
    partial[t] = acc
    kdsl.syncthreads()
    for i in range(t, seg, block_dim.x):
        out[base + i] = values[seg - 1 - i]
        out_tags[base + i] = marks[seg - 1 - i]
    if t == 0:
        total = Float64(0)
        for k in range(block_dim.x):
            total += partial[k]
        sums[block_idx.x] = total


def reverse_segments_bytes(seg: int, threads: int) -> int:
    """The ``shared_mem`` that ``reverse_segments`` needs: the Float64 view
    starts 8-byte aligned after ``seg`` Float32 and ``seg`` Int8."""
    return -(-(seg * 5) // 8) * 8 + threads * 8


@kdsl.kernel
def swap_quads(x: Pointer[Float32], out: Pointer[Float32]):
    """A Float32x4 view after 3 bytes (aligned up to 16): each thread stores
    a vector, then reads its mirror's."""
    pad = kdsl.dynamic_shared_array(Int8, 3)
    quads = kdsl.dynamic_shared_array(kdsl.Float32x4, 64)
    t = thread_idx.x
    if t == 0:
        pad[0] = Int8(1)
    quads[t] = x.vec(4)[t]
    kdsl.syncthreads()
    out.vec(4)[t] = quads[63 - t]
