"""The rewrite ``simplify``: integer constants combined and float identities
dropped, exactly, in every expression of a function (what the emitter then
writes is the simpler expression, with the same value for every input)."""

from __future__ import annotations

import math
from dataclasses import replace

from kdsl.transpile import ir
from kdsl.transpile.core import values
from kdsl.transpile.core.types import NumericMeta
from kdsl.transpile.passes.ranges import is_int
from kdsl.transpile.passes.walk import rebuilt


def function(f: ir.Function) -> ir.Function:
    """``f`` with every expression simplified (:func:`simplified`, to a
    fixed point at each node, outermost first); a node nothing changes
    inside stays the same object.  An assignment ``x = x - 0.0`` becomes
    ``x = x`` (the emitter writes nothing for it)."""
    body = _stmts(f.body)
    return f if body is f.body else replace(f, body=body)


def _stmts(stmts: tuple) -> tuple:
    out = tuple(_rebuilt(s) for s in stmts)
    return stmts if all(a is b for a, b in zip(out, stmts)) else out


def _expr(e: ir.Expr) -> ir.Expr:
    while isinstance(e, ir.BinOp):
        s = simplified(e)
        if s is e:
            break
        e = s
    return _rebuilt(e)


def _rebuilt(node):
    """``node`` with its expressions and bodies rewritten."""
    return rebuilt(node, _expr, _stmts)


def simplified(e: ir.BinOp):
    """``e`` with its integer constants combined, exactly under wrap-around
    arithmetic: ``(x + 16) - 8`` is ``x + 8``, ``x + 0`` and ``0 + x`` are
    ``x``; and a float ``x - 0.0`` or ``x + -0.0`` (either side) is ``x``,
    exactly for every ``x`` (``-0.0`` is the additive identity of IEEE
    arithmetic; a NaN stays a NaN).  ``0.0 + x`` stays: it is ``+0.0`` for
    ``x = -0.0``."""
    t = e.type
    if t is not e.lhs.type or e.op not in ("+", "-"):
        return e
    if isinstance(t, NumericMeta) and t.kind == "float":
        if e.op == "+" and _is_zero(e.rhs, negative=True):
            return e.lhs
        if e.op == "+" and _is_zero(e.lhs, negative=True):
            return e.rhs
        if e.op == "-" and _is_zero(e.rhs, negative=False):
            return e.lhs
        return e
    if not is_int(t):
        return e
    if (
        e.op == "+"
        and isinstance(e.lhs, ir.Const)
        and e.lhs.value == 0
        and e.rhs.type is t
    ):
        return e.rhs  # 0 + x
    base, offset, terms = e, 0, 0
    while (
        isinstance(base, ir.BinOp)
        and base.op in ("+", "-")
        and base.type is t
        and base.lhs.type is t
        and isinstance(base.rhs, ir.Const)
    ):
        offset += base.rhs.value if base.op == "+" else -base.rhs.value
        base, terms = base.lhs, terms + 1
    offset = values.wrap(offset, t)
    if terms == 0 or (terms == 1 and offset != 0):
        return e  # nothing to combine
    if offset == 0:
        return base
    if t.signed and offset < 0 and offset != _type_min(t):
        return ir.BinOp(t, "-", base, ir.Const(t, -offset))
    if not t.signed and offset >= 1 << (t.width - 1):  # x - 1u, not x + 4294967295u
        return ir.BinOp(t, "-", base, ir.Const(t, (1 << t.width) - offset))
    return ir.BinOp(t, "+", base, ir.Const(t, offset))


def _type_min(t) -> int:
    return -(1 << (t.width - 1)) if t.signed else 0


def _is_zero(e, negative: bool) -> bool:
    """Whether ``e`` is the constant ``-0.0`` (``negative``) or ``+0.0``."""
    return (
        isinstance(e, ir.Const)
        and e.value == 0
        and (math.copysign(1.0, e.value) < 0) == negative
    )
