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
device function by reference) has its type's whole range, unless a fact
bounds it.

Facts (``Fact``) narrow ranges where they hold:

* ``kdsl.assume(cond)`` (an :class:`ir.Assume`), the condition of an ``if``
  in its ``then`` block, and of a ``while`` in its body; after an ``if``
  whose ``then`` block ends in ``return``, ``break`` or ``continue``, the
  condition's negation (``if i >= n: return`` states ``i < n`` below it),
  and the condition after one whose ``else`` block does: each comparison
  ``a op b`` of ``cond`` (comparisons joined by ``and``) bounds ``a`` by
  ``b``'s range and ``b`` by ``a``'s, where ``a``, ``b`` is a variable, a
  special register or arithmetic on them (never a load or a call: memory
  changes);
* the rule of scope, simple and sound: a fact holds in the statements after
  it in its block (nested blocks included) up to, not including, the first
  statement that assigns (or hands by reference to a device function) a
  variable the bounded expression reads; a fact inside a branch or a loop
  body holds only there;
* a block's and a grid's shape: ``thread_idx.x`` is below ``block_dim.x``'s
  bound and ``block_idx.x`` below ``grid_dim.x``'s (so a fact
  ``grid_dim.x <= 65535`` bounds ``block_idx.x * block_dim.x +
  thread_idx.x``), and a kernel's ``launch_bounds`` bound ``block_dim``;
* a ``for`` loop with a run-time step that is provably positive (or
  negative) bounds its counter as a constant step does.

A fact bounds the value as kdsl computes it (wrapped): ``kdsl.assume(a * b
> 0)`` on Int32 says nothing about the exact product.

