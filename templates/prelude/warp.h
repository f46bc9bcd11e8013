// kdsl prelude, warp part: kdsl.match_all's mask, kdsl.lanemask_*().
#ifndef KDSL_WARP_H
#define KDSL_WARP_H

namespace kdsl {

// __match_all_sync's mask: the lanes of `mask` if they all hold the same bits
// of `value`, else 0 (so the predicate is whether it is nonzero: the calling
// lane is always in its mask).
template <typename T>
__device__ __forceinline__ unsigned int match_all(unsigned int mask, T value)
{
    int all_equal;
    return __match_all_sync(mask, value, &all_equal);
}

// The lanes below, up to, equal to, above or from this one: the special
// registers %lanemask_lt, _le, _eq, _gt, _ge (CUDA has no public intrinsic).
#define KDSL_LANEMASK(name)                                   \
    __device__ __forceinline__ unsigned int lanemask_##name() \
    {                                                         \
        unsigned int m;                                       \
        asm("mov.u32 %0, %%lanemask_" #name ";" : "=r"(m));   \
        return m;                                             \
    }
KDSL_LANEMASK(lt)
KDSL_LANEMASK(le)
KDSL_LANEMASK(eq)
KDSL_LANEMASK(gt)
KDSL_LANEMASK(ge)
#undef KDSL_LANEMASK

}  // namespace kdsl

#endif  // KDSL_WARP_H
