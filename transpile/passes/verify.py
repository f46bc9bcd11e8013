"""The IR verifier: one rule per IR node, checked after lowering and after
each rewrite, so that a compiler bug is caught at the pass that made it and
not as wrong C++ (or a wrong answer) later.

It is a :class:`~kdsl.transpile.ir.backend.Backend` (``e_<Node>`` and
``s_<Node>``): a new IR node without a rule is refused when this module is
imported, as by the emitter and the interpreter.  What it checks:

* names: a variable is declared (a parameter, a ``Declare``, an array, the
  dynamic shared buffer or a loop's variable) in an enclosing scope before it
  is read or assigned, and once per scope; ``break``/``continue`` are inside
  a loop;
* types: the operands of an operator have one type (a ``+``/``-`` marked
  contractible is a float one; an fma's three operands have its type); a declaration, an
  assignment or a store (of a lane too) gives a value of the variable's or
  the element's type; a condition (``if``, ``while``, ``?:``, ``and``/``or``,
  ``assert``) is a Boolean; a ``return`` gives the function's return type;
  a call that returns nothing is only a statement;
* calls: a built-in call names a registry entry of kind ``call`` (a special
  register read, one of kind ``special``); a ``kdsl.math`` call has the function's operand count, numeric; a
  warp collective's first operand is its Uint32 lane mask; a device
  function call passes one argument of its type per parameter.
"""

from __future__ import annotations

from kdsl.transpile import ir
from kdsl.transpile.builtins import registry
from kdsl.transpile.core import mathfns
from kdsl.transpile.core.structs import StructMeta
from kdsl.transpile.core.types import (
    Boolean,
    FieldArray,
    NumericMeta,
    Uint32,
    VectorMeta,
)
from kdsl.transpile.errors import error
from kdsl.transpile.ir.backend import Backend


def verify(f: ir.Function, after: str = "lowering", callees=None) -> None:
    """Check ``f`` (``after``: the stage that made it, for the message;
    ``callees``: the device functions by name, whose calls are checked
    against their parameters)."""
    Verifier(f, after, callees or {}).check()


