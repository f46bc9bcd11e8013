"""kdsl's value semantics on numpy arrays: one element per GPU thread.

The interpreter runs the threads of a batch of blocks in lock-step, so every
run-time value is an array (a *lane array*) with one element per thread.
These functions compute exactly what ``kdsl.transpile.core.values`` folds — the
GPU differential tests prove the generated code computes the same — but on
whole arrays at numpy speed.  ``tests/unit/test_lanes.py`` checks them
against ``values`` on the same edge-value table the GPU tests use.

Lane arrays hold each type in its own numpy dtype (``lane_dtype``): native
integers wrap like kdsl's, Float16 arithmetic rounds once from float32 and
BFloat16's (ml_dtypes) likewise, both exact for ``+ - * /`` because float32
has more than twice their precision plus two bits.  Int4 is held sign-extended
in int8 and wrapped after each operation.  What numpy cannot do exactly —
128-bit integers, narrow-float conversions, integer ``**``, shifts of
Boolean, conversions where numpy would round twice — goes through ``values``
one element at a time (``_each``).
"""

from __future__ import annotations

import math
import operator

import ml_dtypes
import numpy as np

from kdsl.transpile.core import mathfns, values
from kdsl.transpile.core.types import BFloat16, Float64, Int8

_ARITHMETIC = {  # numpy applies these lane by lane, in the operands' dtype
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "&": operator.and_,
    "|": operator.or_,
    "^": operator.xor,
}
_WRAPPING = ("+", "-", "*", "&", "|", "^")  # exact on integers after _fix


# -- representation ---------------------------------------------------------------
def lane_dtype(t) -> np.dtype:
    """The numpy dtype lane arrays of scalar type ``t`` use."""
    if t.kind == "bool":
        return np.dtype(np.bool_)
    if t.kind == "int" and t.width == 4:
        return np.dtype(np.int8)
    if t.np_dtype is None:  # 128-bit integers: Python ints
        return np.dtype(object)
    return np.dtype(t.np_dtype)


def _by_element(t) -> bool:
    """Whether ``t`` is computed one element at a time through ``values``."""
    return t.kind == "narrow" or (t.kind == "int" and t.width == 128)


def full(n: int, value, t) -> np.ndarray:
    """``n`` lanes holding the (exact) value ``value`` of type ``t``."""
    if isinstance(value, values.NaNBits) or t.kind == "narrow":
        return np.repeat(from_values([value], t), n)  # the exact bits
    return np.full(n, value, dtype=lane_dtype(t))


def from_values(items, t) -> np.ndarray:
    """Lanes from a sequence of ``values``-style Python values of type ``t``."""
    items = list(items)
    if t.kind == "narrow" or any(isinstance(x, values.NaNBits) for x in items):
        # the bits: NaN payloads as CUDA's conversions or a bitcast made them
        bits = [values.to_bits(x, t) for x in items]
        unsigned = np.dtype(f"u{lane_dtype(t).itemsize}")
        return np.array(bits, dtype=unsigned).view(lane_dtype(t))
    return np.array(items, dtype=lane_dtype(t))


def to_values(a: np.ndarray, t) -> list:
    """The lanes as ``values``-style Python values (the inverse of ``from_values``)."""
    if t.kind in ("float", "narrow"):
        return a.astype(np.float64).tolist()
    if t.kind == "bool":
        return [bool(x) for x in a.tolist()]
    return [int(x) for x in a.tolist()]


def from_memory(data: np.ndarray, t) -> np.ndarray:
    """Elements loaded from an array of element type ``t`` as lanes."""
    if t.kind == "int" and t.width == 4:
        return data.astype(np.int8)
    return data


def _each(fn, out_t, args, arg_types) -> np.ndarray:
    columns = [to_values(a, t) for a, t in zip(args, arg_types)]
    return from_values([fn(*xs) for xs in zip(*columns)], out_t)


def _fix(a: np.ndarray, t) -> np.ndarray:
    """Wrap Int4 lanes (computed in int8) back to four bits."""
    if t.kind == "int" and t.width == 4:
        return np.right_shift(np.left_shift(a, 4), 4)
    return a


# -- operators ------------------------------------------------------------------------
def binary(op: str, a, b, t) -> np.ndarray:
    """``a op b`` on lanes of operand type ``t`` (comparisons give Boolean)."""
    if op in values.COMPARE:
        return np.asarray(values.COMPARE[op](a, b), dtype=np.bool_)
    if t.kind == "float":
        return _float_binary(op, a, b, t)
    if _by_element(t) or (t.kind == "bool" and op not in _WRAPPING) or op == "**":
        return _each(lambda x, y: _int_op(op, x, y, t), t, (a, b), (t, t))
    if op in _WRAPPING:
        return _fix(_ARITHMETIC[op](a, b), t)
    if op in ("//", "%"):
        zero = b == 0
        safe = np.where(zero, np.ones_like(b), b)
        r = np.floor_divide(a, safe) if op == "//" else np.remainder(a, safe)
        return _fix(np.where(zero, np.zeros_like(a) if op == "//" else a, r), t)
    return _shift(op, a, b, t)


