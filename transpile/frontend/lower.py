"""Lowering = checking + folding: a parsed kernel to typed IR, per instance.

Statements are lowered in order into the current block.  Variables follow
SPEC section 3: one type for a variable's life; static values fold and never
reach C++; a variable that holds a static value and is then assigned at run
time (in a branch or a loop) becomes a C++ variable declared before that
construct, and a name first assigned inside a run-time branch and read after
it is declared before the branch.
"""

from __future__ import annotations

import builtins
import contextlib
import math

import libcst as cst
import numpy as np

from kdsl.transpile.core import arith, limits
from kdsl.transpile import ir
from kdsl.transpile.errors import DSLError, error
from kdsl.transpile.frontend.foreign import advice
from kdsl.transpile.frontend.lang import PointerSpec, TypeVar
from kdsl.transpile.frontend.lower_expr import (
    UNSUPPORTED,
    ALLOWED_BUILTINS,
    ArrayValue,
    ExprLowerer,
    FixedArray,
    NoValue,
    PointerValue,
    SharedView,
    TensorMapValue,
    kind_of,
    is_python_number,
    refuse_absent,
    static_integer,
)
from kdsl.transpile.frontend.lower_control import ControlFlowLowerer, StaticBreak
from kdsl.transpile.frontend.lower_debug import DebugLowerer
from kdsl.transpile.frontend.dynamic_smem import BUFFER, DynamicLayout
from kdsl.transpile.frontend.constants import table_of
from kdsl.transpile.frontend.lower_func import DeviceFunctionLowerer
from kdsl.transpile.frontend.lower_struct import (
    FieldArrayValue,
    StructLowerer,
    is_place,
)
from kdsl.transpile.core.structs import Struct, StructMeta
from kdsl.transpile.frontend.state import (
    Binding,
    FunctionState,
    ResultTuple,
    check_limit,
)
from kdsl.transpile.core.types import (
    SCALAR_TYPES,
    Int32,
    Int64,
    Numeric,
    NumericMeta,
    Vector,
    VectorMeta,
)


