// Re-implementation, for benchmarking the kdsl port tests/ports/threadfence_reduction.py,
// of NVIDIA/cuda-samples,
// Samples/2_Concepts_and_Techniques/threadFenceReduction/threadFenceReduction_kernel.cuh,
// reduceBlock, reduceBlocks and reduceSinglePass. Written for kdsl from the
// original's algorithm and synchronisation (volatile shared memory, tile and block
// syncs, __threadfence, atomicInc tickets); not the original's text. The template
// kernel's body is a template __device__ function, instantiated by the extern "C"
// kernel reduceSinglePass_256 (blockSize 256, nIsPow2 false).
// Launch: reduceSinglePass_256<<<blocks, 256, 256 * sizeof(float)>>>(in, out, n);
// retirementCount starts at 0 and the last block puts it back.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ unsigned int retirementCount = 0;

template <unsigned int blockSize>
__device__ void reduceBlock(volatile float *sdata, float mySum, const unsigned int tid,
                            cg::thread_block cta) {
    cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);
    sdata[tid] = mySum;
    cg::sync(tile32);
    const int VEC = 32;
    const int vid = tid & (VEC - 1);
    float beta = mySum;
    float temp;
    // a tree over each warp's 32 sums
    for (int i = VEC / 2; i > 0; i >>= 1) {
        if (vid < i) {
            temp = sdata[tid + i];
            beta += temp;
            sdata[tid] = beta;
        }
        cg::sync(tile32);
    }
    cg::sync(cta);
    // thread 0 sums the warps' totals
    if (cta.thread_rank() == 0) {
        beta = 0;
        for (int i = 0; i < blockDim.x; i += VEC)
            beta += sdata[i];
        sdata[0] = beta;
    }
    cg::sync(cta);
}

template <unsigned int blockSize, bool nIsPow2>
__device__ void reduceBlocks(const float *g_idata, float *g_odata, unsigned int n,
                             cg::thread_block cta) {
    extern __shared__ float sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockSize * 2) + threadIdx.x;
    unsigned int gridSize = blockSize * 2 * gridDim.x;
    float mySum = 0;
    while (i < n) {
        mySum += g_idata[i];
        if (nIsPow2 || i + blockSize < n)
            mySum += g_idata[i + blockSize];
        i += gridSize;
    }
    reduceBlock<blockSize>(sdata, mySum, tid, cta);
    if (tid == 0)
        g_odata[blockIdx.x] = sdata[0];
}

template <unsigned int blockSize, bool nIsPow2>
__device__ __forceinline__ void reduceSinglePassBody(const float *g_idata, float *g_odata,
                                                     unsigned int n) {
    cg::thread_block cta = cg::this_thread_block();
    reduceBlocks<blockSize, nIsPow2>(g_idata, g_odata, n, cta);
    if (gridDim.x > 1) {
        const unsigned int tid = threadIdx.x;
        __shared__ bool amLast;
        extern float __shared__ smem[];
        // the block's partial sum is visible before its ticket is taken
        __threadfence();
        if (tid == 0) {
            unsigned int ticket = atomicInc(&retirementCount, gridDim.x);
            amLast = (ticket == gridDim.x - 1);
        }
        cg::sync(cta);
        // the last block sums the partial sums
        if (amLast) {
            int i = tid;
            float mySum = 0;
            while (i < gridDim.x) {
                mySum += g_odata[i];
                i += blockSize;
            }
            reduceBlock<blockSize>(smem, mySum, tid, cta);
            if (tid == 0) {
                g_odata[0] = smem[0];
                retirementCount = 0;
            }
        }
    }
}

extern "C" __global__ void reduceSinglePass_256(const float *g_idata, float *g_odata,
                                                unsigned int n) {
    reduceSinglePassBody<256, false>(g_idata, g_odata, n);
}
