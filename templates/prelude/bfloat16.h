// kdsl prelude, BFloat16 part (needs cuda_bf16.h; include after core.h).
// + - * and comparisons use cuda_bf16's operators, which round to bfloat16
// after every operation.  These helpers compute in float and round once to
// bfloat16: float holds every bfloat16 exactly and has more than 2 * 8 + 2
// significand bits, so for / the double rounding is innocuous (the result is
// correctly rounded); // and % are numpy's divmod in float, as kdsl folds
// them.  (__hdiv, behind the / operator, uses an approximate division.)
#ifndef KDSL_BFLOAT16_H
#define KDSL_BFLOAT16_H

namespace kdsl {

__device__ __forceinline__ __nv_bfloat16 div(__nv_bfloat16 a, __nv_bfloat16 b)
{
    return __float2bfloat16_rn(__bfloat162float(a) / __bfloat162float(b));
}

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
