// kdsl prelude, atomics part: a compare-and-swap with a memory order and a
// scope that returns the old value, as atomicCAS does.
#ifndef KDSL_ATOMICS_H
#define KDSL_ATOMICS_H

namespace kdsl {

template <int Order, int Failure, int Scope, typename T>
__device__ __forceinline__ T atomic_cas(T* p, T compare, T value)
{
    // on failure `compare` receives the value found; on success it was it
    __nv_atomic_compare_exchange_n(p, &compare, value, false, Order, Failure, Scope);
    return compare;
}

}  // namespace kdsl

#endif  // KDSL_ATOMICS_H
