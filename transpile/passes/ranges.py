"""Integer value ranges: a cheap, sound interval analysis of one function.

``Ranges(f).of(e)`` is an interval ``(lo, hi)`` that holds every value the
integer expression ``e`` of ``f`` can take, under kdsl's wrap-around
arithmetic (an operation whose exact result may leave its type's range can
wrap to anything, so its range is the whole type).  It is one of the
pipeline's analyses; the CUDA emitter, which receives it with the function
(``passes.Facts``), asks it where a plain C++ operator computes what kdsl's
helper would: ``a + b`` on ``int32_t`` when the exact sum cannot overflow,
``tid / 32`` when ``tid`` is non-negative (C++ truncates, Python floors: the
same on non-negatives).

What is known:

* constants; the special registers (``threadIdx.x`` in ``[0, 1023]``,
  ``blockDim.x`` in ``[1, 1024]``, ``blockIdx.x`` below ``2**31 - 1`` …,
  CUDA's limits); ``kdsl.lane_id()`` in ``[0, 31]``; an ``Array``
  parameter's extents (``a_shape0``) are non-negative;
* a local variable: the union of the ranges of every value it is given (its
  declaration, its assignments, the values of a ``for`` loop over a range
  with a constant step), to a fixed point; a variable still growing after a
  few rounds (a counter incremented in a loop) has its type's whole range;
* ``+ - *``, ``//`` and ``%`` by a positive divisor, ``>>`` and ``&``,
  negation, conversions between integer types, ``?:``.

Anything else (a load, a call, a scalar parameter, a variable handed to a
device function by reference) has its type's whole range.
"""

from __future__ import annotations

from kdsl.transpile.core.types import NumericMeta
from kdsl.transpile.ir import nodes

Range = tuple  # (lo, hi), inclusive

# CUDA's limits on a launch (compute capability 9.0): a block has at most
# 1024 threads (z at most 64); a grid at most 2**31 - 1 blocks along x and
# 65535 along y and z.
SPECIAL = {
    "thread_idx.x": (0, 1023),
    "thread_idx.y": (0, 1023),
    "thread_idx.z": (0, 63),
    "block_dim.x": (1, 1024),
    "block_dim.y": (1, 1024),
    "block_dim.z": (1, 64),
    "block_idx.x": (0, 2**31 - 2),
    "block_idx.y": (0, 65534),
    "block_idx.z": (0, 65534),
    "grid_dim.x": (1, 2**31 - 1),
    "grid_dim.y": (1, 65535),
    "grid_dim.z": (1, 65535),
}
_CALLS = {"lane_id": (0, 31)}

_ROUNDS = 8  # rounds before a still-growing variable gets its type's range


def is_int(t) -> bool:
    """Whether ``t`` is a scalar integer type the analysis tracks."""
    return isinstance(t, NumericMeta) and t.kind == "int" and t.width <= 64


def type_range(t) -> Range:
    """Every value of integer type ``t``."""
    if t.signed:
        return (-(1 << (t.width - 1)), (1 << (t.width - 1)) - 1)
    return (0, (1 << t.width) - 1)


def within(r: Range | None, t) -> bool:
    """Whether the exact range ``r`` lies in ``t``'s range (no wrap)."""
    lo, hi = type_range(t)
    return r is not None and lo <= r[0] and r[1] <= hi


