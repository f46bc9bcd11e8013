"""Lowering of expressions: libcst expression nodes to kdsl values.

A kernel's expression evaluates, at compile time, to a *value*: a static or
dynamic ``Numeric`` / ``Vector`` (arith builds IR for the dynamic ones), a
pointer or array view, or a plain Python object (a type, a Constexpr's int, a
module).  Static operands fold here, so nothing known at compile time reaches
the generated code.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass

import libcst as cst

from . import arith, ir
from .errors import DSLError, error
from .lang import Builtin, TypeVar, _Dim3
from .types import Boolean, Int32, Int64, Numeric, NumericMeta, Vector, VectorMeta

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
_PY_COMPARE = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}
# Python built-ins a kernel may call; everything else in builtins is an error.
ALLOWED_BUILTINS = ("range", "min", "max", "abs", "int", "float", "bool", "len")
NUMERIC_METHODS = ("to", "bitcast", "select", "is_static")


@dataclass(frozen=True)
class PointerValue:
    """A pointer parameter (or a ``.vec(N)`` view of one)."""

    expr: ir.Expr
    elem: object
    name: str


@dataclass(frozen=True)
class ArrayValue:
    """An ``Array[T, ndim]`` parameter: data pointer, shape and strides."""

    data: ir.Expr
    elem: object
    shape: tuple
    strides: tuple
    name: str


@dataclass(frozen=True)
class FixedArray:
    """A ``shared_array``/``local_array`` of static shape."""

    expr: ir.Expr
    elem: object
    shape: tuple[int, ...]
    name: str


@dataclass(frozen=True)
class BoundMethod:
    """``obj.method`` of a kdsl value, called later."""

    obj: object
    name: str


def is_python_number(v) -> bool:
    return isinstance(v, (int, float, bool)) and not isinstance(v, Numeric)


def is_value(v) -> bool:
    return isinstance(v, (Numeric, Vector)) or is_python_number(v)


class ExprLowerer:
    """Expression half of the lowering pass (see ``lower.Lowerer``)."""

    # -- entry ------------------------------------------------------------------
    def expr(self, node: cst.BaseExpression):
        handler = getattr(self, f"_expr_{type(node).__name__}", None)
        if handler is None:
            raise error(
                "unsupported-syntax", what=_describe(node), span=self.p.span(node)
            )
        try:
            return handler(node)
        except DSLError as exc:
            raise exc.locate(self.p.span(node), self._line_of(node)) from None
        except (ZeroDivisionError, OverflowError, ValueError, TypeError) as exc:
            raise error(
                "bad-call", what=f"{type(exc).__name__}: {exc}", span=self.p.span(node)
            ) from None

    def numeric(self, node, what="this expression"):
        v = self.expr(node)
        if not is_value(v):
            raise error(
                "bad-call",
                what=f"{what} must be a number, got {_kind_of(v)}",
                span=self.p.span(node),
            )
        return arith.as_numeric(v)

    def static_int(self, node, what: str) -> int:
        v = self.expr(node)
        if isinstance(v, Numeric) and not v.is_static():
            raise error("needs-static", what=what, span=self.p.span(node))
        if isinstance(v, (Numeric, int)) and not isinstance(v, float):
            try:
                return int(v.__index__() if isinstance(v, Numeric) else v)
            except DSLError:
                pass
        raise error("bad-call", what=f"{what} must be an integer, got {_kind_of(v)}")

    # -- leaves -------------------------------------------------------------------
    def _expr_Integer(self, node):
        return int(node.evaluated_value)

    def _expr_Float(self, node):
        return float(node.evaluated_value)

    def _expr_Name(self, node):
        return self.lookup(node.value, node)

    def _expr_Tuple(self, node):
        return tuple(self.expr(e.value) for e in node.elements)

    def _expr_List(self, node):
        return self._expr_Tuple(node)

    # -- operators ------------------------------------------------------------------
    def _expr_BinaryOperation(self, node):
        op = BINARY_OPS.get(type(node.operator))
        if op is None:
            raise error("unsupported-syntax", what=f"operator {_code(node.operator)}")
        a, b = self.expr(node.left), self.expr(node.right)
        return self.binary(op, a, b, node)

    def binary(self, op, a, b, node):
        if is_python_number(a) and is_python_number(b):
            if op in ("//", "%") and b == 0:
                raise error("static-zero-division", op=op, lhs=a, rhs=b)
            return _PY_BINARY[op](a, b)
        for v in (a, b):
            if not is_value(v):
                raise error(
                    "bad-call", what=f"operator '{op}' cannot take {_kind_of(v)}"
                )
        return arith.binary(op, a, b, self.p.span(node))

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
        cond = arith.truth(self.ensure_value(v, "'not'"))
        return arith.unary("~", cond)

    def _expr_Comparison(self, node):
        left = self.expr(node.left)
        result = None
        for target in node.comparisons:
            op = COMPARE_OPS.get(type(target.operator))
            if op is None:
                raise error(
                    "unsupported-syntax",
                    what=f"comparison '{_code(target.operator).strip()}'",
                )
            right = self.expr(target.comparator)
            if is_python_number(left) and is_python_number(right):
                value = _PY_COMPARE[op](left, right)
            else:
                value = arith.binary(op, left, right, self.p.span(node))
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
            return arith.truth(arith.as_numeric(self.expr(node.right)))
        return self.logical(op, left, self.expr(node.right))

    def logical(self, op, a, b):
        a = arith.truth(self.ensure_value(a, f"'{op}'"))
        b = arith.truth(self.ensure_value(b, f"'{op}'"))
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
            return self.expr(node.body if bool(cond) else node.orelse)
        a, b = self.expr(node.body), self.expr(node.orelse)
        return arith.select(cond, a, b, self.p.span(node))

    def ensure_value(self, v, what):
        if not is_value(v):
            raise error("bad-call", what=f"{what} cannot take {_kind_of(v)}")
        return arith.as_numeric(v)

    # -- attributes and subscripts -----------------------------------------------------
    def _expr_Attribute(self, node):
        obj = self.expr(node.value)
        name = node.attr.value
        if isinstance(obj, _Dim3):
            if name not in ("x", "y", "z"):
                raise error(
                    "bad-attribute", what=f"{obj.cuda_name} has no field '{name}'"
                )
            return Int32._dynamic(ir.Special(Int32, f"{obj.cuda_name}.{name}"))
        if isinstance(obj, (Numeric, Vector)):
            if name == "dtype":
                return obj.dtype
            if name in NUMERIC_METHODS:
                return BoundMethod(obj, name)
        if isinstance(obj, PointerValue) and name == "vec":
            return BoundMethod(obj, name)
        if isinstance(obj, ArrayValue) and name in ("shape", "strides"):
            return getattr(obj, name)
        if isinstance(obj, FixedArray) and name == "shape":
            return obj.shape
        if isinstance(obj, (NumericMeta, VectorMeta)) or _is_module(obj):
            if not name.startswith("_") and hasattr(obj, name):
                return getattr(obj, name)
        raise error(
            "bad-attribute", what=f"{_kind_of(obj)} has no attribute '{name}' in kdsl"
        )

    def _expr_Subscript(self, node):
        obj = self.expr(node.value)
        indices = []
        for element in node.slice:
            if not isinstance(element.slice, cst.Index):
                raise error("unsupported-syntax", what="slicing")
            indices.append(self.expr(element.slice.value))
        return self.subscript(obj, tuple(indices))

    def subscript(self, obj, indices):
        if isinstance(obj, Vector):
            (lane,) = indices
            return arith.extract(obj, lane)
        if isinstance(obj, (PointerValue, ArrayValue, FixedArray)):
            base, flat = self.address(obj, indices)
            t = obj.elem
            return t._dynamic(ir.Load(t, base, flat))
        if isinstance(obj, tuple):
            (i,) = indices
            if isinstance(i, Numeric) and not i.is_static():
                raise error("needs-static", what="an index into a Python tuple or list")
            return obj[int(i)]
        raise error("bad-index", what=f"{_kind_of(obj)} cannot be indexed")

    def address(self, obj, indices):
        """``(base expression, index expressions)`` of an element access."""
        idx = []
        for i in indices:
            v = self.ensure_value(i, "an index")
            if isinstance(v, Vector) or v.dtype.kind not in ("int",):
                raise error(
                    "bad-index", what=f"an index must be an integer, got {v.dtype!r}"
                )
            idx.append(v)
        if isinstance(obj, PointerValue):
            if len(idx) != 1:
                raise error("bad-index", what=f"pointer '{obj.name}' takes one index")
            return obj.expr, (idx[0].ir_value(),)
        if isinstance(obj, ArrayValue):
            if len(idx) != len(obj.shape):
                raise error(
                    "bad-index",
                    what=f"array '{obj.name}' has {len(obj.shape)} dimensions, "
                    f"indexed with {len(idx)}",
                )
            flat = None
            for i, stride in zip(idx, obj.strides):
                term = arith.binary("*", i.to(Int64), stride)
                flat = term if flat is None else arith.binary("+", flat, term)
            return obj.data, (flat.ir_value(),)
        if len(idx) != len(obj.shape):
            raise error(
                "bad-index",
                what=f"array '{obj.name}' has shape {obj.shape}, indexed with {len(idx)}",
            )
        return obj.expr, tuple(i.ir_value() for i in idx)

    # -- calls ---------------------------------------------------------------------------
    def _expr_Call(self, node):
        callee = self.expr(node.func)
        args, kwargs = [], {}
        for arg in node.args:
            if arg.star:
                raise error("unsupported-syntax", what="*args and **kwargs")
            value = self.expr(arg.value)
            if arg.keyword is not None:
                kwargs[arg.keyword.value] = value
            else:
                args.append(value)
        return self.call(callee, args, kwargs, node)

    def call(self, callee, args, kwargs, node):
        if isinstance(callee, Builtin):
            return self.call_builtin(callee.builtin, args, kwargs, node)
        if isinstance(callee, (NumericMeta, VectorMeta)):
            if kwargs:
                raise error("bad-call", what=f"{callee.__name__}() takes no keywords")
            return callee(*args)
        if isinstance(callee, BoundMethod):
            if isinstance(callee.obj, PointerValue):
                return self.pointer_vec(callee.obj, args)
            return getattr(callee.obj, callee.name)(*args, **kwargs)
        if callee in (builtins.min, builtins.max):
            return self.call_builtin(callee.__name__, args, kwargs, node)
        if callee is builtins.abs:
            (x,) = args
            return abs(x) if is_python_number(x) else arith.unary("abs", x)
        if callee in (builtins.int, builtins.float, builtins.bool):
            (x,) = args
            return callee(x)
        if callee is builtins.len:
            (x,) = args
            return len(x)
        if getattr(callee, "__kdsl_func__", False):
            return self.call_device_function(callee, args, kwargs, node)
        raise error("bad-call", what=f"cannot call {_kind_of(callee)} in a kernel")

    def pointer_vec(self, ptr: PointerValue, args):
        if len(args) != 1:
            raise error("bad-call", what=".vec(N) takes the number of lanes")
        lanes = int(args[0])
        vtype = _vector_of(ptr.elem, lanes)
        view = ir.VecView(ir.PointerType(vtype), ptr.expr)
        return PointerValue(view, vtype, f"{ptr.name}.vec({lanes})")


def _vector_of(elem, lanes):
    from .types import vector_type

    if isinstance(elem, VectorMeta):
        raise error(
            "bad-call", what="a vector pointer cannot be viewed as vectors again"
        )
    return vector_type(elem, lanes)


def _is_module(obj) -> bool:
    return type(obj).__name__ == "module"


def _code(node) -> str:
    return cst.Module(body=[]).code_for_node(node)


def _describe(node) -> str:
    names = {
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
    }
    return names.get(type(node).__name__, f"the expression '{_code(node).strip()}'")


def _kind_of(v) -> str:
    if isinstance(v, (Numeric, Vector)):
        return f"a {type(v).__name__}"
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
