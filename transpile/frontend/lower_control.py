"""Lowering of control flow: ``if``, ``while``, ``for`` over ranges.

A condition known at compile time lowers only the taken branch; a
``range_constexpr`` loop is unrolled.  Run-time control flow is entered
through ``dynamic``, which gives C++ variables to the static values the
construct assigns (declared before it) and hoists names first assigned
inside it and read after it (SPEC section 3).
"""

from __future__ import annotations

import builtins
import contextlib

import libcst as cst

from kdsl.transpile.core import arith, limits
from kdsl.transpile.core.promotion import binary_types
from kdsl.transpile import ir
from kdsl.transpile.builtins import Builtin
from kdsl.transpile.errors import error
from kdsl.transpile.frontend.lower_expr import PointerValue
from kdsl.transpile.frontend.state import check_limit
from kdsl.transpile.frontend.state import Binding, Lowering
from kdsl.transpile.frontend.lower_expr import (
    kind_of,
    is_python_number,
    is_value,
    static_integer,
)
from kdsl.transpile.core.types import Boolean, Numeric, Vector


class ControlFlowLowerer(Lowering):
    """The control-flow half of ``lower.Lowerer`` (a mixin)."""

    def _static_bool(self, v):
        if is_python_number(v):
            return bool(v)
        if isinstance(v, Numeric) and v.is_static():
            return bool(v)
        if not is_value(v):
            return bool(v)
        return None

    def stmt_If(self, node):
        cond = self.expr(node.test)
        decided = self._static_bool(cond)
        if decided is not None:  # its comment says what was decided
            if decided:
                self.note_origin("  [True]")
                self.suite(node.body)
            elif isinstance(node.orelse, cst.If):
                test = self.state.parsed.code(node.orelse.test)
                self.note_origin(f"  [False]; elif {' '.join(test.split())}:")
                self.stmt_If(node.orelse)
            elif node.orelse is not None:
                self.note_origin("  [False]; else:")
                self.suite(node.orelse.body)
            return
        cond = self.condition(cond, "an 'if' condition")
        with self.dynamic(node):
            before = set(self.state.env)
            with self.new_block() as then:
                self.suite(node.body)
            self._end_scope(before)  # what the 'then' arm declared is its own
            with self.new_block() as orelse:
                if isinstance(node.orelse, cst.If):
                    self.statement(node.orelse)
                elif node.orelse is not None:
                    self.suite(node.orelse.body)
            self.emit(ir.If(cond.ir_value(), tuple(then), tuple(orelse)))

    def stmt_While(self, node):
        if node.orelse is not None:
            raise error("loop-else", loop="while")
        with self.dynamic(node):
            cond = self.expr(node.test)
            decided = self._static_bool(cond)
            if decided is False:
                return
            if decided is None:
                cond = self.condition(cond, "a 'while' condition")
            else:
                cond = None
            with self.new_block() as body, self.loop("runtime"):
                self.suite(node.body)
            forever = ir.Const(Boolean, True)
            self.emit(
                ir.While(cond.ir_value() if cond is not None else forever, tuple(body))
            )

    def stmt_For(self, node):
        if node.orelse is not None:
            raise error("loop-else", loop="for")
        it = node.iter
        callee = self.expr(it.func) if isinstance(it, cst.Call) else None
        kind = callee.name if isinstance(callee, Builtin) else None
        kind = "range" if callee is builtins.range else kind
        if kind not in ("range", "range_constexpr"):
            raise error("loop-iterable", got=self.state.parsed.code(it))
        if not isinstance(node.target, cst.Name):
            raise error("loop-target", target=self.state.parsed.code(node.target))
        args, kwargs = [], {}
        for arg in it.args:
            value = self.expr(arg.value)
            if arg.keyword is not None:
                kwargs[arg.keyword.value] = value
            else:
                args.append(value)
        unroll = kwargs.pop("unroll", None)
        if (
            kwargs
            or not 1 <= len(args) <= 3
            or (unroll is not None and callee is builtins.range)
        ):
            raise error("range-arguments", got=self.state.parsed.code(it))
        start, stop, step = (0, args[0], 1) if len(args) == 1 else (args + [1])[:3]
        if kind == "range_constexpr":
            return self._unrolled(node, start, stop, step)
        return self._runtime_loop(node, start, stop, step, unroll)

    def _unrolled(self, node, start, stop, step):
        bounds = [
            static_integer(v, "the bounds of range_constexpr")
            for v in (start, stop, step)
        ]
        if bounds[2] == 0:
            raise error("range-zero-step", callee="kdsl.range_constexpr")
        # the loop variable has the type range() would give it
        t, _ = _loop_type(arith.as_numeric(start), arith.as_numeric(stop))
        count = len(range(*bounds))
        self.state.unrolled_statements += count * _statement_count(node.body)
        check_limit(limits.UNROLLED_STATEMENTS, self.state.unrolled_statements)
        name = node.target.value
        self.state.loop_depths.append(self.state.dynamic_depth)
        try:
            with self.loop("constexpr"):
                for i in range(*bounds):
                    value = t._static(i)
                    self.state.env.pop(name, None)  # bound again, as in Python
                    self.assign(node.target, value, None)
                    b = self.state.env[name]
                    if b.cvar is not None:  # a variable run-time control flow
                        b.value = value  # carries: assigned, and folded here
                    self.state.unrolled_at.append(f"{name} = {i}")
                    try:
                        self.suite(node.body)
                    except StaticBreak as exit_:
                        if exit_.kind == "break":
                            break
                    finally:
                        self.state.unrolled_at.pop()
            _read_from_variable(self.state.env.get(name))
        finally:
            self.state.loop_depths.pop()

    def _runtime_loop(self, node, start, stop, step, unroll):
        if not is_value(step):
            raise error("range-type", part="step", got=kind_of(step))
        if not (isinstance(step, Numeric) and not step.is_static()):
            step = static_integer(step, "the step of a run-time range")
            if step == 0:
                raise error("range-zero-step", callee="range")
        if unroll is not None:
            unroll = static_integer(unroll, "unroll=")
            if unroll < 1:
                raise error("unroll-count", unroll=unroll)
        with self.dynamic(node):
            start, stop = arith.as_numeric(start), arith.as_numeric(stop)
            t, _ = _loop_type(start, stop)
            if isinstance(step, Numeric):  # a run-time step joins the loop type
                t, _ = _loop_type(t._static(0), step)
            start, stop = arith.convert(start, t), arith.convert(stop, t)
            name = node.target.value
            if name in self.state.ctx.statics:
                raise error("assign-constexpr", name=name, use="a loop variable")
            self.state.env.pop(name, None)
            cvar = self.state.names.declare(name)
            start_expr = start.ir_value()
            if not isinstance(start_expr, (ir.Var, ir.Const, ir.Special)):
                # a start like block_idx.x * block_dim.x + thread_idx.x gets a
                # line of its own, as the end and a run-time step do: the for
                # line stays short, and it is evaluated first, as in Python
                first = self.state.names.declare(f"{name}_start")
                self.emit(ir.Declare(first, t, start_expr))
                start_expr = ir.Var(t, first)
            stop_expr = stop.ir_value()
            if not isinstance(stop_expr, (ir.Var, ir.Const, ir.Special)):
                end = self.state.names.declare(f"{name}_end")
                self.emit(ir.Declare(end, t, stop_expr))
                stop_expr = ir.Var(t, end)
            if isinstance(step, Numeric):  # evaluated once, like Python's range
                step_var = self.state.names.declare(f"{name}_step")
                self.emit(ir.Declare(step_var, t, arith.convert(step, t).ir_value()))
                step = ir.Var(t, step_var)
            var = cvar
            if name in _assigned_names(node, unrolled=lambda _: True):
                # Python's next iteration ignores the body's assignment: the
                # body works on a copy of the counter
                var = self.state.names.declare(name)
            self.state.env[name] = Binding(
                t._dynamic(ir.Var(t, var)),
                self.state.parsed.span(node.target).line,
                var,
            )
            with self.new_block() as body, self.loop("runtime"):
                if var != cvar:
                    self.emit(ir.Declare(var, t, ir.Var(t, cvar)))
                self.suite(node.body)
            if isinstance(stop_expr, ir.Var) and _assigns(body, stop_expr.name):
                end = self.state.names.declare(f"{name}_end")  # read once, like range()
                self.emit(ir.Declare(end, t, stop_expr))
                stop_expr = ir.Var(t, end)
            self.state.env.pop(name, None)
            self.state.names.release(var)
            self.state.names.release(cvar)
            # as in Python, the loop replaced any earlier value of the name
            self.state.ended_loops[name] = self.state.parsed.span(node.target).line
            self.emit(ir.For(cvar, t, start_expr, stop_expr, step, tuple(body), unroll))

    @contextlib.contextmanager
    def loop(self, kind):
        self.state.loops.append(kind)
        try:
            yield
        finally:
            self.state.loops.pop()

    def _predeclare(self, origin, declaration):
        """Declare a variable before the statement being lowered, under the
        comment of the Python statement that first assigned it."""
        pending = self.state.predeclared[-1]
        comments = [s for s in pending if isinstance(s, ir.Comment)]
        if origin is not None and (not comments or comments[-1] != origin):
            pending.append(origin)
        pending.append(declaration)

    @contextlib.contextmanager
    def dynamic(self, node):
        """Enter run-time control flow: materialise and hoist what it assigns."""

        def read_after(name):  # an unrolled loop over a name bound to a number
            b = self.state.env.get(name)
            return (
                b is not None
                and b.type is not None
                and self.state.parsed.may_read_value_of(name, node)
            )

        assigned = _assigned_names(node, unrolled=read_after)
        for name in assigned:
            b = self.state.env.get(name)
            _read_from_variable(b)
            if (
                b is not None
                and b.cvar is None
                and isinstance(b.value, (Numeric, Vector))
            ):
                b.cvar = self.state.names.declare(name)
                self._predeclare(
                    b.origin, ir.Declare(b.cvar, b.type, b.value.ir_value())
                )
                b.value = b.type._dynamic(ir.Var(b.type, b.cvar))
            elif b is not None and b.cvar is None and isinstance(b.value, PointerValue):
                # a pointer the branch or loop may reassign: a pointer variable
                p = b.value
                ptype = ir.PointerType(p.elem, space=p.expr.type.space)
                b.cvar = self.state.names.declare(name)
                self._predeclare(b.origin, ir.Declare(b.cvar, ptype, p.expr))
                b.value = type(p)(ir.Var(ptype, b.cvar), p.elem, name)
                self.state.aliases.setdefault(name, set()).add(p.name.split(".")[0])
        before = set(self.state.env)
        new_hoisted = [
            n
            for n in assigned
            if n not in self.state.env
            and n not in self.state.hoisted
            and self.state.carried_binding(n) is None
            and self.state.parsed.loaded_outside(n, node)
            # (a read outside that the name is bound again before is not one)
            and self.state.parsed.may_read_value_of(n, node)
        ]
        self.state.hoisted.update(new_hoisted)
        # the variables that outlive the construct: one binding each in it
        carried = {n: self.state.env[n] for n in assigned if n in self.state.env}
        carried = {n: b for n, b in carried.items() if b.cvar is not None}
        carried.update(dict.fromkeys(new_hoisted))
        self.state.carried.append(carried)
        self.state.dynamic_depth += 1
        try:
            yield
        finally:
            self.state.dynamic_depth -= 1
            self.state.carried.pop()
        for name in new_hoisted:
            self.state.hoisted.discard(name)
            b = carried[name]
            if b is not None:  # (assigned, even if a loop over it unbound it)
                t = b.value.expr.type if b.type is None else b.type  # (a pointer)
                self._predeclare(b.origin, ir.Declare(b.cvar, t, None))
        # names hoisted by an enclosing construct outlive this one too
        self._end_scope(before | set(new_hoisted))

    def _end_scope(self, before):
        """Forget the names first bound since ``before`` (a C++ block ends:
        its variables are gone), except those hoisted before a branch."""
        for name in sorted(set(self.state.env) - before - self.state.hoisted):
            b = self.state.env.pop(name)
            if not self.state.is_carried(b):  # (an enclosing one's variable)
                self.state.names.release(b.cvar)

    def loop_exit(self, kind):
        if not self.state.loops:
            raise error("loop-exit-outside-loop", stmt=kind)
        if self.state.loops[-1] == "constexpr":
            if self.state.dynamic_depth > self.state.loop_depths[-1]:
                raise error("loop-exit-in-unrolled", stmt=kind)
            raise StaticBreak(kind)
        self.emit(ir.Break() if kind == "break" else ir.Continue())


