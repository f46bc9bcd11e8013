// kdsl prelude, debug part: kdsl.print_once's test and the assert statements
// of a debug build (KDSL_DEBUG=1 or @kdsl.kernel(debug=True); include after
// core.h).
//   first_thread: whether this is thread (0, 0, 0) of block (0, 0, 0).
//   assert_failed: called by a thread whose assert failed.  The first such
//   thread of the launch records the assert's number (from 1) and where it
//   ran in the launch's assertion record (8 int32: number, thread x y z,
//   block x y z, unused), which the runtime zeroes before the launch and
//   reads after it; every failing thread then exits (not __trap(), which
//   would leave the CUDA context unusable).
#ifndef KDSL_DEBUG_H
#define KDSL_DEBUG_H

namespace kdsl {

__device__ __forceinline__ bool first_thread()
{
    return (threadIdx.x | threadIdx.y | threadIdx.z | blockIdx.x | blockIdx.y | blockIdx.z) == 0;
}

__device__ __noinline__ void assert_failed(int32_t* record, int32_t site)
{
    if (atomicCAS(record, 0, site) == 0) {
        record[1] = threadIdx.x;
        record[2] = threadIdx.y;
        record[3] = threadIdx.z;
        record[4] = blockIdx.x;
        record[5] = blockIdx.y;
        record[6] = blockIdx.z;
    }
    asm volatile("exit;");
}

}  // namespace kdsl

#endif  // KDSL_DEBUG_H
