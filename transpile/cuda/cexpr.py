"""The CUDA C++ spelling of every scalar operation, exact to ``values``.

Expressions in, expression out: a ``CExpr`` is a C++ expression tree
(``core.cxx``: each node with its precedence ``Prec``, after C++'s table,
and its children), so parentheses come from the tree, never from reading
text back.  Operands have the right C++ type (a plain
``str`` operand is a name); every spelling returned is an atom (a name, call
or parenthesised group, which keeps its inside for ``bare``) of exactly the
C++ type of its kdsl type, so it fits any context and any overloaded prelude
call.  A compound operand is parenthesised unless C++ reads it the same and
a reader would not miss the parentheses (``operand_of``): ``a * b + c``,
``i < n - 1``, ``a < b && c < d``, but ``(a & b) == c``.  A table
entry (``Form``) is data: a template tree whose holes (``A``, ``PA``, ``C``
…) take the operands, or an infix operator.

Spelling policy (the tables below are the whole of it):

* infix C++ operators wherever C++ already computes kdsl's result: float and
  double ``+ - * /`` (kdsl compiles with ``--fmad=false``: no contraction),
  ``__half``/``__nv_bfloat16`` ``+ - * /`` (cuda_fp16/bf16 round to the type
  after every operation; their ``/`` was checked correctly rounded for all
  2**32 operand pairs on sm_90), all comparisons, ``& | ^`` on 32/64/128-bit
  integers, unsigned 32/64/128-bit ``+ - *``;
* a functional cast back to the type where C++ promotes to ``int``:
  ``int8_t(a + b)`` for 8- and 16-bit integers, ``kdsl::i4(a + b)`` for
  Int4 (4-bit wrap);
* a ``kdsl::`` prelude call (``templates/prelude/*.h``) where plain C++
  would be undefined or compute something else: signed ``+ - *`` and
  negation, ``// % **``, shifts, float to integer (saturating, NaN to 0),
  128-bit conversions.

The prelude is split by what it needs, so that a kernel on floats and
integers includes no fp16/bf16/fp8 header (they multiply NVRTC time):
``headers``, ``prelude_parts`` and ``nvrtc_options`` say what a set of types
needs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from importlib import resources

from kdsl.transpile.core import values
from kdsl.transpile.core import cxx as tree
from kdsl.transpile.core.cxx import (  # noqa: F401  (the tree, re-exported)
    OPERATOR_PREC,
    CExpr,
    Prec,
    atom,
    bare,
    call,
    cast,
    conditional,
    hole,
    index,
    infix,
    init,
    lambda_,
    member,
    name,
    number,
    operand_of,
    prefix,
    template,
)
from kdsl.transpile.core.promotion import COMPARISON
from kdsl.transpile.core.types import (
    BFloat16,
    Boolean,
    Float4E2M1FN,
    Float6E2M3FN,
    Float6E3M2FN,
    Float8E4M3FN,
    Float8E5M2,
    Float8E8M0FNU,
    Float16,
    Float32,
    Float64,
    Int4,
    Int16,
    Int128,
    NumericMeta,
    Uint16,
    Uint128,
    VectorMeta,
)


# -- expressions: the tree (``tree``) ----------------------------------------------
def _operand(e: CExpr | str) -> CExpr:
    """An operand as given: a ``str`` is a name."""
    return tree.operand(e)


# -- type families ---------------------------------------------------------------
# The narrow floats CUDA has a type for (``__nv_fp8_e4m3`` …), with the header
# that defines it; the others live in a byte (``uint8_t``) and convert through
# kdsl's prelude.
CUDA_NARROW = {
    Float8E5M2: "cuda_fp8.h",
    Float8E4M3FN: "cuda_fp8.h",
    Float8E8M0FNU: "cuda_fp8.h",
    Float6E2M3FN: "cuda_fp6.h",
    Float6E3M2FN: "cuda_fp6.h",
    Float4E2M1FN: "cuda_fp4.h",
}


def _family(t) -> str:
    """bool, i4, small (8/16-bit ints), int (32/64-bit), i128, f32, f64, f16,
    bf16, narrow (a CUDA narrow type) or byte (a narrow float in a byte)."""
    if t is Boolean:
        return "bool"
    if t.kind == "int":
        if t is Int4:
            return "i4"
        if t.width < 32:
            return "small"
        return "i128" if t.width == 128 else "int"
    if t.kind == "narrow":
        return "narrow" if t in CUDA_NARROW else "byte"
    return {Float16: "f16", BFloat16: "bf16", Float32: "f32", Float64: "f64"}[t]


def _cast(t, a: CExpr) -> CExpr:
    """A conversion of ``a`` to ``t``'s C++ type, spelled as an atom."""
    if " " in t.c_name:  # unsigned __int128: no functional cast
        return atom(cast(t.c_name, a))
    return call(t.c_name, a)