class Verifier(Backend):
    backend_name = "IR verifier"
    expr_prefix = "e_"
    stmt_prefix = "s_"

    def __init__(self, f: ir.Function, after: str, callees: dict):
        self.f, self.after, self.callees = f, after, callees
        self.scopes = [{p.name: p.type for p in f.params}]
        self.loops = 0

    def check(self):
        self.block(self.f.body)

    def fail(self, what: str):
        raise error("internal", what=f"IR of {self.f.name} after {self.after}: {what}")

    # -- names --------------------------------------------------------------------
    def block(self, stmts, names=None):
        self.scopes.append(dict(names or {}))
        try:
            for s in stmts:
                self.STMT[type(s)](self, s)
        finally:
            self.scopes.pop()

    def declare(self, name: str, t):
        if name in self.scopes[-1]:
            self.fail(f"'{name}' is declared twice in one scope")
        self.scopes[-1][name] = t

    def declared(self, name: str, what: str):
        """The type ``name`` was declared with; a failure if it was not."""
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        self.fail(f"'{name}' is {what} but not declared")

    # -- expressions ----------------------------------------------------------------
    def expr(self, e, value: bool = True):
        """Check ``e`` and what is inside it (``value``: it is used as a value,
        so it has a type)."""
        if value and e.type is None:
            self.fail(f"a call that returns nothing is used as a value: {e!r}")
        self.EXPR[type(e)](self, e)

    def each(self, exprs):
        for e in exprs:
            self.expr(e)

    def condition(self, e, where: str):
        self.expr(e)
        if e.type is not Boolean:
            self.fail(f"the condition of {where} is a {e.type!r}, not a Boolean")

    def e_Const(self, e):
        pass

    def e_Var(self, e):
        self.declared(e.name, "read")

    def e_BinOp(self, e):
        self.each((e.lhs, e.rhs))
        if e.lhs.type is not e.rhs.type:
            self.fail(f"operands of '{e.op}' differ: {e.lhs.type!r}, {e.rhs.type!r}")
        if e.contract and not (e.op in ("+", "-") and _float(e.type)):
            self.fail(f"a '{e.op}' of {e.type!r} is marked contractible")

    def e_UnaryOp(self, e):
        self.expr(e.operand)

    e_Convert = e_Bitcast = e_Broadcast = e_UnaryOp

    def e_Select(self, e):
        self.each((e.cond, e.if_true, e.if_false))
        cond = e.cond.type
        if _scalar(cond) is not Boolean:
            self.fail(f"the condition of ?: is a {cond!r}, not a Boolean")
        if not e.if_true.type == e.if_false.type == e.type:
            arms = f"{e.if_true.type!r}, {e.if_false.type!r}"
            self.fail(f"the arms of a {e.type!r} ?: are {arms}")

    def e_MakeVector(self, e):
        self.each(e.lanes)
        if len(e.lanes) != e.type.lanes:
            self.fail(f"{len(e.lanes)} lanes make a {e.type!r}")

    def e_Extract(self, e):
        self.expr(e.vector)
        if not 0 <= e.lane < e.vector.type.lanes:
            self.fail(f"lane {e.lane} of {e.vector.type!r}")

    def e_BuiltinCall(self, e):
        self.each(e.args)
        entry = registry.REGISTRY.get(e.builtin)
        if entry is None or entry.kind != "call":
            kind = "no built-in" if entry is None else f"a {entry.kind} built-in"
            self.fail(f"a call of {e.builtin!r}, {kind}")
        if entry.name.startswith("math."):
            want = mathfns.arity(entry.name[len("math.") :])
            if len(e.args) != want:
                self.fail(f"{entry.spelled} takes {want} operands, got {len(e.args)}")
            for a in e.args:
                if not isinstance(_scalar(a.type), NumericMeta):
                    self.fail(f"an operand of {entry.spelled} is a {a.type!r}")
            if entry.name == "math.fma" and any(a.type is not e.type for a in e.args):
                got = ", ".join(repr(a.type) for a in e.args)
                self.fail(f"the operands of a {e.type!r} fma are {got}")
        if entry.collective == "warp" and (not e.args or e.args[0].type is not Uint32):
            self.fail(f"{entry.spelled}'s first operand is not its Uint32 lane mask")

    def e_FuncCall(self, e):
        self.each(e.args)
        callee = self.callees.get(e.func)
        if callee is None:
            return
        if len(e.args) != len(callee.params):
            n = len(callee.params)
            self.fail(f"{e.func} takes {n} arguments, got {len(e.args)}")
        for a, p in zip(e.args, callee.params):
            want = p.type.elem if isinstance(p.type, ir.RefType) else p.type
            if isinstance(want, ir.PointerType) or a.type == want:
                continue
            self.fail(f"argument {p.name} of {e.func} is a {a.type!r}, not {want!r}")

    def e_Special(self, e):
        entry = registry.REGISTRY.get(e.name)
        if entry is None or entry.kind != "special":
            self.fail(f"{e.name!r} is not a special register")

    def e_Address(self, e):
        self.expr(e.base)
        self.each(e.indices)

    e_Load = e_Address

    def e_ArrayOffset(self, e):
        self.expr(e.flat)
        self.each(e.indices + e.extents)

    def e_VecView(self, e):
        self.expr(e.pointer)

    e_PointerView = e_VecView

    def e_PointerOffset(self, e):
        self.expr(e.pointer)
        self.expr(e.offset)
        if _memory(e.pointer.type) != _memory(e.type):
            self.fail(f"{e.type!r} moved from {e.pointer.type!r}")
        if getattr(e.offset.type, "kind", None) != "int":
            self.fail(f"a pointer moved by {e.offset.type!r}")

    def e_PointerBinary(self, e):
        self.expr(e.lhs)
        self.expr(e.rhs)
        if _memory(e.lhs.type) != _memory(e.rhs.type):
            self.fail(f"'{e.op}' of {e.lhs.type!r} and {e.rhs.type!r}")

    def e_Member(self, e):
        self.expr(e.base)
        t = e.base.type
        f = t.field(e.field) if isinstance(t, StructMeta) else None
        if f is None:
            self.fail(f"field {e.field!r} of {t!r}, which has no such field")
        elif f.type != e.type:
            self.fail(f"field {e.field!r} of {t!r} typed {e.type!r}, not {f.type!r}")

    def e_Element(self, e):
        self.each((e.base, e.index))
        t = e.base.type
        if not isinstance(t, FieldArray) or t.count != e.count or t.elem != e.type:
            self.fail(f"an element {e.type!r} of {t!r}")
        if getattr(e.index.type, "kind", None) != "int":
            self.fail(f"an array field indexed by {e.index.type!r}")

    def e_MakeStruct(self, e):
        self.each(e.values)
        if not isinstance(e.type, StructMeta):
            self.fail(f"a struct value of {e.type!r}")
        elif len(e.values) != _leaves(e.type):
            self.fail(f"{len(e.values)} values make a {e.type!r}")

    def e_ConstantRef(self, e):
        pass

    def e_DynamicShared(self, e):
        self.declared(e.buffer, "viewed")
        self.expr(e.offset)
        if e.size is not None:
            self.expr(e.size)

    def e_Logical(self, e):
        self.condition(e.lhs, f"'{e.op}'")
        self.condition(e.rhs, f"'{e.op}'")

    # -- statements -------------------------------------------------------------------
    def s_Comment(self, s):
        pass

    def s_Declare(self, s):
        if s.init is not None:
            self.expr(s.init)
            if s.init.type != s.type:
                self.fail(f"{s.name} declared {s.type!r}, initialised {s.init.type!r}")
        self.declare(s.name, s.type)

    def s_ArrayDecl(self, s):
        self.declare(s.name, None)

    def s_DynamicSharedDecl(self, s):
        self.declare(s.name, None)

    def s_Assign(self, s):
        t = self.declared(s.name, "assigned")
        if isinstance(t, ir.RefType):  # a device function's result parameter
            t = t.elem
        self.expr(s.value)
        if t is not None and s.value.type != t:
            self.fail(f"{s.name} declared {t!r}, assigned {s.value.type!r}")

    def s_AssignLane(self, s):
        self.declared(s.name, "assigned")
        self.expr(s.value)
        self._lane(s.type, s.lane, s.value)

    def s_Store(self, s):
        self.expr(s.base)
        self.each(s.indices)
        self.expr(s.value)
        if s.value.type is not s.base.type.elem:
            self.fail(f"store of {s.value.type!r} into {s.base.type.elem!r}")

    def s_StoreField(self, s):
        self.each((s.target, s.value))
        field = s.target.vector if isinstance(s.target, ir.Extract) else s.target
        if not isinstance(field, (ir.Member, ir.Element)):  # (a lane of one)
            self.fail(f"a field store to a {type(s.target).__name__}")
        elif s.value.type != s.target.type:
            self.fail(f"store of {s.value.type!r} into a {s.target.type!r} field")

    def s_StoreLane(self, s):
        self.expr(s.base)
        self.each(s.indices)
        self.expr(s.value)
        self._lane(s.base.type.elem, s.lane, s.value)

    def _lane(self, vtype, lane: int, value):
        if value.type is not getattr(vtype, "dtype", None):
            self.fail(f"store of {value.type!r} into a lane of {vtype!r}")
        if not 0 <= lane < vtype.lanes:
            self.fail(f"lane {lane} of {vtype!r}")

    def s_ExprStmt(self, s):
        self.expr(s.expr, value=False)

    def s_If(self, s):
        self.condition(s.cond, "if")
        self.block(s.then)
        self.block(s.orelse)

    def s_For(self, s):
        self.each((s.start, s.stop))
        if isinstance(s.step, ir.Var):
            self.expr(s.step)
        elif not isinstance(s.step, int) or s.step == 0:
            self.fail(f"the loop over {s.var} steps by {s.step!r}")
        self.loops += 1
        try:
            self.block(s.body, {s.var: s.type})
        finally:
            self.loops -= 1

    def s_While(self, s):
        self.condition(s.cond, "while")
        self.loops += 1
        try:
            self.block(s.body)
        finally:
            self.loops -= 1

    def s_Break(self, s):
        if not self.loops:
            self.fail(f"{type(s).__name__.lower()} outside a loop")

    s_Continue = s_Break

    def s_Return(self, s):
        ret = self.f.ret
        if s.value is None:
            if ret is not None:
                self.fail(f"return without a value in a function of {ret!r}")
            return
        self.expr(s.value)
        if ret is None or s.value.type != ret:
            self.fail(f"return of {s.value.type!r} from a function of {ret!r}")

    def s_Print(self, s):
        self.each(s.values)
        if not len(s.text) == len(s.values) + 1 == len(s.formats) + 1:
            self.fail("print's texts, values and formats do not match")

    def s_Assert(self, s):
        self.condition(s.cond, "assert")
        self.expr(s.record)

    def s_Assume(self, s):
        self.condition(s.cond, "kdsl.assume")
        self.each(s.values)
        if len(s.names) != len(s.values):
            self.fail("kdsl.assume's names and values do not match")


def _leaves(t) -> int:
    """How many values a ``MakeStruct`` of ``t`` takes: one a field, an
    array field's elements one each."""
    return sum(f.type.count if isinstance(f.type, FieldArray) else 1 for f in t.fields)


def _memory(t):
    """A pointer type's element type and memory space (None: no pointer)."""
    return (t.elem, t.space) if isinstance(t, ir.PointerType) else None


def _scalar(t):
    """A vector type's lane type; any other type itself."""
    return t.dtype if isinstance(t, VectorMeta) else t


def _float(t) -> bool:
    """A float type, or a vector of one."""
    return isinstance(_scalar(t), NumericMeta) and _scalar(t).kind == "float"
