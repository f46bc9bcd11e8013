"""Port of karpathy/llm.c, dev/cuda/softmax_forward.cu,
``softmax_forward_kernel4`` (with ``warpReduceMax`` and ``warpReduceSum``):
the softmax of each row of an (N, C) matrix, one block a row.  The block
walks its row through the pointer ``x = inp + idx * C``: each thread takes
the maximum of its strided elements, the warps reduce with
``__shfl_down_sync``, thread 0 combines the warps' maxima kept in dynamic
shared memory; the threads write ``exp(x - max)`` to the output row, then
point ``x`` at that row (``x = out + idx * C``) to sum it the same way (the
warps' sums after their maxima, at ``shared + warpsPerBlock``), and divide.

Differences from the original: none in the algorithm; the warp reductions
are ``@kdsl.func``s over a ``range_constexpr`` of the five offsets (a
``for`` halving the offset there).  As in the original the block size is a
multiple of 32 and the launch passes ``2 * warps * 4`` bytes of dynamic
shared memory.
"""

import math

import numpy as np

import kdsl
from kdsl import Float32, Int32, Pointer, block_dim, block_idx, thread_idx


@kdsl.func
def warp_reduce_max(val):
    for k in kdsl.range_constexpr(5):
        val = kdsl.math.fmax(val, kdsl.shfl_down(val, 16 >> k))
    return val


@kdsl.func
def warp_reduce_sum(val):
    for k in kdsl.range_constexpr(5):
        val += kdsl.shfl_down(val, 16 >> k)
    return val


@kdsl.kernel
def softmax_forward_kernel4(
    out: Pointer[Float32], inp: Pointer[Float32], N: Int32, C: Int32
):
    shared = kdsl.dynamic_shared_array(Float32)
    idx = block_idx.x
    tid = thread_idx.x
    warp_id = thread_idx.x // 32
    lane_id = thread_idx.x % 32
    warps_per_block = block_dim.x // 32
    maxvals = shared
    sumvals = shared + warps_per_block
    x = inp + idx * C
    # the row's maximum
    maxval = Float32(-math.inf)
    for i in range(tid, C, block_dim.x):
        maxval = kdsl.math.fmax(maxval, x[i])
    maxval = warp_reduce_max(maxval)
    if lane_id == 0:
        maxvals[warp_id] = maxval
    kdsl.syncthreads()
    if tid == 0:
        val = maxvals[tid]
        for i in range(1, warps_per_block):
            val = kdsl.math.fmax(val, maxvals[i])
        maxvals[0] = val
    kdsl.syncthreads()
    offset = maxvals[0]
    for i in range(tid, C, block_dim.x):
        out[idx * C + i] = kdsl.math.exp(x[i] - offset)
    # the sum of the exponentials, read back from the output row
    x = out + idx * C
    sumval = Float32(0)
    for i in range(tid, C, block_dim.x):
        sumval += x[i]
    sumval = warp_reduce_sum(sumval)
    if lane_id == 0:
        sumvals[warp_id] = sumval
    kdsl.syncthreads()
    if tid == 0:
        val = sumvals[tid]
        for i in range(1, warps_per_block):
            val += sumvals[i]
        sumvals[0] = val
    kdsl.syncthreads()
    total = sumvals[0]
    for i in range(tid, C, block_dim.x):
        out[idx * C + i] = x[i] / total


# -- benchmark: benchmarks/ports.py against benchmarks/originals/softmax_forward.cu --
ROWS, COLS, BLOCK = 8192, 4096, 256


def _bench_setup(cp):
    x = 3 * np.random.default_rng(26).standard_normal((ROWS, COLS), dtype=np.float32)
    return dict(inp=cp.asarray(x), out=cp.zeros((ROWS, COLS), np.float32))


def _bench_port(a):
    softmax_forward_kernel4[ROWS, BLOCK](
        a["out"], a["inp"], ROWS, COLS, shared_mem=2 * BLOCK // 32 * 4
    )


def _bench_original(o, a):
    args = (a["out"], a["inp"], np.int32(ROWS), np.int32(COLS))
    o("softmax_forward_kernel4")(
        (ROWS,), (BLOCK,), args, shared_mem=2 * BLOCK // 32 * 4
    )


BENCH = dict(
    source="softmax_forward.cu",
    contract=False,
    size="8192x4096",
    kernels=[(lambda: softmax_forward_kernel4.dispatch(), "softmax_forward_kernel4")],
    setup=_bench_setup,
    port=_bench_port,
    original=_bench_original,
    outputs=("out",),
    tolerance=None,  # the same shuffles, expf and order
)