def _byte_name(t) -> str:
    """``kdsl_f8e4m3fnuz`` for the narrow_floats.h functions of type ``t``."""
    return f"kdsl_{t.short}"


def _unsupported(what: str, *types) -> ValueError:
    names = ", ".join(t.__name__ for t in types)
    return ValueError(f"cexpr: no C++ spelling for {what} on {names}")


# -- binary operators ------------------------------------------------------------
A, B, PA, PB, C = (hole(slot) for slot in ("a", "b", "pa", "pb", "c"))


@dataclass(frozen=True)
class Form:
    """One table entry: a ``template``, a tree whose holes (``A``/``B``: the
    operands as call arguments; ``PA``/``PB``: as operands of an operator;
    ``C``: the operand type's C++ name) ``fill`` replaces, returning the
    result as an atom; or, for an infix operator ``op``, ``a op b`` with
    the operands parenthesised by ``operand_of``."""

    template: CExpr | None = None
    op: str | None = None  # an infix operator

    def fill(self, c: str, *operands: CExpr) -> CExpr:
        if self.op is not None:
            return atom(infix(self.op, *operands))
        slots = {"c": name(c)}
        for slot, e in zip("ab", operands):
            slots[slot], slots[f"p{slot}"] = bare(e), atom(e)
        return atom(tree.fill(self.template, slots))


def _infix(op: str) -> Form:
    return Form(op=op)


def _call(fn: str) -> Form:
    return Form(call(f"kdsl::{fn}", A, B))


def _cast_back(op: str, to: CExpr = C) -> Form:
    """``int8_t(a + b)``: an operation on promoted ints, cast back."""
    return Form(call(to, infix(op, PA, PB, "atom")))


_CMP = {op: _infix(op) for op in COMPARISON}
_BITWISE = {op: _infix(op) for op in "&|^"}

_FLOAT = {
    **_CMP,
    **{op: _infix(op) for op in "+-*/"},
    "//": _call("floordiv"),
    "%": _call("mod"),
}
_HALF = {**_FLOAT, "**": _call("pow")}

_INT_COMMON = {
    **_CMP,
    **_BITWISE,
    "//": _call("floordiv"),
    "%": _call("mod"),
    "**": _call("pow"),
    "<<": _call("shl"),
    ">>": _call("shr"),
}
_SIGNED_WIDE = {
    **_INT_COMMON,
    "+": _call("add"),
    "-": _call("sub"),
    "*": _call("mul"),
}
_UNSIGNED_WIDE = {**_INT_COMMON, **{op: _infix(op) for op in "+-*"}}
_SMALL = {**_INT_COMMON, **{op: _cast_back(op) for op in "+-*&|^"}}
# Int16 differences and products through kdsl::i16 (core.h): NVRTC makes
# 0 - x and x * -1 16-bit negations, which ptxas widens wrongly at -32768.
_INT16 = {**_SMALL, **{op: _cast_back(op, name("kdsl::i16")) for op in "-*"}}
_INT4 = {
    **_SMALL,
    **{op: _cast_back(op, name("kdsl::i4")) for op in "+-*"},
    "//": Form(call("kdsl::i4", call("kdsl::floordiv", A, B))),
    "**": Form(call("kdsl::i4", call("kdsl::pow", A, B))),
    "<<": _call("shl_i4"),
    ">>": _call("shr_i4"),
}
_BOOL = {
    **_CMP,
    "&": Form(call("bool", infix("&", PA, PB, "atom"))),
    "|": Form(call("bool", infix("|", PA, PB, "atom"))),
    "^": _infix("!="),
    "<<": _call("shl"),
    ">>": _call("shr"),
}

