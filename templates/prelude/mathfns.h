// kdsl prelude, math part: kdsl.math.frexp_mantissa and frexp_exponent, the
// two results of C's frexpf/frexp (x == m * 2**e, 0.5 <= |m| < 1; for 0, inf
// and NaN, m is x and e is 0) as one function each.
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

}  // namespace kdsl

#endif  // KDSL_MATHFNS_H
