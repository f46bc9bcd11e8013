// Re-implementation, for benchmarking the kdsl port tests/ports/layernorm_forward.py,
// of karpathy/llm.c, dev/cuda/layernorm_forward.cu, layernorm_forward_kernel5.
// Written for kdsl from the original's algorithm (cg::reduce over warps, the
// warps' sums through shared memory, rsqrtf, __ldcs/__stcs); not the original's
// text.
// Launch: layernorm_forward_kernel5<<<N, block_size>>>.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

// one block a row
extern "C" __global__ void layernorm_forward_kernel5(float *__restrict__ out,
                                                     float *__restrict__ mean,
                                                     float *__restrict__ rstd,
                                                     const float *__restrict__ inp,
                                                     const float *__restrict__ weight,
                                                     const float *__restrict__ bias, int N,
                                                     int C) {
    namespace cg = cooperative_groups;
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    __shared__ float shared_sum[32];   // a block has at most 32 warps
    __shared__ float shared_sum2[32];
    int num_warps = blockDim.x / 32;
    int warp_id = threadIdx.x / 32;
    int lane_id = threadIdx.x % 32;
    int idx = blockIdx.x;
    const float *x = inp + idx * C;
    // sum(x) and sum(x**2) of the thread's elements
    float thread_sum = 0.0;
    float thread_sum2 = 0.0;
    for (int i = threadIdx.x; i < C; i += blockDim.x) {
        float xi = x[i];
        thread_sum += xi;
        thread_sum2 += xi * xi;
    }
    float warp_sum = cg::reduce(warp, thread_sum, cg::plus<float>{});
    float warp_sum2 = cg::reduce(warp, thread_sum2, cg::plus<float>{});
    shared_sum[warp_id] = warp_sum;
    shared_sum2[warp_id] = warp_sum2;
    __syncthreads();
    warp_sum = (lane_id < num_warps) ? shared_sum[lane_id] : 0.0f;
    warp_sum2 = (lane_id < num_warps) ? shared_sum2[lane_id] : 0.0f;
    float block_sum = cg::reduce(warp, warp_sum, cg::plus<float>{});
    float block_sum2 = cg::reduce(warp, warp_sum2, cg::plus<float>{});
    block_sum /= C;   // mean(x)
    block_sum2 /= C;  // mean(x**2)
    float m = block_sum;
    float var = block_sum2 - m * m;
    float s = rsqrtf(var + 1e-5f);
    if (threadIdx.x == 0 && mean != nullptr)
        __stcs(mean + idx, m);
    if (threadIdx.x == 0 && rstd != nullptr)
        __stcs(rstd + idx, s);
    float *o = out + idx * C;
    for (int i = threadIdx.x; i < C; i += blockDim.x) {
        float n = s * (__ldcs(x + i) - m);
        __stcs(o + i, n * weight[i] + bias[i]);
    }
}
