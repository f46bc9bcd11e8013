"""Lowering of ``@kdsl.func`` calls: one device function per argument types."""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from kdsl.transpile import ir
from kdsl.transpile.frontend.state import (
    Binding,
    FunctionState,
    Lowering,
    ResultTuple,
)
from kdsl.transpile.errors import error
from kdsl.transpile.frontend.lower_expr import (
    ArrayValue,
    FixedArray,
    PointerValue,
    SharedView,
    kind_of,
    is_value,
)
from kdsl.transpile.core import arith
from kdsl.transpile.core.structs import Struct
from kdsl.transpile.core.types import Numeric, VectorMeta


class DeviceFunctionLowerer(Lowering):
    """The device-function part of the lowerer: a ``@kdsl.func`` is lowered
    once per argument kinds (types, and for memory its element type, rank or
    shape) into an ``ir.Function``; pointers and arrays are passed as C++
    would pass them (pointers by value, a shared or local array by
    reference), so the callee reads and writes the caller's memory."""

    def call_device_function(self, f, args, kwargs, node):
        if kwargs:
            raise error(
                "unexpected-keyword",
                callee=f.name,
                keyword=next(iter(kwargs)),
                accepts="takes its arguments by position only",
            )
        args = [
            a if self.is_memory(a) or _is_int(a) else self._argument(f, a) for a in args
        ]
        key = (f, tuple(_kind(a) for a in args))
        if key in self.state.ctx.in_progress:
            raise error("recursion", name=f.name)
        if key not in self.state.ctx.functions:
            self.state.ctx.in_progress.add(key)
            try:
                self.state.ctx.functions[key] = self._lower_function(f, key[1])
            finally:
                self.state.ctx.in_progress.discard(key)
        fn = self.state.ctx.functions[key]
        written, alignment, results = self.state.ctx.effects[fn.name]
        operands = []
        for k, a in enumerate(args):
            if k in written:  # the callee stores through it
                self.mark_written(a)
            if k in alignment:  # the callee views it as vectors
                root = a.name.split(".")[0]
                need = max(self.state.ctx.alignment.get(root, 1), alignment[k])
                self.state.ctx.alignment[root] = need
            operands.extend(_operands(a))
        if results is not None:
            return self._call_with_results(fn, operands, results)
        if fn.name in self.state.ctx.record_takers:  # it has an assertion
            operands.append(self.assert_record())
        call = ir.FuncCall(fn.ret, fn.name, tuple(operands))
        if fn.ret is None:
            self.emit(ir.ExprStmt(call))
            return None
        return fn.ret._dynamic(call)

    def _call_with_results(self, fn, operands, results):
        """A call of a function that returns several results: a variable
        per result (named after the assignment's targets where it has them,
        ``best, i = argmax(...)``), passed by reference; a tuple of them."""
        targets = _target_names(self.state.statements[-1], len(results))
        out = []
        for k, t in enumerate(results):
            cname = self.state.names.declare(targets[k] or f"{fn.name}_result{k}")
            self.emit(ir.Declare(cname, t, None))
            self.state.fresh.add(cname)
            out.append(t._dynamic(ir.Var(t, cname)))
        args = tuple(operands) + tuple(v.ir_value() for v in out)
        self.emit(ir.ExprStmt(ir.FuncCall(None, fn.name, args)))
        return tuple(out)

    def _argument(self, f, a):
        if isinstance(a, Struct):  # passed by value
            return a
        if not is_value(a):
            raise error("device-function-arg", callee=f.name, got=kind_of(a))
        return self.ensure_value(a, f"an argument of {f.name}()")

    def _lower_function(self, f, kinds):
        parsed = f.parsed()
        ctx = self.state.ctx.for_function(f.fn.__globals__)
        sub = type(self)(FunctionState.start(parsed, ctx, returns_allowed=True))
        py_params = [p.name.value for p in parsed.node.params.params]
        if len(py_params) != len(kinds):
            raise error(
                "wrong-arg-count", callee=f.name, n=len(py_params), got=len(kinds)
            )
        bound = [
            sub._bind_parameter(pname, kind) for pname, kind in zip(py_params, kinds)
        ]
        sub.suite(parsed.node.body)
        ret_types = {_returned(v) for v, _ in sub.state.returns}
        if len(ret_types) > 1:
            listed = ", ".join(sorted(_returned_name(t) for t in ret_types))
            raise error("return-types-differ", callee=f.name, types=listed)
        ret = ret_types.pop() if ret_types else None
        if ret is not None:
            sub.check_value_returns(f.name)
        results = None
        if isinstance(ret, ResultTuple):  # through reference parameters
            results, ret = ret.types, None
        suffix = "_".join(_short(kind) for kind in kinds)
        name = self.state.ctx.symbols.function(
            f"{f.name}__{suffix}" if suffix else f.name
        )
        written = {k for k, pname in enumerate(py_params) if pname in ctx.written}
        alignment = {
            k: ctx.alignment[pname]
            for k, pname in enumerate(py_params)
            if pname in ctx.alignment
        }
        self.state.ctx.effects[name] = (written, alignment, results)
        params = []
        for k, group in enumerate(bound):
            for p in group:  # a pointer the callee only reads is const
                if isinstance(p.type, ir.PointerType) and k not in written:
                    p = ir.Param(p.name, replace(p.type, const=True))
                params.append(p)
        for cname, t in sub.state.results or ():
            params.append(ir.Param(cname, ir.RefType(t)))
        params.extend(sub.record_params())
        if sub.state.record is not None:
            self.state.ctx.record_takers.add(name)
        return ir.Function(
            name,
            tuple(params),
            tuple(sub.state.block),
            ret,
            is_kernel=False,
            contract=self.state.ctx.contract or f.contract,
            no_overflow=self.state.ctx.no_overflow or f.no_overflow,
        )

    def _bind_parameter(self, pname, kind) -> list:
        """Bind the Python parameter ``pname`` of a device function to its
        C++ parameters, by the argument's kind; those parameters."""
        if not isinstance(kind, tuple):  # a number or a vector
            return [self.bind_value(pname, kind)]
        what, elem = kind[0], kind[1]
        if what == "int":  # a Python int: a compile-time value, as in the caller
            self.state.env[pname] = Binding(arith.as_numeric(elem), 0)
            return []
        if what == "pointer":  # (a pointer into shared or local memory: its space)
            return self.bind_memory(pname, elem, space=kind[2] if kind[2:] else None)
        if what == "array":
            return self.bind_memory(pname, elem, kind[2])
        cname = self.state.names.declare(pname)
        if what == "fixed":  # a shared or local array, by reference
            _, _, shape, space = kind
            ptype = ir.PointerType(elem, space=space, shape=shape)
            value = FixedArray(ir.Var(ptype, cname), elem, shape, pname)
        else:  # "dynamic": a view of dynamic shared memory, a pointer
            ptype = ir.PointerType(elem, space="shared")
            value = SharedView(ir.Var(ptype, cname), elem, pname)
        self.state.env[pname] = Binding(value, 0)
        return [ir.Param(cname, ptype)]

    def check_value_returns(self, name):
        """A device function that returns a value returns one on every path."""
        if self.state.bare_returns:
            node = self.state.bare_returns[0]
            exc = error("bare-return", callee=name)
            raise exc.locate(self.state.parsed.span(node), self.line_of(node))
        if not _always_returns(self.state.block):
            node = self.state.parsed.node.name
            exc = error("missing-return", callee=name)
            raise exc.locate(self.state.parsed.span(node), self.line_of(node))


