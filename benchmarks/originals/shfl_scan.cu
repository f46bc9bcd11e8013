// Re-implementation, for benchmarking the kdsl port tests/ports/shfl_scan.py, of
// NVIDIA/cuda-samples, Samples/2_Concepts_and_Techniques/shfl_scan/shfl_scan.cu,
// shfl_scan_test and uniform_add. Written for kdsl from the original's algorithm,
// index arithmetic and intrinsics (__shfl_up_sync with a width); not the
// original's text.
// Launches, as the sample's: shfl_scan_test<<<n / 256, 256, 8 * 4>>>(data, 32,
// partial_sums); shfl_scan_test<<<1, 256, 8 * 4>>>(partial_sums, 32, NULL);
// uniform_add<<<n / 256 - 1, 256>>>(data + 256, partial_sums, n). As in the
// sample, n is a multiple of 256.

extern "C" __global__ void shfl_scan_test(int *data, int width, int *partial_sums) {
    extern __shared__ int sums[];
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    int lane_id = id % warpSize;
    int warp_id = threadIdx.x / warpSize;
    int value = data[id];
    // the inclusive scan of each warp
#pragma unroll
    for (int i = 1; i <= width; i *= 2) {
        unsigned int mask = 0xffffffff;
        int n = __shfl_up_sync(mask, value, i, width);
        if (lane_id >= i)
            value += n;
    }
    // the last lane of each warp holds its warp's total
    if (threadIdx.x % warpSize == warpSize - 1)
        sums[warp_id] = value;
    __syncthreads();
    // the first warp scans the warp totals
    if (warp_id == 0 && lane_id < (blockDim.x / warpSize)) {
        int warp_sum = sums[lane_id];
        int mask = (1 << (blockDim.x / warpSize)) - 1;
        for (int i = 1; i <= (blockDim.x / warpSize); i *= 2) {
            int n = __shfl_up_sync(mask, warp_sum, i, (blockDim.x / warpSize));
            if (lane_id >= i)
                warp_sum += n;
        }
        sums[lane_id] = warp_sum;
    }
    __syncthreads();
    int blockSum = 0;
    if (warp_id > 0)
        blockSum = sums[warp_id - 1];
    value += blockSum;
    data[id] = value;
    if (partial_sums != NULL && threadIdx.x == blockDim.x - 1)
        partial_sums[blockIdx.x] = value;
}

// adds the scanned total of the blocks before each block (data starts one block in)
extern "C" __global__ void uniform_add(int *data, int *partial_sums, int len) {
    __shared__ int buf;
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    if (id > len)
        return;
    if (threadIdx.x == 0)
        buf = partial_sums[blockIdx.x];
    __syncthreads();
    data[id] += buf;
}
