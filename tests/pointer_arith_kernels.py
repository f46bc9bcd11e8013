"""Pointer arithmetic, row views of an ``Array``, ``len()``, ``kdsl.grid``
and shared scalars, shared by tests/lowering/test_pointer_arith.py (CUDA,
NVRTC, the interpreter against numpy) and the golden files
(``tests/golden/features/pointer_arith_kernels``)."""

import kdsl
from kdsl import (
    Array,
    Float32,
    Int32,
    Int64,
    Pointer,
    Uint32,
    block_dim,
    block_idx,
    thread_idx,
)


@kdsl.kernel
def scale_rows(x: Pointer[Float32], out: Pointer[Float32], cols: Int32, s: Float32):
    """One block a row, walked from the row's pointers as llm.c does."""
    row = x + block_idx.x * cols
    dst = out + block_idx.x * cols
    for j in range(thread_idx.x, cols, block_dim.x):
        dst[j] = row[j] * s


@kdsl.kernel
def strided_walk(x: Pointer[Float32], out: Pointer[Float32], n: Int32, step: Int32):
    """One thread walks ``x`` with ``p += step`` until ``p`` reaches the end,
    then stores how many elements it moved (``p - x``)."""
    end = x + n
    p = x
    k = 0
    while p < end:
        out[k] = p[0]
        p += step
        k += 1
    out[n] = (p - x).to(Float32)


@kdsl.func
def add_bytes(hist: Pointer[Uint32], word: Uint32):
    """Counts the four bytes of ``word`` in a warp's sub-histogram."""
    for k in kdsl.range_constexpr(4):
        kdsl.atomic_add(hist, (word >> (8 * k)) & 0xFF, Uint32(1))


@kdsl.kernel(block="BLOCK")
def histogram(
    data: Pointer[Uint32],
    out: Pointer[Uint32],
    n: Int32,
    BLOCK: kdsl.Constexpr[int] = 64,
):
    """A 256-bin sub-histogram a warp in shared memory, reached as
    ``s_hist + warp * 256`` (CUDA's histogram256 sample)."""
    WARPS = BLOCK // 32
    s_hist = kdsl.shared_array(Uint32, WARPS * 256)
    for b in range(thread_idx.x, WARPS * 256, BLOCK):
        s_hist[b] = 0
    kdsl.syncthreads()
    mine = s_hist + (thread_idx.x // 32) * 256
    for i in range(block_idx.x * BLOCK + thread_idx.x, n, BLOCK * kdsl.grid_dim.x):
        add_bytes(mine, data[i])
    kdsl.syncthreads()
    for b in range(thread_idx.x, 256, BLOCK):
        total = Uint32(0)
        for w in range(WARPS):
            total += s_hist[w * 256 + b]
        kdsl.atomic_add(out, b, total)


@kdsl.func
def row_sum(row: Array[Float32, 1]) -> Float32:
    acc = Float32(0)
    for j in range(len(row)):
        acc += row[j]
    return acc


@kdsl.kernel
def sum_rows(a: Array[Float32, 2], out: Array[Float32, 1]):
    """``a[i]`` of a 2-D ``Array`` is its row, a 1-D ``Array`` a device
    function takes; ``len()`` of an ``Array`` is its first extent."""
    i = kdsl.grid(1)
    if i < len(a):
        out[i] = row_sum(a[i])


@kdsl.kernel
def grid_stride(x: Pointer[Float32], n: Int32):
    """Numba's grid-stride loop."""
    for i in range(kdsl.grid(1), n, kdsl.gridsize(1)):
        x[i] = x[i] * 2.0


@kdsl.kernel
def transpose_2d(a: Array[Float32, 2], out: Array[Float32, 2]):
    """``x, y = kdsl.grid(2)`` as in Numba's 2-D examples."""
    x, y = kdsl.grid(2)
    if y < a.shape[0] and x < a.shape[1]:
        out[x, y] = a[y, x]


@kdsl.kernel(block="BLOCK")
def count_positive(
    x: Pointer[Float32],
    out: Pointer[Int32],
    n: Int32,
    BLOCK: kdsl.Constexpr[int] = 128,
):
    """A shared scalar: ``__shared__ int total;``, counted with a shared
    atomic, written out by thread 0."""
    total = kdsl.shared_scalar(Int32)
    if thread_idx.x == 0:
        total[()] = 0
    kdsl.syncthreads()
    i = kdsl.grid(1)
    if i < n and x[i] > 0.0:
        kdsl.atomic_add(total, (), 1)
    kdsl.syncthreads()
    if thread_idx.x == 0:
        out[block_idx.x] = total[()]


@kdsl.kernel
def vec_rows(x: Pointer[Float32], out: Pointer[Float32], cols: Int32):
    """A moved pointer keeps ``.vec(N)``: one block a row of ``cols`` (a
    multiple of 4) floats, moved as Float32x4."""
    row = (x + block_idx.x * cols).vec(4)
    dst = (out + block_idx.x * cols).vec(4)
    for j in range(thread_idx.x, cols // 4, block_dim.x):
        dst[j] = row[j] + 1.0


@kdsl.kernel
def halves(x: Pointer[Float32], out: Pointer[Float32], n: Int32):
    """Pointers into dynamic shared and local memory: the second half of a
    dynamic view, ``v + n``, and a local window, ``w + 2``."""
    v = kdsl.dynamic_shared_array(Float32, 2 * n)
    t = thread_idx.x
    v[t] = x[t]
    v[t + n] = x[t] * 10.0
    kdsl.syncthreads()
    second = v + n
    w = kdsl.local_array(Float32, 4)
    for k in kdsl.range_constexpr(4):
        w[k] = Float32(k)
    window = w + 2
    out[t] = second[t] + window[1] + window[-1]


@kdsl.kernel
def row_of_int64(x: Pointer[Float32], out: Pointer[Float32], cols: Int64):
    """An Int64 row offset and ``k + p`` (the offset first)."""
    row = block_idx.x.to(Int64) * cols + x
    out[block_idx.x] = row[cols - 1]


KERNELS = [
    scale_rows,
    strided_walk,
    histogram,
    sum_rows,
    grid_stride,
    transpose_2d,
    count_positive,
    vec_rows,
    halves,
    row_of_int64,
]
