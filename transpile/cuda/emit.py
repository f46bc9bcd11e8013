"""Emission: typed IR to readable CUDA C++ lines.

Scalar operations are spelled by ``cexpr`` (a table of exact spellings);
this module renders statements, vectors, memory and calls, indenting on
``{`` / ``}``.  An expression is a ``cexpr.CExpr`` (its text and C++
precedence), so every compound operand is parenthesised from the tree, and
a statement's value, a call argument or a condition drops the parentheses
around the whole (``bare``).  A statement longer than ``LIMIT`` columns is
broken as clang-format would break it (``layout.wrap``).
"""

from __future__ import annotations

import itertools
import math
import string

from kdsl.transpile import builtins, ir
from kdsl.transpile.core import values
from kdsl.transpile.core.types import (
    Boolean,
    Int32,
    Int64,
    NumericMeta,
    Uint32,
    VectorMeta,
)
from kdsl.transpile.cuda import cexpr
from kdsl.transpile.cuda.cexpr import OPERATOR_PREC, CExpr, Prec, atom
from kdsl.transpile.cuda.cexpr import bare as _bare
from kdsl.transpile.cuda.layout import LIMIT, wrap, wrap_head
from kdsl.transpile.cuda.quote import string_literal
from kdsl.transpile.ir.backend import Backend
from kdsl.transpile.cuda.ranges import Ranges, exact, is_int, within

_HEADS = ("if (", "} else if (", "while (")  # a condition that may wrap


def ctype(t) -> str:
    """The C++ spelling of a kdsl type."""
    if isinstance(t, VectorMeta):
        return f"kdsl::vec<{ctype(t.dtype)}, {t.lanes}>"
    if isinstance(t, ir.PointerType):
        const = "const " if t.const else ""
        return f"{const}{ctype(t.elem)}*"
    if isinstance(t, ir.RefType):
        return f"{ctype(t.elem)}&"
    if isinstance(t, ir.TensorMapType):
        return "kdsl::TensorMap"
    return t.c_name


