// Re-implementation, for benchmarking the kdsl port tests/ports/rope_norm.py, of
// ggerganov/llama.cpp, ggml/src/ggml-cuda/rope.cu, rope_norm (T = float), rope_yarn,
// rope_yarn_ramp and rope_corr_dims, as of the version the port follows (the
// p_delta_rows argument, before llama.cpp's commit 432df2d5f). Written for kdsl
// from the original's algorithm and arithmetic (powf, logf, cosf, sinf); not the
// original's text. The template's has_ff is the two extern "C" kernels
// rope_norm_ff and rope_norm_noff.
// Launch: rope_norm_*<<<(nrows, ceil(ne0 / 512)), (1, 256)>>>.

// <stdint.h>: NVRTC has no C library headers
typedef int int32_t;
typedef long long int64_t;

struct rope_corr_dims {
    float v[2];
};

static __device__ float rope_yarn_ramp(const float low, const float high, const int i0) {
    const float y = (i0 / 2 - low) / max(0.001f, high - low);
    return 1.0f - min(1.0f, max(0.0f, y));
}

// YaRN: n-d rotational scaling corrected for extrapolation, and magnitude scaling
// corrected for interpolation
static __device__ void rope_yarn(float theta_extrap, float freq_scale, rope_corr_dims corr_dims,
                                 int64_t i0, float ext_factor, float mscale, float *cos_theta,
                                 float *sin_theta) {
    float theta_interp = freq_scale * theta_extrap;
    float theta = theta_interp;
    if (ext_factor != 0.0f) {
        float ramp_mix = rope_yarn_ramp(corr_dims.v[0], corr_dims.v[1], i0) * ext_factor;
        theta = theta_interp * (1 - ramp_mix) + theta_extrap * ramp_mix;
        mscale *= 1.0f + 0.1f * logf(1.0f / freq_scale);
    }
    *cos_theta = cosf(theta) * mscale;
    *sin_theta = sinf(theta) * mscale;
}

template <typename T, bool has_ff>
static __device__ __forceinline__ void rope_norm_body(const T *x, T *dst, int ne0, int n_dims,
                                                      const int32_t *pos, float freq_scale,
                                                      int p_delta_rows, float ext_factor,
                                                      float attn_factor,
                                                      rope_corr_dims corr_dims,
                                                      float theta_scale,
                                                      const float *freq_factors) {
    const int i0 = 2 * (blockDim.y * blockIdx.y + threadIdx.y);
    if (i0 >= ne0)
        return;
    const int row = blockDim.x * blockIdx.x + threadIdx.x;
    if (i0 >= n_dims) {
        const int i = row * ne0 + i0;
        dst[i + 0] = x[i + 0];
        dst[i + 1] = x[i + 1];
        return;
    }
    const int i = row * ne0 + i0;
    const int i2 = row / p_delta_rows;
    const float theta_base = pos[i2] * powf(theta_scale, i0 / 2.0f);
    const float freq_factor = has_ff ? freq_factors[i0 / 2] : 1.0f;
    float cos_theta;
    float sin_theta;
    rope_yarn(theta_base / freq_factor, freq_scale, corr_dims, i0, ext_factor, attn_factor,
              &cos_theta, &sin_theta);
    const float x0 = x[i + 0];
    const float x1 = x[i + 1];
    dst[i + 0] = x0 * cos_theta - x1 * sin_theta;
    dst[i + 1] = x0 * sin_theta + x1 * cos_theta;
}

extern "C" __global__ void rope_norm_ff(const float *x, float *dst, int ne0, int n_dims,
                                        const int32_t *pos, float freq_scale, int p_delta_rows,
                                        float ext_factor, float attn_factor,
                                        rope_corr_dims corr_dims, float theta_scale,
                                        const float *freq_factors) {
    rope_norm_body<float, true>(x, dst, ne0, n_dims, pos, freq_scale, p_delta_rows, ext_factor,
                                attn_factor, corr_dims, theta_scale, freq_factors);
}

extern "C" __global__ void rope_norm_noff(const float *x, float *dst, int ne0, int n_dims,
                                          const int32_t *pos, float freq_scale,
                                          int p_delta_rows, float ext_factor, float attn_factor,
                                          rope_corr_dims corr_dims, float theta_scale,
                                          const float *freq_factors) {
    rope_norm_body<float, false>(x, dst, ne0, n_dims, pos, freq_scale, p_delta_rows,
                                 ext_factor, attn_factor, corr_dims, theta_scale, freq_factors);
}
