// kdsl prelude, core part: integer and float helpers with kdsl's exact value
// semantics (kdsl.transpile.values folds the same results at compile time).
// Generated code calls these where plain C++ is undefined or computes
// something else:
//   - signed + - * and negation wrap at the type's width (C++: overflow is UB);
//   - // and % floor like Python; MIN // -1 wraps to MIN; at run time an
//     integer x // 0 is 0 and x % 0 is x, so that a == (a // b) * b + a % b
//     still holds (no trap; a compile-time zero divisor is a compile error);
//   - float // and % follow numpy's npy_divmod, computed in float (double for
//     double), exactly as numpy does;
//   - a shift count outside [0, width) shifts everything out: 0, or -1 for >>
//     of a negative value;
//   - integer ** wraps; a negative exponent gives 0 (1 / base**-n truncated),
//     except for base 1 and -1;
//   - float -> integer truncates toward zero and saturates; NaN gives 0.
// Int4 values live in an int8_t holding the sign-extended low 4 bits.
// Needs no header.
#ifndef KDSL_CORE_H
#define KDSL_CORE_H

#ifdef __CUDACC_RTC__
// NVRTC has no <cstdint>.  int64_t is long long, the type of CUDA's own
// 64-bit intrinsics (__double_as_longlong, __ll2half_rn, atomics).
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
#else
#include <cstdint>
#endif

// Float infinity, as <math.h> defines it (NVRTC has no <math.h>; nvcc's
// cuda_runtime.h brings it in first).
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif

