// kdsl prelude, warp part: kdsl.match_all's mask.
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

}  // namespace kdsl

#endif  // KDSL_WARP_H
