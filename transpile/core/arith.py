"""The operations of the type tower, static or dynamic.

Each operation normalises its operands (Python literals take a type by
value), finds the operand and result types (``promotion``), converts, then
either folds (every operand static: ``values`` computes the exact result) or
builds a typed IR node.  ``Numeric`` and ``Vector`` operators call these
functions; the transpiler calls them too, passing the source span.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from kdsl.transpile import ir
from kdsl.transpile.core import promotion, values
from kdsl.transpile.errors import error
from kdsl.transpile.core.types import (
    BY_NAME,
    Boolean,
    Float32,
    Float64,
    Int32,
    Int64,
    Numeric,
    NumericMeta,
    Vector,
    VectorMeta,
    vector_type,
)


class PrecisionWarning(UserWarning):
    """A bare float literal lost precision as Float32 next to a Float64."""


def is_python_number(v) -> bool:
    """A Python int, float or bool (not a kdsl value)."""
    return isinstance(v, (int, float, bool)) and not isinstance(v, Numeric)


def as_numeric(value, *, context: str | None = None):
    """``value`` as a kdsl value; Python literals take a type by value."""
    if isinstance(value, (Numeric, Vector)):
        return value
    if isinstance(value, (bool, np.bool_)):
        return Boolean._static(bool(value))
    if isinstance(value, (int, np.integer)):
        value = int(value)
        if Int32.min() <= value <= Int32.max():
            return Int32._static(value)
        if Int64.min() <= value <= Int64.max():
            return Int64._static(value)
        if value.bit_length() > 4096:  # (too long to print in the message)
            raise error("value-too-large", bits=value.bit_length() + (value < 0))
        raise error("literal-range", value=value)
    if isinstance(value, np.generic) and value.dtype in _NUMPY_SCALARS:
        # a numpy (or ml_dtypes) float scalar keeps its own type
        return _NUMPY_SCALARS[value.dtype]._static(float(value))
    if isinstance(value, float):
        return Float32._static(values.round_float(value, Float32))
    where = f" in {context}" if context else ""
    raise error("not-numeric", where=where, got=type(value).__name__)


_NUMPY_SCALARS = {
    t.np_dtype: t
    for t in BY_NAME.values()
    if t.np_dtype is not None and t.kind != "int"
}
_NUMPY_SCALARS.pop(np.dtype(np.bool_))


def _check_type(dtype, what: str):
    if isinstance(dtype, NumericMeta) and not dtype.abstract:
        return dtype
    if isinstance(dtype, VectorMeta) and dtype.dtype is not None:
        return dtype
    if isinstance(dtype, NumericMeta):
        raise error("abstract-type", type=dtype.__name__, example="Float32")
    raise error("not-a-type", method=what, got=repr(dtype))


# -- conversions ---------------------------------------------------------------
def convert(x, dtype, span=None):
    """``x.to(dtype)``: value conversion (elementwise for vectors)."""
    dtype = _check_type(dtype, ".to()")
    if isinstance(x, Vector):
        target = dtype if isinstance(dtype, VectorMeta) else vector_type(dtype, x.lanes)
        if target.lanes != x.lanes:
            raise error(
                "vector-convert",
                src=type(x).__name__,
                dst=target.__name__,
                lanes=x.lanes,
            )
        if target is type(x):
            return x
        return target._dynamic(ir.Convert(target, x._expr, span=span))
    if isinstance(dtype, VectorMeta):
        return _broadcast(x, dtype, span)
    if type(x) is dtype:
        return x
    if x.is_static():
        return dtype._static(values.convert(x._value, type(x), dtype))
    return dtype._dynamic(ir.Convert(dtype, x._expr, span=span))


def bitcast(x, dtype, span=None):
    """``x.bitcast(dtype)``: the same bits seen as another type of equal width.

    For a vector and a scalar ``dtype`` the lane count is recomputed from the
    total width (``Float32x4(0.0).bitcast(Int8)`` is an ``Int8x16``).
    """
    dtype = _check_type(dtype, ".bitcast()")
    width = x.width if isinstance(x, Vector) else type(x).width
    if (
        isinstance(x, Vector)
        and isinstance(dtype, NumericMeta)
        and dtype.width != width
    ):
        lanes, rest = divmod(width, dtype.width)
        if rest:
            raise error(
                "bitcast-lanes",
                src=type(x).__name__,
                src_bits=width,
                dst=dtype.__name__,
                dst_bits=dtype.width,
            )
        dtype = vector_type(dtype, lanes)
    for v in (type(x), dtype):
        if isinstance(v, VectorMeta) and v.dtype.width < 8:
            raise error("bitcast-sub-byte", elem=v.dtype.__name__)
    if dtype.width != width:
        raise error(
            "bitcast-width",
            src=type(x).__name__,
            src_bits=width,
            dst=dtype.__name__,
            dst_bits=dtype.width,
        )
    if type(x) is dtype:
        return x
    if isinstance(dtype, NumericMeta) and x.is_static():
        bits = values.to_bits(x._value, type(x))
        return dtype._static(values.from_bits(bits, dtype))
    return dtype._dynamic(ir.Bitcast(dtype, x.ir_value(), span=span))


def _broadcast(scalar, vtype, span=None):
    scalar = convert(as_numeric(scalar), vtype.dtype, span)
    return vtype._dynamic(ir.Broadcast(vtype, scalar.ir_value(), span=span))


def init_vector(vec, args):
    """``Float32x4(1.0)`` broadcasts; ``Float32x4(a, b, c, d)`` builds lanes."""
    vtype = type(vec)
    if vtype.dtype is None:
        raise error("abstract-type", type="Vector", example="Float32x4")
    if len(args) == 1:
        made = convert(as_numeric(args[0]), vtype)
    elif len(args) == vtype.lanes:
        lanes = tuple(convert(as_numeric(a), vtype.dtype).ir_value() for a in args)
        made = vtype._dynamic(ir.MakeVector(vtype, lanes))
    else:
        raise error(
            "vector-constructor", vtype=vtype.__name__, lanes=vtype.lanes, got=len(args)
        )
    vec._expr = made._expr


def lane_index(vtype, lane) -> int | None:
    """``lane`` as a lane of the vector type ``vtype`` (a negative one counts
    from the end), or None when it is not a compile-time integer."""
    lane = as_numeric(lane)
    if not (
        isinstance(lane, Numeric) and lane.is_static() and lane.dtype.kind == "int"
    ):
        return None
    index = int(lane)
    if not -vtype.lanes <= index < vtype.lanes:
        raise error(
            "lane-range", index=index, vtype=vtype.__name__, last=vtype.lanes - 1
        )
    return index % vtype.lanes


def extract(vec, lane, span=None):
    """``vec[lane]`` for a compile-time lane index."""
    index = lane_index(type(vec), lane)
    if index is None:
        raise error("lane-index", vtype=type(vec).__name__, last=vec.lanes - 1)
    dtype = type(vec).dtype
    return dtype._dynamic(ir.Extract(dtype, vec._expr, index, span=span))


# -- operators -----------------------------------------------------------------
def _warn_literal(literal, other_type, op):
    """Warn when a bare float literal, rounded to Float32, meets a Float64."""
    if isinstance(literal, float) and not isinstance(literal, np.floating):
        if other_type is Float64 and values.round_float(literal, Float32) != literal:
            if not math.isnan(literal):
                warnings.warn(
                    PrecisionWarning(
                        f"the literal {literal!r} is a Float32 "
                        f"({values.round_float(literal, Float32)!r}) in a Float64 "
                        f"'{op}'; write Float64({literal!r}) to keep its precision"
                    ),
                    stacklevel=4,
                )


def _scalar_type(x):
    return type(x).dtype if isinstance(x, Vector) else type(x)


def binary(op: str, lhs, rhs, span=None):
    """``lhs op rhs`` for kdsl values or Python literals."""
    a, b = as_numeric(lhs), as_numeric(rhs)
    ta, tb = _scalar_type(a), _scalar_type(b)
    _warn_literal(lhs, tb, op)
    _warn_literal(rhs, ta, op)
    operand_type, result_type = promotion.binary_types(op, ta, tb)
    if op in ("//", "%") and operand_type.kind == "int":
        _check_divisor(op, a, b, span)
    if isinstance(a, Vector) or isinstance(b, Vector):
        return _vector_binary(op, a, b, operand_type, result_type, span)
    a, b = convert(a, operand_type, span), convert(b, operand_type, span)
    if a.is_static() and b.is_static():
        try:
            result = values.binary(op, a._value, b._value, operand_type)
        except ZeroDivisionError:
            raise error(
                "static-zero-division", op=op, lhs=repr(a), rhs=repr(b), span=span
            ) from None
        return result_type._static(result)
    if operand_type.kind == "int" and result_type is operand_type:
        same = _integer_identity(op, a, b)
        if same is not None:
            return same
    node = ir.BinOp(result_type, op, a.ir_value(), b.ir_value(), span=span)
    return result_type._dynamic(node)


def _integer_identity(op, a, b):
    """The operand that ``a op b`` is, exactly, for integers when the other
    is a compile-time identity (``x * 1``, ``1 * x``, ``x + 0``, ``0 + x``,
    ``x - 0``), else None: a BLOCK or stride constexpr of 1 leaves no
    ``blockIdx.x * 1`` in the C++, and the first copy of an unrolled
    ``c * 128 + thread_idx.x`` (c = 0) no ``0 + threadIdx.x``."""
    unit = {"*": 1, "+": 0, "-": 0}.get(op)
    if unit is None:
        return None
    if b.is_static() and b._value == unit:
        return a
    if op != "-" and a.is_static() and a._value == unit:
        return b
    return None


def _check_divisor(op, a, b, span):
    """Integer ``//`` or ``%`` by a compile-time zero is a compile error, also
    when the dividend is only known at run time (C++ leaves it undefined)."""
    if isinstance(b, Numeric) and b.is_static() and b._value == 0:
        raise error("static-zero-division", op=op, lhs=repr(a), rhs=repr(b), span=span)


def _vector_binary(op, a, b, operand_type, result_type, span):
    lanes = {x.lanes for x in (a, b) if isinstance(x, Vector)}
    if len(lanes) != 1:
        raise error(
            "vector-length",
            op=op,
            types=f"{type(a).__name__} and {type(b).__name__}",
        )
    (n,) = lanes
    vop, vres = vector_type(operand_type, n), vector_type(result_type, n)
    a, b = convert(a, vop, span), convert(b, vop, span)
    return vres._dynamic(ir.BinOp(vres, op, a._expr, b._expr, span=span))


def unary(op: str, x, span=None):
    """``-x``, ``+x``, ``~x`` (``not`` for Boolean) or ``abs(x)``."""
    x = as_numeric(x)
    t = promotion.unary_type(op, _scalar_type(x))
    if isinstance(x, Vector):
        vt = vector_type(t, x.lanes)
        x = convert(x, vt, span)
        return x if op == "+" else vt._dynamic(ir.UnaryOp(vt, op, x._expr, span=span))
    x = convert(x, t, span)
    if op == "+":
        return x
    if x.is_static():
        return t._static(values.unary(op, x._value, t))
    return t._dynamic(ir.UnaryOp(t, op, x._expr, span=span))


def truth(x, span=None):
    """``x`` as a Boolean (nonzero is True), for conditions and ``select``."""
    x = as_numeric(x)
    if _scalar_type(x) is Boolean:
        return x
    return binary("!=", x, 0, span)


def select(cond, true_value, false_value, span=None):
    """``cond ? true_value : false_value`` with both arms of their common type."""
    cond = truth(cond, span)
    a, b = as_numeric(true_value), as_numeric(false_value)
    ta, tb = _scalar_type(a), _scalar_type(b)
    if ta is Boolean and tb is Boolean:
        t = Boolean
    else:
        t, _ = promotion.binary_types("+", ta, tb)
    lanes = {x.lanes for x in (cond, a, b) if isinstance(x, Vector)}
    if len(lanes) > 1:
        types = " and ".join(type(x).__name__ for x in (cond, a, b))
        raise error("vector-length", op="a if c else b", types=types)
    if lanes:
        t = vector_type(t, lanes.pop())
    a, b = convert(a, t, span), convert(b, t, span)
    if isinstance(cond, Numeric) and cond.is_static():
        return a if cond._value else b
    return t._dynamic(
        ir.Select(t, cond.ir_value(), a.ir_value(), b.ir_value(), span=span)
    )
