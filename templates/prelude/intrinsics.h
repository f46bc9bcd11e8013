// kdsl prelude, intrinsics part: built-ins of kdsl kernels.
//   min/max: Python's semantics, the first argument unless the second is
//   strictly smaller (larger); with a NaN that is not fminf/fmaxf's answer.
#ifndef KDSL_INTRINSICS_H
#define KDSL_INTRINSICS_H

namespace kdsl {

template <typename T>
__device__ __forceinline__ T min(T a, T b)
{
    return (b < a) ? b : a;
}

template <typename T>
__device__ __forceinline__ T max(T a, T b)
{
    return (b > a) ? b : a;
}

// This thread's lane in its warp.
__device__ __forceinline__ int32_t lane_id()
{
    unsigned int lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    return (int32_t)lane;
}

}  // namespace kdsl

#endif  // KDSL_INTRINSICS_H
