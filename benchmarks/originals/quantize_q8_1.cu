// Re-implementation, for benchmarking the kdsl port tests/ports/quantize_q8_1.py, of
// ggerganov/llama.cpp, ggml/src/ggml-cuda/quantize.cu, quantize_q8_1, with
// warp_reduce_sum and warp_reduce_max of ggml/src/ggml-cuda/common.cuh and the
// block_q8_1 layout of ggml-common.h. Written for kdsl from the original's
// algorithm and index arithmetic (int64_t indices, __shfl_xor_sync, roundf, the
// reinterpret_cast<half&> stores into ds); not the original's text.
// Launch: quantize_q8_1<<<(ceil(kx0_padded / 256), rows), 256>>>(x, vy, kx, kx0_padded).
#include <cuda_fp16.h>
// <stdint.h>: NVRTC has no C library headers
typedef signed char int8_t;
typedef unsigned short uint16_t;
typedef long long int64_t;

#define QK8_1 32
#define WARP_SIZE 32

typedef struct {
    half2 ds;  // the scale d, then the sum of the block's values
    int8_t qs[QK8_1];
} block_q8_1;

template <int width = WARP_SIZE> static __device__ __forceinline__ float warp_reduce_sum(float x) {
#pragma unroll
    for (int offset = width / 2; offset > 0; offset >>= 1)
        x += __shfl_xor_sync(0xffffffff, x, offset, width);
    return x;
}

template <int width = WARP_SIZE> static __device__ __forceinline__ float warp_reduce_max(float x) {
#pragma unroll
    for (int offset = width / 2; offset > 0; offset >>= 1)
        x = fmaxf(x, __shfl_xor_sync(0xffffffff, x, offset, width));
    return x;
}

extern "C" __global__ void quantize_q8_1(const float *__restrict__ x, void *__restrict__ vy,
                                         const int64_t kx, const int64_t kx0_padded) {
    const int64_t ix0 = (int64_t)blockDim.x * blockIdx.x + threadIdx.x;
    if (ix0 >= kx0_padded)
        return;
    const int64_t ix1 = blockIdx.y;
    const int64_t i_padded = ix1 * kx0_padded + ix0;
    block_q8_1 *y = (block_q8_1 *)vy;
    const int64_t ib = i_padded / QK8_1;   // block index
    const int64_t iqs = i_padded % QK8_1;  // quant index
    const float xi = ix0 < kx ? x[ix1 * kx + ix0] : 0.0f;
    float amax = fabsf(xi);
    float sum = xi;
    amax = warp_reduce_max(amax);
    sum = warp_reduce_sum(sum);
    const float d = amax / 127;
    const int8_t q = amax == 0.0f ? 0 : roundf(xi / d);
    y[ib].qs[iqs] = q;
    if (iqs > 0)
        return;
    reinterpret_cast<half &>(y[ib].ds.x) = d;
    reinterpret_cast<half &>(y[ib].ds.y) = sum;
}