BINARY = {
    "bool": _BOOL,
    "i4": _INT4,
    "f32": {**_FLOAT, "**": Form(call("powf", A, B))},
    "f64": {**_FLOAT, "**": Form(call("pow", A, B))},
    "f16": _HALF,
    "bf16": _HALF,
}


def _binary_table(t) -> dict:
    family = _family(t)
    if family in BINARY:
        return BINARY[family]
    if family == "small":
        if t is Uint16:  # uint16_t * uint16_t overflows int
            return {**_SMALL, "*": _call("mul")}
        if t is Int16:  # 0 - x, x * -1: see kdsl::i16 in the prelude
            return _INT16
        return _SMALL
    if family in ("int", "i128"):
        return _SIGNED_WIDE if t.signed else _UNSIGNED_WIDE
    return {}


def binary(op: str, operand_type, result_type, a, b) -> CExpr:
    """``a op b``: operands of ``operand_type``, a value of ``result_type``."""
    form = _binary_table(operand_type).get(op)
    if form is None:
        raise _unsupported(f"binary {op!r}", operand_type)
    expected = Boolean if op in COMPARISON else operand_type
    if result_type is not expected:
        raise ValueError(
            f"cexpr: {operand_type.__name__} {op} gives {expected.__name__}, "
            f"not {result_type.__name__}"
        )
    return form.fill(operand_type.c_name, _operand(a), _operand(b))


# Integer operators spelled as C++'s own where the range analysis
# (``kdsl.transpile.passes.ranges``) proves C++ computes kdsl's result: no
# overflow, and non-negative operands for ``// % << >>`` (C++ truncates
# where Python floors; a shift of a negative value is not Python's).
PLAIN = {"+": "+", "-": "-", "*": "*", "//": "/", "%": "%", "<<": "<<", ">>": ">>"}


def plain(op: str, operand_type, a, b) -> CExpr:
    """``a op b`` by the plain C++ operator, on 32- or 64-bit integers whose
    ranges make it exact (the caller's proof)."""
    if _family(operand_type) != "int":
        raise _unsupported(f"plain {op!r}", operand_type)
    return atom(infix(PLAIN[op], _operand(a), _operand(b)))


# -- unary operators -------------------------------------------------------------
def _prefix(op: str) -> Form:
    return Form(prefix(op, PA))


_SAME = Form(PA)  # the operand itself (abs of an unsigned value)

UNARY = {
    "bool": {"~": _prefix("!")},
    "i4": {
        "-": Form(call("kdsl::i4", prefix("-", PA))),
        "~": Form(call("int8_t", prefix("~", PA))),
        "abs": Form(call("kdsl::i4", call("kdsl::abs", A))),
    },
    "f32": {"-": _prefix("-"), "abs": Form(call("fabsf", A))},
    "f64": {"-": _prefix("-"), "abs": Form(call("fabs", A))},
    "f16": {"-": _prefix("-"), "abs": Form(call("__habs", A))},
    "bf16": {"-": _prefix("-"), "abs": Form(call("__habs", A))},
}


