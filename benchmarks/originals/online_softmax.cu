// Re-implementation, for benchmarking the kdsl port tests/ports/online_softmax.py, of
// karpathy/llm.c, dev/cuda/softmax_forward.cu, softmax_forward_online_kernel2 and
// reduce_sum_max_op. Written for kdsl from the original's algorithm (cg::reduce of
// (sum, max) pairs over a warp, expf, the __stcs store); not the original's text.
// Launch: softmax_forward_online_kernel2<<<ceil_div(N * 32, block_size), block_size>>>.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#define INFINITY __int_as_float(0x7f800000)  // <math.h>'s, which NVRTC lacks

struct SumMax {
    float maxval;
    float sum;
};

// the (sum, max) pair of two partial softmax sums
__device__ __forceinline__ SumMax reduce_sum_max_op(SumMax a, SumMax b) {
    bool a_bigger = (a.maxval > b.maxval);
    SumMax bigger_m = a_bigger ? a : b;
    SumMax smaller_m = a_bigger ? b : a;
    SumMax res;
    res.maxval = bigger_m.maxval;
    res.sum = bigger_m.sum + smaller_m.sum * expf(smaller_m.maxval - bigger_m.maxval);
    return res;
}

// one warp a row
extern "C" __global__ void softmax_forward_online_kernel2(float *out, const float *inp, int N,
                                                          int C) {
    namespace cg = cooperative_groups;
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int idx = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
    if (idx >= N)
        return;
    const float *x = inp + idx * C;
    SumMax sm_partial;
    sm_partial.maxval = -INFINITY;
    sm_partial.sum = 0.0f;
    for (int i = warp.thread_rank(); i < C; i += warp.size())
        sm_partial = reduce_sum_max_op(sm_partial, {x[i], 1.0f});
    SumMax sm_total = cg::reduce(warp, sm_partial, reduce_sum_max_op);
    for (int i = warp.thread_rank(); i < C; i += warp.size())
        __stcs(out + idx * C + i, expf(x[i] - sm_total.maxval) / sm_total.sum);
}
