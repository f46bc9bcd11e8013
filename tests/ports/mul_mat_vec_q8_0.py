"""Port of ggerganov/llama.cpp, ``ggml/src/ggml-cuda/mmvq.cu``,
``mul_mat_vec_q`` for ``GGML_TYPE_Q8_0`` with one column (and
``vec_dot_q8_0_q8_1``, ``vec_dot_q8_0_q8_1_impl``, ``get_int_b2``,
``get_int_b4`` of ``ggml/src/ggml-cuda/vecdotq.cuh``, ``warp_reduce_sum`` of
``common.cuh``): a matrix of ``block_q8_0`` rows (a ``half`` scale and 32
``int8`` quants, 34 bytes) times a vector quantised to ``block_q8_1`` (a
``half2`` of scale and sum, then 32 quants, 36 bytes).  A block of 4 warps
takes one row; each thread takes ``VDR = 2`` words (8 quants) of a block,
4 threads a block, the block 32 blocks an iteration; each word pair is
``__dp4a``-ed into an integer sum scaled by both blocks' ``d``; the 4 warps'
partial sums meet in shared memory and the first warp reduces them with
``__shfl_xor_sync``.

``get_int_b2`` reads its word as two 16-bit loads and ``get_int_b4`` as one
32-bit load, as the original's pointer casts do, through byte views of the
block pointer (``bq8_0.view(Uint16) + 1`` is ``(const uint16_t *)
bq8_0->qs``: ``qs`` follows the 2-byte ``d``; ``bq8_1.view(Int32) + 1`` is
``(const int *) bq8_1->qs``).  (An earlier version copied the whole
``block_q8_0`` into a local, 133 local-memory stores in the SASS, and read
``block_q8_1``'s ``Int8x4`` field elements, which kdsl bit-casts to an
``int`` with byte permutes: 2.26 and then 1.38 times the original's
instructions, 1.01 now; tests/sass/test_sass_ports.py.)

Differences from the original: the kernel is not templated on the type,
the column count or the fused ops.
"""

import numpy as np

import kdsl
from kdsl import Constexpr, Float16, Float16x2, Float32, Int8, Int8x4, Int32, Pointer
from kdsl import Uint16, Uint32
from kdsl import block_idx, thread_idx

QK8_0 = 32
QI8_0 = 8  # 32-bit words of quants in a block
QK8_1 = 32
VDR = 2  # VDR_Q8_0_Q8_1_MMVQ: words a thread takes of a block
NWARPS = 4
WARP_SIZE = 32


@kdsl.struct
class block_q8_0:
    d: Float16
    qs: Int8[QK8_0]


