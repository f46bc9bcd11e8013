// kdsl prelude, Float16 part (needs cuda_fp16.h; include after core.h).
// + - * and comparisons use cuda_fp16's operators, which round to half after
// every operation.  These helpers compute in float and round once to half:
// float holds every half exactly and has more than 2 * 11 + 2 significand
// bits, so for / the double rounding is innocuous (the result is correctly
// rounded); // and % are numpy's, which also computes half in float.
// (__hdiv, behind the / operator, multiplies by an approximate reciprocal and
// is not always correctly rounded.)
#ifndef KDSL_HALF_H
#define KDSL_HALF_H

namespace kdsl {

__device__ __forceinline__ __half div(__half a, __half b)
{
    return __float2half_rn(__half2float(a) / __half2float(b));
}

__device__ __forceinline__ __half floordiv(__half a, __half b)
{
    return __float2half_rn(floordiv(__half2float(a), __half2float(b)));
}

__device__ __forceinline__ __half mod(__half a, __half b)
{
    return __float2half_rn(mod(__half2float(a), __half2float(b)));
}

// powf, rounded to half: not bit-exact against the host's powf.
__device__ __forceinline__ __half pow(__half a, __half b)
{
    return __float2half_rn(::powf(__half2float(a), __half2float(b)));
}

}  // namespace kdsl

#endif  // KDSL_HALF_H
