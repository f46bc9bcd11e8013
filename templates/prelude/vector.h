// kdsl prelude, vector part: Vector[T, N] as an aligned array, so that a
// 16-byte vector load or store is one 128-bit instruction.  A vector
// expression is one scalar lambda (kdsl's exact scalar semantics) applied
// lane by lane by vmap.
#ifndef KDSL_VECTOR_H
#define KDSL_VECTOR_H

namespace kdsl {

template <typename T, int N>
struct alignas(sizeof(T) * N) vec {
    T v[N];
};

template <typename T, int N>
__device__ __forceinline__ vec<T, N> splat(T x)
{
    vec<T, N> r;
#pragma unroll
    for (int i = 0; i < N; ++i) {
        r.v[i] = x;
    }
    return r;
}

// f applied lane by lane to one or more vectors of N lanes (their element
// types may differ): r.v[i] = f(a.v[i], b.v[i], ...).
template <typename F, typename T, int N, typename... Ts>
__device__ __forceinline__ auto vmap(F f, const vec<T, N> a, const vec<Ts, N>... rest)
    -> vec<decltype(f(a.v[0], rest.v[0]...)), N>
{
    vec<decltype(f(a.v[0], rest.v[0]...)), N> r;
#pragma unroll
    for (int i = 0; i < N; ++i) {
        r.v[i] = f(a.v[i], rest.v[i]...);
    }
    return r;
}

}  // namespace kdsl

#endif  // KDSL_VECTOR_H