In a function compiled with ``no_overflow=True`` (the kernel's option, or
the device function's), the exact result of every signed ``+ - *`` and
negation is stated to fit its type (C's rule for ``int``; the interpreter
checks it), so their range is the exact one clamped to the type's instead
of the whole type: a product of positive sizes stays positive.  ``Ranges.of(e)`` is
the range of ``e`` under the facts at ``e``'s place in the function (found
by the node's identity; a node built elsewhere gets no facts).
"""

from __future__ import annotations

from dataclasses import dataclass

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
# a register below another's value: thread_idx.x < block_dim.x ...
_BELOW = {"thread_idx": "block_dim", "block_idx": "grid_dim"}
_COMPARE = {"<", "<=", ">", ">=", "=="}
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "=="}
_NEGATE = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}
_JUMPS = (nodes.Return, nodes.Break, nodes.Continue)

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


@dataclass(frozen=True, eq=False)
class Fact:
    """``subject op bound`` holds, ``bound`` read under the facts ``scope``
    (those in force where the fact was stated); ``reads``: the variables
    ``subject`` reads (the fact ends where one is assigned)."""

    subject: nodes.Expr
    op: str
    bound: nodes.Expr
    scope: frozenset
    reads: frozenset


_NONE: frozenset = frozenset()


class Ranges:
    """The ranges of one function's integer variables, and of any integer
    expression over them (``of``), under the facts where it stands."""

    def __init__(self, f: nodes.Function):
        self.f = f  # (the nodes whose identity ``of`` reads stay alive)
        self.no_overflow = f.no_overflow  # signed + - * stated not to overflow
        self.env: dict = {}  # variable -> its range (None: no value yet)
        self._scopes: dict = {}  # id(expression) -> the facts in force there
        self._at: dict = {}  # id(statement) -> the facts in force at it
        self._by_subject: dict = {}  # scope -> {subject: [facts]}
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
        self._threads = None  # a kernel's launch bound on block_dim
        if f.is_kernel and f.launch_bounds:
            self._threads = f.launch_bounds[0]
        defs, types = [], {}
        for s, scope in self._placed(f.body, _NONE):
            if isinstance(s, nodes.Declare) and s.init is not None:
                defs.append((s.name, s.init, scope))
                types.setdefault(s.name, set()).add(s.type)
            elif isinstance(s, nodes.Declare):
                types.setdefault(s.name, set()).add(s.type)
            elif isinstance(s, nodes.Assign):
                defs.append((s.name, s.value, scope))
            elif isinstance(s, nodes.AssignLane):
                fixed[s.name] = None
            elif isinstance(s, nodes.For):
                defs.append((s.var, s, scope))
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

    # -- where facts hold ----------------------------------------------------------
    def _placed(self, stmts, scope):
        """Each statement of ``stmts`` (nested ones included, in order) with
        the facts in force at it; notes each expression's facts."""
        for s in stmts:
            assigned = _assigned(s)
            if assigned:
                scope = frozenset(x for x in scope if not x.reads & assigned)
            for x in (s, *(y for e in nodes.operands(s) for y in nodes.walk(e))):
                table = self._at if x is s else self._scopes
                seen = table.get(id(x))  # (a node in two places: what both have)
                table[id(x)] = scope if seen is None else seen & scope
            yield s, scope
            if isinstance(s, nodes.If):
                yield from self._placed(s.then, scope | self._facts(s.cond, scope))
                yield from self._placed(s.orelse, scope)
            elif isinstance(s, nodes.While):
                yield from self._placed(s.body, scope | self._facts(s.cond, scope))
            else:
                for value in vars(s).values():
                    if (
                        isinstance(value, tuple)
                        and value
                        and isinstance(value[0], nodes.Stmt)
                    ):
                        yield from self._placed(value, scope)
            if isinstance(s, nodes.Assume):
                scope = scope | self._facts(s.cond, scope)
            elif isinstance(s, nodes.If):  # if n < 0: return -> n >= 0 after it
                scope = scope | self._exit_facts(s, scope, assigned)

    def _exit_facts(self, s, scope, assigned) -> frozenset:
        """What holds after ``if`` statement ``s`` because one of its
        branches ends in a jump (``return``, ``break``, ``continue``): the
        other branch's condition, about variables neither branch assigns."""
        facts = _NONE
        if _jumps(s.then):
            facts = self._facts(s.cond, scope, negated=True)
        if _jumps(s.orelse):
            facts = facts | self._facts(s.cond, scope)
        return frozenset(x for x in facts if not x.reads & assigned)

    def _facts(self, cond, scope, negated=False) -> frozenset:
        """The facts a true ``cond`` (a false one: ``negated``) states: its
        comparisons joined by && (by || when false), ``not`` flipping."""
        if isinstance(cond, nodes.Logical) and cond.op == ("||" if negated else "&&"):
            return self._facts(cond.lhs, scope, negated) | self._facts(
                cond.rhs, scope, negated
            )
        if isinstance(cond, nodes.UnaryOp) and cond.op == "~":
            return self._facts(cond.operand, scope, not negated)
        if not (
            isinstance(cond, nodes.BinOp)
            and cond.op in _NEGATE
            and is_int(cond.lhs.type)
        ):
            return _NONE
        op = _NEGATE[cond.op] if negated else cond.op
        if op not in _COMPARE:  # (a != b states nothing here)
            return _NONE
        out = set()
        for subject, op, bound in (
            (cond.lhs, op, cond.rhs),
            (cond.rhs, _FLIP[op], cond.lhs),
        ):
            subject = _lossless(subject)
            reads = _reads(subject)
            if reads is not None and not isinstance(subject, nodes.Const):
                out.add(Fact(subject, op, bound, scope, reads))
        return frozenset(out)

    def _bounds(self, e, scope) -> list:
        """The facts of ``scope`` about ``e``."""
        if not scope:
            return []
        table = self._by_subject.get(scope)
        if table is None:
            table = {}
            for fact in scope:
                table.setdefault(fact.subject, []).append(fact)
            self._by_subject[scope] = table
        try:
            return table.get(e, [])
        except TypeError:  # an unhashable node (a constant of no Python type)
            return []

    def _narrowed(self, e, r, scope):
        """``r``, the range of ``e``, narrowed by the facts about it."""
        for fact in self._bounds(e, scope):
            b = self._eval(fact.bound, fact.scope)
            if b is None:
                return None
            lo, hi = r
            if fact.op in ("<", "<="):
                hi = min(hi, b[1] - (fact.op == "<"))
            if fact.op in (">", ">="):
                lo = max(lo, b[0] + (fact.op == ">"))
            if fact.op == "==":
                lo, hi = max(lo, b[0]), min(hi, b[1])
            r = (lo, hi) if lo <= hi else (lo, lo)  # (false: never reached)
        return r

    # -- the fixed point ---------------------------------------------------------------
    def _solve(self, defs):
        rounds = 0
        while True:
            new = {name: None for name in self.env}
            for name, value, scope in defs:
                new[name] = _union(new[name], self._def_range(name, value, scope))
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

    def _def_range(self, name, value, scope):
        if not isinstance(value, nodes.For):
            return self._eval(value, scope)
        t = self.types[name]
        start = self._eval(value.start, scope)
        stop = self._eval(value.stop, scope)
        if start is None or stop is None:
            return None
        step = value.step
        if isinstance(step, nodes.Var):
            r = self._eval(step, scope)
            if r is None:
                return None
            step = 1 if r[0] > 0 else -1 if r[1] < 0 else None
        if isinstance(step, int) and step > 0:
            return (start[0], max(start[0], stop[1] - 1))
        if isinstance(step, int) and step < 0:
            return (min(start[1], stop[0] + 1), start[1])
        return type_range(t)

    def of(self, e, at=None) -> Range | None:
        """The range of integer expression ``e`` (None: not an integer) in
        statement ``at`` (under its facts), or where ``e`` itself stands (a
        node found in several places, a variable read: the facts of all)."""
        if not is_int(e.type):
            return None
        if at is not None:
            scope = self._at.get(id(at), _NONE)
        else:
            scope = self._scopes.get(id(e), _NONE)
        r = self._eval(e, scope)
        return type_range(e.type) if r is None else r

    def _var(self, name, t):
        if name in self.env:
            return self.env[name]
        r = self.fixed.get(name)
        return type_range(t) if r is None else r

    def _eval(self, e, scope=_NONE) -> Range | None:
        """The range of ``e`` under the facts ``scope``; None while a
        variable it reads has no value yet (during the fixed point)."""
        r = self._plain_eval(e, scope)
        if r is None or not scope:
            return r
        return self._narrowed(e, r, scope)

    def _special(self, e, scope) -> Range:
        lo, hi = SPECIAL.get(e.name, type_range(e.type))
        register, _, axis = e.name.partition(".")
        if register == "block_dim" and self._threads is not None:
            hi = min(hi, self._threads)
        if register in _BELOW:
            limit = self._eval(
                nodes.Special(e.type, f"{_BELOW[register]}.{axis}"), scope
            )
            hi = min(hi, limit[1] - 1)
        return (lo, hi)

    def _plain_eval(self, e, scope) -> Range | None:
        t = e.type
        if not is_int(t):
            return None
        full = type_range(t)
        if isinstance(e, nodes.Const):
            return (int(e.value), int(e.value))
        if isinstance(e, nodes.Var):
            return self._var(e.name, t)
        if isinstance(e, nodes.Special):
            return self._special(e, scope)
        if isinstance(e, nodes.BuiltinCall) and not e.args:
            return _CALLS.get(e.builtin, full)
        if isinstance(e, nodes.Convert):
            if not is_int(e.operand.type):
                return full
            r = self._eval(e.operand, scope)
            return r if r is None or within(r, t) else full
        if isinstance(e, nodes.BinOp) and is_int(e.lhs.type):
            a, b = self._eval(e.lhs, scope), self._eval(e.rhs, scope)
            if a is None or b is None:
                return None
            return self._fits(exact(e.op, a, b), t, e.op in "+-*")
        if isinstance(e, nodes.UnaryOp) and e.op == "-":
            r = self._eval(e.operand, scope)
            if r is None:
                return None
            return self._fits((-r[1], -r[0]), t, True)
        if isinstance(e, nodes.UnaryOp) and e.op == "+":
            return self._eval(e.operand, scope)
        if isinstance(e, nodes.Select):
            a, b = self._eval(e.if_true, scope), self._eval(e.if_false, scope)
            if a is None or b is None:
                return None
            return _union(a, b)
        return full

    def _fits(self, r, t, checked: bool) -> Range:
        """The range of an operation of type ``t`` whose exact range is
        ``r``: ``r`` where it fits; where it may not, the whole type, or,
        for a signed ``+ - *`` or negation (``checked``) stated not to
        overflow (``no_overflow``), ``r`` clamped to the type."""
        if within(r, t):
            return r
        lo, hi = type_range(t)
        if r is None or not (checked and self.no_overflow and t.signed):
            return (lo, hi)
        if r[0] > hi or r[1] < lo:  # it always overflows: never run, or an error
            return (lo, hi)
        return (max(lo, r[0]), min(hi, r[1]))


def _assigned(s) -> frozenset:
    """The variables statement ``s`` (its nested statements included)
    assigns, declares or hands by reference to a device function."""
    out = set()
    for x in nodes.statements((s,)):
        if isinstance(x, (nodes.Declare, nodes.Assign, nodes.AssignLane)):
            out.add(x.name)
        elif isinstance(x, nodes.For):
            out.add(x.var)
        for e in nodes.operands(x):
            for y in nodes.walk(e):
                if isinstance(y, nodes.FuncCall):
                    out.update(a.name for a in y.args if isinstance(a, nodes.Var))
    return frozenset(out)


def _jumps(block) -> bool:
    """Whether ``block`` ends in ``return``, ``break`` or ``continue``."""
    last = [s for s in block if not isinstance(s, nodes.Comment)][-1:]
    return bool(last) and isinstance(last[0], _JUMPS)


_PURE = (
    nodes.Var,
    nodes.Special,
    nodes.Const,
    nodes.BinOp,
    nodes.UnaryOp,
    nodes.Convert,
)


def _reads(e) -> frozenset | None:
    """The variables ``e`` reads, if it is arithmetic on variables, special
    registers and constants (else None: its value may change unseen)."""
    names = set()
    for x in nodes.walk(e):
        if not isinstance(x, _PURE) or not is_int(x.type):
            return None
        if isinstance(x, nodes.Var):
            names.add(x.name)
    return frozenset(names)


def _lossless(e):
    """``e`` without the integer conversions that keep every value."""
    while (
        isinstance(e, nodes.Convert)
        and is_int(e.operand.type)
        and within(type_range(e.operand.type), e.type)
    ):
        e = e.operand
    return e
