// Re-implementation, for benchmarking the kdsl port tests/ports/histogram256.py, of
// NVIDIA/cuda-samples, Samples/2_Concepts_and_Techniques/histogram/histogram256.cu
// (addByte, addWord, histogram256Kernel, mergeHistogram256Kernel) with the
// constants of histogram_common.h. Written for kdsl from the original's algorithm
// and index arithmetic; not the original's text.
// Launches, as the sample's: histogram256Kernel<<<240, 192>>>(partial, data,
// byteCount / 4); mergeHistogram256Kernel<<<256, 256>>>(hist, partial, 240).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

typedef unsigned int uint;
#define LOG2_WARP_SIZE 5U
#define WARP_SIZE (1U << LOG2_WARP_SIZE)
#define UINT_BITS 32
#define HISTOGRAM256_BIN_COUNT 256
#define WARP_COUNT 6
#define HISTOGRAM256_THREADBLOCK_SIZE (WARP_COUNT * WARP_SIZE)
#define HISTOGRAM256_THREADBLOCK_MEMORY (WARP_COUNT * HISTOGRAM256_BIN_COUNT)
#define MERGE_THREADBLOCK_SIZE 256
#define TAG_MASK 0xFFFFFFFFU
#define UMUL(a, b) ((a) * (b))
#define UMAD(a, b, c) (UMUL((a), (b)) + (c))

inline __device__ void addByte(uint *s_WarpHist, uint data, uint threadTag) {
    atomicAdd(s_WarpHist + data, 1);
}

inline __device__ void addWord(uint *s_WarpHist, uint data, uint tag) {
    addByte(s_WarpHist, (data >> 0) & 0xFFU, tag);
    addByte(s_WarpHist, (data >> 8) & 0xFFU, tag);
    addByte(s_WarpHist, (data >> 16) & 0xFFU, tag);
    addByte(s_WarpHist, (data >> 24) & 0xFFU, tag);
}

// one sub-histogram per warp in shared memory, summed into a partial histogram
extern "C" __global__ void histogram256Kernel(uint *d_PartialHistograms, uint *d_Data,
                                              uint dataCount) {
    cg::thread_block cta = cg::this_thread_block();
    __shared__ uint s_Hist[HISTOGRAM256_THREADBLOCK_MEMORY];
    uint *s_WarpHist = s_Hist + (threadIdx.x >> LOG2_WARP_SIZE) * HISTOGRAM256_BIN_COUNT;
#pragma unroll
    for (uint i = 0; i < (HISTOGRAM256_THREADBLOCK_MEMORY / HISTOGRAM256_THREADBLOCK_SIZE); i++)
        s_Hist[threadIdx.x + i * HISTOGRAM256_THREADBLOCK_SIZE] = 0;
    const uint tag = threadIdx.x << (UINT_BITS - LOG2_WARP_SIZE);
    cg::sync(cta);
    for (uint pos = UMAD(blockIdx.x, blockDim.x, threadIdx.x); pos < dataCount;
         pos += UMUL(blockDim.x, gridDim.x)) {
        uint data = d_Data[pos];
        addWord(s_WarpHist, data, tag);
    }
    cg::sync(cta);
    for (uint bin = threadIdx.x; bin < HISTOGRAM256_BIN_COUNT;
         bin += HISTOGRAM256_THREADBLOCK_SIZE) {
        uint sum = 0;
        for (uint i = 0; i < WARP_COUNT; i++)
            sum += s_Hist[bin + i * HISTOGRAM256_BIN_COUNT] & TAG_MASK;
        d_PartialHistograms[blockIdx.x * HISTOGRAM256_BIN_COUNT + bin] = sum;
    }
}

// one block a bin: the sum of that bin over the partial histograms
extern "C" __global__ void mergeHistogram256Kernel(uint *d_Histogram, uint *d_PartialHistograms,
                                                   uint histogramCount) {
    cg::thread_block cta = cg::this_thread_block();
    uint sum = 0;
    for (uint i = threadIdx.x; i < histogramCount; i += MERGE_THREADBLOCK_SIZE)
        sum += d_PartialHistograms[blockIdx.x + i * HISTOGRAM256_BIN_COUNT];
    __shared__ uint data[MERGE_THREADBLOCK_SIZE];
    data[threadIdx.x] = sum;
    for (uint stride = MERGE_THREADBLOCK_SIZE / 2; stride > 0; stride >>= 1) {
        cg::sync(cta);
        if (threadIdx.x < stride)
            data[threadIdx.x] += data[threadIdx.x + stride];
    }
    if (threadIdx.x == 0)
        d_Histogram[blockIdx.x] = data[0];
}