def _unary_table(t) -> dict:
    family = _family(t)
    if family in UNARY:
        return UNARY[family]
    if family == "small":
        table = {
            "-": Form(call(C, prefix("-", PA))),
            "~": Form(call(C, prefix("~", PA))),
        }
        if t is Int16:  # see kdsl::i16 in the prelude
            table["-"] = Form(call("kdsl::i16", prefix("-", PA)))
    elif t.signed:
        table = {"-": Form(call("kdsl::neg", A)), "~": _prefix("~")}
    else:
        table = {"-": _prefix("-"), "~": _prefix("~")}
    table["abs"] = Form(call("kdsl::abs", A)) if t.signed else _SAME
    return table


def unary(op: str, t, a) -> CExpr:
    """``op a`` for ``-``, ``~`` (``not`` for Boolean), ``abs`` (and ``+``)."""
    form = _SAME if op == "+" and t is not Boolean else _unary_table(t).get(op)
    if form is None:
        raise _unsupported(f"unary {op!r}", t)
    if form is _SAME:
        return atom(_operand(a))
    return form.fill(t.c_name, _operand(a))


# -- conversions -----------------------------------------------------------------
_HALF_FROM_INT = {  # (signed, width) -> the cuda_fp16 intrinsic's type infix
    (True, 4): "short",
    (True, 8): "short",
    (True, 16): "short",
    (False, 8): "ushort",
    (False, 16): "ushort",
    (True, 32): "int",
    (False, 32): "uint",
    (True, 64): "ll",
    (False, 64): "ull",
}


def _as_float(src, a: CExpr) -> CExpr:
    """A half, bfloat16 or narrow value (call argument ``a``) widened
    (exactly) to float: a call."""
    family = _family(src)
    if family == "f16":
        return call("__half2float", a)
    if family == "bf16":
        return call("__bfloat162float", a)
    if family == "byte":
        return call(f"{_byte_name(src)}_to_float", a)
    return call("float", a)  # CUDA narrow types: explicit operator float


def _as_wide_float(src, a: CExpr) -> tuple[str, CExpr]:
    """(``float`` or ``double``, ``a`` as that type): what an integer, Boolean
    or narrow value goes through on its way to a narrow float."""
    family = _family(src)
    if family == "i128":
        return "double", call("kdsl::to_f64", a)
    if family == "int" and src.width == 64:
        return "double", call("double", a)
    if family in ("f16", "bf16", "narrow", "byte"):
        return "float", _as_float(src, a)
    return "float", call("float", a)


def _to_int(src, dst, a: CExpr) -> CExpr:
    family = _family(src)
    if family in ("bool", "i4", "small", "int", "i128"):
        return call("kdsl::i4", a) if dst is Int4 else _cast(dst, a)
    x = bare(a)
    if family in ("f16", "bf16", "narrow", "byte"):
        x = _as_float(src, x)
    return call(f"kdsl::to_{dst.short}", x)


def _to_bool(src, a: CExpr) -> CExpr:
    family = _family(src)
    if family in ("i4", "small", "int", "i128"):
        value, zero = atom(a), "0"
    elif family in ("f32", "f64"):
        value, zero = atom(a), "0.0f" if family == "f32" else "0.0"
    else:
        value, zero = _as_float(src, bare(a)), "0.0f"
    return atom(infix("!=", value, number(zero), "as_is"))


def _to_f32(src, a: CExpr) -> CExpr:
    family = _family(src)
    if family == "i128":
        return call("kdsl::to_f32", a)
    if family in ("f16", "bf16", "narrow", "byte"):
        return _as_float(src, a)
    return call("float", a)  # int -> float rounds to nearest even in CUDA


def _to_f64(src, a: CExpr) -> CExpr:
    family = _family(src)
    if family == "i128":
        return call("kdsl::to_f64", a)
    if family in ("f16", "bf16", "narrow", "byte"):
        return call("double", _as_float(src, a))
    return call("double", a)


