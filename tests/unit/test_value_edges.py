"""Value semantics at the edges (SPEC section 2), case by case.

Every expected value here is worked out by hand from the documented
semantics, not taken from the implementation.  The property tests in
``test_fold_properties.py`` cover the middle of the ranges.
"""

import math

import pytest

import kdsl
from kdsl import (
    BFloat16,
    Boolean,
    Float4E2M1FN,
    Float6E2M3FN,
    Float6E3M2FN,
    Float8E4M3FN,
    Float8E4M3FNUZ,
    Float8E5M2,
    Float8E8M0FNU,
    Float16,
    Float32,
    Float64,
    Int4,
    Int8,
    Int16,
    Int32,
    Int64,
    Int128,
    Numeric,
    Uint8,
    Uint16,
    Uint32,
    Uint64,
    Uint128,
    Vector,
)
from kdsl import (  # vector aliases
    BFloat16x4,
    BFloat16x8,
    Float16x2,
    Float16x8,
    Float32x4,
    Float32x8,
    Float64x2,
    Float64x4,
    Int8x4,
    Int8x16,
    Int16x8,
    Int32x4,
    Int32x16,
    Int64x4,
    Uint8x4,
    Uint32x4,
    Uint64x2,
)
from kdsl.transpile import ir
from kdsl.transpile.core import types

inf, nan = math.inf, math.nan
I32_MIN, I32_MAX = -(2**31), 2**31 - 1
I64_MIN, I64_MAX = -(2**63), 2**63 - 1
I128_MIN, I128_MAX = -(2**127), 2**127 - 1
U32_MAX, U64_MAX, U128_MAX = 2**32 - 1, 2**64 - 1, 2**128 - 1
F16_TINY = 2.0**-24  # the smallest Float16 subnormal

NAMESPACE = {  # the kdsl types only: expressions use Python's own abs, divmod
    name: value
    for name, value in vars(kdsl).items()
    if isinstance(value, (types.NumericMeta, types.VectorMeta))
}
NAMESPACE.update(
    inf=inf,
    nan=nan,
    I32_MIN=I32_MIN,
    I32_MAX=I32_MAX,
    I64_MIN=I64_MIN,
    I64_MAX=I64_MAX,
    I128_MIN=I128_MIN,
    I128_MAX=I128_MAX,
    U32_MAX=U32_MAX,
    U64_MAX=U64_MAX,
    U128_MAX=U128_MAX,
)


def same(actual, expected) -> bool:
    """Equal values; floats bit for bit (sign of zero too), NaN equals NaN."""
    if isinstance(expected, float):
        if not isinstance(actual, float):
            return False
        if math.isnan(expected):
            return math.isnan(actual)
        return actual == expected and math.copysign(1, actual) == math.copysign(
            1, expected
        )
    if isinstance(expected, bool):
        return actual is expected
    return type(actual) is int and actual == expected


