"""Narrow floats: formats, and conversions that match the GPU bit for bit.

kdsl has nine narrow float storage types.  Six have a CUDA type, and
:func:`encode` reproduces what that type's converting constructor produces
(CUDA 13.0 headers ``cuda_fp8.hpp``, ``cuda_fp6.hpp``, ``cuda_fp4.hpp``, code
compiled for sm_89/sm_90, the targets kdsl builds for):

* ``__nv_fp8_e4m3`` / ``__nv_fp8_e5m2`` (``__nv_cvt_float_to_fp8``,
  ``__nv_cvt_double_to_fp8``, ``__nv_cvt_halfraw_to_fp8`` with
  ``__NV_SATFINITE``): round to nearest even; anything above the largest
  finite value, infinities included, becomes +-max finite; the sign of zero is
  kept.  NaN becomes 0x7F from a float, half or bfloat16 source (the
  ``cvt.rn.satfinite`` PTX instruction).  Only the software ``double`` path
  keeps the sign of a NaN, and for E5M2 it also keeps the top two payload
  bits (``0x7E | payload``), hence ``encode``'s ``source`` argument.
* ``__nv_fp6_e2m3`` / ``__nv_fp6_e3m2`` / ``__nv_fp4_e2m1``
  (``__nv_cvt_double_to_fp6`` / ``__nv_cvt_double_to_fp4``, ``cudaRoundNearest``;
  the float path converts to double first): round to nearest even, saturate
  to +-max finite, +-inf -> +-max finite, NaN -> +max finite (0x1F / 0x7),
  sign of zero kept.
* ``__nv_fp8_e8m0`` (``__nv_cvt_float_to_e8m0``, ``__nv_cvt_double_to_e8m0``,
  ``__nv_cvt_bfloat16raw_to_e8m0`` with ``__NV_SATFINITE`` and
  ``cudaRoundPosInf``): NOT round to nearest.  The sign is dropped and |x| is
  rounded up to a power of two, clamped to [2**-127, 2**127]; so 0 -> 0x00
  (2**-127), inf -> 0xFE, NaN -> 0xFF.

The other three formats have no CUDA type; kdsl stores them in a byte and
converts with ``templates/prelude/narrow_floats.h``, which implements the
same policy as the fp8 constructors: round to nearest even, saturate to +-max
finite (infinities too, as ``__nv_fp8_e5m2`` does), NaN -> the format's NaN
(0x80 for the two FNUZ formats, 0x7F for Float8E4M3).  The FNUZ formats have
no negative zero: a negative value that rounds to zero encodes as 0x00.
These three do not depend on the source type.

Checked on an H200 (sm_90) with ``tests/unit/narrow_gpu_table.py``: every
bfloat16/half pattern, with tie-breaking low bits for float and double
sources, gives the same bits for all nine formats.  Family-specific targets
(sm_100a/f and later, ``__CUDA_FP8_INTERNAL_CAN_RELY_ON_PTX_FOR_SHORTTYPESCVT__``)
convert E8M0/fp6/fp4 with PTX ``cvt`` instructions instead; not checked.

Decoding is exact for every format and every source type (CUDA widens
through half or bfloat16, which hold every narrow value), so :func:`decode`
is ml_dtypes' decoding.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass

import ml_dtypes
import numpy as np


@dataclass(frozen=True)
class NarrowFormat:
    """A narrow float format and how kdsl spells it in CUDA C++."""

    name: str  # kdsl's name
    bits: int  # storage width in bits (the value sits in the low bits of a byte)
    exponent_bits: int
    mantissa_bits: int  # explicit mantissa bits
    bias: int
    has_inf: bool
    has_nan: bool
    has_negative_zero: bool
    unsigned: bool  # no sign bit (only Float8E8M0FNU)
    max_finite: float
    ml_dtype: type  # the ml_dtypes scalar type, usable as a numpy dtype
    cuda_type: str | None  # CUDA's C++ type, None when stored as a plain byte
    c_storage_type: str  # C spelling of the raw bits
    nan_bits: int | None  # NaN that encode produces (float source), None if none
    round_up: bool = False  # True: rounds |x| up (E8M0), else to nearest even

    @property
    def c_type(self) -> str:
        """C++ type of a value in generated code (CUDA's type, else the byte)."""
        return self.cuda_type or self.c_storage_type


# name, ml_dtypes type, CUDA type (None: a byte + the prelude), exponent bias,
# the NaN that encode produces from a float source (None: no NaN).
_TABLE = [
    ("Float8E5M2", ml_dtypes.float8_e5m2, "__nv_fp8_e5m2", 15, 0x7F),
    ("Float8E4M3FN", ml_dtypes.float8_e4m3fn, "__nv_fp8_e4m3", 7, 0x7F),
    ("Float8E4M3FNUZ", ml_dtypes.float8_e4m3fnuz, None, 8, 0x80),
    ("Float8E4M3B11FNUZ", ml_dtypes.float8_e4m3b11fnuz, None, 11, 0x80),
    ("Float8E4M3", ml_dtypes.float8_e4m3, None, 7, 0x7F),
    ("Float6E2M3FN", ml_dtypes.float6_e2m3fn, "__nv_fp6_e2m3", 1, None),
    ("Float6E3M2FN", ml_dtypes.float6_e3m2fn, "__nv_fp6_e3m2", 3, None),
    ("Float8E8M0FNU", ml_dtypes.float8_e8m0fnu, "__nv_fp8_e8m0", 127, 0xFF),
    ("Float4E2M1FN", ml_dtypes.float4_e2m1fn, "__nv_fp4_e2m1", 1, None),
]


def _format(name, ml_dtype, cuda_type, bias, nan_bits) -> NarrowFormat:
    """A NarrowFormat whose shape and special values are read off ml_dtypes."""
    finfo = ml_dtypes.finfo(ml_dtype)
    every = np.arange(1 << finfo.bits, dtype=np.uint8).view(ml_dtype)
    every = every.astype(np.float64)
    unsigned = finfo.bits == finfo.nexp + finfo.nmant
    return NarrowFormat(
        name=name,
        bits=finfo.bits,
        exponent_bits=finfo.nexp,
        mantissa_bits=finfo.nmant,
        bias=bias,
        has_inf=bool(np.isinf(every).any()),
        has_nan=bool(np.isnan(every).any()),
        has_negative_zero=bool(((every == 0) & np.signbit(every)).any()),
        unsigned=unsigned,
        max_finite=float(finfo.max),
        ml_dtype=ml_dtype,
        cuda_type=cuda_type,
        c_storage_type=(
            f"__nv_fp{finfo.bits}_storage_t" if cuda_type else "unsigned char"
        ),
        nan_bits=nan_bits,
        round_up=unsigned,  # E8M0: cudaRoundPosInf in every constructor
    )


FORMATS: dict[str, NarrowFormat] = {row[0]: _format(*row) for row in _TABLE}

SOURCES = {
    "float": np.float32,
    "double": np.float64,
    "half": np.float16,
    "bfloat16": ml_dtypes.bfloat16,
}


def decode(name: str, bits: int) -> float:
    """The exact value of ``bits`` in format ``name`` (CUDA's ``operator float``).

    Every NaN pattern decodes to ``float('nan')``; E8M0's 0x00 is 2**-127.
    """
    fmt = FORMATS[name]
    if not 0 <= bits < 1 << fmt.bits:
        raise ValueError(f"{bits:#x} is not a {fmt.bits}-bit pattern")
    return float(np.array(bits, np.uint8).view(fmt.ml_dtype))


def encode(name: str, value: float, source: str = "float") -> int:
    """The bits CUDA produces converting ``value`` to format ``name``.

    ``value`` must be exactly representable in ``source`` ("float", "double",
    "half" or "bfloat16"), the C++ type the GPU converts from.  The source
    matters only for NaN: the ``double`` path of ``__nv_fp8_e4m3`` and
    ``__nv_fp8_e5m2`` keeps the NaN's sign (and E5M2 two payload bits).
    """
    fmt = FORMATS[name]
    _check_source(value, source)
    if math.isnan(value):
        return _encode_nan(fmt, value, source)
    magnitude = min(abs(value), fmt.max_finite)  # saturate, infinities too
    if fmt.round_up:
        return _encode_e8m0(magnitude)
    # ml_dtypes' scalar constructor rounds a double to nearest even exactly
    # (unlike numpy's astype from float64, which rounds through float32).
    bits = int(fmt.ml_dtype(magnitude).view(np.uint8))
    negative = math.copysign(1.0, value) < 0
    if negative and (bits != 0 or fmt.has_negative_zero):
        bits |= 1 << (fmt.bits - 1)
    return bits


def _check_source(value: float, source: str) -> None:
    if source not in SOURCES:
        raise ValueError(f"source must be one of {sorted(SOURCES)}, not {source!r}")
    with np.errstate(over="ignore"):
        converted = float(SOURCES[source](value))
    if not math.isnan(value) and converted != value:
        raise ValueError(f"{value!r} is not exactly representable as {source}")


def _encode_nan(fmt: NarrowFormat, value: float, source: str) -> int:
    """NaN: CUDA's fp6/fp4 give +max finite; the double path of fp8 keeps bits."""
    if not fmt.has_nan:
        return (1 << (fmt.bits - 1)) - 1  # __nv_cvt_double_to_fp6/fp4
    if source == "double" and fmt.cuda_type in ("__nv_fp8_e4m3", "__nv_fp8_e5m2"):
        # __nv_cvt_double_to_fp8: E4M3 -> 0x7F, E5M2 -> 0x7E | top payload bits
        (xbits,) = struct.unpack("<Q", struct.pack("<d", value))
        sign = (xbits >> 63) << 7
        if fmt.name == "Float8E4M3FN":
            return sign | 0x7F
        return sign | 0x7E | ((xbits >> 50) & 0x3)
    return fmt.nan_bits


def _encode_e8m0(magnitude: float) -> int:
    """__nv_cvt_*_to_e8m0(x, __NV_SATFINITE, cudaRoundPosInf) for finite |x|.

    |x| rounded up to a power of two 2**e, e clamped to [-127, 127];
    ``magnitude`` is already clamped to 2**127.
    """
    if magnitude == 0.0:
        return 0
    mantissa, exponent = math.frexp(magnitude)  # magnitude = mantissa * 2**exponent
    if mantissa == 0.5:  # an exact power of two
        exponent -= 1
    return max(exponent, -127) + 127
