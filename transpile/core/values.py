"""Exact value semantics: what every operation computes, for folding.

These functions work on plain Python values (``int`` for integers, ``bool``
for Boolean, ``float`` holding the exactly rounded value for every float type,
narrow floats included).  The generated CUDA C++ computes the same results;
the GPU differential tests prove it.  In short (SPEC section 2):

* integers wrap at their width; ``//`` and ``%`` floor like Python;
* shifts by a count outside ``[0, width)`` shift everything out;
* Float16/BFloat16/Float32 results are rounded to nearest even after every
  operation; ``+ - * /`` are computed exactly enough in float64 that the one
  rounding is correct, ``//`` and ``%`` follow numpy's ``divmod`` algorithm in
  float32 (float64 for Float64), as the generated code does;
* float to integer truncates toward zero and saturates, NaN becoming 0;
* a NaN result has the bits the GPU gives (``converted_nan``, ``gpu_nan``),
  but for Float64 arithmetic, which keeps the host's;
* narrow floats convert as CUDA's conversion intrinsics do (``narrow``).
"""

from __future__ import annotations

import math
import operator
import struct

import numpy as np

from kdsl.transpile.core import narrow, types


# -- integers -----------------------------------------------------------------
def wrap(value: int, t) -> int:
    """``value`` reduced to the two's complement range of integer type ``t``."""
    mask = (1 << t.width) - 1
    value &= mask
    if t.signed and value >> (t.width - 1):
        value -= 1 << t.width
    return value


def _int_pow(base: int, exp: int, t) -> int:
    if exp < 0:  # 1 / base**-exp truncated toward zero
        if base == 1:
            return 1
        if base == -1:
            return -1 if exp % 2 else 1
        return 0
    return wrap(pow(base, exp, 1 << t.width), t)


def _shift(op: str, a: int, count: int, t) -> int:
    if count < 0 or count >= t.width:
        return -1 if (op == ">>" and a < 0) else 0
    return wrap(a << count, t) if op == "<<" else a >> count


def _int_binary(op: str, a: int, b: int, t):
    if op in ("//", "%") and b == 0:
        raise ZeroDivisionError(op)
    if op == "+":
        return wrap(a + b, t)
    if op == "-":
        return wrap(a - b, t)
    if op == "*":
        return wrap(a * b, t)
    if op == "//":
        return wrap(a // b, t)
    if op == "%":
        return wrap(a % b, t)
    if op == "**":
        return _int_pow(a, b, t)
    if op == "&":
        return wrap(a & b, t)
    if op == "|":
        return wrap(a | b, t)
    if op == "^":
        return wrap(a ^ b, t)
    return _shift(op, a, b, t)


# -- floats -------------------------------------------------------------------
def finite_limit(t) -> float:
    """The largest finite value of an IEEE-style float type."""
    return math.ldexp(2.0 - math.ldexp(1.0, -t.mantissa), 1 - t.min_exponent)


def round_float(x: float, t) -> float:
    """``x`` (a float64) rounded to nearest even in float type ``t``."""
    if t.width == 64 or math.isnan(x) or math.isinf(x) or x == 0.0:
        return x
    _, e = math.frexp(x)  # x = m * 2**e with 0.5 <= |m| < 1
    quantum = max(e - 1, t.min_exponent) - t.mantissa
    try:
        rounded = math.ldexp(round(math.ldexp(x, -quantum)), quantum)
    except OverflowError:  # rounded up to 2**1024: beyond float64 too
        return math.copysign(math.inf, x)
    if abs(rounded) > finite_limit(t):
        return math.copysign(math.inf, x)
    return rounded if rounded != 0.0 else math.copysign(0.0, x)


def int_to_float(n: int, t) -> float:
    """The integer ``n`` rounded to nearest even in float type ``t``."""
    precision = t.mantissa + 1
    extra = abs(n).bit_length() - precision
    if extra > 0:  # drop `extra` low bits, rounding half to even
        q, r = divmod(abs(n), 1 << extra)
        half = 1 << (extra - 1)
        if r > half or (r == half and q & 1):
            q += 1
        n = (q << extra) * (1 if n > 0 else -1)
    try:
        value = float(n)
    except OverflowError:
        return math.copysign(math.inf, n)
    return round_float(value, t)


_DIVMOD_FLOAT = {16: np.float32, 32: np.float32, 64: np.float64}


def _float_binary(op: str, a: float, b: float, t):
    compute = _DIVMOD_FLOAT[t.width] if op in ("//", "%", "**") else np.float64
    x, y = compute(a), compute(b)
    with np.errstate(all="ignore"):
        if op == "+":
            r = x + y
        elif op == "-":
            r = x - y
        elif op == "*":
            r = x * y
        elif op == "/":
            r = x / y
        elif op == "//":
            r = np.floor_divide(x, y)
        elif op == "%":
            r = np.remainder(x, y)
        else:  # C's pow: numpy's 0-d power takes sqrt for y == 0.5, which
            # differs from pow at -0.0 and -inf; a one-element array does not
            r = np.power(np.array([x]), np.array([y]))[0]
    return gpu_nan(round_float(float(r), t), t)


# -- the operations -------------------------------------------------------------
COMPARE = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}


