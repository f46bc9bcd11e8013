// kdsl prelude, TMA part (sm_90): the tensor map a kernel takes as a
// parameter (kdsl.TensorMap), mbarriers (kdsl.mbarrier_init, mbarrier_arrive,
// mbarrier_arrive_expect_tx, mbarrier_wait, fence_mbarrier_init) and the TMA
// bulk tensor copies (kdsl.tma_load, tma_store, tma_store_commit,
// tma_store_wait); docs/tensor-cores.md, "TMA and mbarriers".
#ifndef KDSL_TMA_H
#define KDSL_TMA_H

namespace kdsl {

// A CUtensorMap: 128 opaque bytes the host's cuTensorMapEncodeTiled wrote,
// passed by value as a `const __grid_constant__` kernel parameter (so its
// address is a valid tensor-map address for cp.async.bulk.tensor).
struct alignas(64) TensorMap {
    unsigned long long opaque[16];
};

#ifndef KDSL_SHARED_ADDRESS
#define KDSL_SHARED_ADDRESS
template <typename T>
__device__ __forceinline__ uint32_t shared_address(const T* p)
{
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
#endif

// -- mbarriers: a 64-bit shared-memory word each --------------------------------
// Sets the barrier up for `count` arrivals a phase (one thread, before use).
__device__ __forceinline__ void mbarrier_init(uint64_t* bar, int count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;"
                 :
                 : "r"(shared_address(bar)), "r"(count)
                 : "memory");
}

// Makes the initialisations above visible to the async proxy (TMA) and to the
// other threads, before the barrier that follows them.
__device__ __forceinline__ void fence_mbarrier_init()
{
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// One arrival (release semantics: this thread's earlier accesses happen before
// the phase completes).
__device__ __forceinline__ void mbarrier_arrive(uint64_t* bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];"
                 :
                 : "r"(shared_address(bar))
                 : "memory");
}

// One arrival that also expects `bytes` more bytes of asynchronous copies
// (cp.async.bulk ... complete_tx::bytes) before the phase can complete.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(uint64_t* bar, int bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                 :
                 : "r"(shared_address(bar)), "r"(bytes)
                 : "memory");
}

// Waits until the phase of parity `parity` (0 or 1) has completed (acquire
// semantics): try_wait lets the thread sleep a while in hardware, the loop
// tries again until it succeeds.
__device__ __forceinline__ void mbarrier_wait(uint64_t* bar, uint32_t parity)
{
    const uint32_t address = shared_address(bar);
    uint32_t done;
    do {
        asm volatile("{\n"
                     ".reg .pred p;\n"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n"
                     "}\n"
                     : "=r"(done)
                     : "r"(address), "r"(parity)
                     : "memory");
    } while (!done);
}

// -- TMA: bulk tensor copies through a tensor map ---------------------------------
// Copies the box at element coordinates (x, y) (x along the innermost
// dimension) of the map's tensor to shared memory at dst, laid out (and
// swizzled) as the map says; its bytes complete on the mbarrier bar.
__device__ __forceinline__ void tma_load_2d(void* dst, const TensorMap* map, int x, int y,
                                            uint64_t* bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];"
                 :
                 : "r"(shared_address(dst)), "l"(reinterpret_cast<uint64_t>(map)), "r"(x),
                   "r"(y), "r"(shared_address(bar))
                 : "memory");
}

// Copies the box in shared memory at src to the map's tensor at (x, y); a bulk
// async-group the thread commits (tma_store_commit) and waits for.
__device__ __forceinline__ void tma_store_2d(const TensorMap* map, int x, int y,
                                             const void* src)
{
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                 :
                 : "l"(reinterpret_cast<uint64_t>(map)), "r"(x), "r"(y),
                   "r"(shared_address(src))
                 : "memory");
}

__device__ __forceinline__ void tma_store_commit()
{
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

// Waits until at most N of this thread's committed bulk groups still read
// their shared-memory source (which may then be written again).
template <int N>
__device__ __forceinline__ void tma_store_wait()
{
    asm volatile("cp.async.bulk.wait_group.read %0;" : : "n"(N) : "memory");
}

}  // namespace kdsl

#endif  // KDSL_TMA_H
