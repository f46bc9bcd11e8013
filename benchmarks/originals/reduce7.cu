// Re-implementation, for benchmarking the kdsl port tests/ports/reduce7.py, of
// NVIDIA/cuda-samples, Samples/2_Concepts_and_Techniques/reduction/reduction_kernel.cu,
// reduce7 and warpReduceSum (the int specialisation with __reduce_add_sync).
// Written for kdsl from the original's algorithm, index arithmetic and intrinsics;
// not the original's text. The template kernel's body is a template __device__
// function, instantiated by the extern "C" kernels below (T, blockSize, nIsPow2).
// Launch: reduce7_*<<<blocks, blockSize, (blockSize / 32) * sizeof(T)>>>(in, out, n).

template <class T> struct SharedMemory {
    __device__ inline operator T *() {
        extern __shared__ int smem_[];
        return (T *)smem_;
    }
};

template <class T> __device__ __forceinline__ T warpReduceSum(unsigned int mask, T mySum) {
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
        mySum += __shfl_down_sync(mask, mySum, offset);
    return mySum;
}

template <> __device__ __forceinline__ int warpReduceSum<int>(unsigned int mask, int mySum) {
    return __reduce_add_sync(mask, mySum);
}

template <class T, unsigned int blockSize, bool nIsPow2>
__device__ __forceinline__ void reduce7_body(const T *__restrict__ g_idata,
                                             T *__restrict__ g_odata, unsigned int n) {
    T *sdata = SharedMemory<T>();
    unsigned int tid = threadIdx.x;
    unsigned int gridSize = blockSize * gridDim.x;
    unsigned int maskLength = (blockSize & 31);
    maskLength = (maskLength > 0) ? (32 - maskLength) : maskLength;
    const unsigned int mask = (0xffffffff) >> maskLength;
    T mySum = 0;
    // each thread sums a grid-stride run, two elements a step when n is a power of 2
    if (nIsPow2) {
        unsigned int i = blockIdx.x * blockSize * 2 + threadIdx.x;
        gridSize = gridSize << 1;
        while (i < n) {
            mySum += g_idata[i];
            if ((i + blockSize) < n)
                mySum += g_idata[i + blockSize];
            i += gridSize;
        }
    } else {
        unsigned int i = blockIdx.x * blockSize + threadIdx.x;
        while (i < n) {
            mySum += g_idata[i];
            i += gridSize;
        }
    }
    mySum = warpReduceSum<T>(mask, mySum);
    if ((tid % warpSize) == 0)
        sdata[tid / warpSize] = mySum;
    __syncthreads();
    const unsigned int shmem_extent = (blockSize / warpSize) > 0 ? (blockSize / warpSize) : 1;
    const unsigned int ballot_result = __ballot_sync(mask, tid < shmem_extent);
    if (tid < shmem_extent) {
        mySum = sdata[tid];
        mySum = warpReduceSum<T>(ballot_result, mySum);
    }
    if (tid == 0)
        g_odata[blockIdx.x] = mySum;
}

extern "C" __global__ void reduce7_int_256_pow2(const int *__restrict__ g_idata,
                                                int *__restrict__ g_odata, unsigned int n) {
    reduce7_body<int, 256, true>(g_idata, g_odata, n);
}

extern "C" __global__ void reduce7_int_256(const int *__restrict__ g_idata,
                                           int *__restrict__ g_odata, unsigned int n) {
    reduce7_body<int, 256, false>(g_idata, g_odata, n);
}
