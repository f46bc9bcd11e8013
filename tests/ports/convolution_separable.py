"""Port of NVIDIA/cuda-samples,
``Samples/2_Concepts_and_Techniques/convolutionSeparable/convolutionSeparable.cu``,
``convolutionRowsKernel`` and ``convolutionColumnsKernel``: a separable
convolution with a 17-tap filter kept in constant memory (``c_Kernel``).
Each block stages a tile of rows (columns) and its halo in shared memory,
zeros past the image's edge, then each thread sums the filter over its
results.

Differences from the original: the filter is the module-level numpy array
``C_KERNEL``, a ``__constant__`` table whose values are fixed when the
kernels compile (the sample uploads it at run time with
``cudaMemcpyToSymbol``; another filter here is another compilation); the
advanced pointers are new names (``src = d_src + base`` for the sample's
``d_Src += base``); the loops over the steps are
``range_constexpr`` (unrolled by kdsl; the sample's ``#pragma unroll``),
and the loop over the taps ``kdsl.range(..., unroll=KERNEL_LENGTH)``, so
that its index into the table stays a run-time index, a read of constant
memory (a compile-time index would fold to the element).  As in the
sample, the width is a multiple of 128 and the height of 64 (the rows
kernel needs only a multiple of 4), and ``pitch`` is the width.
"""

import numpy as np

import kdsl
from kdsl import Float32, Int32, Pointer, block_idx, thread_idx

KERNEL_RADIUS = 8
KERNEL_LENGTH = 2 * KERNEL_RADIUS + 1
C_KERNEL = (np.random.default_rng(17).integers(0, 16, KERNEL_LENGTH) / 64).astype(
    np.float32
)

ROWS_BLOCKDIM_X, ROWS_BLOCKDIM_Y, ROWS_RESULT_STEPS, ROWS_HALO_STEPS = 16, 4, 8, 1
ROWS_MAIN_END = (
    ROWS_HALO_STEPS + ROWS_RESULT_STEPS
)  # the steps of the right halo follow
ROWS_STEPS = ROWS_RESULT_STEPS + 2 * ROWS_HALO_STEPS
COLUMNS_BLOCKDIM_X, COLUMNS_BLOCKDIM_Y = 16, 8
COLUMNS_RESULT_STEPS, COLUMNS_HALO_STEPS = 8, 1
COLUMNS_MAIN_END = COLUMNS_HALO_STEPS + COLUMNS_RESULT_STEPS
COLUMNS_STEPS = COLUMNS_RESULT_STEPS + 2 * COLUMNS_HALO_STEPS


@kdsl.kernel
def convolution_rows_kernel(
    d_dst: Pointer[Float32],
    d_src: Pointer[Float32],
    image_w: Int32,
    image_h: Int32,
    pitch: Int32,
):
    s_data = kdsl.shared_array(Float32, (ROWS_BLOCKDIM_Y, ROWS_STEPS * ROWS_BLOCKDIM_X))
    tx, ty = thread_idx.x, thread_idx.y
    base_x = (block_idx.x * ROWS_RESULT_STEPS - ROWS_HALO_STEPS) * ROWS_BLOCKDIM_X + tx
    base_y = block_idx.y * ROWS_BLOCKDIM_Y + ty
    src = d_src + (base_y * pitch + base_x)
    dst = d_dst + (base_y * pitch + base_x)
    for i in kdsl.range_constexpr(ROWS_HALO_STEPS, ROWS_MAIN_END):  # main data
        s_data[ty, tx + i * ROWS_BLOCKDIM_X] = src[i * ROWS_BLOCKDIM_X]
    for i in kdsl.range_constexpr(ROWS_HALO_STEPS):  # left halo
        o = i * ROWS_BLOCKDIM_X
        s_data[ty, tx + o] = src[o] if base_x >= -o else 0
    for i in kdsl.range_constexpr(ROWS_MAIN_END, ROWS_STEPS):  # right halo
        o = i * ROWS_BLOCKDIM_X
        s_data[ty, tx + o] = src[o] if image_w - base_x > o else 0
    kdsl.syncthreads()
    for i in kdsl.range_constexpr(ROWS_HALO_STEPS, ROWS_MAIN_END):
        x = tx + i * ROWS_BLOCKDIM_X
        total = Float32(0)
        for j in kdsl.range(-KERNEL_RADIUS, KERNEL_RADIUS + 1, unroll=KERNEL_LENGTH):
            total += C_KERNEL[KERNEL_RADIUS - j] * s_data[ty, x + j]
        dst[i * ROWS_BLOCKDIM_X] = total


