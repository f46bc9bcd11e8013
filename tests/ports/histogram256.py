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
multiple of 4.
"""

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
    for bin in range(thread_idx.x, BIN_COUNT, THREADBLOCK_SIZE):
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