def exact(op: str, a: Range, b: Range) -> Range | None:
    """The exact (unwrapped) range of ``a op b``, or None where not known."""
    corners = None
    if op == "+":
        return (a[0] + b[0], a[1] + b[1])
    if op == "-":
        return (a[0] - b[1], a[1] - b[0])
    if op == "*":
        corners = [x * y for x in a for y in b]
    elif op == "//" and b[0] >= 1:  # monotone in each operand on b > 0
        corners = [x // y for x in a for y in b]
    elif op == "%" and b[0] >= 1:
        if a[0] >= 0:
            return (0, min(a[1], b[1] - 1))
        return (0, b[1] - 1)
    elif op == ">>" and b[0] >= 0 and b[1] < 64:
        corners = [x >> y for x in a for y in b]
    elif op == "<<" and a[0] >= 0 and b[0] >= 0 and b[1] < 64:
        return (a[0] << b[0], a[1] << b[1])
    elif op == "&" and a[0] >= 0 and b[0] >= 0:
        return (0, min(a[1], b[1]))
    elif op == "&" and (a[0] >= 0 or b[0] >= 0):
        return (0, a[1] if a[0] >= 0 else b[1])
    if corners is None:
        return None
    return (min(corners), max(corners))


def _union(a: Range | None, b: Range | None) -> Range | None:
    if a is None:
        return b
    if b is None:
        return a
    return (min(a[0], b[0]), max(a[1], b[1]))


class Ranges:
    """The ranges of one function's integer variables, and of any integer
    expression over them (``of``)."""

    def __init__(self, f: nodes.Function):
        self.env: dict = {}  # variable -> its range (None: no value yet)
        fixed: dict = {}  # parameters and variables of unknown value
        array_params = {
            p.name for p in f.params if isinstance(p.type, nodes.PointerType)
        }
        for p in f.params:
            if is_int(p.type):
                fixed[p.name] = type_range(p.type)
                base, _, axis = p.name.rpartition("_shape")
                if base in array_params and axis.isdigit():
                    fixed[p.name] = (0, type_range(p.type)[1])
        defs, types = [], {}
        for s in nodes.statements(f.body):
            if isinstance(s, nodes.Declare) and s.init is not None:
                defs.append((s.name, s.init))
                types.setdefault(s.name, set()).add(s.type)
            elif isinstance(s, nodes.Declare):
                types.setdefault(s.name, set()).add(s.type)
            elif isinstance(s, nodes.Assign):
                defs.append((s.name, s.value))
            elif isinstance(s, nodes.AssignLane):
                fixed[s.name] = None
            elif isinstance(s, nodes.For):
                defs.append((s.var, s))
                types.setdefault(s.var, set()).add(s.type)
            for e in nodes.operands(s):
                for x in nodes.walk(e):  # a result a callee writes by reference
                    if isinstance(x, nodes.FuncCall):
                        for a in x.args:
                            if isinstance(a, nodes.Var):
                                fixed[a.name] = None
        for name, ts in types.items():
            if len(ts) != 1 or not is_int(next(iter(ts))):
                fixed[name] = None
            elif name not in fixed:
                self.env[name] = None
        self.types = {name: next(iter(ts)) for name, ts in types.items()}
        self.fixed = fixed
        self._solve([d for d in defs if d[0] in self.env])

    def _solve(self, defs):
        rounds = 0
        while True:
            new = {name: None for name in self.env}
            for name, value in defs:
                new[name] = _union(new[name], self._def_range(name, value))
            changed = [n for n in new if new[n] != self.env[n]]
            self.env = new
            if not changed:
                break
            rounds += 1
            if rounds >= _ROUNDS:  # widen what still grows
                for name in changed:
                    self.fixed[name] = type_range(self.types[name])
                    del self.env[name]
                defs = [d for d in defs if d[0] in self.env]
                rounds = 0
        for name, r in self.env.items():  # never given a value
            if r is None:
                self.env[name] = type_range(self.types[name])

    def _def_range(self, name, value):
        if not isinstance(value, nodes.For):
            return self._eval(value)
        t = self.types[name]
        start = self._eval(value.start)
        stop = self._eval(value.stop)
        if start is None or stop is None:
            return None
        step = value.step
        if isinstance(step, int) and step > 0:
            return (start[0], max(start[0], stop[1] - 1))
        if isinstance(step, int) and step < 0:
            return (min(start[1], stop[0] + 1), start[1])
        return type_range(t)

    def of(self, e) -> Range | None:
        """The range of integer expression ``e`` (None: not an integer)."""
        if not is_int(e.type):
            return None
        r = self._eval(e)
        return type_range(e.type) if r is None else r

    def _var(self, name, t):
        if name in self.env:
            return self.env[name]
        r = self.fixed.get(name)
        return type_range(t) if r is None else r

    def _eval(self, e) -> Range | None:
        """The range of ``e``; None while a variable it reads has no value
        yet (during the fixed point)."""
        t = e.type
        if not is_int(t):
            return None
        full = type_range(t)
        if isinstance(e, nodes.Const):
            return (int(e.value), int(e.value))
        if isinstance(e, nodes.Var):
            return self._var(e.name, t)
        if isinstance(e, nodes.Special):
            return SPECIAL.get(e.name, full)
        if isinstance(e, nodes.BuiltinCall) and not e.args:
            return _CALLS.get(e.builtin, full)
        if isinstance(e, nodes.Convert):
            if not is_int(e.operand.type):
                return full
            r = self._eval(e.operand)
            return r if r is None or within(r, t) else full
        if isinstance(e, nodes.BinOp) and is_int(e.lhs.type):
            a, b = self._eval(e.lhs), self._eval(e.rhs)
            if a is None or b is None:
                return None
            r = exact(e.op, a, b)
            return r if within(r, t) else full
        if isinstance(e, nodes.UnaryOp) and e.op == "-":
            r = self._eval(e.operand)
            if r is None:
                return None
            r = (-r[1], -r[0])
            return r if within(r, t) else full
        if isinstance(e, nodes.UnaryOp) and e.op == "+":
            return self._eval(e.operand)
        if isinstance(e, nodes.Select):
            a, b = self._eval(e.if_true), self._eval(e.if_false)
            if a is None or b is None:
                return None
            return _union(a, b)
        return full
