"""Built-ins applied lane by lane to vectors: the ``lanewise`` entries (every
``kdsl.math`` function).

An entry written for scalars needs nothing more.  Given a vector argument,
its own ``lower`` runs once on one lane: each vector argument is replaced by
a stand-in scalar of its element type, so the entry's typing rule, its
conversions and its result type are the scalar ones.  The scalar IR it
builds is then lifted to vectors: the stand-ins become the vectors, every
other scalar operand is broadcast, and each node takes the vector of its
type.  The backends then apply the entry's scalar rendering (inside the one
``kdsl::vmap`` lambda of the vector expression) and its scalar semantics
lane by lane, on the call :func:`scalar_call` gives them.
"""

from __future__ import annotations

from dataclasses import replace

from kdsl.transpile import ir
from kdsl.transpile.builtins import registry
from kdsl.transpile.core.types import Numeric, Vector, VectorMeta, vector_type
from kdsl.transpile.errors import error


def lower_call(lw, entry, args, kwargs):
    """Lower a call of ``entry``: lane by lane when it is ``lanewise`` and
    an argument is a vector, else as ``registry.lower_call`` does."""
    vectors = [a for a in args if isinstance(a, Vector)]
    if not (entry.lanewise and vectors):
        return registry.lower_call(lw, entry, args, kwargs)
    registry.check_keywords(entry, kwargs)
    if len({v.lanes for v in vectors}) > 1:
        types = " and ".join(type(v).__name__ for v in vectors)
        raise error("vector-length", op=f"{entry.spelled}()", types=types)
    got = type(vectors[0]).__name__
    stand_ins = {}  # id of a stand-in Var -> (the Var, the vector's IR)
    one_lane = []
    for k, a in enumerate(args):
        if isinstance(a, Vector):
            var = ir.Var(a.dtype, f"lane of argument {k}")
            stand_ins[id(var)] = (var, a.ir_value())
            a = a.dtype._dynamic(var)
        one_lane.append(a)
    result = entry.lower(_OneLane(lw, entry, got), entry, one_lane, dict(kwargs))
    return _Lift(stand_ins, vectors[0].lanes, entry, got).value(result)


def scalar_call(call: ir.BuiltinCall) -> ir.BuiltinCall:
    """The scalar call of one lane of the vector call ``call``: the entry's
    ``cuda`` and ``interpret`` see the element types (the arguments are
    stand-ins; a backend passes each lane's rendered or evaluated value)."""
    lanes = tuple(
        ir.Var(a.type.dtype, f"lane of argument {k}") for k, a in enumerate(call.args)
    )
    return ir.BuiltinCall(call.type.dtype, call.builtin, lanes, span=call.span)


def is_lanewise_call(e) -> bool:
    """Whether ``e`` is a vector call of a ``lanewise`` entry."""
    return (
        isinstance(e, ir.BuiltinCall)
        and isinstance(e.type, VectorMeta)
        and registry.get(e.builtin).lanewise
    )


class _OneLane:
    """The lowerer as a lane-wise entry's ``lower`` sees it: a lowering that
    emits a statement cannot be repeated lane by lane."""

    def __init__(self, lw, entry, got):
        self._lw, self._entry, self._got = lw, entry, got

    def emit(self, stmt):
        raise _cannot(self._entry, self._got)

    def __getattr__(self, name):
        return getattr(self._lw, name)


class _Lift:
    """One lane's IR (over the stand-ins) as the vector IR over the vectors."""

    def __init__(self, stand_ins, lanes, entry, got):
        self.stand_ins, self.lanes = stand_ins, lanes
        self.entry, self.got = entry, got

    def value(self, result):
        if isinstance(result, tuple):  # several results, each lane-wise
            return tuple(self.value(r) for r in result)
        if not isinstance(result, Numeric):
            raise _cannot(self.entry, self.got)
        node = self.expr(result.ir_value())
        return node.type._dynamic(node)

    def expr(self, e):
        if id(e) in self.stand_ins:
            return self.stand_ins[id(e)][1]
        vtype = vector_type(e.type, self.lanes)
        if not any(id(x) in self.stand_ins for x in ir.walk(e)):
            return ir.Broadcast(vtype, e, span=e.span)  # the same in every lane
        if isinstance(e, (ir.Convert, ir.UnaryOp)):
            return replace(e, type=vtype, operand=self.expr(e.operand))
        if isinstance(e, ir.BinOp):
            return replace(e, type=vtype, lhs=self.expr(e.lhs), rhs=self.expr(e.rhs))
        if isinstance(e, ir.Select):
            parts = (self.expr(x) for x in (e.cond, e.if_true, e.if_false))
            return replace(e, type=vtype, **dict(zip(_SELECT, parts)))
        if isinstance(e, ir.BuiltinCall) and (
            e.builtin == self.entry.name or registry.get(e.builtin).lanewise
        ):
            return replace(e, type=vtype, args=tuple(map(self.expr, e.args)))
        raise _cannot(self.entry, self.got)


_SELECT = ("cond", "if_true", "if_false")


def _cannot(entry, got):
    return error("math-vector", callee=entry.spelled, got=got)