class Emitter(Backend):
    """The CUDA backend: one ``_e_<Node>``/``_s_<Node>`` per IR node class
    (checked when the class is defined); built-in calls render through
    their registry entry."""

    backend_name = "CUDA emitter"
    expr_prefix = "_e_"
    stmt_prefix = "_s_"

    def __init__(self, line_directives: bool = False):
        self.lines: list[str] = []
        self.depth = 0
        self.line_directives = line_directives
        self.types: set = set()  # scalar types the code uses (for headers)
        self.readonly: set = frozenset()  # pointer parameters never stored to
        self._handed: dict = {}  # text given to a built-in rendering -> its CExpr
        self.ranges = Ranges(ir.Function("", (), ()))  # the function's integer ranges
        self.unread: frozenset = frozenset()  # variables declared, never used
        self._unsigned_ok = False  # a CUDA index may stay unsigned (see _value)

    def line(self, text: str):
        if text.startswith("}"):
            self.depth -= 1
        indent = "    " * self.depth
        if not text:
            self.lines.append("")
        elif text.endswith(";") and not self.line_directives:
            self.lines.extend(wrap(indent, text))
        elif text.startswith(_HEADS) and not self.line_directives:
            self.lines.extend(wrap_head(indent, text))
        else:  # with #line directives a statement keeps to one line
            self.lines.append(indent + text)
        if text.endswith("{"):
            self.depth += 1

    # -- functions ------------------------------------------------------------------
    def function(self, f: ir.Function, readonly: set = frozenset()):
        """``f``; ``readonly`` names the kernel's pointer parameters it never
        stores to (a device function's carry ``const`` in their type)."""
        consts = {p.name for p in f.params if getattr(p.type, "const", False)}
        self.readonly = readonly = frozenset(readonly) | consts
        self.readonly = self.readonly | _const_pointer_variables(f, self.readonly)
        self.ranges = Ranges(f)
        self.unread = _unread(f)
        params = []
        for p in f.params:
            t = p.type
            if isinstance(t, ir.PointerType) and p.name in readonly:
                t = ir.PointerType(t.elem, const=True, shape=t.shape)
            self.use(t)
            params.append(_parameter(t, p.name))
        if f.is_kernel:
            bounds = ""
            if f.launch_bounds is not None:
                bounds = f"__launch_bounds__({', '.join(map(str, f.launch_bounds))}) "
            head = f'extern "C" __global__ void {bounds}{f.name}('
        else:
            ret = ctype(f.ret) if f.ret is not None else "void"
            head = f"static __device__ {ret} {f.name}("
        if len(head) + sum(len(p) + 2 for p in params) + 1 <= LIMIT:
            self.line(head + ", ".join(params) + ") {")
        else:
            self.line(head)
            self.depth += 2
            for i, p in enumerate(params):
                self.line(p + ("," if i + 1 < len(params) else ") {"))
            self.depth -= 2
        self.block(f.body)
        self.line("}")

    def block(self, stmts):
        for s in stmts:
            self.STMT[type(s)](self, s)

    # -- statements ---------------------------------------------------------------------
    def _s_Comment(self, s):
        for part in s.text.split("\n"):  # a statement written over several lines
            self.line(f"// {part}")
        if self.line_directives and s.span is not None:  # numbers the next line
            name = string_literal(_basename(s.span.path))
            self.lines.append(f"#line {s.span.line} {name}")

    def _s_Declare(self, s):
        if s.name in self.unread:  # dead (a variable a static loop replaced)
            return
        if isinstance(s.init, (ir.VecView, ir.PointerView)):
            s = ir.Declare(s.name, self._view_type(s.init), s.init)
            if s.type.const:  # a view of it is const too
                self.readonly = self.readonly | {s.name}
        elif isinstance(s.type, ir.PointerType) and s.name in self.readonly:
            t = s.type  # a pointer variable of read-only pointers
            s = ir.Declare(s.name, ir.PointerType(t.elem, True, t.space), s.init)
        self.use(s.type)
        if s.init is None:
            self.line(f"{ctype(s.type)} {s.name};")
        else:
            self.line(f"{ctype(s.type)} {s.name} = {self._value(s.init)};")

    def _s_ArrayDecl(self, s):
        self.use(s.elem)
        dims = "".join(f"[{d}]" for d in s.shape)
        prefix = "__shared__ " if s.space == "shared" else ""
        self.line(f"{prefix}{ctype(s.elem)} {s.name}{dims};")

    def _s_DynamicSharedDecl(self, s):
        self.line(f"extern __shared__ __align__({s.align}) unsigned char {s.name}[];")

    def _s_Assign(self, s):
        value = _simplified(s.value) if isinstance(s.value, ir.BinOp) else s.value
        if isinstance(value, ir.Var) and value.name == s.name:  # x - 0.0: no-op
            return
        self.line(f"{s.name} = {self._value(s.value)};")

    def _s_AssignLane(self, s):
        self.line(f"{s.name}.v[{s.lane}] = {self._value(s.value)};")

    def _s_Store(self, s):
        self.line(f"{self._element(s.base, s.indices)} = {self._value(s.value)};")

    def _s_StoreLane(self, s):
        target = self._element(s.base, s.indices)
        self.line(f"{target}.v[{s.lane}] = {self._value(s.value)};")

    def _s_ExprStmt(self, s):
        self.line(f"{_bare(self.expr(s.expr))};")

    def _value(self, e) -> str:
        """The value of a declaration, assignment or store: no outer
        parentheses, and a CUDA index (unsigned) converts implicitly.

        An ``Int32`` value that is a sum, difference, product, quotient or
        remainder of non-negative values, every one of them (and every
        partial result) within ``[0, 2**31 - 1]``, reads its CUDA indices
        unsigned (``blockIdx.x * 256 + threadIdx.x``): unsigned arithmetic
        on such values computes the same numbers, and the result converts
        to ``int32_t`` unchanged."""
        self._unsigned_ok = e.type is Int32
        try:
            return _bare(self.expr(e))
        finally:
            self._unsigned_ok = False

    def _s_If(self, s, chained: bool = False):
        head = f"if ({_bare(self.expr(s.cond))}) {{"
        self.line("} else " + head if chained else head)
        self.block(s.then)
        orelse = s.orelse
        if (
            len(orelse) == 2
            and isinstance(orelse[0], ir.Comment)
            and isinstance(orelse[1], ir.If)
        ):  # an elif: "} else if (...) {", its Python source just above
            comment = orelse[0]
            self.depth -= 1
            self._s_Comment(ir.Comment("el" + comment.text, span=comment.span))
            self.depth += 1
            self._s_If(orelse[1], chained=True)
            return
        if orelse:
            self.line("} else {")
            self.block(orelse)
        self.line("}")

    def _s_For(self, s):
        self.use(s.type)
        if s.unroll is not None:
            self.lines.append("    " * self.depth + f"#pragma unroll {s.unroll}")
        start, stop = self.expr(s.start), self.expr(s.stop)
        if isinstance(s.step, ir.Var):
            cond = f"kdsl::in_range({s.var}, {stop}, {s.step.name})"
            step = f"{s.var} += {s.step.name}"
        else:
            cond = f"{s.var} {'<' if s.step > 0 else '>'} {stop}"
            step = f"{s.var} += {s.step}" if s.step > 0 else f"{s.var} -= {-s.step}"
            if s.step == 1:
                step = f"++{s.var}"
        self.line(f"for ({ctype(s.type)} {s.var} = {start}; {cond}; {step}) {{")
        self.block(s.body)
        self.line("}")

    def _s_While(self, s):
        cond = "true" if isinstance(s.cond, ir.Const) else _bare(self.expr(s.cond))
        self.line(f"while ({cond}) {{")
        self.block(s.body)
        self.line("}")

    def _s_Break(self, s):
        self.line("break;")

    def _s_Continue(self, s):
        self.line("continue;")

    def _s_Return(self, s):
        self.line(
            "return;" if s.value is None else f"return {_bare(self.expr(s.value))};"
        )

    def _s_Print(self, s):
        spelled, args = [s.text[0].replace("%", "%%")], []
        for value, conversion, text in zip(s.values, s.formats, s.text[1:]):
            t = value.type
            length = "ll" if t.kind == "int" and t.width == 64 else ""
            spelled.append(f"%{conversion[:-1]}{length}{conversion[-1]}")
            spelled.append(text.replace("%", "%%"))
            arg = self.expr(value)
            if conversion == "s":  # a Boolean as Python prints it
                arg = _conditional(arg.text, CExpr('"True"'), CExpr('"False"'))
            args.append(_bare(arg))
        text = cexpr.string_literal("".join(spelled))
        call = f"printf({', '.join([text, *args])});"
        if not s.once:
            self.line(call)
            return
        self.line("if (kdsl::first_thread()) {")
        self.line(call)
        self.line("}")

    def _s_Assert(self, s):
        fail = f"kdsl::assert_failed({_bare(self.expr(s.record))}, {s.site});"
        if isinstance(s.cond, ir.Const):  # false: every thread here fails
            self.line(fail)
            return
        failed = cexpr.unary("~", Boolean, self.expr(s.cond))
        self.line(f"if ({_bare(failed)}) {{")
        self.line(fail)
        self.line("}")

    # -- expressions ---------------------------------------------------------------------
    def use(self, t):
        if isinstance(t, (ir.PointerType, ir.RefType)):
            t = t.elem
        if isinstance(t, VectorMeta):
            self.types.add("vector")
            t = t.dtype
        if isinstance(t, NumericMeta):
            self.types.add(t)

    def expr(self, e) -> CExpr:
        self.use(e.type)
        saved = self._unsigned_ok
        self._unsigned_ok = saved and self._stays_unsigned(e)
        try:
            return self.EXPR[type(e)](self, e)
        finally:
            self._unsigned_ok = saved

    def _stays_unsigned(self, e) -> bool:
        """Whether ``e`` may be computed on unsigned CUDA indices (see
        ``_value``): an ``Int32`` index, variable, constant or plain ``+ - *
        // %``."""
        if e.type is not Int32:
            return False
        if isinstance(e, (ir.Special, ir.Var, ir.Const)):
            return True
        e = _simplified(e) if isinstance(e, ir.BinOp) else e
        return isinstance(e, ir.BinOp) and e.op in _UNSIGNED_OPS and self._plain(e)

    def _e_Const(self, e):
        return cexpr.literal(e.type, e.value)

    def _e_Var(self, e):
        return CExpr(e.name)

    def _register(self, e) -> str:
        """A special register's CUDA name (``blockIdx.x``: an unsigned int)."""
        return builtins.get(e.name).cuda(self, e, [])

    def _e_Special(self, e):  # int32_t(blockIdx.x)
        if self._unsigned_ok:
            return CExpr(self._register(e))
        return cexpr.convert(Uint32, e.type, CExpr(self._register(e)))

    def convert(self, src, dst, text: str) -> str:
        """``text`` of kdsl type ``src`` as ``dst`` (for built-in renderings)."""
        value = cexpr.convert(src, dst, self._rendered(text))
        self._handed[value.text] = value
        return value.text

    def _rendered(self, text: str) -> CExpr:
        """A text of a built-in rendering as an expression: what it was handed
        (an argument, a conversion) is what it was; anything else it writes
        is a call or a name (``__syncthreads()``, ``threadIdx.x``): an atom."""
        return self._handed.get(text) or CExpr(text)

    def _e_BinOp(self, e):
        if _lanewise(e):
            return self._vmap(e)
        e = _simplified(e)
        if not isinstance(e, ir.BinOp):
            return self.expr(e)
        a, b = self.expr(e.lhs), self.expr(e.rhs)
        if self._plain(e):
            return cexpr.plain(e.op, e.lhs.type, a, b)
        return cexpr.binary(e.op, e.lhs.type, e.type, a, b)

    def _plain(self, e) -> bool:
        """Whether a plain C++ operator computes integer operation ``e``
        exactly (``cexpr.plain``): the range analysis proves no overflow,
        and non-negative operands where C++ and Python differ (``//``,
        ``%``, shifts); or, in an ``Int32`` value read on unsigned CUDA
        indices (``_value``), ``+ - *`` with an unsigned operand, which C++
        computes modulo 2**32 as kdsl does."""
        t = e.lhs.type
        if not (is_int(t) and t.width >= 32 and e.op in cexpr.PLAIN):
            return False
        if self._unsigned_ok and e.op in "+-*" and self._unsigned_operand(e):
            return True
        a, b = self.ranges.of(e.lhs), self.ranges.of(e.rhs)
        if e.op in ("//", "%", ">>", "<<") and (a[0] < 0 or b[0] < 0):
            return False
        if e.op in (">>", "<<") and b[1] >= t.width:
            return False
        return within(exact(e.op, a, b), t)

    def _unsigned_operand(self, e) -> bool:
        """Whether an operand of ``e`` is spelled unsigned in an unsigned
        value: a CUDA index, or such an operation on one."""
        for x in (e.lhs, e.rhs):
            if isinstance(x, ir.Special):
                return True
            if isinstance(x, ir.BinOp) and x.type is Int32:
                x = _simplified(x)
                if isinstance(x, ir.Special) or (
                    isinstance(x, ir.BinOp)
                    and x.op in "+-*"
                    and self._unsigned_operand(x)
                ):
                    return True
        return False

    def _e_UnaryOp(self, e):
        if _lanewise(e):
            return self._vmap(e)
        a = self.expr(e.operand)
        if e.op == "-" and is_int(e.type) and e.type.width >= 32 and e.type.signed:
            lo, hi = self.ranges.of(e.operand)
            if within((-hi, -lo), e.type):  # no overflow: plain negation
                return atom(CExpr(f"-{atom(a)}", Prec.UNARY))
        return cexpr.unary(e.op, e.type, a)

    def _e_Convert(self, e):
        if _lanewise(e):
            return self._vmap(e)
        return cexpr.convert(e.operand.type, e.type, self.expr(e.operand))

    def _vmap(self, e):
        """A vector expression as one ``kdsl::vmap`` of a scalar lambda: its
        lane-wise operations are the lambda's body (the scalar spellings, and
        a lane-wise built-in's scalar rendering, so each lane has the scalar
        semantics: ``expf(v)``); a broadcast scalar variable is
        captured, a broadcast constant written in place; the other parts are
        the vectors mapped over, a variable under its own name, anything else
        as a, b, ...  With no vector to map over it is one ``kdsl::splat``."""
        taken = {n.name for n in ir.walk(e) if isinstance(n, ir.Var)}
        letters = (
            name
            for k in itertools.count(1)
            for c in string.ascii_lowercase
            if (name := c if k == 1 else f"{c}{k}") not in taken
        )
        params, args, captures, named = [], [], [], {}

        def lane(n):
            self.use(n.type)
            if _lanewise(n) and isinstance(n, ir.BinOp):
                t = n.lhs.type.dtype
                return cexpr.binary(n.op, t, n.type.dtype, lane(n.lhs), lane(n.rhs))
            if _lanewise(n) and isinstance(n, ir.UnaryOp):
                return cexpr.unary(n.op, n.type.dtype, lane(n.operand))
            if _lanewise(n) and isinstance(n, ir.Select):
                cond = _condition(lane(n.cond))
                return _conditional(cond, lane(n.if_true), lane(n.if_false))
            if _lanewise(n) and isinstance(n, ir.BuiltinCall):  # kdsl.math ...
                lanes = [lane(a) for a in n.args]
                return self._call(builtins.scalar_call(n), lanes)
            if _lanewise(n):
                src = n.operand.type.dtype
                return cexpr.convert(src, n.type.dtype, lane(n.operand))
            if isinstance(n, ir.Broadcast) and isinstance(n.operand, ir.Const):
                return cexpr.literal(n.operand.type, n.operand.value)
            if isinstance(n, ir.Broadcast) and isinstance(n.operand, ir.Var):
                if n.operand.name not in captures:
                    captures.append(n.operand.name)
                return CExpr(n.operand.name)
            text = _bare(self.expr(n))
            key = n.name if isinstance(n, ir.Var) else text if _pure_load(n) else None
            if key is None or key not in named:
                name = n.name if isinstance(n, ir.Var) else next(letters)
                params.append(f"const {ctype(n.type.dtype)} {name}")
                args.append(text)
                if key is not None:
                    named[key] = name
                return CExpr(name)
            return CExpr(named[key])

        body = _bare(lane(e))
        if not args:  # every lane computes the same expression
            return CExpr(f"kdsl::splat<{ctype(e.type.dtype)}, {e.type.lanes}>({body})")
        head = f"[{', '.join(captures)}]({', '.join(params)})"
        return CExpr(f"kdsl::vmap({head} {{ return {body}; }}, {', '.join(args)})")

    def _e_Bitcast(self, e):
        a = self.expr(e.operand)
        if isinstance(e.type, VectorMeta) or isinstance(e.operand.type, VectorMeta):
            return CExpr(f"kdsl::bitcast<{ctype(e.type)}>({a})")
        return cexpr.bitcast(e.operand.type, e.type, a)

    def _e_Select(self, e):
        if _lanewise(e):
            return self._vmap(e)
        cond, a, b = self.expr(e.cond), self.expr(e.if_true), self.expr(e.if_false)
        return _conditional(cond.text, a, b)

    def _e_Logical(self, e):
        prec = OPERATOR_PREC[e.op]
        a = cexpr.operand_of(prec, self.expr(e.lhs), right=False)
        b = cexpr.operand_of(prec, self.expr(e.rhs), right=True)
        return atom(CExpr(f"{a} {e.op} {b}", prec))

    def _e_Broadcast(self, e):
        t = e.type
        value = _bare(self.expr(e.operand))
        return CExpr(f"kdsl::splat<{ctype(t.dtype)}, {t.lanes}>({value})")

    def _e_MakeVector(self, e):
        lanes = ", ".join(_bare(self.expr(x)) for x in e.lanes)
        return CExpr(f"{ctype(e.type)}{{{{{lanes}}}}}")

    def _e_Extract(self, e):
        return CExpr(f"{self.expr(e.vector)}.v[{e.lane}]")

    def _e_ArrayOffset(self, e):
        """``kdsl::offset(i, a_stride0, j, a_stride1)``: the index and stride
        of each dimension, the index converting to ``int64_t`` as the
        parameter's (the prelude's ``offset`` is the wrapping sum of
        products that ``flat`` spells out)."""
        terms = _offset_terms(e.flat, len(e.indices))
        if terms is None:
            return self.expr(e.flat)
        args = []
        for index, stride in terms:
            if isinstance(index, ir.Convert) and _implicit_to_int64(index.operand.type):
                args.append(self._index(index.operand))
            else:
                args.append(_bare(self.expr(index)))
            args.append(_bare(self.expr(stride)))
        return CExpr(f"kdsl::offset({', '.join(args)})")

    def _e_Load(self, e):
        return CExpr(self._element(e.base, e.indices))

    def _element(self, base, indices) -> str:
        """``base[i]...``; an index that is a CUDA index reads it as it is
        (``out[blockIdx.x]``: unsigned, and never above 2**31 - 1, so the
        same element)."""
        idx = "".join(f"[{self._index(i)}]" for i in indices)
        return f"{self.expr(base)}{idx}"

    def _index(self, i) -> str:
        """An index (or an Array offset's index): read on unsigned CUDA
        indices (``s[threadIdx.y][threadIdx.x + 8]``) where every part of it
        is in ``[0, 2**31 - 1]``, so that unsigned arithmetic never wraps
        and gives the same number."""
        if isinstance(i, ir.Special):
            self.use(i.type)
            return self._register(i)
        if not self._never_wraps(i):
            return _bare(self.expr(i))
        self._unsigned_ok = True
        try:
            return _bare(self.expr(i))
        finally:
            self._unsigned_ok = False

    def _never_wraps(self, e) -> bool:
        """Whether ``e`` is an ``Int32`` CUDA index, variable, constant or
        ``+ - * // %`` of them, every part in ``[0, 2**31 - 1]``."""
        if e.type is not Int32 or self.ranges.of(e)[0] < 0:
            return False
        if isinstance(e, (ir.Special, ir.Var, ir.Const)):
            return True
        if not (isinstance(e, ir.BinOp) and e.op in _UNSIGNED_OPS):
            return False
        e = _simplified(e)
        if not isinstance(e, ir.BinOp):
            return self._never_wraps(e)
        return self._never_wraps(e.lhs) and self._never_wraps(e.rhs)

    def _view_type(self, e) -> ir.PointerType:
        """The pointer type of a ``.vec(N)`` or ``.view(T)`` view (const
        when the kernel never stores through the pointer it views)."""
        root = e.pointer
        while isinstance(root, (ir.VecView, ir.PointerView)):
            root = root.pointer
        const = isinstance(root, ir.Var) and root.name in self.readonly
        return ir.PointerType(e.type.elem, const=const)

    def _e_VecView(self, e):
        pointer = ctype(self._view_type(e))
        return CExpr(f"reinterpret_cast<{pointer}>({self.expr(e.pointer)})")

    _e_PointerView = _e_VecView

    def _e_ConstantRef(self, e):
        return CExpr(e.name)

    def _e_DynamicShared(self, e):
        at = e.buffer
        if not (isinstance(e.offset, ir.Const) and e.offset.value == 0):
            at = f"{e.buffer} + {atom(self.expr(e.offset))}"
        return CExpr(f"reinterpret_cast<{ctype(e.type)}>({at})")

    def _e_Address(self, e):
        return CExpr(f"&{self._element(e.base, e.indices)}", Prec.UNARY)

    def _e_BuiltinCall(self, e):
        if _lanewise(e):
            return self._vmap(e)
        return self._call(e, [self.expr(a) for a in e.args])

    def _call(self, call, values) -> CExpr:
        """A built-in ``call`` rendered by its entry, its arguments ``values``."""
        self._handed = {_bare(v): v.inner or v for v in values}
        args = [_bare(v) for v in values]
        return self._rendered(builtins.get(call.builtin).cuda(self, call, args))

    def _e_FuncCall(self, e):
        return CExpr(f"{e.func}({', '.join(_bare(self.expr(a)) for a in e.args)})")


