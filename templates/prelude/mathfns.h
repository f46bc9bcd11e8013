// kdsl prelude, math part: kdsl.math.frexp_mantissa and frexp_exponent, the
// two results of C's frexpf/frexp (x == m * 2**e, 0.5 <= |m| < 1; for 0, inf
// and NaN, m is x and e is 0) as one function each; kdsl.math.fast_exp2 and
// fast_rsqrt, the PTX approximations themselves (subnormals kept), whatever
// a CUDA version makes of exp2f and rsqrtf; fast_exp2_ftz, the one asked-for
// instruction that flushes subnormals to zero.
#ifndef KDSL_MATHFNS_H
#define KDSL_MATHFNS_H

namespace kdsl {

__device__ __forceinline__ float frexp_mantissa(float x)
{
    int e;
    return frexpf(x, &e);
}

__device__ __forceinline__ double frexp_mantissa(double x)
{
    int e;
    return frexp(x, &e);
}

__device__ __forceinline__ int32_t frexp_exponent(float x)
{
    int e;
    frexpf(x, &e);
    return e;
}

__device__ __forceinline__ int32_t frexp_exponent(double x)
{
    int e;
    frexp(x, &e);
    return e;
}

__device__ __forceinline__ float fast_exp2(float x)
{
    float r;
    asm("ex2.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}

__device__ __forceinline__ float fast_exp2_ftz(float x)
{
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}

__device__ __forceinline__ float fast_rsqrt(float x)
{
    float r;
    asm("rsqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}

}  // namespace kdsl

#endif  // KDSL_MATHFNS_H
