// kdsl prelude, BFloat16 part (needs cuda_bf16.h; include after core.h).
// + - * / and comparisons use cuda_bf16.h's operators, which round to bfloat16
// after every operation (/ included: checked against a correctly rounded
// reference for all 2**32 operand pairs on sm_90, CUDA 13.0).  // and % are
// numpy's divmod computed in float and rounded once to bfloat16, as numpy and
// kdsl's folding do; ** is powf rounded to bfloat16 (not bit-exact against the
// host's powf).
#ifndef KDSL_BFLOAT16_H
#define KDSL_BFLOAT16_H

namespace kdsl {

__device__ __forceinline__ __nv_bfloat16 floordiv(__nv_bfloat16 a, __nv_bfloat16 b)
{
    return __float2bfloat16_rn(floordiv(__bfloat162float(a), __bfloat162float(b)));
}

__device__ __forceinline__ __nv_bfloat16 mod(__nv_bfloat16 a, __nv_bfloat16 b)
{
    return __float2bfloat16_rn(mod(__bfloat162float(a), __bfloat162float(b)));
}

// powf, rounded to bfloat16: not bit-exact against the host's powf.
__device__ __forceinline__ __nv_bfloat16 pow(__nv_bfloat16 a, __nv_bfloat16 b)
{
    return __float2bfloat16_rn(::powf(__bfloat162float(a), __bfloat162float(b)));
}

}  // namespace kdsl

#endif  // KDSL_BFLOAT16_H