def _to_half(src, dst, a: CExpr) -> CExpr:
    """To ``__half`` or ``__nv_bfloat16`` with one rounding."""
    h = "half" if dst is Float16 else "bfloat16"
    family = _family(src)
    if family == "i128":
        return call(f"kdsl::to_{dst.short}", a)
    # Integers of up to 32 bits go through float (up to 16 bits) or double
    # (32), exactly, then round once: ptxas (CUDA 13.0) drops CUDA's direct
    # int -> half conversions (cvt.rn.f16/bf16.s32 ...) of a 0/1 select
    # whose bits a predicated branch stores (docs/reliability.md, "Known GPU
    # miscompiles").
    if family == "bool" or family in ("i4", "small"):
        return call(f"__float2{h}_rn", call("float", a))
    if family == "int" and src.width == 32:
        return call(f"__double2{h}", call("double", a))
    if family == "int":
        return call(f"__{_HALF_FROM_INT[src.signed, src.width]}2{h}_rn", a)
    if family == "f32":
        return call(f"__float2{h}_rn", a)
    if family == "f64":
        return call(f"__double2{h}", a)
    return call(f"__float2{h}_rn", _as_float(src, a))


def _to_narrow(src, dst, a: CExpr) -> CExpr:
    """To a narrow float.  A CUDA type converts with its constructor from the
    source's own float type (``values`` folds what that constructor does);
    anything else goes through float, or double for integers wider than 32
    bits.  Narrow formats stored in a byte use narrow_floats.h."""
    family = _family(src)
    if _family(dst) == "narrow":
        if family in ("f32", "f64", "f16", "bf16"):
            return call(dst.c_name, a)
        return call(dst.c_name, _as_wide_float(src, a)[1])
    if family in ("f32", "f64"):
        wide, value = ("double" if family == "f64" else "float"), a
    else:
        wide, value = _as_wide_float(src, a)
    return call(f"{_byte_name(dst)}_from_{wide}", value)


def convert(src, dst, a) -> CExpr:
    """``a.to(dst)`` for a value ``a`` of scalar type ``src``."""
    a = _operand(a)
    if src is dst:
        return atom(a)
    family = _family(dst)
    if family in ("i4", "small", "int", "i128"):
        return _to_int(src, dst, a)
    if family == "bool":
        return _to_bool(src, a)
    if family == "f32":  # the rest are calls of the call argument bare(a)
        return _to_f32(src, bare(a))
    if family == "f64":
        return _to_f64(src, bare(a))
    if family in ("f16", "bf16"):
        return _to_half(src, dst, bare(a))
    return _to_narrow(src, dst, bare(a))


# -- bitcasts --------------------------------------------------------------------
_BITCAST = {  # CUDA's own reinterpreting intrinsics, by (src, dst) C++ names
    ("float", "int32_t"): "__float_as_int",
    ("float", "uint32_t"): "__float_as_uint",
    ("int32_t", "float"): "__int_as_float",
    ("uint32_t", "float"): "__uint_as_float",
    ("double", "int64_t"): "__double_as_longlong",
    ("int64_t", "double"): "__longlong_as_double",
    ("__half", "int16_t"): "__half_as_short",
    ("__half", "uint16_t"): "__half_as_ushort",
    ("int16_t", "__half"): "__short_as_half",
    ("uint16_t", "__half"): "__ushort_as_half",
    ("__nv_bfloat16", "int16_t"): "__bfloat16_as_short",
    ("__nv_bfloat16", "uint16_t"): "__bfloat16_as_ushort",
    ("int16_t", "__nv_bfloat16"): "__short_as_bfloat16",
    ("uint16_t", "__nv_bfloat16"): "__ushort_as_bfloat16",
}


