// kdsl prelude, cache part: CUDA's cache-hinted loads and stores (__ldcs,
// __stcs, ...) for elements it has no overload for (kdsl::vec, 8-bit floats,
// bool).  The element moves as words of its alignment: a 16-byte vector is
// one uint4 access (one 128-bit instruction), a 32-byte one two.
#ifndef KDSL_CACHE_H
#define KDSL_CACHE_H

namespace kdsl {

template <int Bytes> struct cache_word;
template <> struct cache_word<1> { using type = unsigned char; };
template <> struct cache_word<2> { using type = unsigned short; };
template <> struct cache_word<4> { using type = unsigned int; };
template <> struct cache_word<8> { using type = uint2; };
template <> struct cache_word<16> { using type = uint4; };

// the word a T moves as: its alignment, at most 16 bytes
template <typename T>
using cache_word_of = typename cache_word<(alignof(T) < 16 ? alignof(T) : 16)>::type;

#define KDSL_CACHE_LOAD(hint)                                                   \
    template <typename T>                                                       \
    __device__ __forceinline__ T hint(const T* p)                               \
    {                                                                           \
        using W = cache_word_of<T>;                                             \
        T r;                                                                    \
        _Pragma("unroll") for (int k = 0; k < int(sizeof(T) / sizeof(W)); ++k)  \
        {                                                                       \
            reinterpret_cast<W*>(&r)[k] = __##hint(reinterpret_cast<const W*>(p) + k); \
        }                                                                       \
        return r;                                                               \
    }

#define KDSL_CACHE_STORE(hint)                                                  \
    template <typename T>                                                       \
    __device__ __forceinline__ void hint(T* p, T value)                         \
    {                                                                           \
        using W = cache_word_of<T>;                                             \
        _Pragma("unroll") for (int k = 0; k < int(sizeof(T) / sizeof(W)); ++k)  \
        {                                                                       \
            __##hint(reinterpret_cast<W*>(p) + k, reinterpret_cast<const W*>(&value)[k]); \
        }                                                                       \
    }

KDSL_CACHE_LOAD(ldg)
KDSL_CACHE_LOAD(ldca)
KDSL_CACHE_LOAD(ldcg)
KDSL_CACHE_LOAD(ldcs)
KDSL_CACHE_LOAD(ldlu)
KDSL_CACHE_LOAD(ldcv)
KDSL_CACHE_STORE(stwb)
KDSL_CACHE_STORE(stcg)
KDSL_CACHE_STORE(stcs)
KDSL_CACHE_STORE(stwt)

#undef KDSL_CACHE_LOAD
#undef KDSL_CACHE_STORE

}  // namespace kdsl

#endif  // KDSL_CACHE_H
