"""Pointer arithmetic: ``p + k``, ``k + p``, ``p - k``, ``p - q`` and
comparisons of two pointers, and the row ``a[i]`` of an ``Array``.

A moved pointer is the pointer it came from plus an element offset
(:class:`ir.PointerOffset`, in C++ just ``p + k``): it keeps its element
type, its memory space and the value class it came from (a view of dynamic
shared memory stays one), and the Python name of the pointer it came from,
which is what stores through it mark written and what the launch checks the
alignment of.  A 1-D shared or local array in an operation is a pointer to
its first element, as in C++.
"""

from __future__ import annotations

from kdsl.transpile import ir
from kdsl.transpile.core import arith
from kdsl.transpile.core.types import Boolean, Int64, Numeric, Vector
from kdsl.transpile.errors import error
from kdsl.transpile.frontend.memory import ArrayValue, FixedArray, PointerValue

is_python_number = arith.is_python_number

_MOVES = ("+", "-")
_COMPARES = ("<", "<=", ">", ">=", "==", "!=")


def is_pointer(v) -> bool:
    """Whether ``v`` takes part in pointer arithmetic: a pointer, or a shared
    or local array (its first element's address)."""
    return isinstance(v, PointerValue) or (isinstance(v, FixedArray) and v.shape)


def _as_pointer(v) -> PointerValue:
    """``v`` as a pointer: a fixed array of one dimension decays to one."""
    if isinstance(v, PointerValue):
        return v
    if len(v.shape) != 1:
        raise error("pointer-arith-rank", name=v.name, ndim=len(v.shape))
    return PointerValue(v.expr, v.elem, v.name)


def binary(op: str, a, b, describe):
    """``a op b`` where ``a`` or ``b`` is a pointer (``is_pointer``);
    ``describe(v)`` says what a value is, for errors."""
    if op in _COMPARES or (op == "-" and is_pointer(a) and is_pointer(b)):
        return _two_pointers(op, a, b, describe)
    if op == "+" and not is_pointer(a):  # k + p
        a, b = b, a
    if op not in _MOVES or not is_pointer(a):
        got = describe(a if is_pointer(a) else b)
        raise error("pointer-operator", op=op, got=got)
    return move(_as_pointer(a), op, b, describe)


def move(p: PointerValue, op: str, k, describe):
    """``p + k`` / ``p - k``: ``p`` moved by the integer ``k`` elements."""
    offset = _offset(p, k, describe)
    if offset.is_static() and offset.value == 0:
        return p
    expr = p.expr
    ptype = ir.PointerType(p.elem, space=expr.type.space)
    moved = ir.PointerOffset(ptype, expr, op, offset.ir_value())
    return type(p)(moved, p.elem, p.name)


def _offset(p: PointerValue, k, describe) -> Numeric:
    if is_python_number(k) and not isinstance(k, (bool, float)):
        k = arith.as_numeric(k)
    if (
        isinstance(k, Numeric)
        and not isinstance(k, Vector)
        and k.dtype.kind == "int"
        and not k.dtype.abstract
    ):
        return k
    got = f"a Python {type(k).__name__}" if is_python_number(k) else describe(k)
    raise error("pointer-offset", name=p.name, got=got)


def _two_pointers(op: str, a, b, describe):
    """``a - b`` (an Int64 distance in elements) or a comparison."""
    for v in (a, b):
        if not is_pointer(v):
            raise error("pointer-operator", op=op, got=describe(v))
    a, b = _as_pointer(a), _as_pointer(b)
    ta, tb = a.expr.type, b.expr.type
    for what, x, y in (
        ("element types", _name(ta.elem), _name(tb.elem)),
        ("memory spaces", ta.space, tb.space),
    ):
        if x != y:
            raise error(
                "pointer-mismatch",
                op=op,
                lhs=a.name,
                rhs=b.name,
                differing=what,
                a=x,
                b=y,
            )
    t = Int64 if op == "-" else Boolean
    return t._dynamic(ir.PointerBinary(t, op, a.expr, b.expr))


def row(a: ArrayValue, index) -> ArrayValue:
    """``a[i]`` of an ``Array`` of two or more dimensions: its row ``i``,
    an ``Array`` of one dimension fewer starting ``i * a.strides[0]``
    elements on (``i`` checked against ``a.shape[0]`` by the interpreter)."""
    i = index.to(Int64)
    flat = arith.binary("*", i, a.strides[0])
    offset = ir.ArrayOffset(
        Int64, flat.ir_value(), a.name, (index.ir_value(),), (a.shape[0].ir_value(),)
    )
    ptype = ir.PointerType(a.elem, space=a.data.type.space)
    data = ir.PointerOffset(ptype, a.data, "+", offset)
    return ArrayValue(data, a.elem, a.shape[1:], a.strides[1:], a.name)


def _name(t) -> str:
    return getattr(t, "__name__", str(t))
