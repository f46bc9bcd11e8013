"""Port of NVIDIA/cuda-samples,
``Samples/2_Concepts_and_Techniques/threadFenceReduction/threadFenceReduction_kernel.cuh``,
``reduceBlock``, ``reduceBlocks`` and ``reduceSinglePass``: a sum of
Float32 in one launch.  Each block reduces its grid-stride share in dynamic
shared memory (a warp-synchronous tree per warp, then thread 0 over the
warps' sums) and writes its partial sum; then it makes its writes visible
(``__threadfence``) and takes a ticket (``atomicInc``); the block with the
last ticket sums the partial sums and resets the counter.

Differences from the original: the ticket counter is a kernel argument
(``Pointer[Uint32]``, zero before the first launch; the sample's
``__device__ unsigned int retirementCount``); ``blockSize`` and
``nIsPow2`` are ``Constexpr`` parameters (template parameters there); the
warp steps are ordered by ``kdsl.syncwarp()`` (``cg::sync(tile32)``) and the
block's by ``kdsl.syncthreads()`` (``cg::sync(cta)``); the ``amLast`` flag
is a one-element shared array.  The sample's multi-pass kernel
(``reduceMultiPass``) is the first half of this one and is not ported.
"""

import numpy as np

import kdsl
from kdsl import Boolean, Constexpr, Float32, Pointer, Uint32, block_dim, block_idx
from kdsl import grid_dim, thread_idx


@kdsl.func
def reduce_block(sdata, my_sum, tid):
    sdata[tid] = my_sum
    kdsl.syncwarp()
    vid = tid & 31
    beta = my_sum
    for k in kdsl.range_constexpr(4, -1, -1):
        if vid < (1 << k):
            beta += sdata[tid + (1 << k)]
            sdata[tid] = beta
        kdsl.syncwarp()
    kdsl.syncthreads()
    if tid == 0:
        beta = Float32(0)
        for i in range(0, block_dim.x, 32):
            beta += sdata[i]
        sdata[0] = beta
    kdsl.syncthreads()


@kdsl.kernel
def reduce_single_pass(
    g_idata: Pointer[Float32],
    g_odata: Pointer[Float32],
    n: Uint32,
    retirement_count: Pointer[Uint32],
    BLOCK_SIZE: Constexpr[int],
    N_IS_POW2: Constexpr[bool],
):
    sdata = kdsl.dynamic_shared_array(Float32)
    tid = Uint32(thread_idx.x)
    i = Uint32(block_idx.x) * (BLOCK_SIZE * 2) + tid
    grid_size = Uint32(BLOCK_SIZE * 2 * grid_dim.x)
    my_sum = Float32(0)
    while i < n:
        my_sum += g_idata[i]
        if N_IS_POW2 or i + BLOCK_SIZE < n:
            my_sum += g_idata[i + BLOCK_SIZE]
        i += grid_size
    reduce_block(sdata, my_sum, tid)
    if tid == 0:
        g_odata[block_idx.x] = sdata[0]
    if grid_dim.x > 1:
        am_last = kdsl.shared_array(Boolean, 1)
        kdsl.threadfence()
        if tid == 0:
            ticket = kdsl.atomic_inc(retirement_count, 0, Uint32(grid_dim.x))
            am_last[0] = ticket == grid_dim.x - 1
        kdsl.syncthreads()
        if am_last[0]:
            my_sum = Float32(0)
            for j in range(tid, Uint32(grid_dim.x), BLOCK_SIZE):
                my_sum += g_odata[j]
            reduce_block(sdata, my_sum, tid)
            if tid == 0:
                g_odata[0] = sdata[0]
                retirement_count[0] = 0


# -- benchmark: benchmarks/ports.py against benchmarks/originals/threadfence_reduction.cu --
N, BLOCKS = 1 << 20, 64  # the sample's element count and maxBlocks


def _bench_setup(cp):
    x = np.random.default_rng(26).standard_normal(N, dtype=np.float32)
    return dict(
        x=cp.asarray(x), out=cp.zeros(BLOCKS, np.float32), count=cp.zeros(1, np.uint32)
    )


def _bench_port(a):
    reduce_single_pass[BLOCKS, 256](
        a["x"],
        a["out"],
        N,
        a["count"],
        BLOCK_SIZE=256,
        N_IS_POW2=False,
        shared_mem=4 * 256,
    )


def _bench_original(o, a):
    args = (a["x"], a["out"], np.uint32(N))
    o("reduceSinglePass_256")((BLOCKS,), (256,), args, shared_mem=4 * 256)


BENCH = dict(
    source="threadfence_reduction.cu",
    contract=False,
    size="1M float32, 64 blocks",
    kernels=[
        (
            lambda: reduce_single_pass.dispatch(BLOCK_SIZE=256, N_IS_POW2=False),
            "reduceSinglePass_256",
        )
    ],
    setup=_bench_setup,
    port=_bench_port,
    original=_bench_original,
    outputs=("out",),
    tolerance=None,  # the same trees in the same order
)