def _int_op(op, x, y, t):
    try:
        return values.binary(op, x, y, t)
    except ZeroDivisionError:  # the generated code's rule: x // 0 == 0, x % 0 == x
        return 0 if op == "//" else x


def _shift(op, a, count, t):
    inside = (count >= 0) & (count < t.width)
    c = np.where(inside, count, np.zeros_like(count))
    if op == "<<":
        return _fix(np.where(inside, np.left_shift(a, c), np.zeros_like(a)), t)
    spill = np.where(a < 0, np.full_like(a, -1), np.zeros_like(a)) if t.signed else 0
    return np.where(inside, np.right_shift(a, c), spill).astype(a.dtype)


def _float_binary(op, a, b, t):
    if op in ("+", "-", "*", "/"):
        # rounded once: see the module's docstring
        return canonical_nans(_ARITHMETIC[op](a, b), t)
    compute = np.float64 if t.width == 64 else np.float32
    x, y = a.astype(compute), b.astype(compute)
    if op == "//":
        r = np.floor_divide(x, y)
    elif op == "%":
        r = np.remainder(x, y)
    else:
        r = np.power(x, y)
    return canonical_nans(round_to(r, t), t)


def _unsigned(t) -> np.dtype:
    return np.dtype(f"u{lane_dtype(t).itemsize}")


def canonical_nans(r: np.ndarray, t) -> np.ndarray:
    """``r`` with its NaN lanes set to the GPU's canonical NaN of ``t``
    (Float32, Float16, BFloat16: ``values.CANONICAL_NAN``)."""
    bits = values.CANONICAL_NAN.get(t.__name__)
    if bits is None:
        return r
    r = np.asarray(r)
    nan = np.isnan(r)
    if not nan.any():
        return r
    r = np.array(r, copy=True)
    r.view(_unsigned(t))[nan] = bits
    return r


def _converted_nans(a: np.ndarray, src, out: np.ndarray, dst) -> np.ndarray:
    """``out`` (``a`` converted from ``src`` to ``dst``) with its NaN lanes
    given the bits the generated conversion gives (``values.converted_nan``)."""
    nan = np.isnan(a)
    if not nan.any():
        return out
    given = np.ascontiguousarray(a).view(_unsigned(src))[nan]
    out = np.array(out, copy=True)
    out.view(_unsigned(dst))[nan] = [
        values.converted_nan(int(b), src, dst) for b in given.tolist()
    ]
    return out


def unary(op: str, a, t) -> np.ndarray:
    """``op a`` on lanes of type ``t``."""
    if t.kind == "bool":
        return np.logical_not(a)
    if op == "+":
        return a
    if _by_element(t):
        return _each(lambda x: values.unary(op, x, t), t, (a,), (t,))
    if t.kind == "float" and t.width == 16:  # __hneg/__habs: the canonical NaN
        return canonical_nans(np.negative(a) if op == "-" else np.abs(a), t)
    if op == "-":
        return _fix(np.negative(a), t)
    if op == "abs":
        return a if t.kind == "int" and not t.signed else _fix(np.abs(a), t)
    return _fix(np.invert(a), t)


def select_min_max(func: str, a, b) -> np.ndarray:
    """kdsl's ``min``/``max``: ``b`` where it is strictly better, else ``a``."""
    better = (b < a) if func == "min" else (b > a)
    return np.where(np.asarray(better, dtype=np.bool_), b, a)


# -- conversions -------------------------------------------------------------------------
def convert(a, src, dst) -> np.ndarray:
    """``a.to(dst)`` for lanes of type ``src``."""
    if src is dst:
        return a
    if _by_element(src) or _by_element(dst):
        return _each(lambda x: values.convert(x, src, dst), dst, (a,), (src,))
    if dst.kind == "bool":
        return a != 0  # NaN is nonzero, as in C
    if src.kind == "bool":
        a, src = a.astype(np.int8), Int8
    if dst.kind == "int":
        if src.kind == "int":
            return _fix(a.astype(lane_dtype(dst)), dst)
        return _float_to_int(a, dst)
    if dst is BFloat16:
        if src.kind == "int" and src.width > 32:  # int64 -> float64 may round
            return _each(lambda x: values.convert(x, src, dst), dst, (a,), (src,))
        out = round_to(a.astype(np.float64), dst)
    else:
        out = a.astype(dst.np_dtype)
    return _converted_nans(a, src, out, dst) if src.kind == "float" else out


