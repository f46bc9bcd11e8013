// Re-implementation, for benchmarking the kdsl port tests/ports/attention_permute.py,
// of karpathy/llm.c, dev/cuda/attention_forward.cu, permute_kernel. Written for
// kdsl from the original's algorithm and index arithmetic; not the original's text.
// Launch: permute_kernel<<<ceil_div(B * NH * N * d, block_size), block_size>>>.

// (B, N, 3, NH, d) QKV -> Q, K, V of shape (B, NH, N, d)
extern "C" __global__ void permute_kernel(float *q, float *k, float *v, const float *inp,
                                          int B, int N, int NH, int d) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    // Q[b][nh_][n][d_] = inp[b][n][0][nh_][d_]
    if (idx < B * NH * N * d) {
        int b = idx / (NH * N * d);
        int rest = idx % (NH * N * d);
        int nh_ = rest / (N * d);
        rest = rest % (N * d);
        int n = rest / d;
        int d_ = rest % d;
        int inp_idx = (b * N * 3 * NH * d) + (n * 3 * NH * d) + (0 * NH * d) + (nh_ * d) + d_;
        q[idx] = inp[inp_idx];
        k[idx] = inp[inp_idx + NH * d];
        v[idx] = inp[inp_idx + 2 * (NH * d)];
    }
}
