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

// checked_add, checked_sub, checked_mul: a debug build's signed + - * of a
// function compiled with no_overflow=True: the wrapped result, after
// assert_failed(record, site) where the exact one leaves the type.
__device__ __forceinline__ int32_t checked32(int64_t r, int32_t* record, int32_t site)
{
    if (r != int64_t(int32_t(r))) {
        assert_failed(record, site);
    }
    return int32_t(r);
}
__device__ __forceinline__ int32_t checked_add(int32_t a, int32_t b, int32_t* record, int32_t site)
{
    return checked32(int64_t(a) + b, record, site);
}
__device__ __forceinline__ int32_t checked_sub(int32_t a, int32_t b, int32_t* record, int32_t site)
{
    return checked32(int64_t(a) - b, record, site);
}
__device__ __forceinline__ int32_t checked_mul(int32_t a, int32_t b, int32_t* record, int32_t site)
{
    return checked32(int64_t(a) * b, record, site);
}
__device__ __forceinline__ int64_t checked64(bool overflows, int64_t r, int32_t* record, int32_t site)
{
    if (overflows) {
        assert_failed(record, site);
    }
    return r;
}
__device__ __forceinline__ int64_t checked_add(int64_t a, int64_t b, int32_t* record, int32_t site)
{
    int64_t r = int64_t(uint64_t(a) + uint64_t(b));
    return checked64(((a ^ r) & (b ^ r)) < 0, r, record, site);
}
__device__ __forceinline__ int64_t checked_sub(int64_t a, int64_t b, int32_t* record, int32_t site)
{
    int64_t r = int64_t(uint64_t(a) - uint64_t(b));
    return checked64(((a ^ b) & (a ^ r)) < 0, r, record, site);
}
__device__ __forceinline__ int64_t checked_mul(int64_t a, int64_t b, int32_t* record, int32_t site)
{
    int64_t r = int64_t(uint64_t(a) * uint64_t(b));
    return checked64(__mul64hi(a, b) != (r >> 63), r, record, site);
}

}  // namespace kdsl

#endif  // KDSL_DEBUG_H