@kdsl.kernel
def convolution_columns_kernel(
    d_dst: Pointer[Float32],
    d_src: Pointer[Float32],
    image_w: Int32,
    image_h: Int32,
    pitch: Int32,
):
    s_data = kdsl.shared_array(
        Float32, (COLUMNS_BLOCKDIM_X, COLUMNS_STEPS * COLUMNS_BLOCKDIM_Y + 1)
    )
    tx, ty = thread_idx.x, thread_idx.y
    base_x = block_idx.x * COLUMNS_BLOCKDIM_X + tx
    tile_y = block_idx.y * COLUMNS_RESULT_STEPS - COLUMNS_HALO_STEPS
    base_y = tile_y * COLUMNS_BLOCKDIM_Y + ty
    src = d_src + (base_y * pitch + base_x)
    dst = d_dst + (base_y * pitch + base_x)
    for i in kdsl.range_constexpr(COLUMNS_HALO_STEPS, COLUMNS_MAIN_END):  # main data
        s_data[tx, ty + i * COLUMNS_BLOCKDIM_Y] = src[i * COLUMNS_BLOCKDIM_Y * pitch]
    for i in kdsl.range_constexpr(COLUMNS_HALO_STEPS):  # upper halo
        o = i * COLUMNS_BLOCKDIM_Y
        s_data[tx, ty + o] = src[o * pitch] if base_y >= -o else 0
    for i in kdsl.range_constexpr(COLUMNS_MAIN_END, COLUMNS_STEPS):  # lower halo
        o = i * COLUMNS_BLOCKDIM_Y
        s_data[tx, ty + o] = src[o * pitch] if image_h - base_y > o else 0
    kdsl.syncthreads()
    for i in kdsl.range_constexpr(COLUMNS_HALO_STEPS, COLUMNS_MAIN_END):
        y = ty + i * COLUMNS_BLOCKDIM_Y
        total = Float32(0)
        for j in kdsl.range(-KERNEL_RADIUS, KERNEL_RADIUS + 1, unroll=KERNEL_LENGTH):
            total += C_KERNEL[KERNEL_RADIUS - j] * s_data[tx, y + j]
        dst[i * COLUMNS_BLOCKDIM_Y * pitch] = total


# -- benchmark: benchmarks/ports.py against benchmarks/originals/convolution_separable.cu --
IMAGE = 3072  # the sample's imageW and imageH


def _bench_setup(cp):
    src = np.random.default_rng(26).standard_normal((IMAGE, IMAGE), dtype=np.float32)
    return dict(
        src=cp.asarray(src),
        rows=cp.zeros((IMAGE, IMAGE), np.float32),
        out=cp.zeros((IMAGE, IMAGE), np.float32),
    )


def _bench_port(a):
    w = h = IMAGE
    convolution_rows_kernel[(w // 128, h // 4), (16, 4)](a["rows"], a["src"], w, h, w)
    convolution_columns_kernel[(w // 16, h // 64), (16, 8)](
        a["out"], a["rows"], w, h, w
    )


def _bench_original(o, a):
    w = h = np.int32(IMAGE)
    o("convolutionRowsKernel")(
        (IMAGE // 128, IMAGE // 4), (16, 4), (a["rows"], a["src"], w, h, w)
    )
    o("convolutionColumnsKernel")(
        (IMAGE // 16, IMAGE // 64), (16, 8), (a["out"], a["rows"], w, h, w)
    )


BENCH = dict(
    source="convolution_separable.cu",
    contract=False,
    size="3072x3072, rows then columns",
    kernels=[
        (lambda: convolution_rows_kernel.dispatch(), "convolutionRowsKernel"),
        (lambda: convolution_columns_kernel.dispatch(), "convolutionColumnsKernel"),
    ],
    setup=_bench_setup,
    port=_bench_port,
    original=_bench_original,
    globals={"c_Kernel": C_KERNEL},  # the sample's cudaMemcpyToSymbol
    outputs=("rows", "out"),
    tolerance=None,  # the taps in the same order, no FMA
)
