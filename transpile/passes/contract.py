"""The rewrite ``contract``: deterministic fusion of ``a * b + c`` into one
``kdsl.math.fma``, where the user asked for it by name.

Where: every float ``+``/``-`` of a function with ``contract=True`` (the
kernel's option, or a ``@kdsl.func``'s), and, in any function, every one
written inside ``kdsl.contract(...)`` (lowering marks those:
``ir.BinOp.contract``).  The rule, applied to each such ``+``/``-`` once,
innermost first:

* its type is Float32 or Float64, or a vector of them (Float16 and BFloat16
  are never fused: kdsl's fma for them computes in float and rounds twice,
  which is not the single rounding of CUDA's ``__hfma``);
* an operand is a product, ``*`` of the same type, directly: a product held
  in a variable is another statement's value and is never fused, nor is one
  behind a conversion;
* ``p + c`` and ``c + p`` become ``fma(a, b, c)``, ``p - c`` becomes
  ``fma(a, b, -c)`` and ``c - p`` becomes ``fma(-a, b, c)`` (``p = a * b``;
  negation is exact); when both operands are products the left one is
  fused, so ``a*b + c*d + e`` — ``(a*b + c*d) + e`` — is
  ``fma(a, b, c*d) + e`` and ``e + a*b + c*d`` is ``fma(c, d, fma(a, b, e))``.

The fused node is the built-in call ``math.fma``, the one ``kdsl.math.fma``
lowers to: the interpreter (which runs the IR after the rewrites), folding
and the GPU's ``fmaf``/``fma`` round it once, identically."""

from __future__ import annotations

from dataclasses import replace

from kdsl.transpile import ir
from kdsl.transpile.core.types import Float32, Float64, VectorMeta
from kdsl.transpile.passes.walk import rebuilt

FUSED = "math.fma"  # the built-in kdsl.math.fma lowers to


def function(f: ir.Function) -> ir.Function:
    """``f`` with its contractible ``+``/``-`` fused (the same object when
    nothing is)."""
    body = _Fuser(f.contract).stmts(f.body)
    return f if body is f.body else replace(f, body=body)


def fusable_type(t) -> bool:
    """Whether ``+``/``-`` of type ``t`` may be contracted: Float32,
    Float64, or a vector of either."""
    lane = t.dtype if isinstance(t, VectorMeta) else t
    return lane is Float32 or lane is Float64


def fused(e: ir.BinOp):
    """``e`` (a contractible ``+``/``-``) as an fma, or ``e`` itself when no
    operand is a product of its type."""
    if e.op not in ("+", "-") or not fusable_type(e.type):
        return e
    lhs, rhs = e.lhs, e.rhs
    if _product(lhs, e.type):
        addend = rhs if e.op == "+" else negated(rhs)
        return _fma(e, lhs.lhs, lhs.rhs, addend)
    if _product(rhs, e.type):
        first = rhs.lhs if e.op == "+" else negated(rhs.lhs)
        return _fma(e, first, rhs.rhs, lhs)
    return e


def negated(e: ir.Expr) -> ir.Expr:
    """``-e``, exactly: a constant's sign flipped, ``-(-x)`` is ``x``."""
    if isinstance(e, ir.Const):
        return replace(e, value=_negative(e.value))
    if isinstance(e, ir.UnaryOp) and e.op == "-":
        return e.operand
    return ir.UnaryOp(e.type, "-", e, span=e.span)


def _negative(value):
    if isinstance(value, tuple):  # a vector constant, lane by lane
        return tuple(-v for v in value)
    return -value


def _product(e, t) -> bool:
    return isinstance(e, ir.BinOp) and e.op == "*" and e.type is t


def _fma(e: ir.BinOp, a, b, c) -> ir.BuiltinCall:
    return ir.BuiltinCall(e.type, FUSED, (a, b, c), span=e.span)


class _Fuser:
    """The rewrite of one function's statements and expressions (``every``:
    the function is ``contract=True``, so every float ``+``/``-`` is
    contractible, marked or not)."""

    def __init__(self, every: bool):
        self.every = every

    def stmts(self, stmts: tuple) -> tuple:
        out = tuple(self.node(s) for s in stmts)
        return stmts if all(a is b for a, b in zip(out, stmts)) else out

    def expr(self, e: ir.Expr) -> ir.Expr:
        e = self.node(e)  # the operands first: innermost first
        if isinstance(e, ir.BinOp) and (e.contract or self.every):
            e = fused(e)
        return e

    def node(self, node):
        """``node`` with its expressions and bodies rewritten."""
        return rebuilt(node, self.expr, self.stmts)