_UNSIGNED_OPS = ("+", "-", "*", "//", "%")


def _const_pointer_variables(f: ir.Function, readonly) -> frozenset:
    """The pointer variables of ``f`` (declared with, or assigned, a pointer
    other than a view) that may hold a ``readonly`` pointer: ``const``
    (the lowering makes a pointer stored through, and every pointer assigned
    to it, writable)."""
    sources: dict = {}
    for s in ir.statements(f.body):
        value = s.init if isinstance(s, ir.Declare) else getattr(s, "value", None)
        if isinstance(s, (ir.Declare, ir.Assign)) and isinstance(value, ir.Var):
            if isinstance(value.type, ir.PointerType):
                sources.setdefault(s.name, set()).add(value.name)
    const, changed = set(), True
    while changed:
        changed = False
        for name, names in sources.items():
            if name not in const and names & (set(readonly) | const):
                const.add(name)
                changed = True
    return frozenset(const)


def _unread(f: ir.Function) -> frozenset:
    """The variables of ``f`` that are declared with a value computed
    without a call, and never read nor assigned: their declaration is
    dead (``int32_t i = 7;`` left by a ``range_constexpr``'s variable)."""
    used = set()
    for s in ir.statements(f.body):
        if isinstance(s, (ir.Assign, ir.AssignLane)):
            used.add(s.name)
        elif isinstance(s, ir.For):
            used.add(s.var)
    for e in ir.expressions(f.body):
        if isinstance(e, ir.Var):
            used.add(e.name)
    return frozenset(
        s.name
        for s in ir.statements(f.body)
        if isinstance(s, ir.Declare)
        and s.name not in used
        and s.init is not None
        and not any(isinstance(x, ir.CALLS) for x in ir.walk(s.init))
    )


