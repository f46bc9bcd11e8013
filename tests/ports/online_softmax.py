"""Port of karpathy/llm.c, dev/cuda/softmax_forward.cu,
``softmax_forward_online_kernel2`` (with ``reduce_sum_max_op``): the softmax
of each row of an (N, C) matrix, one warp a row.  Each lane folds its
strided elements into a running (max, sum) pair (the online softmax), the
warp combines the pairs, and the lanes write ``exp(x - max) / sum``.

Differences from the original: the warp combination is ``cg::reduce`` there
and a ``__shfl_xor_sync`` butterfly here (five steps, every lane ending with
the total); the cache-streaming store ``__stcs`` is ``kdsl.stcs``.  As in
the original, C must be at least 32: a lane with no element keeps
(-inf, 0), and two such pairs combine to a NaN sum.
"""

import math

import numpy as np

import kdsl
from kdsl import Float32, Int32, Pointer, block_dim, block_idx, thread_idx

INFINITY = math.inf


@kdsl.func
def reduce_sum_max_op(a_sum, a_max, b_sum, b_max):
    """The (sum, max) pair of two partial softmax sums."""
    a_bigger = a_max > b_max
    bigger_sum = a_sum if a_bigger else b_sum
    bigger_max = a_max if a_bigger else b_max
    smaller_sum = b_sum if a_bigger else a_sum
    smaller_max = b_max if a_bigger else a_max
    res_sum = bigger_sum + smaller_sum * kdsl.math.exp(smaller_max - bigger_max)
    return res_sum, bigger_max


@kdsl.kernel
def softmax_forward_online_kernel2(
    out: Pointer[Float32], inp: Pointer[Float32], N: Int32, C: Int32
):
    idx = block_idx.x * (block_dim.x // 32) + thread_idx.x // 32
    if idx >= N:
        return
    lane = kdsl.lane_id()
    # first, thread coarsening by directly accessing global memory in series
    s = Float32(0)
    m = Float32(-INFINITY)
    for i in range(lane, C, 32):
        s, m = reduce_sum_max_op(s, m, Float32(1), inp[idx * C + i])
    # second, the reduction
    for k in kdsl.range_constexpr(5):
        other_s = kdsl.shfl_xor(s, 16 >> k)
        other_m = kdsl.shfl_xor(m, 16 >> k)
        s, m = reduce_sum_max_op(s, m, other_s, other_m)
    # divide the whole row by the sum
    for i in range(lane, C, 32):
        kdsl.stcs(out, idx * C + i, kdsl.math.exp(inp[idx * C + i] - m) / s)


# -- benchmark: benchmarks/ports.py against benchmarks/originals/online_softmax.cu --
ROWS, COLS, BLOCK = 8192, 4096, 256


def _bench_setup(cp):
    x = 3 * np.random.default_rng(26).standard_normal((ROWS, COLS), dtype=np.float32)
    return dict(inp=cp.asarray(x), out=cp.zeros((ROWS, COLS), np.float32))


def _bench_port(a):
    softmax_forward_online_kernel2[-(-ROWS * 32 // BLOCK), BLOCK](
        a["out"], a["inp"], ROWS, COLS
    )


def _bench_original(o, a):
    args = (a["out"], a["inp"], np.int32(ROWS), np.int32(COLS))
    o("softmax_forward_online_kernel2")((-(-ROWS * 32 // BLOCK),), (BLOCK,), args)


BENCH = dict(
    source="online_softmax.cu",
    contract=False,
    size="8192x4096",
    kernels=[
        (
            lambda: softmax_forward_online_kernel2.dispatch(),
            "softmax_forward_online_kernel2",
        )
    ],
    setup=_bench_setup,
    port=_bench_port,
    original=_bench_original,
    outputs=("out",),
    # cg::reduce's order of the (sum, max) pairs is not the port's butterfly
    tolerance=(1e-5, 1e-9),
)
