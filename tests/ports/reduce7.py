"""Port of NVIDIA/cuda-samples,
Samples/2_Concepts_and_Techniques/reduction/reduction_kernel.cu, ``reduce7``
(with its ``warpReduceSum``): each thread sums a grid-stride run of elements,
two per step when ``n`` is a power of two, then each warp reduces its sums
(``__reduce_add_sync`` for int on sm_80+, as the sample specialises it,
``__shfl_down_sync`` otherwise), the warp totals go through shared memory
and the first warp reduces them under a ``__ballot_sync`` mask; thread 0
writes the block's sum.

The full mask is passed to ``warp_reduce_sum`` as the Python int
``0xFFFFFFFF``, which the function is specialised on (a compile-time value
in its body, as in the caller), and the ballot's mask as a run-time Uint32.

The block size (``blockSize``) and ``nIsPow2`` are ``Constexpr`` parameters,
as they are template parameters there; the block size is a multiple of 32
here, so the first mask is the full warp.

Workaround (kdsl gap): the sample specialises ``warpReduceSum<int>``; a
kernel cannot test its dtype parameter at compile time (``if T == Int32:``
is E106, and ``T.kind == "int"`` is E202, strings not being allowed), so
the integer path is chosen by a ``Constexpr[bool]`` ``INTEGER`` the caller
sets with ``T = Int32``.

Workaround (kdsl gap, interpreter stricter than CUDA): for Float32 the
original's last step shuffles down within a mask of the first
``blockSize / 32`` lanes, so lanes of that mask read lanes outside it (lane
7 reads lane 23): CUDA leaves those values undefined and only lane 0's
result, which reads lanes inside the mask, is used, but kdsl's interpreter
refuses any shuffle that reads a lane outside its mask (E455).  The Float32
path therefore reduces the warp totals over the whole first warp, lanes past
the totals contributing 0 (reduce6's form); the Int32 path keeps the
ballot mask, which ``__reduce_add_sync`` allows.
"""

import numpy as np

import kdsl
from kdsl import Constexpr, Float32, Int32, Pointer, block_idx, grid_dim
from kdsl import thread_idx

T = kdsl.TypeVar("T", bound=kdsl.Dtype)
FULL = 0xFFFFFFFF  # the sample's mask for a block of whole warps


@kdsl.func
def warp_reduce_sum(mask, v):
    for k in kdsl.range_constexpr(5):
        v += kdsl.shfl_down(v, 16 >> k, mask=mask)
    return v


@kdsl.kernel(dtypes=[Int32, Float32])
def reduce7(
    g_idata: Pointer[T],
    g_odata: Pointer[T],
    n: Int32,
    BLOCK: Constexpr[int],
    N_IS_POW2: Constexpr[bool],
    INTEGER: Constexpr[bool] = False,
):
    sdata = kdsl.shared_array(T, BLOCK // 32)
    tid = thread_idx.x
    my_sum = T(0)
    if N_IS_POW2:
        i = block_idx.x * BLOCK * 2 + tid
        while i < n:
            my_sum += g_idata[i]
            if i + BLOCK < n:
                my_sum += g_idata[i + BLOCK]
            i += BLOCK * 2 * grid_dim.x
    else:
        i = block_idx.x * BLOCK + tid
        while i < n:
            my_sum += g_idata[i]
            i += BLOCK * grid_dim.x
    if INTEGER:
        my_sum = kdsl.reduce_add_sync(my_sum)
    else:
        my_sum = warp_reduce_sum(FULL, my_sum)
    if tid % 32 == 0:
        sdata[tid // 32] = my_sum
    kdsl.syncthreads()
    extent = BLOCK // 32
    if INTEGER:
        in_use = kdsl.ballot(tid < extent)
        if tid < extent:
            my_sum = kdsl.reduce_add_sync(sdata[tid], mask=in_use)
    elif tid < 32:  # the workaround above
        my_sum = warp_reduce_sum(FULL, sdata[tid] if tid < extent else T(0))
    if tid == 0:
        g_odata[block_idx.x] = my_sum


# -- benchmark: benchmarks/ports.py against benchmarks/originals/reduce7.cu --
N = 1 << 24  # the sample's size, 64 blocks of 256 threads (its maxBlocks)


def _bench_setup(cp):
    r = np.random.default_rng(26)
    x = r.integers(-(2**31), 2**31, N, dtype=np.int32)
    return dict(x=cp.asarray(x), out=cp.zeros(64, np.int32))


def _bench_port(a):
    reduce7[64, 256](a["x"], a["out"], N, BLOCK=256, N_IS_POW2=True, INTEGER=True)


def _bench_original(o, a):
    args = (a["x"], a["out"], np.uint32(N))
    o("reduce7_int_256_pow2")((64,), (256,), args, shared_mem=256 * 4)


BENCH = dict(
    source="reduce7.cu",
    contract=False,
    size="16M int32, 64 blocks",
    kernels=[
        (
            lambda: reduce7.dispatch(Int32, BLOCK=256, N_IS_POW2=True, INTEGER=True),
            "reduce7_int_256_pow2",
        ),
        (
            lambda: reduce7.dispatch(Int32, BLOCK=256, N_IS_POW2=False, INTEGER=True),
            "reduce7_int_256",
        ),
    ],
    setup=_bench_setup,
    port=_bench_port,
    original=_bench_original,
    outputs=("out",),
    tolerance=None,  # integer sums (wrapping alike)
)