namespace kdsl {

// The bits of x seen as a To of the same size.
template <typename To, typename From>
__device__ __forceinline__ To bitcast(From x)
{
    static_assert(sizeof(To) == sizeof(From), "kdsl::bitcast needs equal sizes");
    To y;
    memcpy(&y, &x, sizeof(To));
    return y;
}

// Int4: the low 4 bits of x, sign-extended into an int8_t.
template <typename T>
__device__ __forceinline__ int8_t i4(T x)
{
    return (int8_t)((int)(((unsigned int)x & 15u) ^ 8u) - 8);
}

// An Int16 result that may be a negation (-x, 0 - x, x * -1, abs, x // -1),
// made in 32 bits and truncated where the compiler cannot see it: NVRTC 13.0
// turns a 16-bit negation into PTX neg.s16/abs.s16, and ptxas then widens
// -(-32768) as +32768 (docs/reliability.md, "Known GPU miscompiles").  The
// empty asm emits nothing.
__device__ __forceinline__ int16_t i16(int32_t r)
{
    asm("" : "+r"(r));
    return (int16_t)r;
}

namespace detail {

// -a, wrapping, for a signed T (Int16: through i16, see above).
template <typename T, typename U>
__device__ __forceinline__ T negate(T a)
{
    if constexpr (sizeof(T) == 2) {
        return i16(-(int32_t)a);
    } else {
        return (T)(U(0) - U(a));
    }
}

template <typename T, typename U>
__device__ __forceinline__ T floordiv_signed(T a, T b)
{
    if (b == 0) {
        return 0;
    }
    if (b == -1) {
        return negate<T, U>(a);  // MIN // -1 wraps to MIN
    }
    T q = (T)(a / b);
    if ((T)(a % b) != 0 && ((a < 0) != (b < 0))) {
        q = (T)(q - 1);
    }
    return q;
}

template <typename T>
__device__ __forceinline__ T mod_signed(T a, T b)
{
    if (b == 0) {
        return a;
    }
    if (b == -1) {
        return 0;
    }
    T r = (T)(a % b);
    if (r != 0 && ((r < 0) != (b < 0))) {
        r = (T)(r + b);
    }
    return r;
}

template <typename T>
__device__ __forceinline__ T floordiv_unsigned(T a, T b)
{
    return b == 0 ? T(0) : T(a / b);
}

template <typename T>
__device__ __forceinline__ T mod_unsigned(T a, T b)
{
    return b == 0 ? a : T(a % b);
}

// U: the unsigned type of T's width; W: the width in bits.
template <typename T, typename U, int W>
__device__ __forceinline__ T shl(T a, T n)
{
    return (U)n >= (U)W ? T(0) : (T)((U)a << (U)n);
}

template <typename T, typename U, int W>
__device__ __forceinline__ T shr_signed(T a, T n)
{
    if ((U)n >= (U)W) {
        return a < 0 ? T(-1) : T(0);
    }
    return (T)(a >> n);
}

template <typename T, typename U, int W>
__device__ __forceinline__ T shr_unsigned(T a, T n)
{
    return (U)n >= (U)W ? T(0) : (T)(a >> n);
}

// base ** exp by squaring, wrapping in U (at least 32 bits wide).
template <typename U>
__device__ __forceinline__ U pow_unsigned(U base, U exp)
{
    U result = 1;
    while (exp != 0) {
        if (exp & 1) {
            result *= base;
        }
        base *= base;
        exp >>= 1;
    }
    return result;
}

template <typename T, typename U>
__device__ __forceinline__ T pow_signed(T base, T exp)
{
    if (exp < 0) {  // 1 / base**-exp, truncated toward zero
        if (base == 1) {
            return 1;
        }
        if (base == -1) {
            return (exp & 1) ? T(-1) : T(1);
        }
        return 0;
    }
    return (T)pow_unsigned<U>((U)base, (U)exp);
}

// numpy's npy_divmod (Python's float divmod), in F.
template <typename F>
__device__ __forceinline__ F divmod(F a, F b, F* modulus)
{
    F mod = ::fmod(a, b);
    F div = (a - mod) / b;
    if (mod != F(0)) {
        if ((b < F(0)) != (mod < F(0))) {
            mod += b;
            div -= F(1);
        }
    } else {
        mod = ::copysign(F(0), b);
    }
    F floordiv;
    if (div != F(0)) {
        floordiv = ::floor(div);
        if (div - floordiv > F(0.5)) {
            floordiv += F(1);
        }
    } else {
        floordiv = ::copysign(F(0), a / b);
    }
    *modulus = mod;
    return floordiv;
}

template <typename T>
__device__ __forceinline__ T clamp(T x, T lo, T hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

}  // namespace detail

// The overloads for each integer type, from the templates above (int128.h
// uses them too).  U: the unsigned type of T's width; W: the width in bits;
// POW_U: the unsigned type ** computes in (at least 32 bits: uint16_t * uint16_t
// would overflow int).

// Wrapping + - * and negation of a signed T, computed in U.
#define KDSL_WRAPPING_OPS(T, U)                                             \
    __device__ __forceinline__ T add(T a, T b) { return (T)((U)a + (U)b); } \
    __device__ __forceinline__ T sub(T a, T b) { return (T)((U)a - (U)b); } \
    __device__ __forceinline__ T mul(T a, T b) { return (T)((U)a * (U)b); } \
    __device__ __forceinline__ T neg(T a) { return (T)((U)0 - (U)a); }

// floordiv, mod, shl, shr, pow and abs of a signed T.
#define KDSL_SIGNED_OPS(T, U, W, POW_U)                                                             \
    __device__ __forceinline__ T floordiv(T a, T b) { return detail::floordiv_signed<T, U>(a, b); } \
    __device__ __forceinline__ T mod(T a, T b) { return detail::mod_signed(a, b); }                 \
    __device__ __forceinline__ T shl(T a, T n) { return detail::shl<T, U, W>(a, n); }               \
    __device__ __forceinline__ T shr(T a, T n) { return detail::shr_signed<T, U, W>(a, n); }        \
    __device__ __forceinline__ T pow(T a, T n) { return detail::pow_signed<T, POW_U>(a, n); }       \
    __device__ __forceinline__ T abs(T a) { return a < 0 ? detail::negate<T, U>(a) : a; }

// floordiv, mod, shl, shr and pow of an unsigned T.
#define KDSL_UNSIGNED_OPS(T, W, POW_U)                                                          \
    __device__ __forceinline__ T floordiv(T a, T b) { return detail::floordiv_unsigned(a, b); } \
    __device__ __forceinline__ T mod(T a, T b) { return detail::mod_unsigned(a, b); }           \
    __device__ __forceinline__ T shl(T a, T n) { return detail::shl<T, T, W>(a, n); }           \
    __device__ __forceinline__ T shr(T a, T n) { return detail::shr_unsigned<T, T, W>(a, n); }  \
    __device__ __forceinline__ T pow(T a, T n) { return (T)detail::pow_unsigned<POW_U>(a, n); }

KDSL_WRAPPING_OPS(int32_t, uint32_t)
KDSL_WRAPPING_OPS(int64_t, uint64_t)

KDSL_SIGNED_OPS(int8_t, uint8_t, 8, uint32_t)
KDSL_SIGNED_OPS(int16_t, uint16_t, 16, uint32_t)
KDSL_SIGNED_OPS(int32_t, uint32_t, 32, uint32_t)
KDSL_SIGNED_OPS(int64_t, uint64_t, 64, uint64_t)

KDSL_UNSIGNED_OPS(uint8_t, 8, uint32_t)
KDSL_UNSIGNED_OPS(uint16_t, 16, uint32_t)
KDSL_UNSIGNED_OPS(uint32_t, 32, uint32_t)
KDSL_UNSIGNED_OPS(uint64_t, 64, uint64_t)

// The element offset of a[i0, i1, ...] in a strided Array parameter:
// offset(i0, a_stride0, i1, a_stride1, ...) = i0 * a_stride0 + i1 * a_stride1 + ...
// in Int64, wrapping as kdsl's Int64 + and * do (the order of the sum does
// not change a wrapping sum).
__device__ __forceinline__ int64_t offset(int64_t i, int64_t stride) { return mul(i, stride); }

template <typename... Rest>
__device__ __forceinline__ int64_t offset(int64_t i, int64_t stride, Rest... rest)
{
    return add(mul(i, stride), offset(rest...));
}

// uint16_t * uint16_t promotes to int, which can overflow.
__device__ __forceinline__ uint16_t mul(uint16_t a, uint16_t b)
{
    return (uint16_t)((uint32_t)a * (uint32_t)b);
}

// Int4 shifts: the width is 4, not the int8_t's 8.
__device__ __forceinline__ int8_t shl_i4(int8_t a, int8_t n)
{
    return i4(detail::shl<int8_t, uint8_t, 4>(a, n));
}

__device__ __forceinline__ int8_t shr_i4(int8_t a, int8_t n)
{
    return detail::shr_signed<int8_t, uint8_t, 4>(a, n);
}

// Boolean shifts: a one-bit unsigned integer, so any count but 0 gives 0.
__device__ __forceinline__ bool shl(bool a, bool n) { return a && !n; }
__device__ __forceinline__ bool shr(bool a, bool n) { return a && !n; }

// Float floor division and modulo, as numpy computes them.
__device__ __forceinline__ float floordiv(float a, float b)
{
    float unused;
    return b == 0.0f ? a / b : detail::divmod(a, b, &unused);
}

__device__ __forceinline__ float mod(float a, float b)
{
    float m;
    if (b == 0.0f) {
        return ::fmodf(a, b);
    }
    detail::divmod(a, b, &m);
    return m;
}

__device__ __forceinline__ double floordiv(double a, double b)
{
    double unused;
    return b == 0.0 ? a / b : detail::divmod(a, b, &unused);
}

__device__ __forceinline__ double mod(double a, double b)
{
    double m;
    if (b == 0.0) {
        return ::fmod(a, b);
    }
    detail::divmod(a, b, &m);
    return m;
}

// Float -> integer: truncate toward zero, saturate, NaN -> 0.  The PTX
// conversions behind __float2int_rz and friends saturate, but give 0 for NaN
// only from float to a 32-bit integer (double and 64-bit results give
// 0x80...0), so NaN is tested first; narrower results clamp the 32-bit one.
// From float to int8_t and int16_t the 32-bit conversion's 0 for NaN stands
// (KDSL_FLOAT_TO_NARROW: one F2I and a clamp).
#define KDSL_FLOAT_TO_INT(F, TO_I32, TO_U32, TO_I64, TO_U64)                                                          \
    __device__ __forceinline__ int8_t to_i4(F x) { return isnan(x) ? 0 : detail::clamp(TO_I32(x), -8, 7); }           \
    __device__ __forceinline__ int32_t to_i32(F x) { return isnan(x) ? 0 : TO_I32(x); }                               \
    __device__ __forceinline__ int64_t to_i64(F x) { return isnan(x) ? 0 : TO_I64(x); }                               \
    __device__ __forceinline__ uint8_t to_u8(F x) { return isnan(x) ? 0u : detail::clamp(TO_U32(x), 0u, 255u); }      \
    __device__ __forceinline__ uint16_t to_u16(F x) { return isnan(x) ? 0u : detail::clamp(TO_U32(x), 0u, 65535u); }  \
    __device__ __forceinline__ uint32_t to_u32(F x) { return isnan(x) ? 0u : TO_U32(x); }                             \
    __device__ __forceinline__ uint64_t to_u64(F x) { return isnan(x) ? 0ull : TO_U64(x); }

KDSL_FLOAT_TO_INT(float, __float2int_rz, __float2uint_rz, __float2ll_rz, __float2ull_rz)
KDSL_FLOAT_TO_INT(double, __double2int_rz, __double2uint_rz, __double2ll_rz, __double2ull_rz)

#define KDSL_FLOAT_TO_NARROW(T, name, lo, hi)                                                                   \
    __device__ __forceinline__ T name(float x) { return detail::clamp(__float2int_rz(x), lo, hi); }             \
    __device__ __forceinline__ T name(double x) { return isnan(x) ? 0 : detail::clamp(__double2int_rz(x), lo, hi); }

KDSL_FLOAT_TO_NARROW(int8_t, to_i8, -128, 127)
KDSL_FLOAT_TO_NARROW(int16_t, to_i16, -32768, 32767)

}  // namespace kdsl

#endif  // KDSL_CORE_H