def _statement_count(body) -> int:
    """The statements of ``body``, nested ones included (one unrolled copy)."""
    counter = _Statements()
    body.visit(counter)
    return max(1, counter.count)


class _Statements(cst.CSTVisitor):
    def __init__(self):
        self.count = 0

    def on_visit(self, node):
        if isinstance(node, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
            self.count += 1
        return True


def _loop_type(start, stop):

    for v in (start, stop):
        if (
            isinstance(v, Vector)
            or v.dtype.kind not in ("int",)
            and v.dtype.kind != "bool"
        ):
            raise error("range-type", part="bounds", got=repr(v.dtype))
    return binary_types("+", start.dtype, stop.dtype)


class _Assigned(cst.CSTVisitor):
    def __init__(self, unrolled):
        self.names: list[str] = []
        self.unrolled = unrolled

    def _add(self, target):
        if isinstance(target, cst.Name) and target.value not in self.names:
            self.names.append(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for e in target.elements:
                self._add(e.value)

    def visit_AssignTarget(self, node):
        self._add(node.target)

    def visit_AugAssign(self, node):
        self._add(node.target)

    def visit_AnnAssign(self, node):
        self._add(node.target)

    def visit_For(self, node):
        # an unrolled loop's variable is a compile-time value in each
        # iteration: it counts only where ``unrolled`` says so
        target = node.target
        if not _is_range_constexpr(node.iter) or (
            isinstance(target, cst.Name) and self.unrolled(target.value)
        ):
            self._add(target)


def _is_range_constexpr(it) -> bool:
    """Whether a for loop's iterable is spelt ``[kdsl.]range_constexpr(...)``."""
    if not isinstance(it, cst.Call):
        return False
    func = it.func
    name = func.attr.value if isinstance(func, cst.Attribute) else None
    if isinstance(func, cst.Name):
        name = func.value
    return name == "range_constexpr"


def _assigned_names(node, unrolled) -> list[str]:
    """Names assigned anywhere inside a compound statement, in order; the
    variable of a ``range_constexpr`` loop where ``unrolled(name)`` is true."""
    v = _Assigned(unrolled)
    if isinstance(node, (cst.If, cst.While, cst.For)):
        node.body.visit(v)
        if isinstance(node, cst.If) and node.orelse is not None:
            node.orelse.visit(v)
    return v.names


def _read_from_variable(b) -> None:
    """A binding holding an unrolled loop's compile-time value in its C++
    variable too is read from the variable from now on: after the loop, and
    in run-time control flow that assigns it."""
    if b is not None and b.cvar is not None and isinstance(b.value, Numeric):
        if b.value.is_static():
            b.value = b.type._dynamic(ir.Var(b.type, b.cvar))


class StaticBreak(Exception):
    def __init__(self, kind: str):
        self.kind = kind


def _assigns(body, cname: str) -> bool:
    """Whether the statements ``body`` assign the C++ variable ``cname``."""
    return any(
        isinstance(s, ir.Assign) and s.name == cname for s in ir.statements(body)
    )
