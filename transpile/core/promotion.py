"""Type interoperability: the common type and the result type of an operation.

This is ``reference/arithmetic-types.md`` as code.  The 9×9 table there is
what these rules produce for its nine types; the same rules cover every other
integer width (Int4 … Int128, Uint8 … Uint128).
"""

from __future__ import annotations

from kdsl.transpile.errors import error
from kdsl.transpile.core.types import Boolean, Float16, Float32, Float64, Int32

ARITHMETIC = ("+", "-", "*", "/", "//", "%", "**")
BITWISE = ("&", "|", "^", "<<", ">>")
COMPARISON = ("<", "<=", ">", ">=", "==", "!=")
# The floats an integer can widen to, narrowest first.
_WIDENING = (Float16, Float32, Float64)


def common_type(a, b):
    """The common type of two (non-Boolean, non-narrow) scalar types."""
    if a is b:
        return a
    if a.kind == "int" and b.kind == "int":
        if a.signed == b.signed:
            return a if a.width >= b.width else b
        signed, unsigned = (a, b) if a.signed else (b, a)
        return unsigned if unsigned.width >= signed.width else signed
    if a.kind == "float" and b.kind == "float":
        if a.width != b.width:
            return a if a.width > b.width else b
        return Float32  # Float16 with BFloat16: neither holds the other
    fl, it = (a, b) if a.kind == "float" else (b, a)
    if fl.width >= it.width:
        return fl
    for wider in _WIDENING:
        if wider.width >= it.width and wider.width > fl.width:
            return wider
    return Float64


def division_type(c):
    """The result type of ``/`` for common type ``c``."""
    if c.kind == "float":
        return c
    return Float32 if c.width <= 32 else Float64


def binary_types(op: str, a, b):
    """``(operand type, result type)`` of ``a op b`` for scalar types a, b.

    Boolean operands follow the reference: Int32 in arithmetic, compared
    directly, Boolean in bitwise and shift operations.  kdsl's choice where
    the reference is silent: a Boolean meeting a non-Boolean operand in a
    comparison or bitwise operation is Int32, as in arithmetic.
    """
    for t in (a, b):
        if t.kind == "narrow":
            raise error("narrow-arithmetic", type=t.__name__, op=op)
    if a is Boolean and b is Boolean and op not in ARITHMETIC:
        return Boolean, Boolean
    a = Int32 if a is Boolean else a
    b = Int32 if b is Boolean else b
    if op in BITWISE and (a.kind == "float" or b.kind == "float"):
        raise error("bitwise-float", op=op, lhs=a.__name__, rhs=b.__name__)
    c = common_type(a, b)
    if op in COMPARISON:
        return c, Boolean
    if op == "/":
        d = division_type(c)
        return d, d
    return c, c


def unary_type(op: str, t):
    """The type ``op`` computes in for an operand of type ``t``."""
    if t.kind == "narrow":
        raise error("narrow-arithmetic", type=t.__name__, op=op)
    if t is Boolean:
        return Boolean if op == "~" else Int32
    if op == "~" and t.kind == "float":
        raise error("unary-type", op=op, type=t.__name__)
    return t
