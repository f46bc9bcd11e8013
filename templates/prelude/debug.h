// kdsl prelude, debug part: what kdsl.print_once needs (include after
// core.h).
//   first_thread: whether this is thread (0, 0, 0) of block (0, 0, 0).
#ifndef KDSL_DEBUG_H
#define KDSL_DEBUG_H

namespace kdsl {

__device__ __forceinline__ bool first_thread()
{
    return (threadIdx.x | threadIdx.y | threadIdx.z | blockIdx.x | blockIdx.y | blockIdx.z) == 0;
}

}  // namespace kdsl

#endif  // KDSL_DEBUG_H
