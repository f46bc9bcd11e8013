"""kdsl's typed IR: small frozen dataclasses, each with its type and span.

Expressions are values of one kdsl type (a scalar or vector type class from
``types``; pointers and arrays add their own types later).  Compile-time values
never reach the IR except as :class:`Const` leaves: everything static is
folded before a node is built.  Operands of a :class:`BinOp` already have the
operation's common type; its own ``type`` is the result type (``Boolean`` for
comparisons).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .source import Span


@dataclass(frozen=True)
class Expr:
    type: Any
    span: Span | None = field(default=None, kw_only=True, compare=False)


@dataclass(frozen=True)
class Const(Expr):
    """A compile-time value materialised in the IR (exact, already rounded)."""

    value: Any


@dataclass(frozen=True)
class Var(Expr):
    """A named run-time value: a parameter or a local variable."""

    name: str


@dataclass(frozen=True)
class BinOp(Expr):
    """``lhs op rhs`` with both operands of the operation's common type."""

    op: str
    lhs: Expr
    rhs: Expr


@dataclass(frozen=True)
class UnaryOp(Expr):
    """``op operand``: ``-``, ``~`` (``not`` for Boolean) or ``abs``."""

    op: str
    operand: Expr


@dataclass(frozen=True)
class Convert(Expr):
    """Value conversion to ``type`` (the semantics of ``.to()``)."""

    operand: Expr


@dataclass(frozen=True)
class Bitcast(Expr):
    """Reinterpretation of the operand's bits as ``type`` (equal width)."""

    operand: Expr


@dataclass(frozen=True)
class Select(Expr):
    """``cond ? if_true : if_false`` with both arms of ``type``."""

    cond: Expr
    if_true: Expr
    if_false: Expr


@dataclass(frozen=True)
class Broadcast(Expr):
    """A scalar copied into every lane of the vector ``type``."""

    operand: Expr


@dataclass(frozen=True)
class MakeVector(Expr):
    """A vector built lane by lane."""

    lanes: tuple[Expr, ...]


@dataclass(frozen=True)
class Extract(Expr):
    """One lane of a vector, at a compile-time index."""

    vector: Expr
    lane: int


@dataclass(frozen=True)
class Call(Expr):
    """A call of an intrinsic or device function by its kdsl name."""

    func: str
    args: tuple[Expr, ...]
