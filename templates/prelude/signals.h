// kdsl prelude, signals part: waiting for a signal another thread, block or
// GPU raises (kdsl.wait_signal).
#ifndef KDSL_SIGNALS_H
#define KDSL_SIGNALS_H

namespace kdsl {

// Spins until *flag >= value, each read an acquire load at Scope: what the
// signaller wrote before its release store of the flag is visible after it.
template <int Scope, typename T>
__device__ __forceinline__ void wait_signal(T* flag, T value)
{
    while (__nv_atomic_load_n(flag, __NV_ATOMIC_ACQUIRE, Scope) < value) {
    }
}

}  // namespace kdsl

#endif  // KDSL_SIGNALS_H