def binary(op: str, a, b, t):
    """``a op b`` for two values of operand type ``t``.

    Comparisons return a ``bool``; integer ``//`` or ``%`` by zero raises
    ``ZeroDivisionError`` (the caller turns it into a compile error).
    """
    if op in COMPARE:
        return COMPARE[op](a, b)
    if t.kind == "bool":
        return bool(_int_binary(op, int(a), int(b), _BOOL_AS_INT))
    if t.kind == "int":
        return _int_binary(op, a, b, t)
    return _float_binary(op, a, b, t)


class _BoolAsInt:
    """Boolean in bitwise operations: an unsigned one-bit integer."""

    width, signed = 1, False


_BOOL_AS_INT = _BoolAsInt


def unary(op: str, a, t):
    """``op a`` for a value of type ``t`` (``-``, ``+``, ``~``, ``abs``)."""
    if t.kind == "bool":
        assert op == "~"
        return not a
    if op == "+":
        return a
    if t.kind == "int":
        return wrap({"-": -a, "~": ~a, "abs": abs(a)}[op], t)
    if t.width == 16 and _is_nan(a):  # __hneg/__habs: the canonical NaN
        return NaNBits(CANONICAL_NAN[t.__name__], t.__name__)
    if isinstance(a, NaNBits) and a.type_name == t.__name__:  # a sign-bit operation
        sign = 1 << (t.width - 1)
        return NaNBits(a.bits ^ sign if op == "-" else a.bits & ~sign, a.type_name)
    return -a if op == "-" else abs(a)


# -- conversions ----------------------------------------------------------------
def float_to_int(x: float, t) -> int:
    """Truncate toward zero and saturate; NaN becomes 0."""
    if math.isnan(x):
        return 0
    if math.isinf(x):
        return t.max() if x > 0 else t.min()
    return max(t.min(), min(t.max(), math.trunc(x)))


def convert(value, src, dst):
    """The value of ``src`` converted to ``dst`` (the semantics of ``.to()``)."""
    if src is dst:
        return value
    if dst.kind == "bool":
        return value != 0  # NaN is nonzero, as in C
    if src.kind == "bool":
        value = int(value)
        src = None
    elif _is_nan(value) and dst.kind in ("float", "narrow"):
        return from_bits(converted_nan(to_bits(value, src), src, dst), dst)
    if dst.kind == "int":
        if isinstance(value, float):
            return float_to_int(value, dst)
        return wrap(value, dst)
    if dst.kind == "narrow":
        return _to_narrow(value, src, dst)
    if isinstance(value, int):
        return int_to_float(value, dst)
    return round_float(value, dst)


def from_python(value, dst):
    """A Python ``bool``, ``int`` or ``float`` cast to ``dst`` (constructors)."""
    if isinstance(value, bool):
        return convert(value, types.Boolean, dst)
    if isinstance(value, int):
        return wrap(value, dst) if dst.kind == "int" else convert(value, _ANY_INT, dst)
    if math.isnan(value) and dst.kind in ("float", "narrow"):
        # a constant, not a conversion on the GPU: the host's NaN (numpy's
        # bits in the type), the format's NaN for a narrow float
        return math.nan if dst.kind == "narrow" else float(value)
    return convert(float(value), types.Float64, dst)


class _ANY_INT:
    """A Python int of any size as a conversion source."""

    kind, width, signed = "int", 128, True


def _to_narrow(value, src, dst) -> float:
    """Encode into a narrow float as CUDA's conversion from ``src`` does.

    Integers go through Float32 (Float64 when wider than 32 bits) first,
    exactly as the generated code does; narrow sources go through float.
    """
    source = _NARROW_SOURCE.get(getattr(src, "__name__", None), "float")
    if isinstance(value, int):
        wide = src is not None and src.width > 32
        value = int_to_float(value, types.Float64 if wide else types.Float32)
        source = "double" if wide else "float"
    return narrow.decode(dst.__name__, narrow.encode(dst.__name__, value, source))


_NARROW_SOURCE = {"Float64": "double", "Float16": "half", "BFloat16": "bfloat16"}