def _always_returns(stmts) -> bool:
    """Whether every path through ``stmts`` ends in a return."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ir.Return):
        return True
    if isinstance(last, ir.If):
        return _always_returns(last.then) and _always_returns(last.orelse)
    return False


def _returned(value):
    return value if isinstance(value, ResultTuple) else type(value)


def _returned_name(t) -> str:
    if isinstance(t, ResultTuple):
        return "(" + ", ".join(x.__name__ for x in t.types) + ")"
    return t.__name__


def _target_names(statement, n: int) -> list:
    """The names a statement ``a, b = ...`` assigns (None where a target is
    not a plain name, or the statement is something else)."""
    names = [None] * n
    if isinstance(statement, cst.Assign) and len(statement.targets) == 1:
        target = statement.targets[0].target
        if isinstance(target, cst.Tuple) and len(target.elements) == n:
            for k, e in enumerate(target.elements):
                if isinstance(e.value, cst.Name):
                    names[k] = e.value.value
    return names


def _kind(a):
    """What a device function is specialised on for the argument ``a``: a
    value's type; for memory, its kind and element type (and rank, or
    shape and space)."""
    if isinstance(a, SharedView):
        return ("dynamic", a.elem)
    if isinstance(a, PointerValue) and a.expr.type.space != "global":
        return ("pointer", a.elem, a.expr.type.space)  # a moved shared pointer
    if isinstance(a, PointerValue):
        return ("pointer", a.elem)
    if isinstance(a, ArrayValue):
        return ("array", a.elem, len(a.shape))
    if isinstance(a, FixedArray):
        return ("fixed", a.elem, a.shape, a.expr.type.space)
    if _is_int(a):
        return ("int", a)
    return type(a)


def _is_int(a) -> bool:
    """A Python int (not a bool): the function is specialised on its value."""
    return isinstance(a, int) and not isinstance(a, (bool, Numeric))


def _operands(a) -> list:
    """The IR operands that pass ``a`` (an Array passes its extents too)."""
    if isinstance(a, ArrayValue):
        return [a.data] + [d.ir_value() for d in a.shape + a.strides]
    if isinstance(a, (PointerValue, FixedArray)):
        return [a.expr]
    if _is_int(a):  # folded into the function
        return []
    return [a.ir_value()]


def _short(kind) -> str:
    """A kind's name in a device function's C++ name: ``f32``, ``f32x4``,
    ``pf32`` (a pointer), ``a2f32`` (an Array of rank 2), ``s32f32`` (a
    shared array of 32), ``l4x4f32`` (a local 4 × 4 array), ``df32`` (a
    view of dynamic shared memory), ``c255``/``cm1`` (a Python int, 255
    or -1)."""
    if isinstance(kind, tuple) and kind[0] == "int":
        return f"c{kind[1]}" if kind[1] >= 0 else f"cm{-kind[1]}"
    if isinstance(kind, tuple):
        what, elem = kind[0], _short(kind[1])
        if what == "pointer":
            return f"p{kind[2][0] if kind[2:] else ''}{elem}"
        if what == "dynamic":
            return f"d{elem}"
        if what == "array":
            return f"a{kind[2]}{elem}"
        return f"{kind[3][0]}{'x'.join(map(str, kind[2]))}{elem}"
    if isinstance(kind, VectorMeta):
        return f"{kind.dtype.short}x{kind.lanes}"
    return kind.short