CASES = [
    # -- wrap-around at min and max, every integer type -------------------------
    ("Int4(7) + Int4(1)", Int4, -8),
    ("Int4(-8) - Int4(1)", Int4, 7),
    ("Int4(-8) * Int4(-1)", Int4, -8),
    ("Int4(4) * Int4(4)", Int4, 0),
    ("Int4(8)", Int4, -8),
    ("Int4(15)", Int4, -1),
    ("Int4(-9)", Int4, 7),
    ("Int8(127) + Int8(1)", Int8, -128),
    ("Int8(-128) - Int8(1)", Int8, 127),
    ("Int8(-128) * Int8(-1)", Int8, -128),
    ("Int8(16) * Int8(16)", Int8, 0),
    ("Int8(300)", Int8, 44),
    ("Int16(32767) + Int16(1)", Int16, -32768),
    ("Int16(-32768) - Int16(1)", Int16, 32767),
    ("Int16(256) * Int16(256)", Int16, 0),
    ("Int32(I32_MAX) + Int32(1)", Int32, I32_MIN),
    ("Int32(I32_MIN) - Int32(1)", Int32, I32_MAX),
    ("Int32(65536) * Int32(65536)", Int32, 0),
    ("Int32(I32_MAX) * Int32(2)", Int32, -2),
    ("Int32(2**32 + 5)", Int32, 5),
    ("Int64(I64_MAX) + Int64(1)", Int64, I64_MIN),
    ("Int64(I64_MIN) - Int64(1)", Int64, I64_MAX),
    ("Int64(2**32) * Int64(2**32)", Int64, 0),
    ("Int64(I64_MIN) * Int64(-1)", Int64, I64_MIN),
    ("Int128(I128_MAX) + Int128(1)", Int128, I128_MIN),
    ("Int128(I128_MIN) - Int128(1)", Int128, I128_MAX),
    ("Int128(2**64) * Int128(2**64)", Int128, 0),
    ("Int128(I128_MIN) * Int128(-1)", Int128, I128_MIN),
    ("Int128(2**128 + 3)", Int128, 3),
    ("Uint8(255) + Uint8(1)", Uint8, 0),
    ("Uint8(0) - Uint8(1)", Uint8, 255),
    ("Uint8(16) * Uint8(16)", Uint8, 0),
    ("Uint8(-1)", Uint8, 255),
    ("Uint16(65535) + Uint16(1)", Uint16, 0),
    ("Uint16(0) - Uint16(1)", Uint16, 65535),
    ("Uint32(0) - Uint32(1)", Uint32, U32_MAX),
    ("Uint32(U32_MAX) * Uint32(U32_MAX)", Uint32, 1),
    ("Uint32(U32_MAX) + 1", Uint32, 0),
    ("Uint64(0) - Uint64(1)", Uint64, U64_MAX),
    ("Uint64(U64_MAX) + Uint64(1)", Uint64, 0),
    ("Uint64(2**63) * Uint64(2)", Uint64, 0),
    ("Uint128(0) - Uint128(1)", Uint128, U128_MAX),
    ("Uint128(U128_MAX) + Uint128(1)", Uint128, 0),
    ("Uint128(2**127) * Uint128(2)", Uint128, 0),
    ("Uint128(-1)", Uint128, U128_MAX),
    # integer .to() a narrower or other-signed integer keeps the low bits
    ("Int32(-1).to(Uint8)", Uint8, 255),
    ("Int32(300).to(Int8)", Int8, 44),
    ("Uint32(U32_MAX).to(Int32)", Int32, -1),
    ("Int64(2**40 + 7).to(Int16)", Int16, 7),
    ("Int8(-1).to(Uint64)", Uint64, U64_MAX),
    ("Int8(-1).to(Int128)", Int128, -1),
    ("Int8(-1).to(Uint128)", Uint128, U128_MAX),
    ("Uint128(U128_MAX).to(Int4)", Int4, -1),
    ("Int4(-1).to(Uint8)", Uint8, 255),
    ("Int32(12).to(Int4)", Int4, -4),
    ("Int32(2).to(Boolean)", Boolean, True),
    ("Int32(256).to(Boolean)", Boolean, True),
    ("Int32(0).to(Boolean)", Boolean, False),
    ("Boolean(True).to(Int8)", Int8, 1),
    # -- floor division and modulo: every sign combination ----------------------
    ("Int32(7) // Int32(2)", Int32, 3),
    ("Int32(-7) // Int32(2)", Int32, -4),
    ("Int32(7) // Int32(-2)", Int32, -4),
    ("Int32(-7) // Int32(-2)", Int32, 3),
    ("Int32(7) % Int32(2)", Int32, 1),
    ("Int32(-7) % Int32(2)", Int32, 1),
    ("Int32(7) % Int32(-2)", Int32, -1),
    ("Int32(-7) % Int32(-2)", Int32, -1),
    ("Int32(-6) // Int32(2)", Int32, -3),
    ("Int32(-6) % Int32(2)", Int32, 0),
    ("Int32(0) // Int32(-5)", Int32, 0),
    ("Int8(-7) // Int8(2)", Int8, -4),
    ("Int8(-7) % Int8(2)", Int8, 1),
    ("Int16(7) % Int16(-3)", Int16, -2),
    ("Int4(-7) // Int4(2)", Int4, -4),
    ("Int4(-7) % Int4(3)", Int4, 2),
    ("Int64(-7) // Int64(2)", Int64, -4),
    ("Int64(I64_MIN) // Int64(3)", Int64, -3074457345618258603),
    ("Int128(-7) // Int128(2)", Int128, -4),
    ("Int128(7) % Int128(-2)", Int128, -1),
    ("Uint8(7) // Uint8(2)", Uint8, 3),
    ("Uint32(U32_MAX) % Uint32(10)", Uint32, 5),
    ("Uint64(U64_MAX) // Uint64(2)", Uint64, 2**63 - 1),
    ("Uint128(U128_MAX) % Uint128(7)", Uint128, U128_MAX % 7),
    ("Int32(-7) // 2", Int32, -4),
    ("-7 % Int32(2)", Int32, 1),
    # INT_MIN // -1 wraps (and its remainder is 0)
    ("Int4(-8) // Int4(-1)", Int4, -8),
    ("Int8(-128) // Int8(-1)", Int8, -128),
    ("Int16(-32768) // Int16(-1)", Int16, -32768),
    ("Int32(I32_MIN) // Int32(-1)", Int32, I32_MIN),
    ("Int64(I64_MIN) // Int64(-1)", Int64, I64_MIN),
    ("Int128(I128_MIN) // Int128(-1)", Int128, I128_MIN),
    ("Int32(I32_MIN) % Int32(-1)", Int32, 0),
    ("Int8(-128) % Int8(-1)", Int8, 0),
    # floats: Python's floor division and modulo
    ("Float32(7.0) // Float32(2.0)", Float32, 3.0),
    ("Float32(-7.0) // Float32(2.0)", Float32, -4.0),
    ("Float32(7.0) // Float32(-2.0)", Float32, -4.0),
    ("Float32(-7.0) // Float32(-2.0)", Float32, 3.0),
    ("Float32(7.0) % Float32(2.0)", Float32, 1.0),
    ("Float32(-7.0) % Float32(2.0)", Float32, 1.0),
    ("Float32(7.0) % Float32(-2.0)", Float32, -1.0),
    ("Float32(-7.0) % Float32(-2.0)", Float32, -1.0),
    ("Float64(-7.5) // Float64(2.0)", Float64, -4.0),
    ("Float64(-7.5) % Float64(2.0)", Float64, 0.5),
    ("Float64(7.5) % Float64(-2.0)", Float64, -0.5),
    ("Float16(-7.0) % Float16(2.0)", Float16, 1.0),
    ("Float16(-7.0) // Float16(2.0)", Float16, -4.0),
    ("BFloat16(7.0) // BFloat16(-2.0)", BFloat16, -4.0),
    ("BFloat16(7.0) % BFloat16(-2.0)", BFloat16, -1.0),
    ("Float32(-0.0) % Float32(2.0)", Float32, 0.0),
    ("Float64(0.0) % Float64(-2.0)", Float64, -0.0),
    ("Float64(-6.0) % Float64(3.0)", Float64, 0.0),
    ("Float64(6.0) % Float64(-3.0)", Float64, -0.0),
    ("Float32(-0.0) // Float32(2.0)", Float32, -0.0),
    ("Float32(1.0) // Float32(inf)", Float32, 0.0),
    ("Float32(-1.0) // Float32(inf)", Float32, -1.0),
    ("Float32(1.0) % Float32(inf)", Float32, 1.0),
    ("Float32(-1.0) % Float32(inf)", Float32, inf),
    ("Float32(1.0) % Float32(-inf)", Float32, -inf),
    ("Float32(inf) % Float32(2.0)", Float32, nan),
    ("Float32(inf) // Float32(2.0)", Float32, nan),
    ("Float32(nan) // Float32(2.0)", Float32, nan),
    # -- float division by zero: IEEE, every float type --------------------------
    ("Float16(1.0) / Float16(0.0)", Float16, inf),
    ("Float16(-1.0) / Float16(0.0)", Float16, -inf),
    ("Float16(0.0) / Float16(0.0)", Float16, nan),
    ("BFloat16(1.0) / BFloat16(0.0)", BFloat16, inf),
    ("BFloat16(-1.0) / BFloat16(0.0)", BFloat16, -inf),
    ("BFloat16(0.0) / BFloat16(0.0)", BFloat16, nan),
    ("Float32(1.0) / Float32(0.0)", Float32, inf),
    ("Float32(1.0) / Float32(-0.0)", Float32, -inf),
    ("Float32(0.0) / Float32(0.0)", Float32, nan),
    ("Float32(1.0) / 0", Float32, inf),
    ("Float64(1.0) / Float64(0.0)", Float64, inf),
    ("Float64(1.0) / Float64(-0.0)", Float64, -inf),
    ("Float64(-0.0) / Float64(0.0)", Float64, nan),
    ("Int32(1) / Int32(0)", Float32, inf),
    ("Int64(-1) / Int64(0)", Float64, -inf),
    ("Int32(0) / Int32(0)", Float32, nan),
    ("Float32(5.0) // Float32(0.0)", Float32, inf),
    ("Float32(-5.0) // Float32(0.0)", Float32, -inf),
    ("Float32(0.0) // Float32(0.0)", Float32, nan),
    ("Float64(5.0) % Float64(0.0)", Float64, nan),
    ("Float16(5.0) % Float16(0.0)", Float16, nan),
    # -- shifts: 0, width - 1, width, beyond, negative ---------------------------
    ("Int32(5) << 0", Int32, 5),
    ("Int32(1) << 31", Int32, I32_MIN),
    ("Int32(1) << 32", Int32, 0),
    ("Int32(1) << 100", Int32, 0),
    ("Int32(1) << -1", Int32, 0),
    ("Int32(-1) << 32", Int32, 0),
    ("Int32(-8) >> 0", Int32, -8),
    ("Int32(-1) >> 31", Int32, -1),
    ("Int32(I32_MIN) >> 31", Int32, -1),
    ("Int32(I32_MAX) >> 31", Int32, 0),
    ("Int32(8) >> 32", Int32, 0),
    ("Int32(-8) >> 32", Int32, -1),
    ("Int32(-8) >> -1", Int32, -1),
    ("Int32(8) >> -1", Int32, 0),
    ("Int8(5) << Int8(0)", Int8, 5),
    ("Int8(1) << Int8(7)", Int8, -128),
    ("Int8(1) << Int8(8)", Int8, 0),
    ("Int8(3) << Int8(7)", Int8, -128),
    ("Int8(-128) >> Int8(7)", Int8, -1),
    ("Int8(-128) >> Int8(8)", Int8, -1),
    ("Int8(-128) >> Int8(100)", Int8, -1),
    ("Int8(127) >> Int8(8)", Int8, 0),
    ("Int8(1) << 7", Int32, 128),  # the literal is an Int32: the shift is too
    ("Uint8(255) << Uint8(1)", Uint8, 254),
    ("Uint8(255) >> Uint8(7)", Uint8, 1),
    ("Uint8(255) >> Uint8(8)", Uint8, 0),
    ("Uint8(1) << Uint8(8)", Uint8, 0),
    ("Uint16(1) << Uint16(15)", Uint16, 32768),
    ("Uint32(1) << 31", Uint32, 2**31),
    ("Uint32(U32_MAX) >> 32", Uint32, 0),
    ("Uint32(1) << -1", Uint32, 0),  # -1 converts to a huge Uint32 count
    ("Int64(1) << 63", Int64, I64_MIN),
    ("Int64(1) << 64", Int64, 0),
    ("Int64(-1) >> 64", Int64, -1),
    ("Int64(-1) >> 63", Int64, -1),
    ("Uint64(1) << Uint64(63)", Uint64, 2**63),
    ("Uint64(U64_MAX) >> Uint64(64)", Uint64, 0),
    ("Int128(1) << 127", Int128, I128_MIN),
    ("Int128(1) << 128", Int128, 0),
    ("Int128(-1) >> 200", Int128, -1),
    ("Int128(I128_MIN) >> 127", Int128, -1),
    ("Uint128(1) << 127", Uint128, 2**127),
    ("Uint128(U128_MAX) >> 128", Uint128, 0),
    ("Int4(1) << Int4(3)", Int4, -8),
    ("Int4(1) << Int4(4)", Int4, 0),
    ("Int4(-8) >> Int4(3)", Int4, -1),
    ("Int4(-8) >> Int4(-1)", Int4, -1),
    ("Int4(7) >> Int4(4)", Int4, 0),
    # -- Float16 / BFloat16 / Float32 rounding after every operation --------------
    ("Float16(2048.0) + Float16(1.0)", Float16, 2048.0),
    ("Float16(2048.0) + Float16(3.0)", Float16, 2052.0),  # tie to even
    ("Float16(2050.0) + Float16(1.0)", Float16, 2052.0),  # tie to even
    ("Float16(2048.0) + Float16(1.0) + Float16(1.0)", Float16, 2048.0),
    ("Float16(65504.0) + Float16(8.0)", Float16, 65504.0),
    ("Float16(65504.0) + Float16(16.0)", Float16, inf),  # tie rounds up to inf
    ("Float16(0.1)", Float16, 0.0999755859375),
    ("Float16(1.0) / Float16(3.0)", Float16, 0.333251953125),
    ("Float16(2.0**-25)", Float16, 0.0),  # tie to even: zero
    ("Float16(3 * 2.0**-26)", Float16, 2.0**-24),
    ("Float16(-1e-8)", Float16, -0.0),
    ("Float16(70000.0)", Float16, inf),
    ("Float16(2049)", Float16, 2048.0),
    ("BFloat16(256.0) + BFloat16(1.0)", BFloat16, 256.0),
    ("BFloat16(257)", BFloat16, 256.0),
    ("BFloat16(259)", BFloat16, 260.0),
    ("BFloat16(1.0) + BFloat16(2.0**-8)", BFloat16, 1.0),
    ("BFloat16(1.0 + 2.0**-7) + BFloat16(2.0**-8)", BFloat16, 1.0 + 2.0**-6),
    ("BFloat16(3.4e38)", BFloat16, inf),
    ("BFloat16(0.1)", BFloat16, 0.10009765625),
    ("Float32(16777216.0) + Float32(1.0)", Float32, 16777216.0),
    ("Float32(1.0) + Float32(2.0**-24)", Float32, 1.0),
    ("Float32(1e39)", Float32, inf),
    ("Float32(1e-46)", Float32, 0.0),
    ("Float32(3.4028235e38) * Float32(2.0)", Float32, inf),
    ("Float16(0.1) == Float32(0.1)", Boolean, False),
    ("Float16(0.1) == Float16(0.1)", Boolean, True),
    ("Float32(0.1) == Float64(0.1)", Boolean, False),
    ("Float32(0.5) == Float64(0.5)", Boolean, True),
    ("BFloat16(0.1) == Float16(0.1)", Boolean, False),
    # -- float -> integer: truncate toward zero, saturate, NaN -> 0 ---------------
    ("Float32(nan).to(Int32)", Int32, 0),
    ("Float64(nan).to(Uint128)", Uint128, 0),
    ("Float16(nan).to(Int8)", Int8, 0),
    ("Float32(inf).to(Int32)", Int32, I32_MAX),
    ("Float32(-inf).to(Int32)", Int32, I32_MIN),
    ("Float32(inf).to(Uint32)", Uint32, U32_MAX),
    ("Float32(-inf).to(Uint32)", Uint32, 0),
    ("BFloat16(-inf).to(Int64)", Int64, I64_MIN),
    ("Float32(3e9).to(Int32)", Int32, I32_MAX),
    ("Float32(-3e9).to(Int32)", Int32, I32_MIN),
    ("Float32(2.7).to(Int32)", Int32, 2),
    ("Float32(-2.7).to(Int32)", Int32, -2),
    ("Float32(-0.5).to(Int8)", Int8, 0),
    ("Float64(-1.5).to(Uint8)", Uint8, 0),
    ("Float64(300.0).to(Uint8)", Uint8, 255),
    ("Float64(-129.9).to(Int8)", Int8, -128),
    ("Float64(127.9).to(Int8)", Int8, 127),
    ("Float16(65504.0).to(Int16)", Int16, 32767),
    ("Float64(1e30).to(Uint64)", Uint64, U64_MAX),
    ("Float64(2.0**63).to(Int64)", Int64, I64_MAX),
    ("Float64(-(2.0**63)).to(Int64)", Int64, I64_MIN),
    ("Float64(1e40).to(Int128)", Int128, I128_MAX),
    ("Float64(-1e40).to(Int128)", Int128, I128_MIN),
    ("Float64(9.5).to(Int4)", Int4, 7),
    ("Float64(-9.5).to(Int4)", Int4, -8),
    ("Float64(-7.9).to(Int4)", Int4, -7),
    ("Float32(nan).to(Boolean)", Boolean, True),
    ("Float32(-0.0).to(Boolean)", Boolean, False),
    ("Float32(0.25).to(Boolean)", Boolean, True),
    # -- integer -> float: round to nearest even -----------------------------------
    ("Int32(16777217).to(Float32)", Float32, 16777216.0),
    ("Int32(16777218).to(Float32)", Float32, 16777218.0),
    ("Int32(16777219).to(Float32)", Float32, 16777220.0),
    ("Int32(I32_MAX).to(Float32)", Float32, 2.0**31),
    ("Int64(2**53 + 1).to(Float64)", Float64, 2.0**53),
    ("Int64(2**53 + 3).to(Float64)", Float64, 2.0**53 + 4),
    ("Int64(2**31 + 2**23 + 1).to(BFloat16)", BFloat16, 2.0**31 + 2.0**24),
    ("Int32(2049).to(Float16)", Float16, 2048.0),
    ("Int32(2051).to(Float16)", Float16, 2052.0),
    ("Int32(65519).to(Float16)", Float16, 65504.0),
    ("Int32(65520).to(Float16)", Float16, inf),
    ("Int32(-65520).to(Float16)", Float16, -inf),
    ("Int32(257).to(BFloat16)", BFloat16, 256.0),
    ("Int32(259).to(BFloat16)", BFloat16, 260.0),
    ("Uint64(U64_MAX).to(Float32)", Float32, 2.0**64),
    ("Uint64(U64_MAX).to(Float64)", Float64, 2.0**64),
    ("Uint128(U128_MAX).to(Float32)", Float32, inf),
    ("Uint128(U128_MAX).to(Float64)", Float64, 2.0**128),
    ("Int128(I128_MIN).to(Float32)", Float32, -(2.0**127)),
    ("Int4(-8).to(Float16)", Float16, -8.0),
    ("Boolean(True).to(Float16)", Float16, 1.0),
    ("Float32(16777217)", Float32, 16777216.0),
    # -- float -> float: one rounding, never two ------------------------------------
    ("Float64(1 + 2.0**-8 + 2.0**-30).to(BFloat16)", BFloat16, 1 + 2.0**-7),
    ("BFloat16(1 + 2.0**-8 + 2.0**-30)", BFloat16, 1 + 2.0**-7),
    ("Float64(1 + 2.0**-8).to(BFloat16)", BFloat16, 1.0),
    ("Float32(1 + 2.0**-8 + 2.0**-20).to(BFloat16)", BFloat16, 1 + 2.0**-7),
    ("Float64(1 + 2.0**-11 + 2.0**-40).to(Float16)", Float16, 1 + 2.0**-10),
    ("Float64(1 + 2.0**-24 + 2.0**-50).to(Float32)", Float32, 1 + 2.0**-23),
    ("Float16(1 + 2.0**-8).to(BFloat16)", BFloat16, 1.0),
    ("Float16(65504.0).to(BFloat16)", BFloat16, 65536.0),
    ("BFloat16(1e10).to(Float16)", Float16, inf),
    ("BFloat16(-1e-10).to(Float16)", Float16, -0.0),
    ("Float64(1e-50).to(Float32)", Float32, 0.0),
    ("Float64(-1e-50).to(Float32)", Float32, -0.0),
    ("Float64(nan).to(Float16)", Float16, nan),
    ("Float32(1.7976931348623157e308)", Float32, inf),
    ("Float16(-1.7976931348623157e308)", Float16, -inf),
    ("Float64(1.7976931348623157e308).to(BFloat16)", BFloat16, inf),
    ("Float64(-inf).to(BFloat16)", BFloat16, -inf),
    # -- NaN and infinity comparisons --------------------------------------------------
    ("Float32(nan) == Float32(nan)", Boolean, False),
    ("Float32(nan) != Float32(nan)", Boolean, True),
    ("Float32(nan) < Float32(1.0)", Boolean, False),
    ("Float32(nan) >= Float32(1.0)", Boolean, False),
    ("Float16(nan) != Float16(nan)", Boolean, True),
    ("Float64(nan) <= Float64(inf)", Boolean, False),
    ("Float32(inf) > Float32(3.4e38)", Boolean, True),
    ("Float32(-inf) < Float32(-3.4e38)", Boolean, True),
    ("Float64(inf) == Float32(inf)", Boolean, True),
    ("BFloat16(inf) == Float16(inf)", Boolean, True),
    ("Float32(0.0) == Float32(-0.0)", Boolean, True),
    ("Float32(-0.0) < Float32(0.0)", Boolean, False),
    # mixed types compare in the common type, as C does
    ("Int32(-1) < Uint32(0)", Boolean, False),
    ("Int64(-1) < Uint64(0)", Boolean, False),
    ("Int64(-1) < Uint32(0)", Boolean, True),
    ("Int32(16777217) == Float32(16777216.0)", Boolean, True),
    ("Int64(2**53 + 1) == Float64(2.0**53)", Boolean, True),
    # -- signed zeros are kept ---------------------------------------------------------
    ("-Float32(0.0)", Float32, -0.0),
    ("Float32(-0.0)", Float32, -0.0),
    ("Float32(0.0) * Float32(-1.0)", Float32, -0.0),
    ("Float16(-0.0) + Float16(0.0)", Float16, 0.0),
    ("Float64(-0.0) + Float64(-0.0)", Float64, -0.0),
    ("Float64(-0.0) - Float64(0.0)", Float64, -0.0),
    ("abs(Float32(-0.0))", Float32, 0.0),
    ("Float32(-0.0).to(Float16)", Float16, -0.0),
    ("BFloat16(-0.0).to(Float64)", Float64, -0.0),
    ("Float64(1.0) / Float64(-inf)", Float64, -0.0),
    ("Float32(-1e-30) * Float32(1e-30)", Float32, -0.0),
    ("Float32(-0.0).bitcast(Uint32)", Uint32, 0x80000000),
    # -- bitcasts -------------------------------------------------------------------
    ("Float32(1.0).bitcast(Int32)", Int32, 0x3F800000),
    ("Float32(-1.0).bitcast(Uint32)", Uint32, 0xBF800000),
    ("Float32(-1.0).bitcast(Int32)", Int32, 0xBF800000 - 2**32),
    ("Int32(0x3F800000).bitcast(Float32)", Float32, 1.0),
    ("Uint32(0x7F800000).bitcast(Float32)", Float32, inf),
    ("Uint32(0xFF800000).bitcast(Float32)", Float32, -inf),
    ("Uint32(0x7FC00000).bitcast(Float32)", Float32, nan),
    ("Uint32(1).bitcast(Float32)", Float32, 2.0**-149),
    ("Int16(0x3C00).bitcast(Float16)", Float16, 1.0),
    ("Float16(1.0).bitcast(Int16)", Int16, 0x3C00),
    ("Float16(-2.0).bitcast(Uint16)", Uint16, 0xC000),
    ("Uint16(0x7C00).bitcast(Float16)", Float16, inf),
    ("Uint16(1).bitcast(Float16)", Float16, F16_TINY),
    ("Int16(0x3F80).bitcast(BFloat16)", BFloat16, 1.0),
    ("BFloat16(-1.0).bitcast(Int16)", Int16, 0xBF80 - 2**16),
    ("BFloat16(1.0).bitcast(Float16)", Float16, 1.875),  # 0x3F80 as a half
    ("Uint8(255).bitcast(Int8)", Int8, -1),
    ("Int8(-128).bitcast(Uint8)", Uint8, 128),
    ("Float64(1.0).bitcast(Int64)", Int64, 0x3FF0000000000000),
    ("Int64(0x4000000000000000).bitcast(Float64)", Float64, 2.0),
    ("Float64(-0.0).bitcast(Uint64)", Uint64, 2**63),
    ("Int64(-1).bitcast(Uint64)", Uint64, U64_MAX),
    ("Int128(-1).bitcast(Uint128)", Uint128, U128_MAX),
    ("Int32(7).bitcast(Int32)", Int32, 7),
    # -- narrow floats: .to() and .bitcast() ------------------------------------------
    ("Float32(1.5).to(Float8E4M3FN).to(Float32)", Float32, 1.5),
    ("Float32(0.1).to(Float8E4M3FN).to(Float32)", Float32, 0.1015625),
    ("Float64(0.1).to(Float8E4M3FN).to(Float64)", Float64, 0.1015625),
    ("Float32(1000.0).to(Float8E4M3FN).to(Float32)", Float32, 448.0),
    ("Float32(inf).to(Float8E4M3FN).to(Float32)", Float32, 448.0),
    ("Float32(-inf).to(Float8E5M2).to(Float32)", Float32, -57344.0),
    ("Float32(nan).to(Float8E5M2).to(Float32)", Float32, nan),
    ("Float32(-0.0).to(Float8E4M3FN).to(Float32)", Float32, -0.0),
    ("Float32(-0.0).to(Float8E4M3FNUZ).to(Float32)", Float32, 0.0),
    ("Float32(3.0).to(Float4E2M1FN).to(Float32)", Float32, 3.0),
    ("Float32(5.0).to(Float4E2M1FN).to(Float32)", Float32, 4.0),
    ("Float32(7.0).to(Float4E2M1FN).to(Float32)", Float32, 6.0),
    ("Float32(3.0).to(Float8E8M0FNU).to(Float32)", Float32, 4.0),
    ("Float32(0.3).to(Float6E2M3FN).to(Float32)", Float32, 0.25),
    ("Float32(100.0).to(Float6E3M2FN).to(Float32)", Float32, 28.0),
    ("Int32(3).to(Float8E5M2).to(Float16)", Float16, 3.0),
    ("Float8E4M3FN(448.0).to(Int32)", Int32, 448),
    ("Float8E4M3FN(-3.5).to(Int8)", Int8, -3),
    ("Float8E4M3FN(1.0).to(BFloat16)", BFloat16, 1.0),
    ("Float8E5M2(2.0).bitcast(Uint8)", Uint8, 0x40),
    ("Uint8(0x38).bitcast(Float8E4M3FN).to(Float32)", Float32, 1.0),
    ("Float8E4M3FN(-2.0).bitcast(Int8)", Int8, -64),
    # -- ** on integers (wraps; negative exponents) and floats ------------------------
    ("Int32(2) ** Int32(30)", Int32, 2**30),
    ("Int32(2) ** Int32(31)", Int32, I32_MIN),
    ("Int32(2) ** 32", Int32, 0),
    ("Int32(3) ** Int32(0)", Int32, 1),
    ("Int32(0) ** Int32(0)", Int32, 1),
    ("Int32(-3) ** Int32(3)", Int32, -27),
    ("Int32(2) ** -1", Int32, 0),
    ("Int32(5) ** -3", Int32, 0),
    ("Int32(-2) ** -1", Int32, 0),
    ("Int32(1) ** -5", Int32, 1),
    ("Int32(-1) ** -3", Int32, -1),
    ("Int32(-1) ** -4", Int32, 1),
    ("Int8(3) ** Int8(5)", Int8, -13),  # 243 wraps
    ("Int8(-2) ** Int8(7)", Int8, -128),
    ("Uint8(2) ** Uint8(8)", Uint8, 0),
    ("Uint8(3) ** Uint8(5)", Uint8, 243),
    ("Int64(3) ** Int64(39)", Int64, 3**39),
    ("Int64(3) ** Int64(40)", Int64, 3**40 - 2**64),
    ("Int128(2) ** Int128(127)", Int128, I128_MIN),
    ("Uint128(3) ** Uint128(81)", Uint128, 3**81 % 2**128),
    ("Int4(3) ** Int4(2)", Int4, -7),
    ("Float32(2.0) ** Float32(-1.0)", Float32, 0.5),
    ("Float32(-8.0) ** Float32(1 / 3)", Float32, nan),
    ("Float32(0.0) ** Float32(-1.0)", Float32, inf),
    ("Float32(nan) ** Float32(0.0)", Float32, 1.0),
    ("Float32(-0.0) ** Float32(0.5)", Float32, 0.0),  # C's pow, not sqrt
    ("Float32(-inf) ** Float32(0.5)", Float32, inf),
    ("Float64(-0.0) ** Float64(0.5)", Float64, 0.0),
    ("Float64(-inf) ** Float64(0.5)", Float64, inf),
    ("Float16(-inf) ** Float16(0.5)", Float16, inf),
    ("Float32(-0.0) ** Float32(3.0)", Float32, -0.0),
    ("Float64(2.0) ** Float64(0.5)", Float64, math.sqrt(2.0)),
    ("Float64(-2.0) ** Float64(3.0)", Float64, -8.0),
    ("Float16(2.0) ** Float16(16.0)", Float16, inf),
    ("Float16(10.0) ** Float16(4.0)", Float16, 10000.0),
    ("BFloat16(3.0) ** BFloat16(5.0)", BFloat16, 243.0),
    ("Int32(2) ** Float32(0.5)", Float32, 1.4142135381698608),
    ("Int32(2) ** 0.5", Float32, 1.4142135381698608),
    # -- unary operators at the edges -------------------------------------------------
    ("-Int8(-128)", Int8, -128),
    ("abs(Int8(-128))", Int8, -128),
    ("abs(Int8(-127))", Int8, 127),
    ("-Int32(I32_MIN)", Int32, I32_MIN),
    ("abs(Int32(I32_MIN))", Int32, I32_MIN),
    ("-Int64(I64_MIN)", Int64, I64_MIN),
    ("abs(Int128(I128_MIN))", Int128, I128_MIN),
    ("-Int4(-8)", Int4, -8),
    ("abs(Int4(-8))", Int4, -8),
    ("~Int4(7)", Int4, -8),
    ("~Int32(0)", Int32, -1),
    ("~Int8(-128)", Int8, 127),
    ("~Uint8(0)", Uint8, 255),
    ("~Uint16(0x00FF)", Uint16, 0xFF00),
    ("~Uint128(0)", Uint128, U128_MAX),
    ("-Uint8(1)", Uint8, 255),
    ("-Uint32(0)", Uint32, 0),
    ("-Uint64(1)", Uint64, U64_MAX),
    ("abs(Uint8(255))", Uint8, 255),
    ("+Int8(-5)", Int8, -5),
    ("-Boolean(True)", Int32, -1),
    ("-Boolean(False)", Int32, 0),
    ("abs(Boolean(True))", Int32, 1),
    ("~Boolean(True)", Boolean, False),
    ("~Boolean(False)", Boolean, True),
    ("-Float16(0.0)", Float16, -0.0),
    ("-Float32(nan)", Float32, nan),
    ("abs(Float32(-inf))", Float32, inf),
    ("abs(BFloat16(-3.5))", BFloat16, 3.5),
    ("-Float64(5e-324)", Float64, -5e-324),
]


