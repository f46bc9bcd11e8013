"""Lowering of ``@kdsl.func`` calls: one device function per argument types."""

from __future__ import annotations

from kdsl.transpile import ir
from kdsl.transpile.frontend.state import Binding, FunctionState, Lowering
from kdsl.transpile.errors import error
from kdsl.transpile.frontend.lower_expr import (
    ArrayValue,
    FixedArray,
    PointerValue,
    _kind_of,
)
from kdsl.transpile.core.types import VectorMeta


class DeviceFunctionLowerer(Lowering):
    """The device-function half of ``lower.Lowerer`` (a mixin)."""

    def call_device_function(self, f, args, kwargs, node):
        if kwargs:
            raise error(
                "unexpected-keyword",
                callee=f.name,
                keyword=next(iter(kwargs)),
                accepts="takes its arguments by position only",
            )
        for a in args:
            if isinstance(a, (PointerValue, ArrayValue, FixedArray)):
                raise error("device-function-arg", callee=f.name, got=_kind_of(a))
        vals = [self.ensure_value(a, f"an argument of {f.name}()") for a in args]
        key = (f, tuple(type(v) for v in vals))
        if key in self.state.ctx.in_progress:
            raise error("recursion", name=f.name)
        if key not in self.state.ctx.functions:
            self.state.ctx.in_progress.add(key)
            try:
                self.state.ctx.functions[key] = self._lower_function(f, key[1])
            finally:
                self.state.ctx.in_progress.discard(key)
        fn = self.state.ctx.functions[key]
        operands = tuple(v.ir_value() for v in vals)
        if fn.name in self.state.ctx.record_takers:  # it has an assertion
            operands += (self.assert_record(),)
        call = ir.FuncCall(fn.ret, fn.name, operands)
        if fn.ret is None:
            self.emit(ir.ExprStmt(call))
            return None
        return fn.ret._dynamic(call)

    def _lower_function(self, f, arg_types):
        parsed = f.parsed()
        ctx = self.state.ctx.for_function(f.fn.__globals__)
        sub = type(self)(FunctionState.start(parsed, ctx, returns_allowed=True))
        py_params = [p.name.value for p in parsed.node.params.params]
        if len(py_params) != len(arg_types):
            raise error(
                "wrong-arg-count", callee=f.name, n=len(py_params), got=len(arg_types)
            )
        params = []
        for pname, t in zip(py_params, arg_types):
            cname = sub.state.names.declare(pname)
            params.append(ir.Param(cname, t))
            sub.state.env[pname] = Binding(t._dynamic(ir.Var(t, cname)), 0, cname)
        sub.suite(parsed.node.body)
        ret_types = {type(v) for v, _ in sub.state.returns}
        if len(ret_types) > 1:
            listed = ", ".join(sorted(t.__name__ for t in ret_types))
            raise error("return-types-differ", callee=f.name, types=listed)
        ret = ret_types.pop() if ret_types else None
        if ret is not None:
            sub.check_value_returns(f.name)
        suffix = "_".join(_short(t) for t in arg_types)
        name = self.state.ctx.symbols.function(
            f"{f.name}__{suffix}" if suffix else f.name
        )
        params.extend(sub.record_params())
        if sub.state.record is not None:
            self.state.ctx.record_takers.add(name)
        return ir.Function(
            name, tuple(params), tuple(sub.state.block), ret, is_kernel=False
        )

    def check_value_returns(self, name):
        """A device function that returns a value returns one on every path."""
        if self.state.bare_returns:
            node = self.state.bare_returns[0]
            exc = error("bare-return", callee=name)
            raise exc.locate(self.state.parsed.span(node), self._line_of(node))
        if not _always_returns(self.state.block):
            node = self.state.parsed.node.name
            exc = error("missing-return", callee=name)
            raise exc.locate(self.state.parsed.span(node), self._line_of(node))


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


def _short(t) -> str:
    """A type's name in a device function's C++ name: ``f32``, ``f32x4``."""
    if isinstance(t, VectorMeta):
        return f"{t.dtype.short}x{t.lanes}"
    return t.short