# -- the GPU's NaN encodings -----------------------------------------------------
# What the generated code gives for a NaN (docs/types.md, "NaN payloads",
# has the sources: H200 measurements and CUDA 13's headers).  Float32,
# Float16 and BFloat16 arithmetic gives the canonical NaN; so do the
# conversions into them, except from BFloat16 and Float8E8M0FNU to Float32
# (moves of bfloat16 bits) and from Float64 (sign and top payload bits
# kept, quieted); into Float64 the Float32 NaN is widened; into a
# narrow format, ``narrow.encode`` (only a double source's bits matter).
# Float64 arithmetic keeps the host's payload (left open on the GPU).
CANONICAL_NAN = {"Float16": 0x7FFF, "BFloat16": 0x7FFF, "Float32": 0x7FFFFFFF}


def _is_nan(value) -> bool:
    return isinstance(value, float) and math.isnan(value)


def gpu_nan(value, t):
    """``value``, or the GPU's canonical NaN of ``t`` if it is a NaN (for
    the results of Float32/Float16/BFloat16 arithmetic)."""
    if _is_nan(value) and t.__name__ in CANONICAL_NAN:
        return NaNBits(CANONICAL_NAN[t.__name__], t.__name__)
    return value


_FLOAT_FIELDS = {"Float16": (5, 10), "BFloat16": (8, 7), "Float32": (8, 23)}


def converted_nan(bits: int, src, dst) -> int:
    """The bits of the NaN that the generated conversion from ``src`` to
    ``dst`` (float or narrow types) gives for the ``src`` NaN ``bits``."""
    name = dst.__name__
    if src is dst:
        return bits
    if dst.kind == "narrow":
        source = _NARROW_SOURCE.get(src.__name__, "float")
        value = _double(bits)
        if source != "double":  # only the double path reads the NaN's bits
            value = math.nan
        return narrow.encode(name, value, source)
    if src.__name__ == "Float64" and name in _FLOAT_FIELDS:
        # cvt from f64 (measured on the H200): the sign kept, the payload's
        # top bits kept, the quiet bit set
        e, m = _FLOAT_FIELDS[name]
        payload = (bits & (1 << 52) - 1) >> (52 - m) | 1 << (m - 1)
        return (bits >> 63) << (e + m) | ((1 << e) - 1) << m | payload
    if name in ("Float16", "BFloat16"):
        return CANONICAL_NAN[name]  # cvt.rn.f16/bf16: the canonical NaN
    f32 = bits if src.__name__ == "Float32" else CANONICAL_NAN["Float32"]
    if src.__name__ == "BFloat16":
        f32 = bits << 16  # __bfloat162float is a move
    elif src.__name__ == "Float8E8M0FNU":
        f32 = 0x7FFF0000  # __nv_fp8_e8m0 widens through bfloat16's 0x7FFF
    if name == "Float32":
        return f32
    # to Float64: cvt.f64.f32 widens the (quieted) Float32 payload
    return (f32 >> 31) << 63 | 0x7FF << 52 | 1 << 51 | (f32 & 0x7FFFFF) << 29


# -- bit patterns ---------------------------------------------------------------
class NaNBits(float):
    """A NaN that remembers its exact bit pattern in one type.

    Reinterpreting bits keeps NaN payloads and signs on the GPU, so a static
    ``bitcast`` must too; arithmetic on it gives an ordinary NaN (as the GPU
    gives its canonical one), which is compared as "any NaN".
    """

    def __new__(cls, bits: int, type_name: str):
        # a Float64 NaN is the float of its bits (host arithmetic keeps its
        # payload, as the interpreter's does)
        value = _double(bits) if type_name == "Float64" else math.nan
        obj = super().__new__(cls, value)
        obj.bits, obj.type_name = bits, type_name
        return obj


def _double(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def to_bits(value, t) -> int:
    """The unsigned bit pattern of ``value`` in type ``t``."""
    if t.kind in ("int", "bool"):
        return int(value) & ((1 << t.width) - 1)
    if isinstance(value, NaNBits) and value.type_name == t.__name__:
        return value.bits
    if t.kind == "narrow":
        if math.isinf(value):  # a stored narrow inf exists only if the format has one
            return int(np.array(value, dtype=t.np_dtype).view(np.uint8))
        return narrow.encode(t.__name__, value)
    uint = np.dtype(f"u{t.width // 8}")
    return int(np.array(value, dtype=t.np_dtype).view(uint))


def from_bits(bits: int, t):
    """The value of type ``t`` whose bit pattern is ``bits``."""
    if t.kind == "bool":
        return bool(bits & 1)
    if t.kind == "int":
        return wrap(bits, t)
    if t.kind == "narrow":
        value = narrow.decode(t.__name__, bits)
    else:
        uint = np.dtype(f"u{t.width // 8}")
        value = float(np.array(bits, dtype=uint).view(t.np_dtype))
    return NaNBits(bits, t.__name__) if math.isnan(value) else value
