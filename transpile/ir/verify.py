"""The IR checker between lowering and emission: catches compiler bugs early."""

from __future__ import annotations

from kdsl.transpile import ir
from kdsl.transpile.errors import error


def verify(f: ir.Function) -> None:
    """Check the typing invariants the emitter relies on."""
    for e in ir.expressions(f.body):
        if isinstance(e, ir.BinOp) and e.lhs.type is not e.rhs.type:
            _fail(f, f"operands of '{e.op}' differ: {e.lhs.type!r}, {e.rhs.type!r}")
        if isinstance(e, ir.PointerOffset):
            if _memory(e.pointer.type) != _memory(e.type):
                _fail(f, f"{e.type!r} moved from {e.pointer.type!r}")
            if getattr(e.offset.type, "kind", None) != "int":
                _fail(f, f"a pointer moved by {e.offset.type!r}")
        if isinstance(e, ir.PointerBinary):
            if _memory(e.lhs.type) != _memory(e.rhs.type):
                _fail(f, f"'{e.op}' of {e.lhs.type!r} and {e.rhs.type!r}")
    for stmt in ir.statements(f.body):
        if isinstance(stmt, ir.Store) and stmt.value.type is not stmt.base.type.elem:
            _fail(f, f"store of {stmt.value.type!r} into {stmt.base.type.elem!r}")
        if isinstance(stmt, (ir.StoreLane, ir.AssignLane)):
            vtype = (
                stmt.type if isinstance(stmt, ir.AssignLane) else stmt.base.type.elem
            )
            if stmt.value.type is not getattr(vtype, "dtype", None):
                _fail(f, f"store of {stmt.value.type!r} into a lane of {vtype!r}")
            if not 0 <= stmt.lane < vtype.lanes:
                _fail(f, f"lane {stmt.lane} of {vtype!r}")
        if isinstance(stmt, ir.Declare) and stmt.init is not None:
            if stmt.init.type != stmt.type:
                _fail(
                    f,
                    f"{stmt.name} declared {stmt.type!r}, initialised {stmt.init.type!r}",
                )


def _memory(t):
    """A pointer type's element type and memory space (None: no pointer)."""
    return (t.elem, t.space) if isinstance(t, ir.PointerType) else None


def _fail(f, what):
    raise error("internal", what=f"in {f.name}: {what}")
