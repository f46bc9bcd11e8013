// Re-implementation, for benchmarking the kdsl port tests/ports/black_scholes.py,
// of NVIDIA/cuda-samples, Samples/5_Domain_Specific/BlackScholes/BlackScholes_kernel.cuh
// (cndGPU, BlackScholesBodyGPU, BlackScholesGPU). Written for kdsl from the
// original's algorithm, structure and arithmetic (the same __expf, __logf,
// __fdividef and rsqrtf); not the original's text.
// Launch: BlackScholesGPU<<<ceil(optN / 2 / 128), 128>>>.

// the cumulative normal distribution, fifth-order polynomial approximation
__device__ inline float cndGPU(float d) {
    const float A1 = 0.31938153f;
    const float A2 = -0.356563782f;
    const float A3 = 1.781477937f;
    const float A4 = -1.821255978f;
    const float A5 = 1.330274429f;
    const float RSQRT2PI = 0.39894228040143267793994605993438f;
    float K = __fdividef(1.0f, 1.0f + 0.2316419f * fabsf(d));
    float cnd = RSQRT2PI * __expf(-0.5f * d * d) *
                (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));
    if (d > 0)
        cnd = 1.0f - cnd;
    return cnd;
}

// the call and put prices of one option: S price, X strike, T years,
// R riskless rate, V volatility
__device__ inline void BlackScholesBodyGPU(float &CallResult, float &PutResult, float S,
                                           float X, float T, float R, float V) {
    float sqrtT = __fdividef(1.0f, rsqrtf(T));
    float d1 = __fdividef(__logf(S / X) + (R + 0.5f * V * V) * T, V * sqrtT);
    float d2 = d1 - V * sqrtT;
    float CNDD1 = cndGPU(d1);
    float CNDD2 = cndGPU(d2);
    float expRT = __expf(-R * T);
    CallResult = S * CNDD1 - X * expRT * CNDD2;
    PutResult = X * expRT * (1.0f - CNDD2) - S * (1.0f - CNDD1);
}

// two options a thread (float2), for instruction-level parallelism
extern "C" __launch_bounds__(128) __global__
    void BlackScholesGPU(float2 *__restrict d_CallResult, float2 *__restrict d_PutResult,
                         float2 *__restrict d_StockPrice, float2 *__restrict d_OptionStrike,
                         float2 *__restrict d_OptionYears, float Riskfree, float Volatility,
                         int optN) {
    const int opt = blockDim.x * blockIdx.x + threadIdx.x;
    if (opt < (optN / 2)) {
        float call1, call2, put1, put2;
        BlackScholesBodyGPU(call1, put1, d_StockPrice[opt].x, d_OptionStrike[opt].x,
                            d_OptionYears[opt].x, Riskfree, Volatility);
        BlackScholesBodyGPU(call2, put2, d_StockPrice[opt].y, d_OptionStrike[opt].y,
                            d_OptionYears[opt].y, Riskfree, Volatility);
        d_CallResult[opt] = make_float2(call1, call2);
        d_PutResult[opt] = make_float2(put1, put2);
    }
}
