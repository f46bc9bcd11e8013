"""Static bitcasts keep every bit pattern, as the GPU's reinterpretation does:
NaN payloads and signs, and the infinities of narrow formats that have one."""

import math

import pytest

from kdsl import (
    BFloat16,
    Float8E4M3,
    Float8E4M3FN,
    Float8E5M2,
    Float16,
    Float32,
    Float64,
    Int16,
    Int32,
    Int64,
    Uint8,
    Uint16,
    Uint32,
)

ROUND_TRIPS = [
    (Int32, Float32, 0x7F800001),  # signalling NaN payload
    (Int32, Float32, -0x003FFFFF),  # negative NaN, 0xFFC00001
    (Uint32, Float32, 0xFFFFFFFF),
    (Int64, Float64, 0x7FF0000000000001),
    (Int16, Float16, 0x7C01),
    (Uint16, Float16, 0xFE00),
    (Uint16, BFloat16, 0xFF81),
    (Uint8, Float8E5M2, 0x7C),  # +inf
    (Uint8, Float8E5M2, 0xFC),  # -inf
    (Uint8, Float8E5M2, 0xFF),  # NaN with a payload and a sign
    (Uint8, Float8E4M3FN, 0xFF),  # the negative NaN
    (Uint8, Float8E4M3, 0x78),  # +inf of the IEEE-style e4m3
]


@pytest.mark.parametrize("int_type,float_type,bits", ROUND_TRIPS)
def test_bitcast_round_trip_keeps_the_bits(int_type, float_type, bits):
    x = int_type(bits).bitcast(float_type)
    assert x.is_static()
    back = x.bitcast(int_type)
    assert int(back) == int(int_type(bits))


def test_narrow_infinity_is_infinite_and_nan_is_nan():
    assert Uint8(0x7C).bitcast(Float8E5M2).value == math.inf
    assert math.isnan(Uint8(0xFF).bitcast(Float8E4M3FN).value)


def test_arithmetic_on_a_nan_gives_an_ordinary_nan():
    x = Int32(0x7F800001).bitcast(Float32)
    y = x + Float32(1.0)
    assert math.isnan(y.value)
    assert int(y.bitcast(Uint32)) & 0x7FC00000 == 0x7FC00000  # quiet