def round_to(x: np.ndarray, t) -> np.ndarray:
    """Float32/float64 lanes rounded once, to nearest even, to float type ``t``."""
    if t is not BFloat16 or x.dtype == np.float32:
        return x.astype(t.np_dtype)
    # float64 -> BFloat16: round to odd in float32 first, then to nearest even;
    # float32 keeps more than two extra bits, so the second rounding is exact.
    f = x.astype(np.float32)
    back = f.astype(np.float64)
    inexact = (back != x) & np.isfinite(x)
    bits = f.view(np.uint32).copy()
    bits[inexact & (np.abs(back) > np.abs(x))] -= 1  # toward zero
    bits[inexact] |= 1
    return bits.view(np.float32).astype(ml_dtypes.bfloat16)


def _sign_operation(name: str, args: list, t) -> np.ndarray:
    """``fabs``/``copysign`` on the bits, as the GPU does (a NaN keeps its
    payload)."""
    u = _unsigned(t)
    sign = u.type(1 << (t.width - 1))
    x = np.ascontiguousarray(args[0].astype(lane_dtype(t))).view(u) & ~sign
    if name == "copysign":
        y = np.ascontiguousarray(args[1].astype(lane_dtype(t))).view(u)
        x = x | (y & sign)
    return x.view(lane_dtype(t))


def _float_to_int(a, dst):
    """Truncate toward zero and saturate; NaN becomes 0."""
    x = np.trunc(a.astype(np.float64))
    lo = -math.ldexp(1.0, dst.width - 1) if dst.signed else 0.0
    hi = math.ldexp(1.0, dst.width - 1 if dst.signed else dst.width)
    below, above = x < lo, x >= hi
    inside = np.where(np.isnan(x) | below | above, 0.0, x)
    out = inside.astype(lane_dtype(dst))
    out = np.where(above, out.dtype.type(dst.max()), out)
    return np.where(below, out.dtype.type(dst.min()), out)


def bitcast(lanes_in: list, src, dst, lanes_out: int) -> list:
    """Reinterpret the bits of ``lanes_in`` (one array per vector lane, scalar
    type ``src``) as ``lanes_out`` arrays of scalar type ``dst``."""
    if src.width % 8 == 0 and dst.width % 8 == 0 and not _wide(src, dst):
        packed = np.ascontiguousarray(np.stack(lanes_in, axis=1))
        out = packed.view(lane_dtype(dst))
        return [np.ascontiguousarray(out[:, k]) for k in range(lanes_out)]
    columns = [to_values(a, src) for a in lanes_in]
    mask = (1 << dst.width) - 1
    result = [[] for _ in range(lanes_out)]
    for row in zip(*columns):
        bits = 0
        for k, value in enumerate(row):
            bits |= values.to_bits(value, src) << (k * src.width)
        for k in range(lanes_out):
            result[k].append(values.from_bits((bits >> (k * dst.width)) & mask, dst))
    return [from_values(r, dst) for r in result]


def _wide(*ts) -> bool:
    return any(t.kind == "int" and t.width == 128 for t in ts)


# -- kdsl.math ---------------------------------------------------------------------------
def math_call(name: str, args: list, t) -> np.ndarray:
    """``kdsl.math.name(*args)`` on lanes whose float type is ``t`` (the type
    of the first argument; ``ldexp``'s exponent is Int32): the row's
    ``lanes`` semantics (``mathfns``), its result rounded once to ``t``.

    The exactly folded functions (sqrt, floor, round, fmax, ldexp, isnan …)
    equal the compile-time fold; the transcendental ones are numpy's, computed
    in float32 (float64 for Float64) as CUDA does, and can differ from CUDA's
    in the last bit.
    """
    fn = mathfns.spec(name)
    if mathfns.on_bits(name, t):
        return _sign_operation(name, args, t)
    exact = fn.fold is not None
    compute = np.float64 if exact or t.width == 64 else np.float32
    x = [
        a.astype(np.int32) if p in fn.ints else a.astype(compute)
        for a, p in zip(args, fn.params)
    ]
    result = fn.lanes(t, *x)
    if fn.result is not None:  # Boolean, Int32: computed exactly in float64
        return np.asarray(result).astype(lane_dtype(fn.result))
    r = round_to(np.asarray(result, dtype=compute), t if t.width < 64 else Float64)
    return canonical_nans(r, t)
