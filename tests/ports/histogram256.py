"""Port of NVIDIA/cuda-samples,
``Samples/2_Concepts_and_Techniques/histogram/histogram256.cu``,
``addByte``, ``addWord``, ``histogram256Kernel`` and
``mergeHistogram256Kernel``: a 256-bin byte histogram.  Each warp of a
block counts into its own sub-histogram in shared memory with shared-memory
atomics, reading the data a 32-bit word (four bytes) at a time; the block
sums its warps' sub-histograms into a partial histogram, and a second
kernel, one block a bin, sums the partial histograms.

Differences from the original: the data is a ``Pointer[Uint8]`` read as
words through the byte view ``data.view(Uint32)`` (the sample takes a
``uint*`` to the bytes); the unused tag argument and the no-op
``& TAG_MASK`` are left out; the merge's tree reduction runs over
``range_constexpr`` strides.  As in the sample, the byte count is a
multiple of 4.  The loop indices are ``Uint32`` like the sample's ``uint``:
with an ``Int32`` ``bin`` NVVM unrolled the loop over the bins far more
(1.93 times the sample's instructions, 124 shared loads against 48; 1.01
with ``Uint32``, tests/sass/test_sass_ports.py).
"""

import numpy as np

import kdsl
from kdsl import Pointer, Uint8, Uint32, block_dim, block_idx, grid_dim, thread_idx

BIN_COUNT = 256
WARP_COUNT = 6
THREADBLOCK_SIZE = WARP_COUNT * 32
MERGE_THREADBLOCK_SIZE = 256


@kdsl.func
def add_word(s_warp_hist, data):
    for shift in kdsl.range_constexpr(0, 32, 8):
        kdsl.atomic_add(s_warp_hist, (data >> shift) & 0xFF, Uint32(1))


@kdsl.kernel
def histogram256_kernel(
    d_partial_histograms: Pointer[Uint32], d_data: Pointer[Uint8], data_count: Uint32
):
    s_hist = kdsl.shared_array(Uint32, WARP_COUNT * BIN_COUNT)
    s_warp_hist = s_hist + (thread_idx.x >> 5) * BIN_COUNT
    for i in kdsl.range_constexpr(WARP_COUNT * BIN_COUNT // THREADBLOCK_SIZE):
        s_hist[thread_idx.x + i * THREADBLOCK_SIZE] = 0
    kdsl.syncthreads()
    words = d_data.view(Uint32)
    step = Uint32(block_dim.x * grid_dim.x)
    for pos in range(
        Uint32(block_idx.x * block_dim.x + thread_idx.x), data_count, step
    ):
        add_word(s_warp_hist, words[pos])
    kdsl.syncthreads()
    for bin in range(Uint32(thread_idx.x), BIN_COUNT, THREADBLOCK_SIZE):
        total = Uint32(0)
        for w in kdsl.range_constexpr(WARP_COUNT):
            total += s_hist[bin + w * BIN_COUNT]
        d_partial_histograms[block_idx.x * BIN_COUNT + bin] = total


@kdsl.kernel
def merge_histogram256_kernel(
    d_histogram: Pointer[Uint32],
    d_partial_histograms: Pointer[Uint32],
    histogram_count: Uint32,
):
    total = Uint32(0)
    for i in range(Uint32(thread_idx.x), histogram_count, MERGE_THREADBLOCK_SIZE):
        total += d_partial_histograms[block_idx.x + i * BIN_COUNT]
    data = kdsl.shared_array(Uint32, MERGE_THREADBLOCK_SIZE)
    data[thread_idx.x] = total
    for k in kdsl.range_constexpr(1, 9):
        kdsl.syncthreads()
        if thread_idx.x < MERGE_THREADBLOCK_SIZE >> k:
            data[thread_idx.x] += data[thread_idx.x + (MERGE_THREADBLOCK_SIZE >> k)]
    if thread_idx.x == 0:
        d_histogram[block_idx.x] = data[0]


# -- benchmark: benchmarks/ports.py against benchmarks/originals/histogram256.cu --
BYTES = 64 << 20  # the sample's byteCount
PARTIALS = 240  # its PARTIAL_HISTOGRAM256_COUNT


def _bench_setup(cp):
    data = np.random.default_rng(26).integers(0, 256, BYTES, dtype=np.uint8)
    return dict(
        data=cp.asarray(data),
        partial=cp.zeros(PARTIALS * BIN_COUNT, np.uint32),
        hist=cp.zeros(BIN_COUNT, np.uint32),
    )


def _bench_port(a):
    histogram256_kernel[PARTIALS, THREADBLOCK_SIZE](a["partial"], a["data"], BYTES // 4)
    merge_histogram256_kernel[BIN_COUNT, MERGE_THREADBLOCK_SIZE](
        a["hist"], a["partial"], PARTIALS
    )


def _bench_original(o, a):
    args = (a["partial"], a["data"], np.uint32(BYTES // 4))
    o("histogram256Kernel")((PARTIALS,), (THREADBLOCK_SIZE,), args)
    args = (a["hist"], a["partial"], np.uint32(PARTIALS))
    o("mergeHistogram256Kernel")((BIN_COUNT,), (MERGE_THREADBLOCK_SIZE,), args)


BENCH = dict(
    source="histogram256.cu",
    contract=False,
    size="64 MB, 2 launches",
    kernels=[
        (lambda: histogram256_kernel.dispatch(), "histogram256Kernel"),
        (lambda: merge_histogram256_kernel.dispatch(), "mergeHistogram256Kernel"),
    ],
    setup=_bench_setup,
    port=_bench_port,
    original=_bench_original,
    outputs=("partial", "hist"),
    tolerance=None,
)
