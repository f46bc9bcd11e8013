"""The analysis ``unread``: the variables whose declaration is dead, which
the emitter leaves out."""

from __future__ import annotations

from kdsl.transpile import ir


def unread(f: ir.Function, facts=None) -> frozenset:
    """The variables of ``f`` that are declared with a value computed
    without a call, and never read nor assigned: their declaration is
    dead (``int32_t i = 7;`` left by a ``range_constexpr``'s variable)."""
    used = set()
    for s in ir.statements(f.body):
        if isinstance(s, (ir.Assign, ir.AssignLane)):
            used.add(s.name)
        elif isinstance(s, ir.For):
            used.add(s.var)
    for e in ir.expressions(f.body):
        if isinstance(e, ir.Var):
            used.add(e.name)
    return frozenset(
        s.name
        for s in ir.statements(f.body)
        if isinstance(s, ir.Declare)
        and s.name not in used
        and s.init is not None
        and not any(isinstance(x, ir.CALLS) for x in ir.walk(s.init))
    )
