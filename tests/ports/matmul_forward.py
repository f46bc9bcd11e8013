"""Port of karpathy/llm.c, ``dev/cuda/matmul_forward.cu``,
``matmul_forward_kernel4`` (with ``ld_vec``/``st_vec``): ``out = inp @
weight.T + bias`` for (B*T, C) ``inp`` and (OC, C) ``weight``.  A block of
16x16 threads computes a 128x128 tile of ``out``, 8x8 values a thread in
registers; the block stages 128x32 slices of both inputs in shared memory
with ``float4`` loads and stores, and each thread reads them back as
``float4``.  ``__launch_bounds__(16*16)``; the bias may be null.

Differences from the original: the shared tiles are arrays of
``Float32x4`` (``float`` arrays read through ``float4`` pointer casts
there), so a column index counts vectors (``xo // 4``, ``si % 32 // 4``);
``ld_vec(p)``/``st_vec(p, v)`` are ``p.vec(4)[0]`` of the moved pointer;
the null bias is an
optional pointer (``None`` picks an instance without it); the loops over
the 8x8 values and the four lanes are ``range_constexpr`` (unrolled by
nvcc there).  As in the original, ``B*T`` and ``OC`` are multiples of 128
and ``C`` of 32.
"""

import numpy as np

import kdsl
from kdsl import Float32, Float32x4, Int32, Pointer, block_dim, block_idx, thread_idx


@kdsl.kernel(launch_bounds=16 * 16)
def matmul_forward_kernel4(
    out: Pointer[Float32],
    inp: Pointer[Float32],
    weight: Pointer[Float32],
    bias: Pointer[Float32] | None,
    C: Int32,
    OC: Int32,
):
    oc = 8 * (block_idx.y * block_dim.y + thread_idx.y)
    lhs_s = kdsl.shared_array(Float32x4, (128, 8))
    rhs_s = kdsl.shared_array(Float32x4, (128, 8))
    inp += 128 * block_idx.x * C
    weight += 128 * block_idx.y * C
    out += 128 * block_idx.x * OC + 128 * block_idx.y
    vals = kdsl.local_array(Float32, (8, 8))
    for i in kdsl.range_constexpr(8):
        for j in kdsl.range_constexpr(8):
            if bias is not None:
                vals[i, j] = bias[oc + j]
            else:
                vals[i, j] = 0
    rhs = kdsl.local_array(Float32x4, 8)
    si_start = 4 * (16 * thread_idx.y + thread_idx.x)
    for so in range(0, C, 32):
        kdsl.syncthreads()
        xo = 4 * (thread_idx.x % 8)
        for y in range(2 * thread_idx.y + thread_idx.x // 8, 128, 32):
            lhs_s[y, xo // 4] = (inp + y * C + so + xo).vec(4)[0]
            rhs_s[y, xo // 4] = (weight + y * C + so + xo).vec(4)[0]
        kdsl.syncthreads()
        for si in range(si_start, si_start + 32, 4):
            for u in kdsl.range_constexpr(8):
                rhs[u] = rhs_s[u + 8 * thread_idx.y, si % 32 // 4]
            for ii in kdsl.range_constexpr(8):
                lhs = lhs_s[ii + 8 * thread_idx.x, si % 32 // 4]
                for ji in kdsl.range_constexpr(8):
                    for k in kdsl.range_constexpr(4):
                        vals[ii, ji] += lhs[k] * rhs[ji][k]
    for i in kdsl.range_constexpr(8):
        for j in kdsl.range_constexpr(0, 8, 4):
            result = Float32x4(
                vals[i, j], vals[i, j + 1], vals[i, j + 2], vals[i, j + 3]
            )
            (out + (8 * thread_idx.x + i) * OC + 8 * thread_idx.y + j).vec(4)[
                0
            ] = result


# -- benchmark: benchmarks/ports.py against benchmarks/originals/matmul_forward.cu --
BT, C_IN, OC = 4096, 768, 3072  # llm.c's fc layer of GPT-2 small, B * T = 4096


def _bench_setup(cp):
    r = np.random.default_rng(26)
    return dict(
        out=cp.zeros((BT, OC), np.float32),
        inp=cp.asarray(r.standard_normal((BT, C_IN), dtype=np.float32)),
        weight=cp.asarray(r.standard_normal((OC, C_IN), dtype=np.float32)),
        bias=cp.asarray(r.standard_normal(OC, dtype=np.float32)),
    )


def _bench_port(a):
    matmul_forward_kernel4[(BT // 128, OC // 128), (16, 16)](
        a["out"], a["inp"], a["weight"], a["bias"], C_IN, OC
    )


def _bench_original(o, a):
    args = (a["out"], a["inp"], a["weight"], a["bias"], np.int32(C_IN), np.int32(OC))
    o("matmul_forward_kernel4")((BT // 128, OC // 128), (16, 16), args)


BENCH = dict(
    source="matmul_forward.cu",
    contract=False,
    size="4096x768 @ 768x3072",
    kernels=[(lambda: matmul_forward_kernel4.dispatch(), "matmul_forward_kernel4")],
    setup=_bench_setup,
    port=_bench_port,
    original=_bench_original,
    outputs=("out",),
    tolerance=None,  # the same products in the same order, no FMA
)
