"""Lowering of expressions: libcst expression nodes to kdsl values.

A kernel's expression evaluates, at compile time, to a *value*: a static or
dynamic ``Numeric`` / ``Vector`` (arith builds IR for the dynamic ones), a
pointer or array view, or a plain Python object (a type, a Constexpr's int, a
module).  Static operands fold here, so nothing known at compile time reaches
the generated code.
"""

from __future__ import annotations

import builtins
import contextlib
import inspect
from dataclasses import dataclass, replace

import libcst as cst

from kdsl.transpile.core import arith, limits, values
from kdsl.transpile import ir
from kdsl.transpile.errors import DSLError, error
from kdsl.transpile.builtins import Builtin, get as builtin, lower_call
from kdsl.transpile.frontend import pointers
from kdsl.transpile.frontend.foreign import advice
from kdsl.transpile.frontend.constants import ConstantArray, element
from kdsl.transpile.frontend.definition import definition_of
from kdsl.transpile.frontend.lang import TypeVar, _Dim3
from kdsl.transpile.frontend.memory import (  # (the lowering's memory values)
    ArrayValue,
    FixedArray,
    PointerValue,
    SharedView,
)
from kdsl.transpile.frontend.state import Lowering, check_limit
from kdsl.transpile.frontend.lower_struct import FieldArrayValue
from kdsl.transpile.frontend.lower_struct import describe as _describe_struct
from kdsl.transpile.core.structs import Struct, is_struct
from kdsl.transpile.core.types import (
    Boolean,
    Int64,
    Numeric,
    NumericMeta,
    Vector,
    VectorMeta,
    vector_align,
    vector_type,
)

BINARY_OPS = {
    cst.Add: "+",
    cst.Subtract: "-",
    cst.Multiply: "*",
    cst.Divide: "/",
    cst.FloorDivide: "//",
    cst.Modulo: "%",
    cst.Power: "**",
    cst.BitAnd: "&",
    cst.BitOr: "|",
    cst.BitXor: "^",
    cst.LeftShift: "<<",
    cst.RightShift: ">>",
}
COMPARE_OPS = {
    cst.LessThan: "<",
    cst.LessThanEqual: "<=",
    cst.GreaterThan: ">",
    cst.GreaterThanEqual: ">=",
    cst.Equal: "==",
    cst.NotEqual: "!=",
}
_PY_BINARY = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
    "//": lambda a, b: a // b,
    "%": lambda a, b: a % b,
    "**": lambda a, b: a**b,
    "&": lambda a, b: a & b,
    "|": lambda a, b: a | b,
    "^": lambda a, b: a ^ b,
    "<<": lambda a, b: a << b,
    ">>": lambda a, b: a >> b,
}
_PY_COMPARE = values.COMPARE
# the widest Python integer compile-time arithmetic may build (bits): 10**5000
# is fine (and then too large for any type, E275); 10**10**9 would take minutes
_PY_INT_BITS = 1 << 16


def _refuse_static_overflow(op, a, b, out):
    """A signed ``a op b`` folded at compile time in a ``no_overflow=True``
    function: its exact value must fit (E354), as at run time (E903)."""
    t = type(out)
    if not (isinstance(out, Numeric) and out.is_static() and t.kind == "int"):
        return
    if not t.signed or t.width > 64:
        return
    x, y = (int(v._value) if isinstance(v, Numeric) else int(v) for v in (a, b))
    exact = x + y if op == "+" else x - y if op == "-" else x * y
    if exact != int(out._value):
        raise error(
            "static-overflow", lhs=x, op=op, rhs=y, exact=exact, type=t.__name__
        )


def _check_python_int_size(op, a, b) -> None:
    if op not in ("**", "<<") or not all(isinstance(v, int) for v in (a, b)):
        return
    if b <= 0 or abs(a) <= (1 if op == "**" else 0):
        return
    bits = abs(a).bit_length() * b if op == "**" else abs(a).bit_length() + b
    if bits > _PY_INT_BITS:
        raise error("value-too-large", bits=bits)


# Python built-ins a kernel may call; everything else in builtins is an error.
ALLOWED_BUILTINS = (
    "range",
    "min",
    "max",
    "abs",
    "int",
    "float",
    "bool",
    "len",
    "print",
)
NUMERIC_METHODS = ("to", "bitcast", "select", "is_static")


@dataclass(frozen=True)
class TensorMapValue:
    """A ``kdsl.TensorMap`` parameter: only the TMA built-ins take it."""

    expr: ir.Expr
    name: str


