"""The one rebuilding walk of the rewrites (``simplify``, ``contract``)."""

from __future__ import annotations

from dataclasses import fields, replace

from kdsl.transpile import ir


def rebuilt(node, expr, stmts):
    """``node`` with each expression it holds passed through ``expr`` and
    each body (a tuple of statements) through ``stmts``; the same object if
    nothing changed, so a rewrite that finds nothing copies nothing."""
    changed = {}
    for fld in fields(node):
        value = getattr(node, fld.name)
        if isinstance(value, ir.Expr):
            new = expr(value)
        elif isinstance(value, tuple) and value and isinstance(value[0], ir.Stmt):
            new = stmts(value)
        elif isinstance(value, tuple) and any(isinstance(v, ir.Expr) for v in value):
            new = tuple(expr(v) if isinstance(v, ir.Expr) else v for v in value)
            if all(a is b for a, b in zip(new, value)):
                new = value
        else:
            continue
        if new is not value:
            changed[fld.name] = new
    return replace(node, **changed) if changed else node
