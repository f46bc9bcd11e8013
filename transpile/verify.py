"""The IR checker between lowering and emission: catches compiler bugs early."""

from __future__ import annotations

from . import ir
from .errors import error


def verify(f: ir.Function) -> None:
    """Check the typing invariants the emitter relies on."""
    for stmt in _walk(f.body):
        for e in _exprs(stmt):
            _check_expr(e)
        if isinstance(stmt, ir.Store) and stmt.value.type is not stmt.base.type.elem:
            _fail(f, f"store of {stmt.value.type!r} into {stmt.base.type.elem!r}")
        if isinstance(stmt, ir.Declare) and stmt.init is not None:
            if stmt.init.type != stmt.type:
                _fail(
                    f,
                    f"{stmt.name} declared {stmt.type!r}, initialised {stmt.init.type!r}",
                )


def _check_expr(e):
    if isinstance(e, ir.BinOp) and e.lhs.type is not e.rhs.type:
        raise error(
            "internal",
            what=f"operands of '{e.op}' differ: {e.lhs.type!r}, {e.rhs.type!r}",
        )
    for child in _children(e):
        _check_expr(child)


def _fail(f, what):
    raise error("internal", what=f"in {f.name}: {what}")


def _children(e):
    for value in vars(e).values():
        if isinstance(value, ir.Expr):
            yield value
        elif isinstance(value, tuple):
            yield from (v for v in value if isinstance(v, ir.Expr))


def _exprs(stmt):
    for value in vars(stmt).values():
        if isinstance(value, ir.Expr):
            yield value
        elif isinstance(value, tuple):
            yield from (v for v in value if isinstance(v, ir.Expr))


def _walk(stmts):
    for s in stmts:
        yield s
        for value in vars(s).values():
            if isinstance(value, tuple) and value and isinstance(value[0], ir.Stmt):
                yield from _walk(value)
