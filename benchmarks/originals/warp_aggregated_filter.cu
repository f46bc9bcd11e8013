// Re-implementation, for benchmarking the kdsl port tests/ports/warp_aggregated_filter.py,
// of the NVIDIA Developer Blog post "CUDA Pro Tip: Optimized Filtering with
// Warp-Aggregated Atomics" (A. Adinets), atomicAggInc and filter_k, with
// __activemask() for the CUDA 8 version's __ballot(1) as the post's CUDA 9 update
// advises. Written for kdsl from the post's algorithm (__ffs, __popc, the
// %lanemask_lt register, __shfl_sync, one atomicAdd a warp); not the post's text.
// Launch: filter_k<<<ceil(n / 256), 256>>>(dst, nres, src, n), *nres = 0 before.

__device__ __forceinline__ int lane_id() { return threadIdx.x % 32; }

__device__ __forceinline__ unsigned int lanemask_lt() {
    unsigned int mask;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
    return mask;
}

// the active lanes' leader takes one ticket for all of them
__device__ int atomicAggInc(int *ctr) {
    unsigned int active = __activemask();
    int leader = __ffs(active) - 1;
    int res;
    if (lane_id() == leader)
        res = atomicAdd(ctr, __popc(active));
    res = __shfl_sync(active, res, leader);
    return res + __popc(active & lanemask_lt());
}

extern "C" __global__ void filter_k(int *dst, int *nres, const int *src, int n) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n && src[i] > 0)
        dst[atomicAggInc(nres)] = src[i];
}