def bitcast(src, dst, a) -> CExpr:
    """``a.bitcast(dst)``: the bits of ``a`` (of ``src``) seen as ``dst``."""
    if src.width != dst.width or Boolean in (src, dst):
        raise _unsupported("bitcast", src, dst)
    a = _operand(a)
    if src is dst or src.c_name == dst.c_name:  # e.g. Uint8 and a byte float
        return atom(a)
    if src is Int4:  # the low 4 bits of the int8_t
        low = call("uint8_t", infix("&", atom(a), number("15"), "as_is"))
        return call(template("kdsl::bitcast", dst.c_name), low)
    if dst is Int4:
        return call("kdsl::i4", call(template("kdsl::bitcast", "uint8_t"), a))
    intrinsic = _BITCAST.get((src.c_name, dst.c_name))
    if intrinsic:
        return call(intrinsic, a)
    if src.kind == "int" and dst.kind == "int":  # same width, other signedness
        return _cast(dst, a)
    if _family(src) == "byte" and dst.kind == "int":
        return _cast(dst, a)
    if _family(dst) == "byte" and src.kind == "int":
        return _cast(dst, a)
    return call(template("kdsl::bitcast", dst.c_name), a)


# -- literals --------------------------------------------------------------------
def _int_literal(t, value: int) -> CExpr:
    value = values.wrap(int(value), t)
    if t.width == 128:
        if -(1 << 63) <= value < (1 << 63) and t.signed:
            return call("__int128", _int_literal(_I64, value), bare_args=False)
        if 0 <= value < (1 << 64) and not t.signed:
            return atom(cast("unsigned __int128", number(f"{value}ull")))
        bits = value & ((1 << 128) - 1)
        maker = "int128" if t.signed else "uint128"
        low = bits & ((1 << 64) - 1)
        high = number(f"{bits >> 64:#x}ull")
        return call(f"kdsl::{maker}", high, number(f"{low:#x}ull"))
    suffix = {32: "", 64: "ll"}.get(t.width)
    if suffix is None:
        return call(t.c_name, number(str(value)))
    if not t.signed:
        return number(f"{value}u{suffix}")
    if value == -(1 << (t.width - 1)):  # its magnitude is no literal of the type
        least = infix("-", number(f"-{-value - 1}{suffix}"), number("1"), "as_is")
        return atom(least)
    return number(f"{value}{suffix}")


class _I64:
    width, signed = 64, True


def _round_exact(x: Fraction, t) -> float:
    """The decimal ``x`` rounded to nearest even in float type ``t``, exactly
    (as a C++ compiler reads a floating literal)."""
    if x == 0:
        return 0.0
    e = math.floor(math.log2(abs(x)))
    e += 1 if Fraction(2) ** e * 2 <= abs(x) else 0  # log2 may be off by one
    e -= 1 if Fraction(2) ** e > abs(x) else 0
    quantum = Fraction(2) ** (max(e, t.min_exponent) - t.mantissa)
    rounded = round(x / quantum) * quantum  # Fraction rounds half to even
    try:
        return values.round_float(float(rounded), t)  # overflow to inf
    except OverflowError:
        return math.copysign(math.inf, x)


def _decimal(value: float, reads_back) -> str:
    """The shortest decimal for which ``reads_back`` holds, readably."""
    for digits in range(1, 18):
        text = f"{value:.{digits}g}"
        if reads_back(Fraction(text)):
            break
    text = repr(float(text))  # positional for 1e-4 <= |x| < 1e16
    return "-0.0" if value == 0 and math.copysign(1, value) < 0 else text


def _f32_text(value: float) -> str:
    """A float literal: ``0.1f``."""
    return _decimal(value, lambda x: _round_exact(x, Float32) == value) + "f"


def _half_literal(t, value: float) -> CExpr:
    """``__float2half_rn(0.1f)``: the shortest float literal that rounds (as
    the call does) back to the value; inf and NaN by their bits."""
    h = "half" if t is Float16 else "bfloat16"

    def reads_back(x):
        return values.round_float(_round_exact(x, Float32), t) == value

    return call(f"__float2{h}_rn", number(f"{_decimal(value, reads_back)}f"))