class Lowerer(
    ControlFlowLowerer, DeviceFunctionLowerer, DebugLowerer, StructLowerer, ExprLowerer
):
    """Lowers one function (the kernel, or a device function with its own
    lowerer) to IR; all it changes is ``state``.  This class lowers
    statements; its bases lower control flow, device-function calls, print's
    text and asserts, and expressions."""

    def __init__(self, state: FunctionState):
        self.state = state

    # -- names ----------------------------------------------------------------------
    def lookup(self, name, node):
        if name in self.state.env:
            return self.state.env[name].value
        if name in self.state.ended_loops:
            raise error(
                "loop-variable-after-loop",
                name=name,
                line=self.state.ended_loops[name],
            )
        if name in self.state.ctx.statics:
            return self.state.ctx.statics[name]
        if name in self.state.ctx.globals:
            value = self.state.ctx.globals[name]
            if isinstance(value, np.ndarray):  # a constant table
                return table_of(self.state.ctx, self.state.ctx.symbols, name, value)
            if isinstance(value, np.generic) and value.dtype in _NUMPY_CONSTANTS:
                return _numpy_constant(value)  # docs/types.md: its own type
            return (
                self.state.ctx.statics.get(value.name, value)
                if isinstance(value, TypeVar)
                else value
            )
        if name in ALLOWED_BUILTINS:
            return getattr(builtins, name)
        if name in ("True", "False"):
            return name == "True"
        if name == "None":
            raise error("unsupported-syntax", construct="None")
        if (name.startswith("__") or name != name.lower()) and advice(name):
            raise error("foreign-name", spelled=repr(name), advice=advice(name))
        raise error("undefined-name", name=name)

    def line_of(self, node) -> str:
        return self.state.parsed.source.line_text(self.state.parsed.span(node).line)

    def emit(self, stmt):
        self.state.block.append(stmt)

    @contextlib.contextmanager
    def new_block(self):
        saved, self.state.block = self.state.block, []
        try:
            yield self.state.block
        finally:
            self.state.block = saved

    # -- parameters ------------------------------------------------------------------------
    def bind_params(self, sig, dtypes: dict) -> tuple[ir.Param, ...]:
        params = []
        for info in sig.params:
            spec = info.spec
            if info.kind == "constexpr" or info.name in self.state.ctx.statics:
                continue  # (an optional pointer passed as None: a static)
            if info.kind in ("scalar", "struct"):
                t = dtypes[spec.name] if isinstance(spec, TypeVar) else spec
                params.append(self.bind_value(info.name, t))
                continue
            if info.kind == "tensormap":
                cname = self.state.names.declare(info.name)
                var = ir.Var(ir.TENSOR_MAP, cname)
                self.state.env[info.name] = Binding(TensorMapValue(var, info.name), 0)
                params.append(ir.Param(cname, ir.TENSOR_MAP))
                continue
            elem = spec.elem
            elem = dtypes[elem.name] if isinstance(elem, TypeVar) else elem
            ndim = None if isinstance(spec, PointerSpec) else spec.ndim
            params.extend(self.bind_memory(info.name, elem, ndim))
        return tuple(params)

    def bind_value(self, name, t) -> ir.Param:
        """The parameter ``name`` holding a number or vector of type ``t``."""
        cname = self.state.names.declare(name)
        self.state.env[name] = Binding(t._dynamic(ir.Var(t, cname)), 0, cname)
        return ir.Param(cname, t)

    def bind_memory(self, name, elem, ndim=None, space=None) -> list:
        """The parameter ``name``: a pointer to ``elem`` (``ndim`` None) or an
        ``Array[elem, ndim]`` (its data pointer, then its shape and strides
        as Int64 parameters); its C++ parameters.  ``space``: a device
        function's pointer into shared or local memory."""
        cname = self.state.names.declare(name)
        ptype = ir.PointerType(elem, space=space or "global")
        var = ir.Var(ptype, cname)
        params = [ir.Param(cname, ptype)]
        if ndim is None:
            self.state.env[name] = Binding(PointerValue(var, elem, name), 0)
            return params
        dims = []
        for part in ("shape", "stride"):
            for k in range(ndim):
                dim = self.state.names.declare(f"{name}_{part}{k}")
                params.append(ir.Param(dim, Int64))
                dims.append(Int64._dynamic(ir.Var(Int64, dim)))
        value = ArrayValue(var, elem, tuple(dims[:ndim]), tuple(dims[ndim:]), name)
        self.state.env[name] = Binding(value, 0)
        return params

    def mark_written(self, target):
        """Record a store through ``target`` (by its root Python name): a
        kernel's pointer never stored to is ``const``, and so is a device
        function's pointer or array parameter."""
        if isinstance(target, (PointerValue, ArrayValue, FixedArray)):
            self.state.ctx.written.add(target.name.split(".")[0])
            self._written_through()

    def _written_through(self):
        """A store through a pointer variable stores through every pointer
        assigned to it, before or after the store (in a loop)."""
        written, aliases = self.state.ctx.written, self.state.aliases
        todo = [n for n in aliases if n in written]
        while todo:
            for source in aliases.get(todo.pop(), ()):
                if source not in written:
                    written.add(source)
                    todo.append(source)

    def is_memory(self, value) -> bool:
        return isinstance(value, (PointerValue, ArrayValue, FixedArray))

    def static_integer(self, value, what: str) -> int:
        return static_integer(value, what)

    def describe(self, value) -> str:
        return kind_of(value)

    def declare_array(self, elem, shape, space):
        name = _assigned_name(self.state.statements[-1]) or "array"
        scalar = elem.dtype if isinstance(elem, VectorMeta) else elem
        bits = math.prod(shape) * scalar.width * getattr(elem, "lanes", 1)
        check_limit(limits.LOCAL_ARRAY_BYTES, (bits + 7) // 8)
        if space == "shared":
            self._static_shared(name, elem, shape, (bits + 7) // 8)
        cname = self.state.names.declare(name)
        self.emit(ir.ArrayDecl(cname, elem, shape, space))
        return FixedArray(
            ir.Var(ir.PointerType(elem, space=space), cname), elem, shape, name
        )

    def _static_shared(self, name, elem, shape, nbytes: int) -> None:
        """CUDA allows a block 48 KB of static ``__shared__`` arrays (ptxas
        refuses more); beyond it the memory must be dynamic (E127)."""
        count = self.state.ctx.static_shared
        count[0] += nbytes
        if count[0] > limits.STATIC_SHARED_BYTES:
            size = math.prod(shape)
            raise error(
                "static-shared-limit",
                name=name,
                nbytes=nbytes,
                total=count[0],
                limit=limits.STATIC_SHARED_BYTES,
                elem=elem.__name__,
                size=size,
            )

    def hold(self, value, name, callee):
        where = self.state.conditional[-1] if self.state.conditional else None
        if where is None and isinstance(self.state.statements[-1], cst.While):
            where = "a 'while' condition"
        if where is not None:
            raise error("pair-in-expression", callee=callee, where=f"in {where}")
        t = type(value)
        cvar = self.state.names.declare(name)
        self.emit(ir.Declare(cvar, t, value.ir_value()))
        return t._dynamic(ir.Var(t, cvar))

    def align_dynamic_shared(self, nbytes: int) -> None:
        """Declare the dynamic shared buffer aligned to at least ``nbytes``
        (a power of two; a swizzled wgmma tile's pattern repeats every 1024
        bytes and must start on it); nothing if the kernel has no view."""
        layout = self.state.ctx.dynamic
        if layout is not None:
            layout.align = max(layout.align, nbytes)

    def dynamic_shared_view(self, elem, nbytes, size):
        statement = self.state.statements[-1]
        name = _assigned_name(statement) or "view"
        if self.state.returns_allowed:  # a device function
            func = self.state.parsed.node.name.value
            raise error("dynamic-shared-in-function", func=func)
        if self.state.dynamic_depth:
            raise error("dynamic-shared-in-branch", name=name)
        if size is not None:
            size = _view_size(size)
        if self.state.ctx.dynamic is None:
            self.state.ctx.dynamic = DynamicLayout()
        layout = self.state.ctx.dynamic
        line = self.state.parsed.span(statement).line
        start, end = layout.place(name, nbytes, size, line)
        ptype = ir.PointerType(elem, space="shared")
        offset = arith.convert(arith.as_numeric(start), Int32).ir_value()
        count = None if size is None else arith.as_numeric(size).ir_value()
        cname = self.state.names.declare(name)
        view = ir.DynamicShared(ptype, BUFFER, name, offset, count)
        self.emit(ir.Declare(cname, ptype, view))
        if end is not None:  # where the next view starts, read here
            end_name = self.state.names.declare(f"{name}_end")
            declaration = ir.Declare(end_name, Int32, end.ir_value())
            self.emit(declaration)
            layout.named(Int32._dynamic(ir.Var(Int32, end_name)), declaration)
        return SharedView(ir.Var(ptype, cname), elem, name)

    # -- statements -----------------------------------------------------------------------------
    def suite(self, block):
        """The body of a compound statement: an indented block, or the
        statements after its colon on the same line (``if c: x = 1``), which
        lower as the same statements indented would."""
        self.body(block.body if isinstance(block, cst.IndentedBlock) else [block])

    def body(self, statements):
        for stmt in statements:
            self.statement(stmt)
            if (
                self.state.block
                and isinstance(self.state.block[-1], ir.Return)
                and self.state.dynamic_depth == 0
            ):
                break

    def statement(self, node):
        handler = getattr(self, f"stmt_{type(node).__name__}", None)
        if handler is None:
            exc = error("unsupported-syntax", construct=_describe_stmt(node))
            raise exc.locate(self.state.parsed.span(node), self.line_of(node))
        start = len(self.state.block)
        span = self.state.parsed.span(node)
        text = self._source_text(node)
        if self.state.unrolled_at:  # which iteration of a range_constexpr this is
            text += "  [" + ", ".join(self.state.unrolled_at) + "]"
        comment = ir.Comment(text, span=span)
        self.state.predeclared.append([])
        self.state.origins.append(comment)
        self.state.statements.append(node)
        try:
            handler(node)
        except DSLError as exc:
            raise exc.locate(self.state.parsed.span(node), self.line_of(node)) from None
        except StaticBreak:
            raise
        except Exception as exc:  # the one error boundary: no internal frames
            internal = error("internal", what=f"{type(exc).__name__}: {exc}")
            raise internal.locate(
                self.state.parsed.span(node), self.line_of(node)
            ) from None
        finally:
            predeclared = self.state.predeclared.pop()
            comment = self.state.origins.pop()  # as noted (``note_origin``)
            self.state.statements.pop()
        if len(self.state.block) > start:
            self.state.block[start:start] = predeclared + [comment]
        else:
            self.state.block[start:start] = predeclared

    def note_origin(self, text: str):
        """Add ``text`` to the source comment of the statement being
        lowered (what a static ``if`` decided)."""
        if self.state.origins:
            c = self.state.origins[-1]
            self.state.origins[-1] = ir.Comment(c.text + text, span=c.span)

    def _source_text(self, node) -> str:
        if isinstance(node, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            # each small statement's code ends with its own separator, if any
            text = "; ".join(
                self.state.parsed.code(s).strip().rstrip(";") for s in node.body
            )
        elif isinstance(node, cst.If):
            text = f"if {self.state.parsed.code(node.test)}:"
        elif isinstance(node, cst.For):
            text = f"for {self.state.parsed.code(node.target)} in {self.state.parsed.code(node.iter)}:"
        elif isinstance(node, cst.While):
            text = f"while {self.state.parsed.code(node.test)}:"
        else:
            text = self.state.parsed.code(node)
        return echo(text)

    def stmt_SimpleStatementLine(self, node):
        for small in node.body:
            handler = getattr(self, f"small_{type(small).__name__}", None)
            if handler is None:
                raise error(
                    "unsupported-syntax",
                    construct=_describe_stmt(small),
                    span=self.state.parsed.span(small),
                )
            self.state.statements.append(small)
            try:
                handler(small)
            except DSLError as exc:
                raise exc.locate(
                    self.state.parsed.span(small), self.line_of(small)
                ) from None
            finally:
                self.state.statements.pop()

    stmt_SimpleStatementSuite = stmt_SimpleStatementLine  # if c: x = 1

    def small_Pass(self, node):
        pass

    def small_Expr(self, node):
        if isinstance(node.value, (cst.SimpleString, cst.ConcatenatedString)):
            return  # a docstring
        value = self.expr(node.value)
        if isinstance(value, (Numeric, Vector)) and not value.is_static():
            expr = value.ir_value()
            if isinstance(expr, ir.CALLS):
                self.emit(ir.ExprStmt(expr))

    def small_Assign(self, node):
        if len(node.targets) != 1:
            raise error("chained-assignment", code=self.state.parsed.code(node))
        target = node.targets[0].target
        self.assign(target, self.expr(node.value), node.value)

    def small_AnnAssign(self, node):
        t = self.expr(node.annotation.annotation)
        concrete = isinstance(t, NumericMeta) and not t.abstract
        if not (concrete or isinstance(t, VectorMeta) and t.dtype is not None):
            raise error("annotation-type", got=getattr(t, "__name__", repr(t)))
        if not isinstance(node.target, cst.Name):
            raise error("annotated-target", target=self.state.parsed.code(node.target))
        name = node.target.value
        if node.value is None:
            raise error("annotation-needs-value", name=name, type=t.__name__)
        value = self.expr(node.value)
        if name in self.state.env and self.state.env[name].type not in (None, t):
            b = self.state.env[name]
            raise error(
                "retyped-variable",
                name=name,
                old=b.type.__name__,
                line=b.line,
                new=t.__name__,
            )
        value = self.ensure_value(value, "an annotated value")
        if type(value) is not t and not value.is_static():
            raise error(
                "annotated-convert",
                name=name,
                type=t.__name__,
                got=type(value).__name__,
            )
        self.assign(node.target, arith.convert(value, t), node.value)

    def small_AugAssign(self, node):
        op = _AUG[type(node.operator)]
        current = self.expr(node.target)
        value = self.expr(node.value)
        if _is_literal(node.value) and isinstance(current, Numeric):
            if isinstance(value, float) and current.dtype.kind in ("int", "bool"):
                raise error(  # i = i + 0.5 would make i a float
                    "retyped-variable",
                    name=self.state.parsed.code(node.target),
                    old=current.dtype.__name__,
                    line=self.state.parsed.span(node.target).line,
                    new="float (from a float literal)",
                )
            target = f"'{self.state.parsed.code(node.target)}'"
            _exact_literal(arith.as_numeric(value), current.dtype, target)
            value = arith.convert(arith.as_numeric(value), current.dtype)
        self.assign(node.target, self.binary(op, current, value, node), None)

    def small_Return(self, node):
        if node.value is not None:
            if not self.state.returns_allowed:
                raise error(
                    "kernel-return-value", value=self.state.parsed.code(node.value)
                )
            value = self.expr(node.value)
            if isinstance(value, tuple):  # several results, through references
                return self._return_results(value, node)
            if not isinstance(value, Struct):
                value = self.ensure_value(value, "return")
            self.state.returns.append((value, node))
            self.emit(ir.Return(value.ir_value()))
        else:
            self.state.bare_returns.append(node)
            self.emit(ir.Return(None))

    def _return_results(self, values, node):
        """``return a, b``: each result assigned to its reference parameter
        (``result0``, ``result1`` … declared at the first such return)."""
        values = [self.ensure_value(v, "return") for v in values]
        types = tuple(type(v) for v in values)
        if self.state.results is None:
            names = [self.state.names.declare(f"result{k}") for k in range(len(types))]
            self.state.results = list(zip(names, types))
        if tuple(t for _, t in self.state.results) != types:
            listed = ", ".join(t.__name__ for t in types)
            before = ", ".join(t.__name__ for _, t in self.state.results)
            raise error(
                "return-types-differ",
                callee=self.state.parsed.node.name.value,
                types=f"({before}) and ({listed})",
            )
        for (cname, _), v in zip(self.state.results, values):
            self.emit(ir.Assign(cname, v.ir_value()))
        self.state.returns.append((ResultTuple(types), node))
        self.emit(ir.Return(None))

    def small_Break(self, node):
        self.loop_exit("break")

    def small_Continue(self, node):
        self.loop_exit("continue")

    # -- assignment ---------------------------------------------------------------------------
    def assign(self, target, value, value_node):
        """``target = value`` (``value_node`` the value's source, or None)."""
        if isinstance(target, cst.Subscript):
            return self.store(target, value, value_node)
        if isinstance(target, cst.Attribute):  # s.x = value: a struct's field
            return self.store_field(target, value, value_node)
        if isinstance(target, cst.Tuple):
            return self._assign_tuple(target, value)
        if not isinstance(target, cst.Name):
            raise error("assign-target", target=self.state.parsed.code(target))
        return self._assign_name(target, value, value_node)

    def _assign_tuple(self, target, value):
        pairs = _tuple_pairs(target, value)
        targets = [t for t, _ in pairs]
        values = self._evaluated_first(targets, [v for _, v in pairs])
        for t, v in zip(targets, values):  # left to right, as Python does
            self.assign(t, v, None)

    def _assign_name(self, target, value, value_node):
        name, line = target.value, self.state.parsed.span(target).line
        if name in self.state.ctx.statics:
            raise error("assign-constexpr", name=name, use="assigned")
        b = self.state.env.get(name)
        if b is None and self.state.carried_binding(name) is not None:
            # bound again after a loop over the name: one C++ variable
            b = self.state.env[name] = self.state.carried_binding(name)
        if is_python_number(value):  # a literal takes the variable's type
            literal = value_node is not None and _is_literal(value_node)
            if b is not None and b.type is not None and literal:
                _exact_literal(arith.as_numeric(value), b.type, f"variable '{name}'")
                value = arith.convert(arith.as_numeric(value), b.type)
            else:
                value = arith.as_numeric(value)
        if isinstance(value, FieldArrayValue):
            raise error(
                "struct-array-field",
                field=value.field,
                struct=value.owner,
                type=value.type.__name__,
                code=value.code,
            )
        if not isinstance(value, (Numeric, Vector, Struct)):
            self._assign_object(name, value, b, line)
        elif b is not None:
            self._reassign(name, b, value)
        else:
            self._first_assign(name, value, line)

    def _reassign(self, name, b, value):
        """A variable's later value: same type; a C++ variable once it has
        held a run-time value (or is assigned in run-time control flow)."""
        if b.type is None:
            raise error(
                "reassign-object",
                name=name,
                old=kind_of(b.value),
                new=kind_of(value),
            )
        if b.type is not type(value):
            raise error(
                "retyped-variable",
                name=name,
                old=b.type.__name__,
                line=b.line,
                new=type(value).__name__,
            )
        if b.cvar is not None:
            self.emit(ir.Assign(b.cvar, value.ir_value()))
            static = isinstance(value, Numeric) and value.is_static()
            if static and self.state.carried_binding(name) is None:
                # straight-line code outside the run-time control flow that
                # assigns the name: its reads fold the (scalar) value until
                # such a construct reads it from the variable again
                # (lower_control._read_from_variable)
                b.value = value
                return
        elif value.is_static():
            b.value = value
            return
        else:
            b.cvar = self.state.names.declare(name)
            self.emit(ir.Declare(b.cvar, type(value), value.ir_value()))
        b.value = type(value)._dynamic(ir.Var(type(value), b.cvar))

    def _first_assign(self, name, value, line):
        """A new variable: static (folded), declared here, assigned here
        when its declaration was hoisted before an enclosing branch, or the
        variable a call just returned a result into (``a, b = f(x)``)."""
        t = type(value)
        held = None if value.is_static() else value.ir_value()
        if name in self.state.hoisted:
            cvar = self.state.names.declare(name)
            self.emit(ir.Assign(cvar, value.ir_value()))
            binding = Binding(t._dynamic(ir.Var(t, cvar)), line, cvar, self._origin())
            self.state.carry(name, binding)
        elif isinstance(held, ir.Var) and held.name in self.state.fresh:
            self.state.fresh.discard(held.name)
            binding = Binding(value, line, held.name)
        elif value.is_static():
            binding = Binding(value, line, origin=self._origin())
        else:
            cvar = self.state.names.declare(name)
            self.emit(ir.Declare(cvar, t, value.ir_value()))
            binding = Binding(t._dynamic(ir.Var(t, cvar)), line, cvar)
        self.state.env[name] = binding

    def _evaluated_first(self, targets, values) -> list:
        """Python evaluates every value of a tuple assignment before it assigns
        any: a run-time value that reads a variable (or memory) an earlier
        target writes is copied to a temporary first (``a, b = b, a``).
        ``targets`` and ``values`` are the flattened leaves (``_tuple_pairs``)."""
        out, written, stored = list(values), set(), False
        for k, (target, v) in enumerate(zip(targets, values)):
            if isinstance(v, PointerValue) and isinstance(v.expr, ir.Var):
                if v.expr.name in written:  # a pointer variable assigned before
                    base = _target_name(target)
                    tmp = self.state.names.declare(f"{base}_value")
                    self.emit(ir.Declare(tmp, v.expr.type, v.expr))
                    out[k] = PointerValue(ir.Var(v.expr.type, tmp), v.elem, v.name)
            elif isinstance(v, (Numeric, Vector, Struct)) and not v.is_static():
                inside = list(ir.walk(v.ir_value()))
                reads = {e.name for e in inside if isinstance(e, ir.Var)}
                loads = any(isinstance(e, ir.Load) for e in inside)
                if reads & written or (stored and loads):
                    base = _target_name(target)
                    tmp = self.state.names.declare(f"{base}_value")
                    self.emit(ir.Declare(tmp, type(v), v.ir_value()))
                    out[k] = type(v)._dynamic(ir.Var(type(v), tmp))
            root = target  # v[0] = ... writes a lane of the variable v
            if isinstance(root, cst.Subscript) and isinstance(root.value, cst.Name):
                root = root.value
            b = self.state.env.get(root.value) if isinstance(root, cst.Name) else None
            if b is not None and b.cvar is not None:
                written.add(b.cvar)
            stored = stored or not isinstance(target, cst.Name)
        return out

    def _origin(self) -> ir.Comment | None:
        return self.state.origins[-1] if self.state.origins else None

    def _assign_object(self, name, value, b, line):
        if isinstance(value, NoValue):
            raise error("no-value", callee=value.callee)
        if self._assign_pointer_variable(name, value, b, line):
            return
        redeclared = isinstance(value, (FixedArray, SharedView)) and type(
            b and b.value
        ) is type(value)
        if b is not None and _same_pointer_type(b.value, value):
            b = None  # p = p + k in straight-line code: p names the moved pointer
        if b is not None and not (redeclared and self.state.unrolled_at):
            # (each iteration of a range_constexpr loop may declare its array)
            raise error(
                "reassign-object",
                name=name,
                old=kind_of(b.value),
                new=kind_of(value),
            )
        if self.state.dynamic_depth and name in self.state.hoisted:
            raise error("object-in-branch", value=kind_of(value))
        if isinstance(value, PointerValue) and not isinstance(value.expr, ir.Var):
            cvar = self.state.names.declare(name)
            ptype = value.expr.type
            self.emit(ir.Declare(cvar, ptype, value.expr))
            value = type(value)(ir.Var(ptype, cvar), value.elem, value.name)
        if isinstance(value, ArrayValue) and not isinstance(value.data, ir.Var):
            cvar = self.state.names.declare(name)  # a row view: its data pointer
            ptype = value.data.type
            self.emit(ir.Declare(cvar, ptype, value.data))
            data = ir.Var(ptype, cvar)
            value = ArrayValue(data, value.elem, value.shape, value.strides, value.name)
        self.state.env[name] = Binding(value, line, origin=self._origin())

    def _assign_pointer_variable(self, name, value, b, line) -> bool:
        """A pointer assigned in run-time control flow, or to a pointer
        variable (``src, dst = dst, src``): a C++ pointer variable, declared
        before the branch or loop; True when done here."""
        if not isinstance(value, PointerValue):
            return False
        variable = b is not None and isinstance(b.value, PointerValue) and b.cvar
        first = b is None and self.state.dynamic_depth and name in self.state.hoisted
        if not (variable or first):
            return False
        ptype = ir.PointerType(value.elem, space=value.expr.type.space)
        if variable:
            old = b.value.expr.type
            if (old.elem, old.space) != (ptype.elem, ptype.space):
                raise error(
                    "reassign-object",
                    name=name,
                    old=kind_of(b.value),
                    new=kind_of(value),
                )
            cvar = b.cvar
        else:
            cvar = self.state.names.declare(name)
            held = type(value)(ir.Var(ptype, cvar), value.elem, name)
            self.state.env[name] = Binding(held, line, cvar, self._origin())
            self.state.carry(name, self.state.env[name])
        self.emit(ir.Assign(cvar, value.expr))
        self.state.aliases.setdefault(name, set()).add(value.name.split(".")[0])
        self._written_through()
        return True

    def store(self, target, value, value_node):
        """``x[i] = value`` into memory, or into a lane of a vector: ``v[2] =
        value`` (a vector variable) or ``s[i][2] = value`` (an element)."""
        holder = None
        if isinstance(target.value, cst.Subscript):  # x[i][k]: a lane of x[i]?
            holder = self.expr(target.value.value)
            obj = self.subscript(holder, self.subscript_indices(target.value))
        else:
            obj = self.expr(target.value)
        refuse_absent(obj)
        if isinstance(obj, FieldArrayValue):  # s.qs[j] = value
            return self.store_field(target, value, value_node)
        indices = self.subscript_indices(target)
        if isinstance(obj, Vector):
            return self._store_lane(target, holder, obj, indices, value, value_node)
        if not isinstance(obj, (PointerValue, ArrayValue, FixedArray)):
            raise error("store-target", target=kind_of(obj))
        value = self._stored(value, value_node, obj.elem, f"'{obj.name}'")
        base, flat = self.address(obj, indices)
        self.mark_written(obj)
        self.emit(ir.Store(base, flat, value.ir_value()))

    def _store_lane(self, target, holder, vec, indices, value, value_node):
        vtype, code = type(vec), self.state.parsed.code(target.value)
        if len(indices) != 1:
            raise error("index-count", target=kind_of(vec), got=len(indices))
        lane = arith.lane_index(vtype, indices[0])
        if lane is None:
            raise error(
                "lane-store-index",
                target=self.state.parsed.code(target),
                vtype=vtype.__name__,
                last=vtype.lanes - 1,
                dtype=vtype.dtype.__name__,
                lanes=vtype.lanes,
            )
        value = self._stored(value, value_node, vtype.dtype, f"lane {lane} of '{code}'")
        expr = vec.ir_value()
        if holder is not None and isinstance(expr, ir.Load):  # s[i][k] = value
            self.mark_written(holder)
            self.emit(ir.StoreLane(expr.base, expr.indices, lane, value.ir_value()))
        elif isinstance(target.value, cst.Name) and isinstance(expr, ir.Var):
            self.emit(ir.AssignLane(expr.name, vtype, lane, value.ir_value()))
        elif is_place(expr):  # s.color[3] = x: a lane of a struct's vector field
            place = ir.Extract(vtype.dtype, expr, lane)
            self.store_place(place, value, self.state.parsed.code(target))
        else:
            raise error("lane-store-target", target=f"'{code}'")

    def _stored(self, value, value_node, elem, target: str):
        """``value`` as stored into ``target`` of type ``elem``: of that type,
        or a literal (or a compile-time value) converted to it."""
        if isinstance(elem, StructMeta) or isinstance(value, Struct):
            if type(value) is not elem:  # a record is stored whole
                raise error(
                    "store-type",
                    value=kind_of(value),
                    target=target,
                    elem=elem.__name__,
                )
            return value
        value = self.ensure_value(value, "a store")
        if type(value) is not elem:
            if not (
                value.is_static() and (value_node is None or _is_literal(value_node))
            ):
                raise error(
                    "store-type",
                    value=type(value).__name__,
                    target=target,
                    elem=elem.__name__,
                )
            if value_node is not None:
                _exact_literal(value, elem, target)
            value = arith.convert(value, elem)
        return value


_AUG = {
    cst.AddAssign: "+",
    cst.SubtractAssign: "-",
    cst.MultiplyAssign: "*",
    cst.DivideAssign: "/",
    cst.FloorDivideAssign: "//",
    cst.ModuloAssign: "%",
    cst.PowerAssign: "**",
    cst.BitAndAssign: "&",
    cst.BitOrAssign: "|",
    cst.BitXorAssign: "^",
    cst.LeftShiftAssign: "<<",
    cst.RightShiftAssign: ">>",
}


def _same_pointer_type(old, new) -> bool:
    """Whether the pointer ``new`` may rebind a name holding the pointer
    ``old``: one element type, one memory space, one kind of pointer."""
    if not (isinstance(old, PointerValue) and type(old) is type(new)):
        return False
    a, b = old.expr.type, new.expr.type
    return (a.elem, a.space) == (b.elem, b.space)


def _exact_literal(value, t, target: str) -> None:
    """A literal that takes the integer type ``t`` of ``target`` (a store, a
    variable) must be one of its values: ``3_000_000_000`` for an Int32 or
    ``1.5`` for an integer variable is E126, not a silent wrap or truncation
    (``Int32(3_000_000_000)`` asks for that)."""
    if getattr(t, "kind", None) != "int" or not isinstance(value, Numeric):
        return
    v = value.value
    if isinstance(v, float):
        if v == v and v not in (float("inf"), float("-inf")) and v == int(v):
            v = int(v)
        else:
            reason, rule = "not an integer", "truncates toward zero"
            raise error(
                "literal-not-exact",
                target=target,
                type=t.__name__,
                value=repr(v),
                reason=reason,
                rule=rule,
            )
    if not t.min() <= v <= t.max():
        raise error(
            "literal-not-exact",
            target=target,
            type=t.__name__,
            value=repr(value.value),
            reason=f"outside {t.min()} … {t.max()}",
            rule="keeps the low bits",
        )


def _is_literal(node) -> bool:
    if isinstance(node, (cst.Integer, cst.Float)):
        return True
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return True
    return (
        isinstance(node, cst.UnaryOperation)
        and isinstance(node.operator, (cst.Minus, cst.Plus))
        and _is_literal(node.expression)
    )


def _describe_stmt(node) -> str:
    return UNSUPPORTED.get(
        type(node).__name__, f"the statement '{type(node).__name__}'"
    )


def _tuple_pairs(target, value) -> list:
    """``(target, value)`` leaves of a (possibly nested) tuple assignment, in
    the order Python assigns them."""
    if not isinstance(value, tuple) or len(value) != len(target.elements):
        got = f"{len(value)} values" if isinstance(value, tuple) else kind_of(value)
        raise error("unpack-count", n=len(target.elements), got=got)
    pairs = []
    for element, v in zip(target.elements, value):
        if isinstance(element.value, cst.Tuple):
            pairs.extend(_tuple_pairs(element.value, v))
        else:
            pairs.append((element.value, v))
    return pairs


def _view_size(size):
    """A dynamic shared view's element count: a positive int, or a run-time
    integer value."""
    value = arith.as_numeric(size) if is_python_number(size) else size
    if isinstance(value, Numeric) and value.dtype.kind == "int":
        if not value.is_static():
            return value
        if value.value > 0:
            return int(value.value)
    got = repr(size) if is_python_number(size) else kind_of(size)
    if isinstance(size, Numeric) and size.is_static():
        got = f"{type(size).__name__}({size.value})"
    raise error("dynamic-shared-size", got=got)


def _assigned_name(statement) -> str | None:
    """The name a statement ``name = ...`` assigns (what a shared or local
    array it declares is called in C++), else None."""
    if isinstance(statement, cst.Assign) and len(statement.targets) == 1:
        target = statement.targets[0].target
        if isinstance(target, cst.Name):
            return target.value
    return None


def _target_name(target) -> str:
    """A name for a temporary holding the value assigned to ``target``."""
    while isinstance(target, (cst.Subscript, cst.Attribute)):
        target = target.value
    return target.value if isinstance(target, cst.Name) else "tuple"


# a module-level numpy scalar: a compile-time value of its own type


_NUMPY_CONSTANTS = {
    t.np_dtype: t for t in SCALAR_TYPES if t.np_dtype is not None and t.width <= 64
}


def _numpy_constant(value):
    t = _NUMPY_CONSTANTS[value.dtype]
    if t.kind == "int":
        return t._static(int(value))
    return arith.as_numeric(value)  # a float or bool keeps its type there


ECHO_ONE_LINE = 80  # a statement's comment up to this long stays on one line


def echo(code: str) -> str:
    """A Python statement's ``code`` as its C++ comment echoes it, runs of
    spaces made one.  A statement written over several lines is joined into
    one when that is at most ``ECHO_ONE_LINE`` columns (no space inside its
    brackets: ``f(a, b)``, not ``f( a, b )``), else kept on its lines
    (joined by ``\\n``), the continuation lines indented as in the source
    (libcst gives them relative to the statement's block).  A
    line-continuation backslash is dropped: at the end of a ``//`` line it
    would splice the next C++ line into the comment."""
    lines = []
    for line in code.split("\n"):
        line = line.rstrip()
        if line.endswith("\\"):
            line = line[:-1].rstrip()
        words = " ".join(line.split())
        if words:
            indent = len(line) - len(line.lstrip()) if lines else 0
            lines.append((indent, words))
    joined = ""
    for _, words in lines:
        if joined.endswith(",") and words[0] in ")]}":
            joined = joined[:-1]  # a trailing comma before the bracket
        glue = "" if not joined or joined[-1] in "([{" or words[0] in ")]}" else " "
        joined += glue + words
    if len(joined) <= ECHO_ONE_LINE:
        return joined
    return "\n".join(" " * indent + words for indent, words in lines)
