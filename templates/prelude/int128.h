// kdsl prelude, Int128 / Uint128 part: the core.h operations for __int128 and
// unsigned __int128, and their conversions to and from floats (rounded once,
// to nearest even; float -> integer truncates and saturates, NaN -> 0).
// NVRTC accepts __int128 only with --device-int128.  Include after core.h,
// and after half.h / bfloat16.h when those are used.
#ifndef KDSL_INT128_H
#define KDSL_INT128_H

namespace kdsl {

// A 128-bit constant from its high and low 64 bits.
__device__ __forceinline__ unsigned __int128 uint128(uint64_t hi, uint64_t lo)
{
    return ((unsigned __int128)hi << 64) | lo;
}

__device__ __forceinline__ __int128 int128(uint64_t hi, uint64_t lo)
{
    return (__int128)uint128(hi, lo);
}

KDSL_WRAPPING_OPS(__int128, unsigned __int128)
KDSL_SIGNED_OPS(__int128, unsigned __int128, 128, unsigned __int128)
KDSL_UNSIGNED_OPS(unsigned __int128, 128, unsigned __int128)

namespace detail {

// |x| (finite, below 2**128) truncated to an integer.
__device__ __forceinline__ unsigned __int128 trunc_u128(double ax)
{
    uint64_t hi = __double2ull_rz(ax * 0x1p-64);
    double rest = ax - (double)hi * 0x1p64;  // exact: the low bits of ax
    return uint128(hi, __double2ull_rz(rest));
}

// u >> shift, with every bit shifted out ORed into bit 0 ("sticky"), so that
// rounding the 64-bit result to 53 or fewer bits rounds u correctly.
__device__ __forceinline__ uint64_t sticky_top(unsigned __int128 u, int* shift)
{
    uint64_t hi = (uint64_t)(u >> 64);
    int s = hi == 0 ? 0 : 64 - __clzll((long long)hi);
    *shift = s;
    if (s == 0) {
        return (uint64_t)u;
    }
    unsigned __int128 lost = u & ((((unsigned __int128)1) << s) - 1);
    return (uint64_t)(u >> s) | (lost != 0 ? 1u : 0u);
}

}  // namespace detail

__device__ __forceinline__ __int128 to_i128(double x)
{
    if (isnan(x)) {
        return 0;
    }
    if (x >= 0x1p127) {
        return int128(0x7fffffffffffffffull, 0xffffffffffffffffull);
    }
    if (x <= -0x1p127) {
        return int128(0x8000000000000000ull, 0);
    }
    unsigned __int128 m = detail::trunc_u128(fabs(x));
    return (__int128)(x < 0 ? (unsigned __int128)0 - m : m);
}

__device__ __forceinline__ unsigned __int128 to_u128(double x)
{
    if (isnan(x) || x <= 0.0) {
        return 0;
    }
    if (x >= 0x1p128) {
        return uint128(0xffffffffffffffffull, 0xffffffffffffffffull);
    }
    return detail::trunc_u128(x);
}

__device__ __forceinline__ __int128 to_i128(float x) { return to_i128((double)x); }
__device__ __forceinline__ unsigned __int128 to_u128(float x) { return to_u128((double)x); }

__device__ __forceinline__ double to_f64(unsigned __int128 u)
{
    int s;
    uint64_t top = detail::sticky_top(u, &s);
    return ldexp(__ull2double_rn(top), s);
}

__device__ __forceinline__ float to_f32(unsigned __int128 u)
{
    int s;
    uint64_t top = detail::sticky_top(u, &s);
    return ldexpf(__ull2float_rn(top), s);  // 2**128 and above: inf
}

__device__ __forceinline__ double to_f64(__int128 n)
{
    double m = to_f64(n < 0 ? (unsigned __int128)0 - (unsigned __int128)n : (unsigned __int128)n);
    return n < 0 ? -m : m;
}

__device__ __forceinline__ float to_f32(__int128 n)
{
    float m = to_f32(n < 0 ? (unsigned __int128)0 - (unsigned __int128)n : (unsigned __int128)n);
    return n < 0 ? -m : m;
}

#ifdef KDSL_HALF_H
// Integers of 2**53 and more are inf in half, so going through double is exact.
__device__ __forceinline__ __half to_f16(__int128 n) { return __double2half(to_f64(n)); }
__device__ __forceinline__ __half to_f16(unsigned __int128 u) { return __double2half(to_f64(u)); }
#endif

#ifdef KDSL_BFLOAT16_H
__device__ __forceinline__ __nv_bfloat16 to_bf16(unsigned __int128 u)
{
    int s;
    uint64_t top = detail::sticky_top(u, &s);
    // one rounding of the sticky 64-bit top, then an exact scaling (or inf)
    float rounded = __bfloat162float(__ull2bfloat16_rn(top));
    return __float2bfloat16_rn(ldexpf(rounded, s));
}

__device__ __forceinline__ __nv_bfloat16 to_bf16(__int128 n)
{
    __nv_bfloat16 m =
        to_bf16(n < 0 ? (unsigned __int128)0 - (unsigned __int128)n : (unsigned __int128)n);
    return n < 0 ? __hneg(m) : m;
}
#endif

}  // namespace kdsl

#endif  // KDSL_INT128_H
