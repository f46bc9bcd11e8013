"""Port of karpathy/llm.c, ``dev/cuda/layernorm_forward.cu``,
``layernorm_forward_kernel5``: layer normalisation of each row of an
(N, C) matrix, one block a row.  The threads sum x and x**2 over the row,
the block reduces both (warps with a shuffle reduction, then the warps'
sums through shared memory), and the threads write
``(x - mean) * rstd * weight + bias``; the row's mean and rstd are stored
where the caller asks for them (``mean``/``rstd`` may be null).

Differences from the original: the block reduction of the pair is the
device function ``block_sum2`` (inline in the kernel there), which takes the
two shared arrays and returns both sums; ``cg::reduce`` is a
``shfl_xor`` butterfly (``warp_sum``), so the sums' rounding order is this
port's (every lane of a warp ends with the same bits, so every lane
stores the warp's sums, as in the original: concurrent stores of one value
are not a race); the null pointers are optional pointers (``None`` at
launch picks an instance without the store).
"""

import numpy as np

import kdsl
from kdsl import Float32, Int32, Pointer, block_dim, block_idx, thread_idx


@kdsl.func
def warp_sum(v):
    for k in kdsl.range_constexpr(5):
        v += kdsl.shfl_xor(v, 16 >> k)
    return v


@kdsl.func
def block_sum2(shared_sum, shared_sum2, a, b):
    lane_id = thread_idx.x % 32
    a, b = warp_sum(a), warp_sum(b)
    shared_sum[thread_idx.x // 32] = a  # (no lane 0 guard needed)
    shared_sum2[thread_idx.x // 32] = b
    kdsl.syncthreads()
    a = shared_sum[lane_id] if lane_id < block_dim.x // 32 else Float32(0)
    b = shared_sum2[lane_id] if lane_id < block_dim.x // 32 else Float32(0)
    return warp_sum(a), warp_sum(b)


@kdsl.kernel
def layernorm_forward_kernel5(
    out: Pointer[Float32],
    mean: Pointer[Float32] | None,
    rstd: Pointer[Float32] | None,
    inp: Pointer[Float32],
    weight: Pointer[Float32],
    bias: Pointer[Float32],
    N: Int32,
    C: Int32,
):
    shared_sum = kdsl.shared_array(Float32, 32)
    shared_sum2 = kdsl.shared_array(Float32, 32)
    x = block_idx.x * C  # this block's row
    thread_sum, thread_sum2 = Float32(0), Float32(0)
    for i in range(thread_idx.x, C, block_dim.x):
        xi = inp[x + i]
        thread_sum += xi
        thread_sum2 += xi * xi
    block_sum, block_sum2 = block_sum2(shared_sum, shared_sum2, thread_sum, thread_sum2)
    m = block_sum / C
    var = block_sum2 / C - m * m
    s = kdsl.math.rsqrt(var + 1e-5)
    if mean is not None and thread_idx.x == 0:
        kdsl.stcs(mean, block_idx.x, m)
    if rstd is not None and thread_idx.x == 0:
        kdsl.stcs(rstd, block_idx.x, s)
    for i in range(thread_idx.x, C, block_dim.x):
        n = s * (kdsl.ldcs(inp, x + i) - m)
        kdsl.stcs(out, x + i, n * weight[i] + bias[i])


# -- benchmark: benchmarks/ports.py against benchmarks/originals/layernorm_forward.cu --
ROWS, COLS, BLOCK = 8192, 768, 256  # llm.c's B * T and GPT-2's C


def _bench_setup(cp):
    r = np.random.default_rng(26)
    return dict(
        inp=cp.asarray(r.standard_normal((ROWS, COLS), dtype=np.float32)),
        weight=cp.asarray(r.standard_normal(COLS, dtype=np.float32)),
        bias=cp.asarray(r.standard_normal(COLS, dtype=np.float32)),
        out=cp.zeros((ROWS, COLS), np.float32),
        mean=cp.zeros(ROWS, np.float32),
        rstd=cp.zeros(ROWS, np.float32),
    )


def _args(a):
    return [a[k] for k in ("out", "mean", "rstd", "inp", "weight", "bias")]


def _bench_port(a):
    layernorm_forward_kernel5[ROWS, BLOCK](*_args(a), ROWS, COLS)


def _bench_original(o, a):
    args = (*_args(a), np.int32(ROWS), np.int32(COLS))
    o("layernorm_forward_kernel5")((ROWS,), (BLOCK,), args)


BENCH = dict(
    source="layernorm_forward.cu",
    contract=False,
    size="8192x768",
    kernels=[
        (lambda: layernorm_forward_kernel5.dispatch(), "layernorm_forward_kernel5")
    ],
    setup=_bench_setup,
    port=_bench_port,
    original=_bench_original,
    outputs=("out", "mean", "rstd"),
    # cg::reduce's order of the warp sums is not the port's butterfly
    tolerance=(1e-4, 1e-5),
)