def literal(t, value) -> CExpr:
    """A static value of type ``t`` as a C++ expression of ``t``'s C++ type."""
    family = _family(t)
    if family == "bool":
        return number("true" if value else "false")
    if t.kind == "int":
        return _int_literal(t, value)
    if math.isinf(value) and family in ("f32", "f64"):  # <math.h>'s INFINITY
        inf = name("INFINITY")
        inf = inf if family == "f32" else call("double", inf)
        return prefix("-", inf) if value < 0 else inf
    if not math.isfinite(value):  # by their bits (a NaN keeps its payload)
        bits = values.to_bits(value, t)
        if family == "f32":
            return call("__int_as_float", number(f"{bits:#010x}"))
        if family == "f64":
            return call("__longlong_as_double", number(f"{bits:#018x}ll"))
        if family in ("f16", "bf16"):
            h = "half" if t is Float16 else "bfloat16"
            return call(f"__ushort_as_{h}", number(f"{bits:#06x}"))
    value = float(value)
    if family == "f32":
        return number(_f32_text(value))
    if family == "f64":
        return number(repr(value))
    if family in ("f16", "bf16"):
        return _half_literal(t, value)
    if not math.isfinite(value):  # narrow: by the bits above (constructors saturate)
        byte = call("uint8_t", number(f"{bits:#04x}"))
        if family == "byte":
            return byte
        return call(template("kdsl::bitcast", t.c_name), byte)
    if family == "byte":
        return call(f"{_byte_name(t)}_from_float", number(_f32_text(value)))
    return call(t.c_name, number(_f32_text(value)))


def string_literal(text: str) -> str:
    """``text`` as a C string literal: printable ASCII as it is (``"`` and
    ``\\`` escaped), newline and tab as ``\\n`` and ``\\t``, any other byte of
    its UTF-8 as a three-digit octal escape."""
    out = []
    for byte in text.encode("utf-8"):
        ch = chr(byte)
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif 0x20 <= byte < 0x7F:
            out.append(ch)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


_ESCAPES = {"\n": "\\n", "\t": "\\t"}


# -- headers, prelude, NVRTC options ---------------------------------------------
def _scalars(types) -> set:
    out = set()
    for t in types:
        if isinstance(t, VectorMeta):
            t = t.dtype
        if isinstance(t, NumericMeta):
            out.add(t)
    return out


def headers(types) -> list[str]:
    """The CUDA headers that code on these scalar types needs, in order."""
    used = _scalars(types)
    out = []
    if Float16 in used:
        out.append("cuda_fp16.h")
    if BFloat16 in used:
        out.append("cuda_bf16.h")
    for header in ("cuda_fp8.h", "cuda_fp6.h", "cuda_fp4.h"):
        if any(CUDA_NARROW.get(t) == header for t in used):
            out.append(header)
    return out


def prelude_parts(types) -> list[str]:
    """The files of ``templates/prelude`` that code on these types needs, in
    include order (after the CUDA ``headers``)."""
    used = _scalars(types)
    parts = ["core.h"]
    if Float16 in used:
        parts.append("half.h")
    if BFloat16 in used:
        parts.append("bfloat16.h")
    if Int128 in used or Uint128 in used:
        parts.append("int128.h")
    if any(_family(t) == "byte" for t in used):
        parts.append("narrow_floats.h")
    return parts


def nvrtc_options(types) -> list[str]:
    """NVRTC options that code on these types needs (``__int128``)."""
    used = _scalars(types)
    return ["--device-int128"] if Int128 in used or Uint128 in used else []


def prelude_file(name: str) -> str:
    """The text of one prelude file."""
    return resources.files("kdsl.templates.prelude").joinpath(name).read_text()


def prelude(types) -> str:
    """``#include`` lines and the prelude text for code on these types."""
    lines = [f"#include <{h}>" for h in headers(types)]
    text = "\n".join(lines) + "\n\n" if lines else ""
    return text + "\n".join(prelude_file(p) for p in prelude_parts(types))
