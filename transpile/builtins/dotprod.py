"""Byte dot products with a 32-bit accumulator, one registry entry each:
``kdsl.dp4a(a, b, c)``, ``kdsl.dp2a_lo(a, b, c)`` and ``kdsl.dp2a_hi(a, b,
c)``, CUDA's ``__dp4a``, ``__dp2a_lo`` and ``__dp2a_hi``.

Each has a signed form (Int32 words, the result an Int32) and an unsigned
one (Uint32 words, a Uint32).  A packed operand may also be the vector its
word holds: ``Int8x4``/``Uint8x4`` for the four bytes, ``Int16x2``/
``Uint16x2`` for ``dp2a``'s two halves (byte and half 0 are the low bits, as
in CUDA's ``char4``/``short2``); it is bitcast to its word.  The sum wraps
modulo 2**32 like CUDA's.  Static words fold on Python ints; the
interpreter computes the same on numpy lanes.
"""

from __future__ import annotations

import numpy as np

from kdsl.transpile import ir
from kdsl.transpile.builtins.registry import register, want_args
from kdsl.transpile.core import arith, values
from kdsl.transpile.core.cxx import call
from kdsl.transpile.core.types import (
    Int8,
    Int16,
    Int32,
    Uint8,
    Uint16,
    Uint32,
    Vector,
    vector_type,
)
from kdsl.transpile.errors import error

# the vector each packed operand may be given as: (signed, unsigned)
_BYTES = (vector_type(Int8, 4), vector_type(Uint8, 4))
_HALVES = (vector_type(Int16, 2), vector_type(Uint16, 2))
_PACKED = {"dp4a": (_BYTES, _BYTES), "dp2a_lo": (_HALVES, _BYTES)}
_PACKED["dp2a_hi"] = _PACKED["dp2a_lo"]
_CUDA = {"dp4a": "__dp4a", "dp2a_lo": "__dp2a_lo", "dp2a_hi": "__dp2a_hi"}


def _parts(word: int, bits: int, count: int, signed: bool) -> list[int]:
    """The ``count`` fields of ``bits`` bits of a 32-bit word, low first."""
    mask = (1 << bits) - 1
    out = []
    for k in range(count):
        v = (word >> (bits * k)) & mask
        if signed and v >> (bits - 1):
            v -= 1 << bits
        out.append(v)
    return out


def fold(name: str, a: int, b: int, c: int, signed: bool) -> int:
    """The exact result of ``name`` on Python ints (before wrapping)."""
    if name == "dp4a":
        xs, ys = _parts(a, 8, 4, signed), _parts(b, 8, 4, signed)
    else:
        xs = _parts(a, 16, 2, signed)
        ys = _parts(b, 8, 4, signed)[2:] if name == "dp2a_hi" else None
        ys = ys or _parts(b, 8, 4, signed)[:2]
    return sum(x * y for x, y in zip(xs, ys)) + c


def _lane_parts(word, bits: int, count: int, signed: bool) -> list:
    """The same on a lane array of 32-bit words, as int64 lanes."""
    u = word.astype(np.uint32).astype(np.int64)
    mask, out = (1 << bits) - 1, []
    for k in range(count):
        v = (u >> (bits * k)) & mask
        if signed:
            v = np.where(v >> (bits - 1) != 0, v - (1 << bits), v)
        out.append(v)
    return out


def _interpret(t, call, args, mask):
    a, b, c = args
    signed = call.type is Int32
    if call.builtin == "dp4a":
        xs, ys = _lane_parts(a, 8, 4, signed), _lane_parts(b, 8, 4, signed)
    else:
        xs, ys = _lane_parts(a, 16, 2, signed), _lane_parts(b, 8, 4, signed)
        ys = ys[2:] if call.builtin == "dp2a_hi" else ys[:2]
    total = c.astype(np.int64)
    for x, y in zip(xs, ys):
        total = total + x * y
    return total.astype(np.uint32).view(np.int32 if signed else np.uint32)


def _word(n, packed: tuple):
    """A packed vector operand as its word; other operands as they are."""
    if isinstance(n, Vector) and type(n) in packed:
        return n.bitcast(Int32 if type(n) is packed[0] else Uint32)
    return n


def _accepts(n, t) -> bool:
    if isinstance(n, Vector):
        return False
    return type(n) is t or (n.is_static() and type(n).kind == "int")


def _lower(lw, entry, args, kwargs):
    want_args(entry, args, 3)
    a_packed, b_packed = _PACKED[entry.name]
    nums = [arith.as_numeric(v) for v in args]
    nums = [_word(nums[0], a_packed), _word(nums[1], b_packed), nums[2]]
    signed = (Int32, Int32, Int32)
    unsigned = (Uint32, Uint32, Uint32)
    fits = [f for f in (signed, unsigned) if all(map(_accepts, nums, f))]
    if not fits:
        got = "(" + ", ".join(type(n).__name__ for n in nums) + ")"
        first = type(nums[0]) if not isinstance(nums[0], Vector) else None
        form = unsigned if first is Uint32 else signed
        bad = next(k for k, n in enumerate(nums) if not _accepts(n, form[k]))
        a_vec, b_vec = (a_packed[0].__name__, b_packed[0].__name__)
        ua_vec, ub_vec = (a_packed[1].__name__, b_packed[1].__name__)
        raise error(
            "integer-intrinsic-operand",
            callee=entry.spelled,
            takes=(
                f"(Int32 or {a_vec}, Int32 or {b_vec}, Int32) or "
                f"(Uint32 or {ua_vec}, Uint32 or {ub_vec}, Uint32)"
            ),
            got=got,
            want=form[bad].__name__,
        )
    exact = [sum(type(n) is t for n, t in zip(nums, f)) for f in fits]
    form = fits[exact.index(max(exact))]
    nums = [arith.convert(n, t) for n, t in zip(nums, form)]
    result = form[0]
    if all(n.is_static() for n in nums):
        words = [n.value & 0xFFFFFFFF for n in nums[:2]]
        total = fold(entry.name, *words, nums[2].value, result is Int32)
        return result._static(values.wrap(total, result))
    call = ir.BuiltinCall(result, entry.name, tuple(n.ir_value() for n in nums))
    return result._dynamic(call)


_WHAT = {
    "dp4a": "the dot product of the four bytes of `a` and of `b`, plus `c`",
    "dp2a_lo": "the dot product of the two 16-bit halves of `a` and the two low "
    "bytes of `b`, plus `c`",
    "dp2a_hi": "the dot product of the two 16-bit halves of `a` and the two high "
    "bytes of `b`, plus `c`",
}
for _name, _what in _WHAT.items():
    _a, _b = (v[0].__name__ for v in _PACKED[_name])
    register(
        _name,
        f"`kdsl.{_name}(a, b, c)`: {_what}, modulo 2**32: Int32 words (or "
        f"`{_a}`, `{_b}`) and an Int32 `c` give an Int32, the Uint32 forms a "
        f"Uint32; CUDA's `{_CUDA[_name]}`",
        _lower,
        cuda=lambda r, c, args: call(_CUDA[c.builtin], *args),
        interpret=_interpret,
    )
