// kdsl prelude, Float16 part (needs cuda_fp16.h; include after core.h).
// + - * / and comparisons use cuda_fp16.h's operators, which round to half
// after every operation (/ included: checked against a correctly rounded
// reference for all 2**32 operand pairs on sm_90, CUDA 13.0).  // and % are
// numpy's divmod computed in float and rounded once to half, as numpy and
// kdsl's folding do; ** is powf rounded to half (not bit-exact against the
// host's powf).
#ifndef KDSL_HALF_H
#define KDSL_HALF_H

namespace kdsl {

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