@dataclass(frozen=True)
class AbsentPointer:
    """An optional pointer parameter passed as None: this instance has no
    such parameter, and only ``name is None`` may use it."""

    name: str


@dataclass(frozen=True)
class NoValue:
    """What a call that returns nothing (``syncthreads()``, a device
    function without ``return value``) evaluates to."""

    callee: str


@dataclass(frozen=True)
class BoundMethod:
    """``obj.method`` of a kdsl value, called later."""

    obj: object
    name: str


is_python_number = arith.is_python_number


def is_value(v) -> bool:
    return isinstance(v, (Numeric, Vector)) or is_python_number(v)


class ExprLowerer(Lowering):
    """Expression half of the lowering pass (see ``lower.Lowerer``)."""

    # -- entry ------------------------------------------------------------------
    def expr(self, node: cst.BaseExpression):
        handler = getattr(self, f"_expr_{type(node).__name__}", None)
        if handler is None:
            raise error(
                "unsupported-syntax",
                construct=_describe(node),
                span=self.state.parsed.span(node),
            )
        self.state.expr_depth += 1
        try:
            check_limit(limits.EXPRESSION_DEPTH, self.state.expr_depth)
            return handler(node)
        except DSLError as exc:
            raise exc.locate(self.state.parsed.span(node), self.line_of(node)) from None
        except (ZeroDivisionError, OverflowError, ValueError, TypeError) as exc:
            raise error(
                "compile-time-exception",
                exc_type=type(exc).__name__,
                detail=exc,
                span=self.state.parsed.span(node),
            ) from None
        finally:
            self.state.expr_depth -= 1

    def numeric(self, node, what="this expression"):
        v = self.expr(node)
        if not is_value(v):
            raise error(
                "not-numeric",
                where=f" for {what}",
                got=kind_of(v),
                span=self.state.parsed.span(node),
            )
        return arith.as_numeric(v)

    # -- leaves -------------------------------------------------------------------
    def _expr_Integer(self, node):
        return int(node.evaluated_value)

    def _expr_Float(self, node):
        return float(node.evaluated_value)

    def _expr_Name(self, node):
        return self.lookup(node.value, node)

    def _expr_Tuple(self, node):
        items = []
        for e in node.elements:
            value = self.expr(e.value)
            if isinstance(e, cst.StarredElement):  # (*t, v): t's items, as Python
                if not isinstance(value, tuple):
                    raise error(
                        "starred-not-tuple",
                        got=kind_of(value),
                        span=self.state.parsed.span(e),
                    )
                items.extend(value)
            else:
                items.append(value)
        return tuple(items)

    def _expr_List(self, node):
        return self._expr_Tuple(node)

    # -- operators ------------------------------------------------------------------
    def _expr_BinaryOperation(self, node):
        op = BINARY_OPS.get(type(node.operator))
        if op is None:
            raise error(
                "unsupported-operator",
                op=_code(node.operator).strip(),
                instead="* and + on the elements",
            )
        a, b = self.expr(node.left), self.expr(node.right)
        return self.binary(op, a, b, node)

    def binary(self, op, a, b, node):
        if is_python_number(a) and is_python_number(b):
            if op in ("//", "%") and b == 0:
                raise error("static-zero-division", op=op, lhs=a, rhs=b)
            _check_python_int_size(op, a, b)
            return _PY_BINARY[op](a, b)
        if pointers.is_pointer(a) or pointers.is_pointer(b):
            return pointers.binary(op, a, b, kind_of)
        for v in (a, b):
            if not is_value(v):
                _refuse_struct(v, f"as an operand of '{op}'")
                raise error(
                    "not-numeric", where=f" for operator '{op}'", got=kind_of(v)
                )
        out = arith.binary(op, a, b, self.state.parsed.span(node))
        if self.state.ctx.no_overflow and op in ("+", "-", "*"):
            _refuse_static_overflow(op, a, b, out)
            if self.state.ctx.debug:
                out = self._checked(out, node)
        return out

    def _checked(self, out, node):
        """A debug build's signed ``+ - *`` of 32 or 64 bits stated not to
        overflow: checked on the GPU, an assertion of its own."""
        e = out.ir_value() if isinstance(out, Numeric) else None
        t = type(out)
        if not isinstance(e, ir.BinOp) or out.is_static():
            return out
        if not (t.kind == "int" and t.signed and t.width in (32, 64)):
            return out
        site = len(self.state.ctx.assertions) + 1
        text = " ".join(self.state.parsed.code(node).split())
        message = (
            f"{text} overflows {t.__name__} (the function states no_overflow=True)"
        )
        self.state.ctx.assertions.append((e.span, message))
        checked = replace(e, check=(self.assert_record(), site))
        return t._dynamic(checked)

    def _expr_UnaryOperation(self, node):
        v = self.expr(node.expression)
        if isinstance(node.operator, cst.Not):
            return self.logical_not(v)
        op = {cst.Minus: "-", cst.Plus: "+", cst.BitInvert: "~"}[type(node.operator)]
        if is_python_number(v):
            return {"-": lambda x: -x, "+": lambda x: +x, "~": lambda x: ~x}[op](v)
        return arith.unary(op, self.ensure_value(v, f"operator '{op}'"))

    def logical_not(self, v):
        if is_python_number(v):
            return not v
        return arith.unary("~", self.condition(v, "the operand of 'not'"))

    def condition(self, v, what):
        """``v`` as a Boolean truth value; a vector has none."""
        v = self.ensure_value(v, what)
        if isinstance(v, Vector):
            raise error("vector-condition", type=type(v).__name__, use=what)
        return arith.truth(v)

    def _expr_Comparison(self, node):
        left = self.expr(node.left)
        result = None
        for target in node.comparisons:
            if isinstance(target.operator, (cst.Is, cst.IsNot)) and result is None:
                decided = self.is_none(left, target)
                if decided is not None:
                    result = decided
                    continue
            op = COMPARE_OPS.get(type(target.operator))
            if op is None:
                spelled = _code(target.operator).strip()
                raise error(
                    "unsupported-operator",
                    op=spelled,
                    instead="== or !=" if "is" in spelled else "== joined with or",
                )
            if result is None:
                right = self.expr(target.comparator)
            else:  # evaluated only when the comparisons before it hold
                with self.conditionally("a chained comparison"):
                    right = self.expr(target.comparator)
            if is_python_number(left) and is_python_number(right):
                value = _PY_COMPARE[op](left, right)
            elif op in ("==", "!=") and _is_type(left) and _is_type(right):
                value = (left is right) == (op == "==")  # if D == Int32: (static)
            elif pointers.is_pointer(left) or pointers.is_pointer(right):
                value = pointers.binary(op, left, right, kind_of)
            else:
                for v in (left, right):
                    self.ensure_value(v, f"operator '{op}'")
                value = arith.binary(op, left, right, self.state.parsed.span(node))
            result = value if result is None else self.logical("and", result, value)
            left = right
        return result

    def _expr_BooleanOperation(self, node):
        op = "and" if isinstance(node.operator, cst.And) else "or"
        left = self.expr(node.left)
        if is_python_number(left) or (isinstance(left, Numeric) and left.is_static()):
            decided = bool(left)
            if (op == "and" and not decided) or (op == "or" and decided):
                return arith.truth(arith.as_numeric(left))
            return self.condition(self.expr(node.right), f"an operand of '{op}'")
        with self.conditionally(f"an operand of '{op}'"):
            right = self.expr(node.right)
        return self.logical(op, left, right)

    def logical(self, op, a, b):
        a = self.condition(a, f"an operand of '{op}'")
        b = self.condition(b, f"an operand of '{op}'")
        if a.is_static() and b.is_static():
            return Boolean._static(
                a.value and b.value if op == "and" else a.value or b.value
            )
        if a.is_static():
            return b if bool(a) == (op == "and") else a
        node = ir.Logical(
            Boolean, "&&" if op == "and" else "||", a.ir_value(), b.ir_value()
        )
        return Boolean._dynamic(node)

    def _expr_IfExp(self, node):
        cond = self.expr(node.test)
        if is_python_number(cond) or (isinstance(cond, Numeric) and cond.is_static()):
            taken, other = (
                (node.body, node.orelse) if bool(cond) else (node.orelse, node.body)
            )
            value = self.expr(taken)
            return self._as_if_dynamic(value, other)
        cond = self.condition(cond, "the condition of 'a if c else b'")
        with self.conditionally("an arm of 'a if c else b'"):
            a, b = self.expr(node.body), self.expr(node.orelse)
        return arith.select(cond, a, b, self.state.parsed.span(node))

    def _as_if_dynamic(self, value, other):
        """The taken arm of a compile-time ``a if c else b``, of the type the
        run-time select would give it: the arm not taken is typed (its code
        is discarded) and joins the type when both are kdsl values."""
        if not isinstance(value, (Numeric, Vector)):
            return value
        try:
            with self.new_block():
                other_value = self.expr(other)
        except DSLError:
            return value  # (e.g. an absent optional pointer): nothing to join
        if not isinstance(other_value, (Numeric, Vector)) and not is_python_number(
            other_value
        ):
            return value
        return arith.select(True, value, other_value)

    def is_none(self, left, target) -> bool | None:
        """``p is None`` / ``p is not None`` of an optional pointer parameter:
        a compile-time bool (None at launch is an instance of its own).
        None for any other ``is`` (refused as an operator, E214)."""
        negated = isinstance(target.operator, cst.IsNot)
        right = target.comparator
        if not (isinstance(right, cst.Name) and right.value == "None"):
            return None
        optional = isinstance(left, AbsentPointer) or (
            isinstance(left, PointerValue)
            and isinstance(left.expr, ir.Var)
            and left.name in self.state.ctx.optional
        )
        if optional:
            return isinstance(left, AbsentPointer) != negated
        if isinstance(left, (PointerValue, ArrayValue)):
            spelled = "is not" if negated else "is"
            raise error("is-none-operand", op=spelled, got=kind_of(left))
        return None

    @contextlib.contextmanager
    def conditionally(self, where: str):
        """Lower an expression that runs only under a condition (``where``)."""
        self.state.conditional.append(where)
        try:
            yield
        finally:
            self.state.conditional.pop()

    def ensure_value(self, v, what):
        if not is_value(v):
            _refuse_struct(v, f"for {what}")
            raise error("not-numeric", where=f" for {what}", got=kind_of(v))
        return arith.as_numeric(v)

    # -- attributes and subscripts -----------------------------------------------------
    def _expr_Attribute(self, node):
        obj = self.expr(node.value)
        name = node.attr.value
        refuse_absent(obj)
        if isinstance(obj, Struct):
            return self.struct_field(obj, name, node)
        if isinstance(obj, _Dim3):
            if name not in ("x", "y", "z"):
                raise error("dim3-field", name=obj.name, field=name)
            return lower_call(self, builtin(f"{obj.name}.{name}"), (), {})
        if isinstance(obj, (Numeric, Vector)):
            if name == "dtype":
                return obj.dtype
            if name in NUMERIC_METHODS:
                return BoundMethod(obj, name)
        if isinstance(obj, SharedView) and name == "vec":
            vtype = f"Vector[{getattr(obj.elem, '__name__', obj.elem)}, N]"
            raise error("dynamic-shared-vec", name=obj.name, vtype=vtype)
        if isinstance(obj, PointerValue) and name in ("vec", "view"):
            return BoundMethod(obj, name)
        if isinstance(obj, ArrayValue) and name in ("shape", "strides"):
            return getattr(obj, name)
        if isinstance(obj, FixedArray) and name == "shape":
            return obj.shape
        if isinstance(obj, (NumericMeta, VectorMeta)) or _is_module(obj):
            if not name.startswith("_") and hasattr(obj, name):
                return getattr(obj, name)
        if isinstance(obj, TypeVar):  # D.vec(4) in a device function
            raise error("typevar-call", name=obj.name)
        owner = getattr(obj, "__name__", None) if _is_module(obj) else None
        if owner in ("kdsl", "kdsl.math") and advice(name) is not None:
            raise error("foreign-name", spelled=f"{owner}.{name}", advice=advice(name))
        raise error("unknown-attribute", owner=kind_of(obj), name=name)

    def _expr_Subscript(self, node):
        obj = self.expr(node.value)
        return self.subscript(obj, self.subscript_indices(node))

    def subscript_indices(self, node: cst.Subscript) -> tuple:
        """The values of ``node``'s indices (``x[i, j]``: i and j)."""
        indices = []
        for element in node.slice:
            if not isinstance(element.slice, cst.Index):
                raise error("slicing", expr=_code(node).strip())
            indices.append(self.expr(element.slice.value))
        return tuple(indices)

    def subscript(self, obj, indices):
        refuse_absent(obj)
        if isinstance(obj, FieldArrayValue):
            return self.field_element(obj, indices)
        if obj is Vector:  # Vector[D, 4]: a vector type spelled in the kernel
            return _vector_spelled(indices)
        if isinstance(obj, (Vector, tuple)) and len(indices) != 1:
            raise error("index-count", target=kind_of(obj), got=len(indices))
        if isinstance(obj, Vector):
            return arith.extract(obj, indices[0])
        if isinstance(obj, ArrayValue) and 1 == len(indices) < len(obj.shape):
            return pointers.row(obj, self._index_value(indices[0]))
        if isinstance(obj, (PointerValue, ArrayValue, FixedArray)):
            base, flat = self.address(obj, indices)
            t = obj.elem
            return t._dynamic(ir.Load(t, base, flat))
        if isinstance(obj, ConstantArray):
            return self.constant_element(obj, indices)
        if isinstance(obj, tuple):
            i = static_integer(indices[0], "an index into a Python tuple or list")
            if not -len(obj) <= i < len(obj):
                raise error("tuple-index-range", index=i, n=len(obj))
            return obj[i]
        raise error("not-indexable", target=kind_of(obj))

    def constant_element(self, obj: ConstantArray, indices):
        """``table[i]`` of a constant table: folded when ``i`` is static."""
        if len(indices) != 1:
            target = f"constant table '{obj.name}'"
            raise error("index-count", target=target, got=len(indices))
        i = self.ensure_value(indices[0], "an index")
        if isinstance(i, Vector) or i.dtype.kind != "int":
            raise error("index-type", got=repr(i.dtype))
        if i.is_static():
            return element(obj.table, int(i.value))
        return obj.elem._dynamic(ir.Load(obj.elem, obj.table.ref, (i.ir_value(),)))

    def _index_value(self, i):
        v = self.ensure_value(i, "an index")
        if isinstance(v, Vector) or v.dtype.kind not in ("int",):
            raise error("index-type", got=repr(v.dtype))
        return v

    def address(self, obj, indices):
        """``(base expression, index expressions)`` of an element access."""
        if isinstance(obj, FixedArray) and not obj.shape:  # a shared scalar
            if tuple(indices) not in ((), ((),)):  # s[()] (an atomic: s, ())
                raise error("shared-scalar-index", name=obj.name)
            return obj.expr, ()
        idx = [self._index_value(i) for i in indices]
        if isinstance(obj, PointerValue):
            if len(idx) != 1:
                raise error("index-count", target=f"pointer '{obj.name}'", got=len(idx))
            return obj.expr, (idx[0].ir_value(),)
        if isinstance(obj, ArrayValue):
            if len(idx) != len(obj.shape):
                raise error(
                    "array-rank", name=obj.name, ndim=len(obj.shape), got=len(idx)
                )
            flat = None
            for i, stride in zip(idx, obj.strides):
                term = arith.binary("*", i.to(Int64), stride)
                flat = term if flat is None else arith.binary("+", flat, term)
            offset = ir.ArrayOffset(
                Int64,
                flat.ir_value(),
                obj.name,
                tuple(i.ir_value() for i in idx),
                tuple(n.ir_value() for n in obj.shape),
            )
            return obj.data, (offset,)
        if len(idx) != len(obj.shape):
            raise error("array-rank", name=obj.name, ndim=len(obj.shape), got=len(idx))
        for dim, (i, n) in enumerate(zip(idx, obj.shape)):
            if i.is_static() and not 0 <= i.value < n:
                raise error(
                    "static-index-range",
                    index=i.value,
                    target=f"array '{obj.name}'",
                    dim=dim,
                    n=n,
                )
        return obj.expr, tuple(i.ir_value() for i in idx)

    # -- calls ---------------------------------------------------------------------------
    def _expr_Call(self, node):
        callee = self.expr(node.func)
        if callee is builtins.print:
            callee = builtin("print")
        if isinstance(callee, Builtin) and callee.text:
            evaluate = self.text  # print's strings and f-strings (lower_debug)
        elif isinstance(callee, Builtin) or callee is builtins.float:
            evaluate = self._string_or_value  # order="acquire", float("-inf")
        else:
            evaluate = self.expr
        args, kwargs = [], {}
        for arg in node.args:
            if arg.star:
                raise error("star-arguments", arg=_code(arg).strip().rstrip(","))
            value = evaluate(arg.value)
            if arg.keyword is not None:
                kwargs[arg.keyword.value] = value
            else:
                args.append(value)
        result = self.call(callee, args, kwargs, node)
        return NoValue(_code(node.func).strip()) if result is None else result

    def _string_or_value(self, node):
        """A string literal as its Python str, anything else as its value."""
        if isinstance(node, cst.SimpleString):
            return node.evaluated_value
        return self.expr(node)

    def call(self, callee, args, kwargs, node):
        """A call in a kernel: of a registry entry (``kdsl.*``, and Python's
        ``abs``/``int``/``float``/``bool``/``len``/``min``/``max``/``range``,
        entries
        of their own), else by the kind of the callee (``_CALLS``)."""
        if is_value(callee):  # before any ==: a value compares as a number
            raise error("not-callable", callee=kind_of(callee))
        entry = callee if isinstance(callee, Builtin) else _python_entry(callee)
        if entry is not None:
            return lower_call(self, entry, args, kwargs)
        lower = next(lower for applies, lower in _CALLS if applies(callee))
        return lower(self, callee, args, kwargs, node)

    def _call_struct(self, callee, args, kwargs, node):
        """A struct type as its constructor: ``Pair(1.5, 2.0)``."""
        return self.construct_struct(callee, args, kwargs)

    def _call_type(self, callee, args, kwargs, node):
        """A kdsl type as a conversion: ``Float32(x)``, ``Int32x4(a, b, c, d)``."""
        if kwargs:
            raise error(
                "unexpected-keyword",
                callee=callee.__name__,
                keyword=next(iter(kwargs)),
                accepts="takes no keyword arguments",
            )
        return callee(*args)

    def _call_bound_method(self, callee, args, kwargs, node):
        """``p.view(T)``, ``p.vec(N)`` of a pointer; ``x.to(T)`` … of a value."""
        if isinstance(callee.obj, PointerValue) and callee.name == "view":
            _one_argument(f"{callee.obj.name}.view", args, kwargs, "T")
            return self.pointer_view(callee.obj, args[0])
        if isinstance(callee.obj, PointerValue):
            _one_argument(f"{callee.obj.name}.vec", args, kwargs, "N")
            return self.pointer_vec(callee.obj, args)
        method = getattr(callee.obj, callee.name)
        return _call_method(f".{callee.name}", method, args, kwargs)

    def _call_type_method(self, callee, args, kwargs, node):
        """A type's method: ``Int8.max()``, ``D.vec(4)``, ``Float32x4.splat(x)``."""
        spelled = f"{callee.__self__.__name__}.{callee.__name__}"
        return _call_method(spelled, callee, args, kwargs)

    def _call_device_function(self, callee, args, kwargs, node):
        return self.call_device_function(callee, args, kwargs, node)

    def _refuse_call(self, callee, args, kwargs, node):
        """What a kernel cannot call, with the error that says why."""
        if isinstance(callee, TypeVar):
            raise error("typevar-call", name=callee.name)
        if inspect.isfunction(callee):
            raise error("python-function-call", name=callee.__name__)
        if definition_of(callee) is not None:
            raise error("kernel-call", name=callee.name)
        foreign = _foreign_math(callee)
        if foreign is not None:
            raise error("python-math-call", name=foreign[0], advice=foreign[1])
        raise error("not-callable", callee=kind_of(callee))

    def pointer_vec(self, ptr: PointerValue, args):
        lanes = static_integer(args[0], "the lanes N of .vec(N)")
        vtype = _vector_of(ptr.elem, lanes)
        view = ir.VecView(ir.PointerType(vtype), ptr.expr)
        self.require_alignment(ptr, vector_align(vtype))
        return PointerValue(view, vtype, f"{ptr.name}.vec({lanes})")

    def pointer_view(self, ptr: PointerValue, t):
        """``p.view(T)``: the pointer's bytes as elements of the scalar ``T``
        (the launch checks the pointer is aligned to T's size)."""
        if not _viewable(t):
            got = getattr(t, "__name__", None) or kind_of(t)
            raise error("pointer-view-type", name=ptr.name, got=got)
        reason = _view_refused(ptr)
        if reason is not None:
            raise error("pointer-view-source", name=ptr.name, reason=reason)
        view = ir.PointerView(ir.PointerType(t), ptr.expr)
        self.require_alignment(ptr, t.width // 8)
        return PointerValue(view, t, f"{ptr.name}.view({t.__name__})")

    def require_alignment(self, ptr: PointerValue, need: int):
        """The launch checks the pointer parameter under ``ptr`` is aligned
        to ``need`` bytes (what its ``.vec(N)`` and ``.view(T)`` views need)."""
        root = ptr.name.split(".")[0]
        self.state.ctx.alignment[root] = max(
            self.state.ctx.alignment.get(root, 1), need
        )


# Python's functions that are registry entries of their own (by id: a
# callee need not be hashable)
_PYTHON_ENTRIES = {
    id(f): f.__name__
    for f in (
        builtins.abs,
        builtins.int,
        builtins.float,
        builtins.bool,
        builtins.len,
        builtins.min,
        builtins.max,
        builtins.range,
    )
}


def _python_entry(callee):
    """The registry entry of one of Python's functions, or None."""
    name = _PYTHON_ENTRIES.get(id(callee))
    return None if name is None else builtin(name)


# The other callees, by kind, in order: (whether it applies, its lowering).
_CALLS = (
    (is_struct, ExprLowerer._call_struct),
    (lambda c: isinstance(c, (NumericMeta, VectorMeta)), ExprLowerer._call_type),
    (lambda c: isinstance(c, BoundMethod), ExprLowerer._call_bound_method),
    (
        lambda c: inspect.ismethod(c)
        and isinstance(c.__self__, (NumericMeta, VectorMeta)),
        ExprLowerer._call_type_method,
    ),
    (
        lambda c: getattr(c, "__kdsl_func__", False),
        ExprLowerer._call_device_function,
    ),
    (lambda c: True, ExprLowerer._refuse_call),
)


def _viewable(t) -> bool:
    """Whether ``p.view(t)`` may view a pointer as ``t``: a scalar type of
    1, 2, 4 or 8 bytes with a numpy dtype, not Boolean."""
    return (
        isinstance(t, NumericMeta)
        and not t.abstract
        and t is not Boolean
        and t.np_dtype is not None
        and t.width in (8, 16, 32, 64)
    )


def _view_refused(ptr: PointerValue) -> str | None:
    """Why ``ptr`` cannot be viewed with ``.view(T)``, or None."""
    if isinstance(ptr.elem, VectorMeta):
        return (
            "it is already a vector view: call .view(T) on the scalar pointer, "
            "then .vec(N)"
        )
    if isinstance(ptr, SharedView) or ptr.expr.type.space != "global":
        return (
            "it is not a pointer into global memory (declare a dynamic shared "
            "view with the type you want instead)"
        )
    return None


def _refuse_struct(v, use: str):
    """E926 for a struct value where a number is wanted."""
    if isinstance(v, Struct):
        raise error("struct-value-use", struct=type(v).__name__, use=use)


def refuse_absent(obj):
    """A located error for using an optional pointer passed as None."""
    if isinstance(obj, AbsentPointer):
        raise error("absent-pointer", name=obj.name)


def static_integer(v, what: str) -> int:
    """``v`` as a Python int: a Python int or a static kdsl integer."""
    if isinstance(v, Numeric) and not v.is_static():
        raise error("needs-static", subject=what)
    if (
        isinstance(v, Numeric)
        and v.dtype.kind == "int"
        or (isinstance(v, int) and not isinstance(v, bool))
    ):
        return int(v)
    raise error("not-integer", subject=what, got=kind_of(v))


def _call_method(spelled: str, method, args, kwargs):
    """``method(*args, **kwargs)``, its arguments checked first (located
    errors, not Python's TypeError)."""
    try:
        inspect.signature(method).bind(*args, **kwargs)
    except TypeError:
        params = inspect.signature(method).parameters
        unknown = [k for k in kwargs if k not in params]
        if unknown:
            raise error(
                "unexpected-keyword",
                callee=spelled,
                keyword=unknown[0],
                accepts=f"takes ({', '.join(params)})",
            ) from None
        required = sum(p.default is p.empty for p in params.values())
        total = len(params)
        n = required if required == total else f"{required} to {total}"
        raise error(
            "wrong-arg-count", callee=spelled, n=n, got=len(args) + len(kwargs)
        ) from None
    return method(*args, **kwargs)


def _vector_spelled(indices):
    """The vector type ``Vector[dtype, N]`` names (``N`` a static integer)."""
    if len(indices) != 2:
        raise error("vector-spelling", got=", ".join(map(repr, indices)))
    dtype, lanes = indices
    if isinstance(dtype, TypeVar):  # in a device function: no value
        raise error("typevar-call", name=dtype.name)
    return vector_type(dtype, static_integer(lanes, "the lane count N of Vector[T, N]"))


def _one_argument(name, args, kwargs, what="x"):
    """The single positional argument of a call of ``name``."""
    if kwargs:
        raise error(
            "unexpected-keyword",
            callee=name,
            keyword=next(iter(kwargs)),
            accepts="takes no keyword arguments",
        )
    if len(args) != 1:
        raise error("wrong-arg-count", callee=name, n=1, got=len(args))
    return args[0]


def _vector_of(elem, lanes):

    if isinstance(elem, VectorMeta):
        raise error("vec-of-vec", vtype=elem.__name__)
    return vector_type(elem, lanes)


def _is_type(obj) -> bool:
    """A kdsl scalar or vector type (a dtype parameter's value, ``Int32``)."""
    return isinstance(obj, (NumericMeta, VectorMeta))


def _is_module(obj) -> bool:
    return type(obj).__name__ == "module"


def _code(node) -> str:
    return cst.Module(body=[]).code_for_node(node)


# How an unsupported construct is named in E202, by libcst node class.
UNSUPPORTED = {
    "Lambda": "lambda",
    "ListComp": "a list comprehension",
    "SetComp": "a set comprehension",
    "DictComp": "a dict comprehension",
    "GeneratorExp": "a generator expression",
    "SimpleString": "a string",
    "FormattedString": "an f-string",
    "ConcatenatedString": "a string",
    "Dict": "a dict",
    "Set": "a set",
    "Await": "await",
    "Yield": "yield",
    "NamedExpr": "the walrus operator :=",
    "Ellipsis": "...",
    "Imaginary": "a complex number",
    "StarredElement": "unpacking with *",
    "Try": "try",
    "With": "with",
    "FunctionDef": "a nested function",
    "ClassDef": "a class",
    "Global": "global",
    "Nonlocal": "nonlocal",
    "Del": "del",
    "Raise": "raise",
    "Assert": "assert",
    "Import": "import",
    "ImportFrom": "import",
    "Match": "match",
}


def _describe(node) -> str:
    return UNSUPPORTED.get(
        type(node).__name__, f"the expression '{_code(node).strip()}'"
    )


_NUMPY_SPELLINGS = {"arcsin": "asin", "arccos": "acos", "arctan": "atan"}
_NUMPY_SPELLINGS.update(arctan2="atan2", power="pow", arcsinh="asinh")
_NUMPY_SPELLINGS.update(arccosh="acosh", arctanh="atanh", absolute="fabs")


def _foreign_math(callee):
    """``(name, advice)`` for a function of Python's math module or numpy
    called in a kernel, pointing to its ``kdsl.math`` counterpart; else None."""
    module = getattr(callee, "__module__", None) or ""
    name = getattr(callee, "__name__", None)
    if name is None or module.split(".")[0] not in ("math", "numpy"):
        return None
    spelled = f"{module.split('.')[0]}.{name}"
    ours = _NUMPY_SPELLINGS.get(name, name) if module != "math" else name
    from kdsl.transpile.builtins import math_functions

    if ours in math_functions():
        advice = (
            f"use kdsl.math.{ours} (typed for every float dtype, lane-wise on vectors)"
        )
    else:
        advice = "kdsl.math has no counterpart (docs/language.md lists its functions)"
    return spelled, advice


def kind_of(v) -> str:
    """What ``v`` is, for an error: ``an Int32``, ``pointer 'x'`` …"""
    struct = _describe_struct(v)
    if struct is not None:
        return struct
    if is_struct(v):
        return f"the struct type {v.__name__}"
    if isinstance(v, (Numeric, Vector)):
        name = type(v).__name__
        return f"{'an' if name[0] in 'AEIO' else 'a'} {name}"
    if isinstance(v, NoValue):
        return f"the result of {v.callee}(), which returns nothing"
    if isinstance(v, _Dim3):
        return f"{v.name} (use its Int32 fields {v.name}.x, .y, .z)"
    if _is_module(v):
        return f"the module {v.__name__}"
    if definition_of(v) is not None:
        return f"the kernel '{v.name}'"
    if isinstance(v, SharedView):
        return f"dynamic shared view '{v.name}'"
    if isinstance(v, AbsentPointer):
        return f"'{v.name}', which is None in this instance"
    if isinstance(v, TensorMapValue):
        return f"tensor map '{v.name}'"
    if isinstance(v, ConstantArray):
        return f"constant table '{v.name}'"
    if isinstance(v, PointerValue):
        return f"pointer '{v.name}'"
    if isinstance(v, (ArrayValue, FixedArray)):
        return f"array '{v.name}'"
    if isinstance(v, (NumericMeta, VectorMeta)):
        return f"the type {v.__name__}"
    if isinstance(v, TypeVar):
        return f"the dtype parameter {v.name}"
    if isinstance(v, tuple):
        return "a tuple"
    if isinstance(v, Builtin):
        return repr(v)
    return f"a Python {type(v).__name__}"
