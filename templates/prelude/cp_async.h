// kdsl prelude, cp.async part: kdsl.cp_async, cp_async_commit, cp_async_wait.
#ifndef KDSL_CP_ASYNC_H
#define KDSL_CP_ASYNC_H

namespace kdsl {

// The 32-bit shared-memory address of p (matrix.h and cp_async.h both use it).
#ifndef KDSL_SHARED_ADDRESS
#define KDSL_SHARED_ADDRESS
template <typename T>
__device__ __forceinline__ uint32_t shared_address(const T* p)
{
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
#endif

// cp.async (kdsl.cp_async, cp_async_commit, cp_async_wait): BYTES from global
// to shared memory, asynchronously; with full == false the source is not read
// (src-size 0) and the destination is zero-filled.  .ca caches in L1 and L2,
// .cg (16 bytes only) in L2.
template <int BYTES, typename T>
__device__ __forceinline__ void cp_async_ca(T* dst, const T* src, bool full = true)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;"
                 :
                 : "r"(shared_address(dst)), "l"(src), "n"(BYTES), "r"(full ? BYTES : 0)
                 : "memory");
}

template <int BYTES, typename T>
__device__ __forceinline__ void cp_async_cg(T* dst, const T* src, bool full = true)
{
    static_assert(BYTES == 16, "cp.async.cg copies 16 bytes");
    asm volatile("cp.async.cg.shared.global [%0], [%1], %2, %3;"
                 :
                 : "r"(shared_address(dst)), "l"(src), "n"(BYTES), "r"(full ? BYTES : 0)
                 : "memory");
}

__device__ __forceinline__ void cp_async_commit()
{
    asm volatile("cp.async.commit_group;" ::: "memory");
}

// Wait until at most N committed groups of this thread are still copying.
template <int N>
__device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;" : : "n"(N) : "memory");
}

}  // namespace kdsl

#endif  // KDSL_CP_ASYNC_H