def _offset_terms(flat, n: int):
    """``[(index, stride), ...]`` of an Array offset ``i0 * s0 + i1 * s1 +
    ...`` (left to right, ``n`` terms, all ``Int64``), or None if ``flat``
    is not that sum."""
    terms = []
    while isinstance(flat, ir.BinOp) and flat.op == "+" and len(terms) < n - 1:
        terms.append(flat.rhs)
        flat = flat.lhs
    terms.append(flat)
    terms.reverse()
    out = []
    for term in terms:
        if not (isinstance(term, ir.BinOp) and term.op == "*"):
            return None
        if term.type is not Int64 or term.lhs.type is not Int64:
            return None
        out.append((term.lhs, term.rhs))
    return out if len(out) == n else None


def _implicit_to_int64(t) -> bool:
    """Whether a C++ value of kdsl type ``t`` converts to an ``int64_t``
    parameter as ``int64_t(x)`` converts it."""
    return is_int(t)


def _simplified(e: ir.BinOp):
    """``e`` with its integer constants combined, exactly under wrap-around
    arithmetic: ``(x + 16) - 8`` is ``x + 8``, ``x + 0`` and ``0 + x`` are
    ``x``; and a
    float ``x - 0.0`` or ``x + -0.0`` (either side) is ``x``, exactly for
    every ``x`` (``-0.0`` is the additive identity of IEEE arithmetic; a
    NaN stays a NaN).  ``0.0 + x`` stays: it is ``+0.0`` for ``x = -0.0``."""
    t = e.type
    if t is not e.lhs.type or e.op not in ("+", "-"):
        return e
    if isinstance(t, NumericMeta) and t.kind == "float":
        if e.op == "+" and _is_zero(e.rhs, negative=True):
            return e.lhs
        if e.op == "+" and _is_zero(e.lhs, negative=True):
            return e.rhs
        if e.op == "-" and _is_zero(e.rhs, negative=False):
            return e.lhs
        return e
    if not is_int(t):
        return e
    if (
        e.op == "+"
        and isinstance(e.lhs, ir.Const)
        and e.lhs.value == 0
        and e.rhs.type is t
    ):
        return e.rhs  # 0 + x
    base, offset, terms = e, 0, 0
    while (
        isinstance(base, ir.BinOp)
        and base.op in ("+", "-")
        and base.type is t
        and base.lhs.type is t
        and isinstance(base.rhs, ir.Const)
    ):
        offset += base.rhs.value if base.op == "+" else -base.rhs.value
        base, terms = base.lhs, terms + 1
    offset = values.wrap(offset, t)
    if terms == 0 or (terms == 1 and offset != 0):
        return e  # nothing to combine
    if offset == 0:
        return base
    if t.signed and offset < 0 and offset != _type_min(t):
        return ir.BinOp(t, "-", base, ir.Const(t, -offset))
    if not t.signed and offset >= 1 << (t.width - 1):  # x - 1u, not x + 4294967295u
        return ir.BinOp(t, "-", base, ir.Const(t, (1 << t.width) - offset))
    return ir.BinOp(t, "+", base, ir.Const(t, offset))