@kdsl.struct
class block_q8_1:
    ds: Float16x2  # the scale d and the sum of the values it quantised
    qs: Int8x4[QK8_1 // 4]


@kdsl.func
def get_int_b2(bq8_0: Pointer[block_q8_0], i32):
    """Word ``i32`` of the block's quants (``qs`` is only 2-byte aligned):
    two 16-bit loads, ``qs`` being the block's 16-bit halves from the second."""
    x16 = bq8_0.view(Uint16) + 1  # (const uint16_t *) bq8_0->qs
    x32 = Uint32(x16[2 * i32 + 0]) << 0
    x32 |= Uint32(x16[2 * i32 + 1]) << 16
    return Int32(x32)


@kdsl.func
def get_int_b4(bq8_1: Pointer[block_q8_1], i32):
    """Word ``i32`` of the block's quants (4-byte aligned): one 32-bit load."""
    return (bq8_1.view(Int32) + 1)[i32]  # ((const int *) bq8_1->qs)[i32]


@kdsl.func
def vec_dot_q8_0_q8_1(bq8_0: Pointer[block_q8_0], bq8_1: Pointer[block_q8_1], iqs):
    sumi = Int32(0)
    for i in kdsl.range_constexpr(VDR):
        sumi = kdsl.dp4a(get_int_b2(bq8_0, iqs + i), get_int_b4(bq8_1, iqs + i), sumi)
    d8_0 = bq8_0[0].d.to(Float32)
    d8_1 = bq8_1[0].ds[0].to(Float32)
    return d8_0 * d8_1 * sumi.to(Float32)


@kdsl.func
def warp_reduce_sum(x):
    for k in kdsl.range_constexpr(5):
        x += kdsl.shfl_xor(x, 16 >> k)
    return x


@kdsl.kernel
def mul_mat_vec_q8_0(
    vx: Pointer[block_q8_0],
    vy: Pointer[block_q8_1],
    dst: Pointer[Float32],
    ncols_x: Int32,
    nrows_x: Int32,
):
    tid = WARP_SIZE * thread_idx.y + thread_idx.x
    row0 = block_idx.x
    blocks_per_row_x = ncols_x // QK8_0
    blocks_per_iter = VDR * NWARPS * WARP_SIZE // QI8_0
    tmp = Float32(0)
    kqs = VDR * (tid % (QI8_0 // VDR))
    for kbx in range(tid // (QI8_0 // VDR), blocks_per_row_x, blocks_per_iter):
        kby = kbx * (QK8_0 // QK8_1)
        kbx_row = row0 * blocks_per_row_x + kbx
        tmp += vec_dot_q8_0_q8_1(vx + kbx_row, vy + kby, kqs)  # &x[ib], &y[iby]
    tmp_shared = kdsl.shared_array(Float32, (NWARPS - 1, WARP_SIZE))
    if thread_idx.y > 0:
        tmp_shared[thread_idx.y - 1, thread_idx.x] = tmp
    kdsl.syncthreads()
    if thread_idx.y > 0:
        return
    for l in kdsl.range_constexpr(NWARPS - 1):
        tmp += tmp_shared[l, thread_idx.x]
    tmp = warp_reduce_sum(tmp)
    if thread_idx.x == 0:
        dst[row0] = tmp


# -- benchmark: benchmarks/ports.py against benchmarks/originals/mul_mat_vec_q8_0.cu --
ROWS, COLS = 8192, 8192


def _bench_setup(cp):
    r = np.random.default_rng(26)
    nb = COLS // QK8_0
    x = np.zeros(ROWS * nb, block_q8_0.dtype)
    x["d"] = (r.standard_normal(ROWS * nb) * 0.05).astype(np.float16)
    x["qs"] = r.integers(-128, 128, (ROWS * nb, QK8_0))
    y = np.zeros(nb, block_q8_1.dtype)
    y["ds"][:, 0] = (r.standard_normal(nb) * 0.05).astype(np.float16)
    y["ds"][:, 1] = r.standard_normal(nb).astype(np.float16)
    y["qs"] = r.integers(-128, 128, (nb, QK8_1 // 4, 4))
    return dict(
        vx=cp.asarray(x.view(np.uint8)),
        vy=cp.asarray(y.view(np.uint8)),
        dst=cp.zeros(ROWS, np.float32),
    )


def _bench_port(a):
    mul_mat_vec_q8_0[ROWS, (WARP_SIZE, NWARPS)](a["vx"], a["vy"], a["dst"], COLS, ROWS)


def _bench_original(o, a):
    sizes = (np.int32(COLS), np.int32(ROWS), np.int32(COLS), np.int32(ROWS))
    o("mul_mat_vec_q8_0")(
        (ROWS,), (WARP_SIZE, NWARPS), (a["vx"], a["vy"], a["dst"], *sizes)
    )


BENCH = dict(
    source="mul_mat_vec_q8_0.cu",
    contract=False,
    size="8192x8192 q8_0",
    kernels=[(lambda: mul_mat_vec_q8_0.dispatch(), "mul_mat_vec_q8_0")],
    setup=_bench_setup,
    port=_bench_port,
    original=_bench_original,
    outputs=("dst",),
    tolerance=None,  # dp4a, then the same float order
)