@pytest.mark.parametrize("expr, dtype, expected", CASES, ids=[c[0] for c in CASES])
def test_edge(expr, dtype, expected):
    result = eval(expr, NAMESPACE)
    assert isinstance(result, Numeric) and result.is_static()
    assert result.dtype is dtype, f"{expr} is a {result.dtype}, not {dtype}"
    assert same(result.value, expected), f"{expr} = {result.value!r}, not {expected!r}"


def test_enough_cases():
    assert len(CASES) >= 150
    assert len({c[0] for c in CASES}) == len(CASES)


# -- integer division by a compile-time zero ------------------------------------------
def dyn(t, name="x"):
    """A run-time value of type ``t``: a named variable in the IR."""
    return t._dynamic(ir.Var(t, name))


@pytest.mark.parametrize(
    "expr",
    [
        lambda: Int32(1) // Int32(0),
        lambda: Int32(1) % Int32(0),
        lambda: Int8(-128) // Int8(0),
        lambda: Uint8(1) % Uint8(0),
        lambda: Int128(1) // Int128(0),
        lambda: Uint128(1) % 0,
        lambda: Int4(1) // Int4(0),
        lambda: 7 // Int32(0),
        lambda: Int64(5) % Boolean(False),
        lambda: divmod(Int32(1), Int32(0)),
        lambda: dyn(Int32) // 0,
        lambda: dyn(Uint16) % Uint16(0),
        lambda: dyn(Int32, "v").to(Int32x4) // Int32(0),
    ],
)
def test_integer_division_by_static_zero(expr):
    with pytest.raises(ZeroDivisionError) as info:
        expr()
    err = info.value
    assert isinstance(err, kdsl.DSLError) and err.code == "E103"
    assert isinstance(err, kdsl.DSLZeroDivisionError)