def _type_min(t) -> int:
    return -(1 << (t.width - 1)) if t.signed else 0


def _is_zero(e, negative: bool) -> bool:
    """Whether ``e`` is the constant ``-0.0`` (``negative``) or ``+0.0``."""
    return (
        isinstance(e, ir.Const)
        and e.value == 0
        and (math.copysign(1.0, e.value) < 0) == negative
    )


def _parameter(t, name: str) -> str:
    """A parameter's declaration: ``const float* x``, or a fixed-shape array
    by reference, ``float (&scratch)[32]``."""
    if isinstance(t, ir.PointerType) and t.shape is not None:
        const = "const " if t.const else ""
        dims = "".join(f"[{d}]" for d in t.shape)
        return f"{const}{ctype(t.elem)} (&{name}){dims}"
    if isinstance(t, ir.TensorMapType):  # in parameter space, where TMA reads it
        return f"const __grid_constant__ {ctype(t)} {name}"
    return f"{ctype(t)} {name}"


def _basename(path: str) -> str:
    return path.replace("\\", "/").rsplit("/", 1)[-1]


def _conditional(cond: str, a: CExpr, b: CExpr) -> CExpr:
    """``(cond ? a : b)``; the branches as they stand."""
    return atom(CExpr(f"{cond} ? {a} : {b}", Prec.CONDITIONAL))


def _condition(c: CExpr) -> str:
    """A vector ``?:``'s condition: bare, but a conditional keeps its
    parentheses (``(p ? q : r) ? a : b``)."""
    inside = c.inner or c
    return c.text if inside.prec == Prec.CONDITIONAL else inside.text


def _lanewise(e) -> bool:
    """Whether ``e`` is a lane-wise vector operation (part of one vmap): an
    operator, a conversion, a select or a lane-wise built-in (kdsl.math)."""
    if isinstance(e, ir.Select):
        return isinstance(e.cond.type, VectorMeta)
    if isinstance(e, ir.BuiltinCall):
        return builtins.is_lanewise_call(e)
    return isinstance(e, (ir.BinOp, ir.UnaryOp, ir.Convert)) and isinstance(
        e.type, VectorMeta
    )


def _pure_load(e) -> bool:
    """A load whose address has no call (no atomic): reading it twice in one
    expression reads the same value, so one read serves both."""
    return isinstance(e, ir.Load) and not any(
        isinstance(x, ir.CALLS) for x in ir.walk(e)
    )
