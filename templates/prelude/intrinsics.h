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

// The condition of a loop over range(start, stop, step) with a run-time
// step: Python's rule (the sign of step picks the comparison); a zero step
// runs no iteration (Python would raise).
template <typename T>
__device__ __forceinline__ bool in_range(T i, T stop, T step)
{
    return step > 0 ? i < stop : (step < 0 && i > stop);
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