def test_float_floor_division_by_zero_is_not_an_error():
    assert math.isinf(float(Float32(1.0) // 0))
    assert math.isnan(float(Float64(1.0) % 0))


# -- divmod ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "expr, dtype, expected",
    [
        ("divmod(Int32(-7), Int32(2))", Int32, (-4, 1)),
        ("divmod(Int32(7), Int32(-2))", Int32, (-4, -1)),
        ("divmod(Int8(-128), Int8(-1))", Int8, (-128, 0)),
        ("divmod(Uint8(7), Uint8(3))", Uint8, (2, 1)),
        ("divmod(-7, Int32(2))", Int32, (-4, 1)),
        ("divmod(Int64(I64_MIN), 7)", Int64, divmod(I64_MIN, 7)),
        ("divmod(Float32(-7.0), 2.0)", Float32, (-4.0, 1.0)),
        ("divmod(Float64(7.5), Float64(-2.0))", Float64, (-4.0, -0.5)),
    ],
)
def test_divmod(expr, dtype, expected):
    q, r = eval(expr, NAMESPACE)
    assert q.dtype is dtype and r.dtype is dtype
    assert same(q.value, expected[0]) and same(r.value, expected[1])


# -- bitcast width mismatch -----------------------------------------------------
@pytest.mark.parametrize(
    "expr",
    [
        "Float32(1.0).bitcast(Int16)",
        "Int8(1).bitcast(Float16)",
        "Float64(1.0).bitcast(Int32)",
        "Boolean(True).bitcast(Int8)",
        "Int4(1).bitcast(Int8)",
        "Float8E4M3FN(1.0).bitcast(Float16)",
        "Int16(1).bitcast(Uint32x4)",
        "Float32x4(0.0).bitcast(Float32x8)",
    ],
)
def test_bitcast_width_mismatch(expr):
    with pytest.raises(TypeError) as info:
        eval(expr, NAMESPACE)
    assert isinstance(info.value, kdsl.DSLError) and info.value.code == "E107"


@pytest.mark.parametrize(
    "expr", ["Float16x2(0.0).bitcast(Float64)", "Int8x2(0).bitcast(Float32)"]
)
def test_bitcast_to_lanes_of_a_wider_type(expr):
    # a vector's bits are not a whole number of the scalar's lanes
    with pytest.raises(TypeError) as info:
        eval(expr, NAMESPACE)
    assert isinstance(info.value, kdsl.DSLError) and info.value.code == "E120"


# -- static values work as Python values ----------------------------------------------
def test_static_values_stay_static():
    assert Int32(5).is_static()
    assert (Int32(5) + 1).is_static()
    assert (Float16(1.0) * Int8(3) / 2).is_static()
    assert (Int32(5) < Int64(6)).is_static()
    assert (~Boolean(True)).is_static()
    assert Float32(1.0).to(Int8).is_static()
    assert Float32(1.0).bitcast(Uint32).is_static()
    assert Boolean(True).select(Int32(1), Int32(2)).is_static()


def test_static_values_as_python():
    assert int(Float32(-2.7)) == -2
    assert int(Int64(2**40)) == 2**40
    assert int(Boolean(True)) == 1
    assert bool(Int32(0)) is False
    assert bool(Float32(-0.0)) is False
    assert bool(Float32(nan)) is True
    assert bool(Int8(-1) < 0) is True
    assert float(Float16(0.1)) == 0.0999755859375
    assert float(Int32(3)) == 3.0
    assert [10, 20, 30][Int32(1)] == 20
    assert [10, 20, 30][Uint8(2)] == 30
    assert [10, 20, 30][Int32(-1)] == 30
    assert list(range(Int16(3))) == [0, 1, 2]
    assert Int32(5).value == 5 and Float32(0.5).value == 0.5
    assert Int32(7).ir_value() == ir.Const(Int32, 7)


def test_float_is_not_an_index():
    with pytest.raises(TypeError) as info:
        [1, 2][Float32(1.0)]
    assert info.value.code == "E306"


@pytest.mark.parametrize(
    "force",
    [int, bool, float, lambda v: [1, 2, 3][v], lambda v: v.value, lambda v: range(v)],
    ids=["int", "bool", "float", "index", "value", "range"],
)
def test_dynamic_value_forced_into_python(force):
    with pytest.raises(kdsl.DynamicValueError) as info:
        force(dyn(Int32))
    err = info.value
    assert isinstance(err, kdsl.DSLError) and isinstance(err, TypeError)
    assert err.code == "E104"


def test_dynamic_condition_is_an_error():
    with pytest.raises(kdsl.DynamicValueError):
        if dyn(Int32) < 3:
            pass
    with pytest.raises(kdsl.DynamicValueError):
        if Float32x4(1.0):
            pass


# -- dynamic values build typed IR --------------------------------------------------
def test_dynamic_same_type_needs_no_conversion():
    x, y = dyn(Int32, "x"), dyn(Int32, "y")
    result = x + y
    assert not result.is_static() and result.dtype is Int32
    assert result.ir_value() == ir.BinOp(
        Int32, "+", ir.Var(Int32, "x"), ir.Var(Int32, "y")
    )


def test_dynamic_operands_convert_to_the_common_type():
    x, y = dyn(Int8, "x"), dyn(Int16, "y")
    node = (x * y).ir_value()
    assert node == ir.BinOp(
        Int16, "*", ir.Convert(Int16, ir.Var(Int8, "x")), ir.Var(Int16, "y")
    )
    assert node.type is Int16


def test_dynamic_with_static_operand():
    x = dyn(Int32)
    node = (x + Int8(1)).ir_value()
    assert node == ir.BinOp(Int32, "+", ir.Var(Int32, "x"), ir.Const(Int32, 1))
    node = (x + Float32(1.5)).ir_value()
    assert node == ir.BinOp(
        Float32, "+", ir.Convert(Float32, ir.Var(Int32, "x")), ir.Const(Float32, 1.5)
    )
    node = (2.5 * x).ir_value()  # reflected: the literal stays on the left
    assert node.lhs == ir.Const(Float32, 2.5)
    assert node.rhs == ir.Convert(Float32, ir.Var(Int32, "x"))


def test_dynamic_static_operand_is_folded_into_the_common_type():
    x = dyn(Float64)
    node = (x + Int32(3)).ir_value()
    assert node == ir.BinOp(Float64, "+", ir.Var(Float64, "x"), ir.Const(Float64, 3.0))
    node = (dyn(Float16) + Int32(65520)).ir_value()  # Float32: 65520.0 exactly
    assert node.rhs == ir.Const(Float32, 65520.0)


@pytest.mark.parametrize(
    "build, operand, result",
    [
        (lambda x: x / 2, Float32, Float32),
        (lambda x: x < 1, Int32, Boolean),
        (lambda x: x == Uint32(1), Uint32, Boolean),
        (lambda x: x // Int64(3), Int64, Int64),
        (lambda x: x % 3, Int32, Int32),
        (lambda x: x**2, Int32, Int32),
        (lambda x: x & Uint8(1), Int32, Int32),
        (lambda x: x << Int64(1), Int64, Int64),
        (lambda x: x + BFloat16(1.0), Float32, Float32),
        (lambda x: x * Float64(2.0), Float64, Float64),
        (lambda x: x - Int128(1), Int128, Int128),
        (lambda x: x != Boolean(True), Int32, Boolean),
    ],
)
def test_dynamic_binop_types(build, operand, result):
    out = build(dyn(Int32))
    node = out.ir_value()
    assert isinstance(node, ir.BinOp)
    assert out.dtype is result and node.type is result
    for side in (node.lhs, node.rhs):
        assert side.type is operand
        if operand is not Int32:  # x itself was converted to the common type
            assert isinstance(side, (ir.Convert, ir.Const))
    assert ir.Var(Int32, "x") in (
        node.lhs,
        node.rhs,
        getattr(node.lhs, "operand", None),
    )


def test_int_true_division_converts_both_sides():
    node = (dyn(Int64, "a") / dyn(Uint8, "b")).ir_value()
    assert node == ir.BinOp(
        Float64,
        "/",
        ir.Convert(Float64, ir.Var(Int64, "a")),
        ir.Convert(Float64, ir.Var(Uint8, "b")),
    )


def test_dynamic_boolean_arithmetic():
    b = dyn(Boolean, "b")
    node = (b + b).ir_value()
    c = ir.Convert(Int32, ir.Var(Boolean, "b"))
    assert node == ir.BinOp(Int32, "+", c, c)
    node = (b & dyn(Boolean, "c")).ir_value()
    assert node == ir.BinOp(Boolean, "&", ir.Var(Boolean, "b"), ir.Var(Boolean, "c"))
    assert (~b).ir_value() == ir.UnaryOp(Boolean, "~", ir.Var(Boolean, "b"))
    assert (-b).ir_value() == ir.UnaryOp(Int32, "-", c)


def test_dynamic_unary_and_conversions():
    x = dyn(Int8)
    assert (-x).ir_value() == ir.UnaryOp(Int8, "-", ir.Var(Int8, "x"))
    assert (+x) is x
    assert x.to(Float16).ir_value() == ir.Convert(Float16, ir.Var(Int8, "x"))
    assert x.to(Int8) is x
    assert x.bitcast(Uint8).ir_value() == ir.Bitcast(Uint8, ir.Var(Int8, "x"))
    assert not Float32(dyn(Int32)).is_static()


def test_dynamic_taints_the_result():
    x = dyn(Float32)
    assert not (x * 0).is_static()
    assert not (Float32(1.0) + x - x).is_static()
    assert not (x < 1).is_static()


def test_select():
    cond = dyn(Boolean, "c")
    out = cond.select(Int8(1), Float16(2.0))
    assert out.dtype is Float16
    assert isinstance(out.ir_value(), ir.Select)
    assert Boolean(False).select(Int32(1), Int32(2)).value == 2
    assert Int32(5).select(Int32(1), Int32(2)).value == 1  # nonzero is true


# -- vectors -----------------------------------------------------------------------
def test_vector_broadcast_is_dynamic():
    v = Float32x4(1.0)
    assert not v.is_static()
    assert v.ir_value() == ir.Broadcast(Float32x4, ir.Const(Float32, 1.0))
    assert v.dtype is Float32 and len(v) == 4 and Float32x4.width == 128
    assert Int32x4(0).dtype is Int32


def test_vector_lanes():
    v = Float32x4(1, 2, 3, 4.5)
    node = v.ir_value()
    assert isinstance(node, ir.MakeVector)
    assert node.lanes == tuple(ir.Const(Float32, x) for x in (1.0, 2.0, 3.0, 4.5))
    assert v[1].ir_value() == ir.Extract(Float32, node, 1)
    assert v[-1].ir_value() == ir.Extract(Float32, node, 3)
    with pytest.raises(kdsl.DSLError) as info:
        v[4]
    assert info.value.code == "E117"


@pytest.mark.parametrize(
    "build, expected",
    [
        (lambda: Float32x4(0.0) * 2, Float32x4),
        (lambda: 2 * Float32x4(0.0), Float32x4),
        (lambda: Int32x4(0) + 1.5, Float32x4),
        (lambda: Int8x16(0) + 1, Int32x16),
        (lambda: Int8x16(0) + Int8(1), Int8x16),
        (lambda: Float16x8(0.0) * Float32(2.0), Float32x8),
        (lambda: Float16x8(0.0) * BFloat16x8(0.0), Float32x8),
        (lambda: Int32x4(0) / 2, Float32x4),
        (lambda: Int64x4(0) / 2, Float64x4),
        (lambda: Int8x4(0) < 0, Vector[Boolean, 4]),
        (lambda: Uint32x4(0) & Int32(1), Uint32x4),
        (lambda: -Int16x8(0), Int16x8),
        (lambda: abs(Float16x2(0.0)), Float16x2),
        (lambda: ~Uint8x4(0), Uint8x4),
        (lambda: Float32x4(0.0).to(Int32), Int32x4),
        (lambda: Float32x4(0.0).to(BFloat16x4), BFloat16x4),
    ],
)
def test_vector_promotion(build, expected):
    out = build()
    assert type(out) is expected and not out.is_static()


def test_vector_scalar_operand_is_broadcast():
    node = (Float32x4(0.0) * 2).ir_value()
    assert node.type is Float32x4
    assert node.rhs == ir.Broadcast(Float32x4, ir.Const(Float32, 2.0))
    node = (Int32x4(0) + 1.5).ir_value()
    assert node.lhs == ir.Convert(Float32x4, ir.Broadcast(Int32x4, ir.Const(Int32, 0)))


def test_vector_bitcast():
    assert type(Float32x4(0.0).bitcast(Int8)) is Int8x16
    assert type(Float32x4(0.0).bitcast(Float16)) is Float16x8
    assert type(Float32x4(0.0).bitcast(Float64)) is Float64x2
    assert type(Int8x16(0).bitcast(Float32)) is Float32x4
    assert type(Float32x4(0.0).bitcast(Uint64x2)) is Uint64x2
    node = Float32x4(0.0).bitcast(Int8).ir_value()
    assert isinstance(node, ir.Bitcast) and node.type is Int8x16


def test_vector_types_are_cached():
    assert Vector[Float32, 4] is Float32x4
    assert Vector[BFloat16, 8] is kdsl.BFloat16x8
    assert Vector[Int4, 16] is kdsl.Int4x16
    assert Vector[Float8E4M3FN, 16] is kdsl.Float8E4M3FNx16
    assert Vector[Float64, 8] is kdsl.Float64x8  # exactly 512 bits
    assert Vector[Float32, 3] is kdsl.Float32x3  # CUDA's float3 layout


@pytest.mark.parametrize(
    "build, code",
    [
        (lambda: Vector[Float32, 5], "E108"),
        (lambda: Vector[Float32, 4.0], "E108"),
        (lambda: Vector[Float32, 1], "E108"),
        (lambda: Vector[Float32, 32], "E108"),
        (lambda: Vector[Float64, 16], "E108"),  # 1024 bits
        (lambda: Vector[Int128, 8], "E108"),
        (lambda: Vector[Numeric, 4], "E123"),  # the element type
        (lambda: Vector[int, 4], "E123"),
        (lambda: Vector[Float32], "E122"),  # the spelling
        (lambda: Float32x4(1.0, 2.0), "E115"),  # the constructor
        (lambda: Float32x4(0.0) + Float32x8(0.0), "E113"),  # the lengths
        (lambda: Float32x4(0.0).to(Float32x8), "E114"),  # the conversion
        (lambda: Float32(Float32x4(1.0)), "E118"),  # a scalar of a vector
    ],
)
def test_invalid_vector_types(build, code):
    with pytest.raises(TypeError) as info:
        build()
    assert isinstance(info.value, kdsl.DSLError) and info.value.code == code


def test_abstract_vector():
    with pytest.raises(kdsl.DSLError) as info:
        Vector(1.0)
    assert info.value.code == "E110"


def test_vector_narrow_arithmetic():
    with pytest.raises(kdsl.DSLError) as info:
        Vector[Float8E5M2, 4](0.0) + 1
    assert info.value.code == "E102"


# -- types: C spellings, from_ir_type, widths ----------------------------------------
C_SPELLINGS = [
    ("float", Float32),
    ("double", Float64),
    ("__half", Float16),
    ("half", Float16),
    ("__nv_bfloat16", BFloat16),
    ("bool", Boolean),
    ("int8_t", Int8),
    ("int16_t", Int16),
    ("int32_t", Int32),
    ("int", Int32),
    ("int64_t", Int64),
    ("__int128", Int128),
    ("uint8_t", Uint8),
    ("uint16_t", Uint16),
    ("uint32_t", Uint32),
    ("unsigned int", Uint32),
    ("uint64_t", Uint64),
    ("unsigned __int128", Uint128),
    ("unsigned  __int128", Uint128),
    ("__nv_fp8_e4m3", Float8E4M3FN),
    ("__nv_fp8_e5m2", Float8E5M2),
    ("__nv_fp8_e8m0", Float8E8M0FNU),
    ("__nv_fp6_e2m3", Float6E2M3FN),
    ("__nv_fp6_e3m2", Float6E3M2FN),
    ("__nv_fp4_e2m1", Float4E2M1FN),
    ("Int4", Int4),
    ("Float8E4M3FNUZ", Float8E4M3FNUZ),
]


@pytest.mark.parametrize("spelling, dtype", C_SPELLINGS)
def test_from_ir_type_spelling(spelling, dtype):
    assert Numeric.from_ir_type(spelling) is dtype


@pytest.mark.parametrize("dtype", kdsl.transpile.core.types.SCALAR_TYPES)
def test_from_ir_type_of_types(dtype):
    assert Numeric.from_ir_type(dtype) is dtype
    if dtype.c_name not in ("int8_t", "uint8_t") or dtype in (Int8, Uint8):
        assert Numeric.from_ir_type(dtype.c_name) is dtype
    assert Numeric.from_ir_type(dtype.__name__) is dtype


def test_from_ir_type_vectors_and_unknown():
    assert Numeric.from_ir_type(Float32x4) is Float32x4
    for bad in ("float4", "long double", "i32", 32):
        with pytest.raises(kdsl.DSLError) as info:
            Numeric.from_ir_type(bad)
        assert info.value.code == "E109"


@pytest.mark.parametrize(
    "dtype, c_name, short",
    [
        (Int4, "int8_t", "i4"),
        (Int8, "int8_t", "i8"),
        (Int32, "int32_t", "i32"),
        (Int128, "__int128", "i128"),
        (Uint8, "uint8_t", "u8"),
        (Uint128, "unsigned __int128", "u128"),
        (Float16, "__half", "f16"),
        (BFloat16, "__nv_bfloat16", "bf16"),
        (Float32, "float", "f32"),
        (Float64, "double", "f64"),
        (Boolean, "bool", "bool"),
        (Float8E4M3FN, "__nv_fp8_e4m3", "f8e4m3fn"),
    ],
)
def test_type_facts(dtype, c_name, short):
    assert dtype.c_name == c_name and dtype.short == short
    assert repr(dtype) == dtype.__name__


@pytest.mark.parametrize(
    "dtype, width, log_width",
    [
        (Int32, 32, 5),
        (Int4, 4, 2),
        (Int8, 8, 3),
        (Int128, 128, 7),
        (Uint64, 64, 6),
        (Float16, 16, 4),
        (BFloat16, 16, 4),
        (Float64, 64, 6),
        (Boolean, 1, 0),
        (Float6E2M3FN, 6, 3),
        (Float4E2M1FN, 4, 2),
    ],
)
def test_width(dtype, width, log_width):
    assert dtype.width == width and dtype.log_width == log_width
    assert dtype(0).dtype.width == width


def test_integer_limits():
    assert (Int4.min(), Int4.max()) == (-8, 7)
    assert (Uint8.min(), Uint8.max()) == (0, 255)
    assert (Int128.min(), Int128.max()) == (I128_MIN, I128_MAX)
    assert Uint128.max() == U128_MAX


@pytest.mark.parametrize("abstract", [Numeric, kdsl.Integer, kdsl.Float])
def test_abstract_types_cannot_be_built(abstract):
    with pytest.raises(TypeError) as info:
        abstract(1)
    assert isinstance(info.value, kdsl.DSLError) and info.value.code == "E110"


def test_abstract_types_cannot_be_targets():
    with pytest.raises(kdsl.DSLError) as info:
        Int32(1).to(kdsl.Float)
    assert info.value.code == "E110"


def test_not_numeric():
    for bad in ("1", None, [1], 1j):
        with pytest.raises(TypeError) as info:
            Int32(1) + bad
        assert info.value.code == "E106"


def test_numpy_scalars_keep_their_type():
    import ml_dtypes
    import numpy as np

    assert kdsl.as_numeric(np.float64(0.1)).dtype is Float64
    assert kdsl.as_numeric(np.float64(0.1)).value == 0.1
    assert kdsl.as_numeric(np.float16(1.5)).dtype is Float16
    assert kdsl.as_numeric(ml_dtypes.bfloat16(1.5)).dtype is BFloat16
    assert kdsl.as_numeric(np.bool_(True)).dtype is Boolean
    assert kdsl.as_numeric(np.int64(5)).dtype is Int32  # ints: by value
