"""The analysis ``readonly``: the pointers of a function that it never stores
through, which the emitter declares ``const``."""

from __future__ import annotations

from kdsl.transpile import ir


def readonly(f: ir.Function, facts) -> frozenset:
    """``facts.readonly`` (a kernel's pointer parameters the lowering found
    it never stores to), the parameters whose type is already ``const`` (a
    device function's), and the pointer variables that may hold one of
    those (:func:`const_pointer_variables`)."""
    given = facts.readonly | {
        p.name for p in f.params if getattr(p.type, "const", False)
    }
    return given | const_pointer_variables(f, given)


def const_pointer_variables(f: ir.Function, readonly) -> frozenset:
    """The pointer variables of ``f`` (declared with, or assigned, a pointer
    other than a view) that may hold a ``readonly`` pointer: ``const``
    (the lowering makes a pointer stored through, and every pointer assigned
    to it, writable)."""
    sources: dict = {}
    for s in ir.statements(f.body):
        value = s.init if isinstance(s, ir.Declare) else getattr(s, "value", None)
        if isinstance(value, ir.PointerOffset):  # p = q + k: q's pointer
            value = root_pointer(value)
        if isinstance(s, (ir.Declare, ir.Assign)) and isinstance(value, ir.Var):
            if isinstance(value.type, ir.PointerType):
                sources.setdefault(s.name, set()).add(value.name)
    const, changed = set(), True
    while changed:
        changed = False
        for name, names in sources.items():
            if name not in const and names & (set(readonly) | const):
                const.add(name)
                changed = True
    return frozenset(const)


def root_pointer(e):
    """The pointer a view or a moved pointer is taken of (a variable, a
    parameter, or another pointer expression)."""
    while isinstance(e, (ir.VecView, ir.PointerView, ir.PointerOffset)):
        e = e.pointer
    return e
