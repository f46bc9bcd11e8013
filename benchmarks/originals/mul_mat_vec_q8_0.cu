// Re-implementation, for benchmarking the kdsl port tests/ports/mul_mat_vec_q8_0.py, of
// ggerganov/llama.cpp, ggml/src/ggml-cuda/mmvq.cu, mul_mat_vec_q for GGML_TYPE_Q8_0
// with ncols_y = 1 (nwarps 4, one row a block), with vec_dot_q8_0_q8_1,
// vec_dot_q8_0_q8_1_impl, get_int_b2, get_int_b4 of vecdotq.cuh, warp_reduce_sum
// of common.cuh and the block layouts of ggml-common.h. Written for kdsl from the
// original's algorithm, index arithmetic and intrinsics (__dp4a, __shfl_xor_sync);
// not the original's text. The template parameters are fixed at those values.
// Launch: mul_mat_vec_q8_0<<<nrows_x, (32, 4)>>>(vx, vy, dst, ncols_x, nrows_x,
// ncols_x, nrows_x).
#include <cuda_fp16.h>
// <stdint.h>: NVRTC has no C library headers
typedef signed char int8_t;
typedef unsigned short uint16_t;
typedef long long int64_t;

#define QK8_0 32
#define QI8_0 8
#define QK8_1 32
#define WARP_SIZE 32
#define VDR_Q8_0_Q8_1_MMVQ 2

typedef struct {
    half d;  // the scale
    int8_t qs[QK8_0];
} block_q8_0;

typedef struct {
    half2 ds;  // the scale and the sum of the values it quantised
    int8_t qs[QK8_1];
} block_q8_1;

static __device__ __forceinline__ int get_int_b2(const void *x, const int &i32) {
    const uint16_t *x16 = (const uint16_t *)x;  // 2-byte aligned
    int x32 = x16[2 * i32 + 0] << 0;
    x32 |= x16[2 * i32 + 1] << 16;
    return x32;
}

static __device__ __forceinline__ int get_int_b4(const void *x, const int &i32) {
    return ((const int *)x)[i32];  // 4-byte aligned
}

template <typename T, int vdr>
static __device__ __forceinline__ T vec_dot_q8_0_q8_1_impl(const int *v, const int *u,
                                                           const T &d8_0, const T &d8_1) {
    int sumi = 0;
#pragma unroll
    for (int i = 0; i < vdr; ++i)
        sumi = __dp4a(v[i], u[i], sumi);  // SIMD dot product of the quants
    return d8_0 * d8_1 * ((T)sumi);
}

static __device__ __forceinline__ float vec_dot_q8_0_q8_1(const void *__restrict__ vbq,
                                                          const block_q8_1 *__restrict__ bq8_1,
                                                          const int &kbx, const int &iqs) {
    const block_q8_0 *bq8_0 = (const block_q8_0 *)vbq + kbx;
    int v[VDR_Q8_0_Q8_1_MMVQ];
    int u[VDR_Q8_0_Q8_1_MMVQ];
#pragma unroll
    for (int i = 0; i < VDR_Q8_0_Q8_1_MMVQ; ++i) {
        v[i] = get_int_b2(bq8_0->qs, iqs + i);
        u[i] = get_int_b4(bq8_1->qs, iqs + i);
    }
    return vec_dot_q8_0_q8_1_impl<float, VDR_Q8_0_Q8_1_MMVQ>(v, u, bq8_0->d,
                                                             __low2half(bq8_1->ds));
}

static __device__ __forceinline__ float warp_reduce_sum(float x) {
#pragma unroll
    for (int offset = WARP_SIZE / 2; offset > 0; offset >>= 1)
        x += __shfl_xor_sync(0xffffffff, x, offset, WARP_SIZE);
    return x;
}

extern "C" __launch_bounds__(4 * WARP_SIZE, 1) __global__
    void mul_mat_vec_q8_0(const void *__restrict__ vx, const void *__restrict__ vy,
                          float *__restrict__ dst, const int ncols_x, const int nrows_x,
                          const int nrows_y, const int nrows_dst) {
    constexpr int qk = QK8_0;
    constexpr int qi = QI8_0;
    constexpr int vdr = VDR_Q8_0_Q8_1_MMVQ;
    constexpr int ncols_y = 1;
    constexpr int nwarps = 4;
    constexpr int rows_per_cuda_block = 1;
    const int tid = WARP_SIZE * threadIdx.y + threadIdx.x;
    const int row0 = rows_per_cuda_block * blockIdx.x;
    const int blocks_per_row_x = ncols_x / qk;
    const int blocks_per_col_y = nrows_y / QK8_1;
    constexpr int blocks_per_iter = vdr * nwarps * WARP_SIZE / qi;
    float tmp[ncols_y][rows_per_cuda_block] = {0.0f};  // the thread's partial sums
    const block_q8_1 *y = (const block_q8_1 *)vy;
    for (int kbx = tid / (qi / vdr); kbx < blocks_per_row_x; kbx += blocks_per_iter) {
        const int kby = kbx * (qk / QK8_1);  // the y block that aligns with kbx
        const int kqs = vdr * (tid % (qi / vdr));  // the quant index, in words
#pragma unroll
        for (int j = 0; j < ncols_y; ++j) {
#pragma unroll
            for (int i = 0; i < rows_per_cuda_block; ++i)
                tmp[j][i] += vec_dot_q8_0_q8_1(vx, &y[j * blocks_per_col_y + kby],
                                               (row0 + i) * blocks_per_row_x + kbx, kqs);
        }
    }
    __shared__ float tmp_shared[nwarps - 1 > 0 ? nwarps - 1 : 1][ncols_y][rows_per_cuda_block]
                               [WARP_SIZE];
    if (threadIdx.y > 0) {
#pragma unroll
        for (int j = 0; j < ncols_y; ++j) {
#pragma unroll
            for (int i = 0; i < rows_per_cuda_block; ++i)
                tmp_shared[threadIdx.y - 1][j][i][threadIdx.x] = tmp[j][i];
        }
    }
    __syncthreads();
    if (threadIdx.y > 0)
        return;
    // the first warp sums the partial sums and writes the result
#pragma unroll
    for (int j = 0; j < ncols_y; ++j) {
#pragma unroll
        for (int i = 0; i < rows_per_cuda_block; ++i) {
#pragma unroll
            for (int l = 0; l < nwarps - 1; ++l)
                tmp[j][i] += tmp_shared[l][j][i][threadIdx.x];
            tmp[j][i] = warp_reduce_sum(tmp[j][i]);
        }
        if (threadIdx.x < rows_per_cuda_block &&
            (rows_per_cuda_block == 1 || row0 + threadIdx.x < nrows_dst))
            dst[j * nrows_dst + row0 + threadIdx.x] = tmp[j][threadIdx.x];
    }
}
