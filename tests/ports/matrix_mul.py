"""Port of NVIDIA/cuda-samples, ``Samples/0_Introduction/matrixMul/matrixMul.cu``,
``MatrixMulCUDA``: C = A B for row-major A (hA x wA) and B (wA x wB), a
block of BLOCK_SIZE x BLOCK_SIZE threads a tile of C; the block walks the
tiles of A's rows and B's columns, stages one of each in shared memory and
each thread accumulates ``Csub += As[ty][k] * Bs[k][tx]`` (the SGEMM
written ``a * b + c``).  The grid is ``(wB / BLOCK_SIZE, hA / BLOCK_SIZE)``.

Differences from the original: the block size is a ``Constexpr`` (a
template parameter there, 32 in the sample's default run); the ``for``
over the two tile indices ``a`` and ``b`` is a ``while`` on ``a`` stepping
both; the ``#pragma unroll`` loop over ``k`` is ``range_constexpr``.  As
in the sample, the sizes are multiples of the block size.
"""

import numpy as np

import kdsl
from kdsl import Constexpr, Float32, Int32, Pointer, block_idx, thread_idx


@kdsl.kernel
def matrix_mul_cuda(
    C: Pointer[Float32],
    A: Pointer[Float32],
    B: Pointer[Float32],
    wA: Int32,
    wB: Int32,
    BLOCK_SIZE: Constexpr[int] = 32,
):
    bx, by = block_idx.x, block_idx.y
    tx, ty = thread_idx.x, thread_idx.y
    a_begin = wA * BLOCK_SIZE * by  # the first tile of A
    a_end = a_begin + wA - 1  # the last
    a_step = BLOCK_SIZE
    b_begin = BLOCK_SIZE * bx  # the first tile of B
    b_step = BLOCK_SIZE * wB
    csub = Float32(0)
    As = kdsl.shared_array(Float32, (BLOCK_SIZE, BLOCK_SIZE))
    Bs = kdsl.shared_array(Float32, (BLOCK_SIZE, BLOCK_SIZE))
    a = a_begin
    b = b_begin
    while a <= a_end:
        As[ty, tx] = A[a + wA * ty + tx]
        Bs[ty, tx] = B[b + wB * ty + tx]
        kdsl.syncthreads()
        for k in kdsl.range_constexpr(BLOCK_SIZE):
            csub += As[ty, k] * Bs[k, tx]
        kdsl.syncthreads()
        a += a_step
        b += b_step
    c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx
    C[c + wB * ty + tx] = csub


# -- benchmark: benchmarks/ports.py against benchmarks/originals/matrix_mul.cu --
SIDE = 1024


def _bench_setup(cp):
    r = np.random.default_rng(26)
    return dict(
        C=cp.zeros((SIDE, SIDE), np.float32),
        A=cp.asarray(r.standard_normal((SIDE, SIDE), dtype=np.float32)),
        B=cp.asarray(r.standard_normal((SIDE, SIDE), dtype=np.float32)),
    )


def _bench_port(a):
    grid = (SIDE // 32, SIDE // 32)
    matrix_mul_cuda[grid, (32, 32)](a["C"], a["A"], a["B"], SIDE, SIDE)


def _bench_original(o, a):
    args = (a["C"], a["A"], a["B"], np.int32(SIDE), np.int32(SIDE))
    o("MatrixMulCUDA_32")((SIDE // 32, SIDE // 32), (32, 32), args)


BENCH = dict(
    source="matrix_mul.cu",
    contract=False,
    size="1024^3, 32x32 tiles",
    kernels=[
        (lambda: matrix_mul_cuda.dispatch(), "MatrixMulCUDA_32"),
        (lambda: matrix_mul_cuda.dispatch(BLOCK_SIZE=16), "MatrixMulCUDA_16"),
    ],
    setup=_bench_setup,
    port=_bench_port,
    original=_bench_original,
    outputs=("C",),
    tolerance=None,  # the same products summed in the same order, no FMA
)
