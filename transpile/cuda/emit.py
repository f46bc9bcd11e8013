"""Emission: typed IR to readable CUDA C++ lines.

Scalar operations are spelled by ``cexpr`` (a table of exact spellings);
this module renders statements, vectors, memory and calls, indenting on
``{`` / ``}``.  An expression is a tree (``core.cxx.CExpr``: each node's
kind, children and C++ precedence), so every compound operand is
parenthesised from the tree, and a statement's value, a call argument or a
condition drops the parentheses around the whole (``bare``).  A built-in
renders through its registry entry, trees in and a tree out.  A statement
(``doc.Statement``) longer than ``LIMIT`` columns is broken as
clang-format would break it (``layout.wrap``), from its trees.
"""

from __future__ import annotations

import itertools
import string

from kdsl.transpile import builtins, ir
from kdsl.transpile.core.types import (
    Boolean,
    Int32,
    Int64,
    NumericMeta,
    Uint32,
    VectorMeta,
)
from kdsl.transpile.core.structs import StructMeta, leaf_types
from kdsl.transpile.core.types import FieldArray
from kdsl.transpile.cuda import cexpr, doc, structs
from kdsl.transpile.cuda.layout import LIMIT, wrap
from kdsl.transpile.core.cxx import (
    CExpr,
    atom,
    bare,
    brace,
    call,
    conditional,
    index,
    infix,
    init,
    lambda_,
    member,
    name,
    number,
    prefix,
    template,
)
from kdsl.transpile.cuda.quote import string_literal
from kdsl.transpile.ir.backend import Backend
from kdsl.transpile.passes import Facts
from kdsl.transpile.passes.pointers import root_pointer
from kdsl.transpile.passes.ranges import exact, is_int, within


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


def _interval(r) -> str:
    return f"[{r[0]}, {r[1]}]"


class Emitter(Backend):
    """The CUDA backend: one ``_e_<Node>``/``_s_<Node>`` per IR node class
    (checked when the class is defined); built-in calls render through
    their registry entry."""

    backend_name = "CUDA emitter"
    expr_prefix = "_e_"
    stmt_prefix = "_s_"

    def __init__(self, line_directives: bool = False, facts: Facts = Facts()):
        self.lines: list[str] = []
        self.depth = 0
        self.line_directives = line_directives
        self.types: set = set()  # scalar types the code uses (for headers)
        # what the passes found in the function (passes.Facts): the pointers
        # never stored through (const; a view of one joins them), the
        # variables declared and never used, the integer ranges
        self.readonly: frozenset = facts.readonly
        self.unread: frozenset = facts.unread
        self.ranges = facts.ranges
        self._unsigned_ok = False  # a CUDA index may stay unsigned (see _value)
        self.at = None  # the statement being emitted
        self.where = None  # the span of the Python statement being emitted
        # the integer operations left to kdsl's wrapping helpers, and why:
        # (span, C++ text, reason), in emission order (``explain``)
        self.wrapped: list = []

    def range_of(self, e):
        """The range of integer expression ``e`` where it stands (under the
        facts in force at the statement being emitted)."""
        return self.ranges.of(e, at=self.at)

    def line(self, text: str):
        """A line that is never broken (a brace, a comment, a loop head)."""
        if text.startswith("}"):
            self.depth -= 1
        self.lines.append("    " * self.depth + text if text else "")
        if text.endswith("{"):
            self.depth += 1

    def statement(self, s: doc.Statement):
        """A statement (``doc``), broken at ``LIMIT`` columns by ``layout``;
        with #line directives it keeps to one line."""
        if s.kind == "head" and s.parts[0].startswith("}"):
            self.depth -= 1
        indent = "    " * self.depth
        if self.line_directives:
            self.lines.append(indent + s.text)
        else:
            self.lines.extend(wrap(indent, s))
        if s.kind == "head":
            self.depth += 1

    # -- functions ------------------------------------------------------------------
    @classmethod
    def function(
        cls, f: ir.Function, facts: Facts = Facts(), line_directives: bool = False
    ) -> str:
        """The C++ text of ``f``, emitted from fresh state; ``facts`` are what
        the pipeline's passes found in it."""
        emitter = cls(line_directives, facts)
        emitter._function(f)
        return "\n".join(emitter.lines)

    @classmethod
    def explain(cls, f: ir.Function, facts: Facts = Facts()) -> list:
        """The integer operations of ``f`` that stay kdsl's wrapping helpers,
        with why: ``(span, C++ text, reason)`` in the order they are emitted."""
        emitter = cls(False, facts)
        emitter._function(f)
        return emitter.wrapped

    def _function(self, f: ir.Function):
        params = []
        for p in f.params:
            t = p.type
            if isinstance(t, ir.PointerType) and p.name in self.readonly:
                t = ir.PointerType(t.elem, const=True, shape=t.shape)
            self.use(t)
            params.append(_parameter(t, p.name))
        if f.is_kernel:
            bounds = ""
            if f.launch_bounds is not None:
                bounds = f"__launch_bounds__({', '.join(map(str, f.launch_bounds))}) "
            head = f'extern "C" __global__ void {bounds}{f.name}('
            if bounds and len(head) > LIMIT:  # the name on a line of its own
                self.line(f'extern "C" __global__ void {bounds.rstrip()}')
                head = f"{f.name}("
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
        outer = self.at
        for s in stmts:
            self.at = s  # (the range analysis's facts hold per statement)
            self.STMT[type(s)](self, s)
        self.at = outer

    # -- statements ---------------------------------------------------------------------
    def _s_Comment(self, s):
        self.where = s.span
        for part in s.text.split("\n"):  # a statement written over several lines
            self.line(f"// {part}")
        if self.line_directives and s.span is not None:  # numbers the next line
            path = string_literal(basename(s.span.path))
            self.lines.append(f"#line {s.span.line} {path}")

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
            self.statement(doc.plain(f"{ctype(s.type)} {s.name};"))
        else:
            target = f"{ctype(s.type)} {s.name}"
            self.statement(doc.assign(target, self._value(s.init)))

    def _s_ArrayDecl(self, s):
        self.use(s.elem)
        dims = "".join(f"[{d}]" for d in s.shape)
        space = "__shared__ " if s.space == "shared" else ""
        self.statement(doc.plain(f"{space}{ctype(s.elem)} {s.name}{dims};"))

    def _s_DynamicSharedDecl(self, s):
        text = f"extern __shared__ __align__({s.align}) unsigned char {s.name}[];"
        self.statement(doc.plain(text))

    def _s_Assign(self, s):
        if isinstance(s.value, ir.Var) and s.value.name == s.name:  # was x - 0.0
            return
        self.statement(doc.assign(s.name, self._value(s.value)))

    def _s_AssignLane(self, s):
        target = index(member(s.name, "v"), number(str(s.lane)))
        self.statement(doc.assign(target, self._value(s.value)))

    def _s_Store(self, s):
        target = self._element(s.base, s.indices)
        self.statement(doc.assign(target, self._value(s.value)))

    def _s_StoreLane(self, s):
        target = index(
            member(self._element(s.base, s.indices), "v"), number(str(s.lane))
        )
        self.statement(doc.assign(target, self._value(s.value)))

    def _s_ExprStmt(self, s):
        self.statement(doc.expr(bare(self.expr(s.expr))))

    def _s_StoreField(self, s):
        self.statement(doc.assign(bare(self.expr(s.target)), self._value(s.value)))

    def _value(self, e) -> CExpr:
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
            return bare(self.expr(e))
        finally:
            self._unsigned_ok = False

    def _s_If(self, s, chained: bool = False):
        opening = "} else if (" if chained else "if ("
        self.statement(doc.head(opening, bare(self.expr(s.cond))))
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
            self.at = orelse[1]
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
        if s.type is Int32 and s.start.type is Int32:  # as a declaration's value
            start = self._value(s.start)  # (kdsl.grid(1): blockIdx.x * ...)
        sign = self._sign(s.step)
        if isinstance(s.step, ir.Var) and sign == 0:
            cond = f"kdsl::in_range({s.var}, {stop}, {s.step.name})"
            step = f"{s.var} += {s.step.name}"
            r = _interval(self.range_of(s.step))
            why = f"the step {s.step.name} may be zero or negative: in {r}"
            self.wrapped.append((s.span or self.where, cond, why))
        elif isinstance(s.step, ir.Var):  # a run-time step of known sign
            cond = f"{s.var} {'<' if sign > 0 else '>'} {stop}"
            step = f"{s.var} += {s.step.name}"
        else:
            cond = f"{s.var} {'<' if s.step > 0 else '>'} {stop}"
            step = f"{s.var} += {s.step}" if s.step > 0 else f"{s.var} -= {-s.step}"
            if s.step == 1:
                step = f"++{s.var}"
        self.line(f"for ({ctype(s.type)} {s.var} = {start}; {cond}; {step}) {{")
        self.block(s.body)
        self.line("}")

    def _sign(self, step) -> int:
        """A loop step's sign (1 or -1), 0 where the range analysis does not
        know it (a run-time step of either sign: ``kdsl::in_range``)."""
        if isinstance(step, int):
            return 1 if step > 0 else -1
        lo, hi = self.range_of(step)
        return 1 if lo > 0 else -1 if hi < 0 else 0

    def _s_While(self, s):
        cond = name("true") if isinstance(s.cond, ir.Const) else self.expr(s.cond)
        self.statement(doc.head("while (", bare(cond)))
        self.block(s.body)
        self.line("}")

    def _s_Break(self, s):
        self.statement(doc.plain("break;"))

    def _s_Continue(self, s):
        self.statement(doc.plain("continue;"))

    def _s_Return(self, s):
        if s.value is None:
            self.statement(doc.plain("return;"))
        else:
            self.statement(doc.ret(bare(self.expr(s.value))))

    def _s_Print(self, s):
        spelled, args = [s.text[0].replace("%", "%%")], []
        for value, conversion, text in zip(s.values, s.formats, s.text[1:]):
            t = value.type
            length = "ll" if t.kind == "int" and t.width == 64 else ""
            spelled.append(f"%{conversion[:-1]}{length}{conversion[-1]}")
            spelled.append(text.replace("%", "%%"))
            arg = self.expr(value)
            if conversion == "s":  # a Boolean as Python prints it
                arg = _conditional(arg, name('"True"'), name('"False"'))
            args.append(arg)
        text = name(cexpr.string_literal("".join(spelled)))
        printf = doc.expr(call("printf", text, *args))
        if not s.once:
            self.statement(printf)
            return
        self.statement(doc.head("if (", call("kdsl::first_thread")))
        self.statement(printf)
        self.line("}")

    def _s_Assert(self, s):
        record = self.expr(s.record)
        fail = doc.expr(call("kdsl::assert_failed", record, number(str(s.site))))
        if isinstance(s.cond, ir.Const):  # false: every thread here fails
            self.statement(fail)
            return
        failed = cexpr.unary("~", Boolean, self.expr(s.cond))
        self.statement(doc.head("if (", bare(failed)))
        self.statement(fail)
        self.line("}")

    def _s_Assume(self, s):
        """Nothing: a fact for the range analysis, above as its source
        comment (a debug build checks it with the ``Assert`` after it)."""

    # -- expressions ---------------------------------------------------------------------
    def use(self, t):
        if isinstance(t, (ir.PointerType, ir.RefType)):
            t = t.elem
        if isinstance(t, (StructMeta, FieldArray)):
            for leaf in leaf_types(t):
                self.use(leaf)
            return
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
        if isinstance(e, ir.BinOp) and e.check is not None:
            return False  # (a debug build's checked operation: signed operands)
        return isinstance(e, ir.BinOp) and e.op in _UNSIGNED_OPS and self._plain(e)

    def _e_Const(self, e):
        return cexpr.literal(e.type, e.value)

    def _e_Var(self, e):
        return name(e.name)

    def _register(self, e) -> CExpr:
        """A special register's CUDA name (``blockIdx.x``: an unsigned int)."""
        return _rendered(e.name, builtins.get(e.name).cuda(self, e, []))

    def _e_Special(self, e):  # int32_t(blockIdx.x)
        if self._unsigned_ok:
            return self._register(e)
        return cexpr.convert(Uint32, e.type, self._register(e))

    def convert(self, src, dst, value: CExpr) -> CExpr:
        """``value`` of kdsl type ``src`` as ``dst`` (for built-in renderings)."""
        return cexpr.convert(src, dst, value)

    def _e_BinOp(self, e):
        if _lanewise(e):
            return self._vmap(e)
        a, b = self.expr(e.lhs), self.expr(e.rhs)
        if e.check is not None:  # a debug build's no_overflow=True: checked
            record, site = e.check
            name_ = {"+": "add", "-": "sub", "*": "mul"}[e.op]
            return call(
                f"kdsl::checked_{name_}", a, b, self.expr(record), number(str(site))
            )
        if self._plain(e):
            return cexpr.plain(e.op, e.lhs.type, a, b)
        out = cexpr.binary(e.op, e.lhs.type, e.type, a, b)
        if out.kind == "call" and str(out.callee).startswith("kdsl::"):
            if is_int(e.lhs.type) and e.op in cexpr.PLAIN:
                self._wrapped(e, out, self._why(e, a, b))
        return out

    def _wrapped(self, e, text, why: str):
        """Note an integer operation left to a wrapping helper (``explain``)."""
        self.wrapped.append((e.span or self.where, str(text), why))

    def _why(self, e, a, b) -> str:
        """Why the range analysis could not make ``e`` a plain operator."""
        t = e.lhs.type
        ra, rb = self.range_of(e.lhs), self.range_of(e.rhs)
        if t.width < 32:
            return f"{t.__name__} arithmetic wraps at {t.width} bits"
        if e.op in ("//", "%") and ra[0] < 0:
            return f"{a} may be negative: in {_interval(ra)}"
        if e.op in ("//", "%", ">>", "<<") and rb[0] < (1 if e.op in "//%" else 0):
            return f"{b} may be {'zero or ' if e.op in '//%' else ''}negative: in {_interval(rb)}"
        if e.op in (">>", "<<") and ra[0] < 0:
            return f"{a} may be negative: in {_interval(ra)}"
        if e.op in (">>", "<<"):
            return f"the count {b} may reach {t.width}: in {_interval(rb)}"
        r = exact(e.op, ra, rb)
        return (
            f"{a} in {_interval(ra)} {e.op} {b} in {_interval(rb)} may leave "
            f"{t.__name__}" + ("" if r is None else f" (exactly {_interval(r)})")
        )

    def _plain(self, e) -> bool:
        """Whether a plain C++ operator computes integer operation ``e``
        exactly (``cexpr.plain``): the range analysis proves no overflow,
        and non-negative operands where C++ and Python differ (``//``,
        ``%``, shifts); a signed ``+ - *`` of a function stated not to
        overflow (``no_overflow=True``); or, in an ``Int32`` value read on unsigned CUDA
        indices (``_value``), ``+ - *`` with an unsigned operand, which C++
        computes modulo 2**32 as kdsl does."""
        t = e.lhs.type
        if not (is_int(t) and t.width >= 32 and e.op in cexpr.PLAIN):
            return False
        if self._unsigned_ok and e.op in "+-*" and self._unsigned_operand(e):
            return True
        if e.op in "+-*" and t.signed and self.ranges.no_overflow:
            return True  # stated not to overflow (no_overflow=True): C's rule
        a, b = self.range_of(e.lhs), self.range_of(e.rhs)
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
                if x.op in "+-*" and self._unsigned_operand(x):
                    return True
        return False

    def _e_UnaryOp(self, e):
        if _lanewise(e):
            return self._vmap(e)
        a = self.expr(e.operand)
        if e.op == "-" and is_int(e.type) and e.type.width >= 32 and e.type.signed:
            lo, hi = self.range_of(e.operand)
            if within((-hi, -lo), e.type) or self.ranges.no_overflow:
                return atom(prefix("-", a))
            out = cexpr.unary(e.op, e.type, a)
            why = (
                f"{a} may be {e.type.__name__}'s least value: in {_interval((lo, hi))}"
            )
            self._wrapped(e, out, why)
            return out
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
            letter
            for k in itertools.count(1)
            for c in string.ascii_lowercase
            if (letter := c if k == 1 else f"{c}{k}") not in taken
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
                return name(n.operand.name)
            value = bare(self.expr(n))
            key = n.name if isinstance(n, ir.Var) else value if _pure_load(n) else None
            if key is None or key not in named:
                param = n.name if isinstance(n, ir.Var) else next(letters)
                params.append(f"const {ctype(n.type.dtype)} {param}")
                args.append(value)
                if key is not None:
                    named[key] = param
                return name(param)
            return name(named[key])

        body = bare(lane(e))
        if not args:  # every lane computes the same expression
            return call(
                template("kdsl::splat", ctype(e.type.dtype), e.type.lanes), body
            )
        return call("kdsl::vmap", lambda_(captures, params, body), *args)

    def _e_Bitcast(self, e):
        a = self.expr(e.operand)
        if isinstance(e.type, VectorMeta) or isinstance(e.operand.type, VectorMeta):
            return call(template("kdsl::bitcast", ctype(e.type)), a, bare_args=False)
        return cexpr.bitcast(e.operand.type, e.type, a)

    def _e_Select(self, e):
        if _lanewise(e):
            return self._vmap(e)
        cond, a, b = self.expr(e.cond), self.expr(e.if_true), self.expr(e.if_false)
        return _conditional(cond, a, b)

    def _e_Logical(self, e):
        return atom(infix(e.op, self.expr(e.lhs), self.expr(e.rhs)))

    def _e_Broadcast(self, e):
        t = e.type
        return call(
            template("kdsl::splat", ctype(t.dtype), t.lanes), self.expr(e.operand)
        )

    def _e_MakeVector(self, e):
        return init(ctype(e.type), [self.expr(x) for x in e.lanes])

    def _e_Extract(self, e):
        return index(member(self.expr(e.vector), "v"), number(str(e.lane)))

    # -- structs (cuda/structs.py declares them) ---------------------------------
    def _e_Member(self, e):
        return member(self.expr(e.base), e.field)

    def _e_Element(self, e):
        return index(self.expr(e.base), self._index(e.index))

    def _e_MakeStruct(self, e):
        values = [self.expr(v) for v in e.values]
        return brace(e.type.c_name, structs.grouped(e.type, values))

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
                args.append(self.expr(index))
            args.append(self.expr(stride))
        return call("kdsl::offset", *args)

    def _e_Load(self, e):
        return self._element(e.base, e.indices)

    def _element(self, base, indices) -> CExpr:
        """``base[i]...``; an index that is a CUDA index reads it as it is
        (``out[blockIdx.x]``: unsigned, and never above 2**31 - 1, so the
        same element)."""
        out = self.expr(base)
        for i in indices:
            out = index(out, self._index(i))
        return out

    def _index(self, i) -> CExpr:
        """An index (or an Array offset's index): read on unsigned CUDA
        indices (``s[threadIdx.y][threadIdx.x + 8]``) where every part of it
        is in ``[0, 2**31 - 1]``, so that unsigned arithmetic never wraps
        and gives the same number."""
        return bare(self._index_expr(i))

    def _index_expr(self, i) -> CExpr:
        """``_index`` as an expression (a pointer's offset, ``x + k``)."""
        if isinstance(i, ir.Special):
            self.use(i.type)
            return self._register(i)
        if not self._never_wraps(i):
            return self.expr(i)
        self._unsigned_ok = True
        try:
            return self.expr(i)
        finally:
            self._unsigned_ok = False

    def _never_wraps(self, e) -> bool:
        """Whether ``e`` is an ``Int32`` CUDA index, variable, constant or
        ``+ - * // %`` of them, every part in ``[0, 2**31 - 1]``."""
        if e.type is not Int32 or self.range_of(e)[0] < 0:
            return False
        if isinstance(e, (ir.Special, ir.Var, ir.Const)):
            return True
        if not (isinstance(e, ir.BinOp) and e.op in _UNSIGNED_OPS):
            return False
        return self._never_wraps(e.lhs) and self._never_wraps(e.rhs)

    def _view_type(self, e) -> ir.PointerType:
        """The pointer type of a ``.vec(N)`` or ``.view(T)`` view (const
        when the kernel never stores through the pointer it views)."""
        root = root_pointer(e.pointer)
        const = isinstance(root, ir.Var) and root.name in self.readonly
        return ir.PointerType(e.type.elem, const=const)

    def _e_VecView(self, e):
        pointer = ctype(self._view_type(e))
        cast = template("reinterpret_cast", pointer)
        return call(cast, self.expr(e.pointer), bare_args=False)

    def _e_PointerOffset(self, e):
        """``p + k`` / ``p - k``: C++'s pointer arithmetic, in elements."""
        return infix(e.op, self.expr(e.pointer), self._index_expr(e.offset))

    def _e_PointerBinary(self, e):
        """``p - q`` (a ``ptrdiff_t``, which is ``int64_t`` on the GPU) or a
        comparison of two pointers."""
        return infix(e.op, self.expr(e.lhs), self.expr(e.rhs))

    _e_PointerView = _e_VecView

    def _e_ConstantRef(self, e):
        return name(e.name)

    def _e_DynamicShared(self, e):
        at = name(e.buffer)
        if not (isinstance(e.offset, ir.Const) and e.offset.value == 0):
            at = infix("+", at, atom(self.expr(e.offset)), "as_is")
        return call(template("reinterpret_cast", ctype(e.type)), at)

    def _e_Address(self, e):
        return prefix("&", self._element(e.base, e.indices))

    def _e_BuiltinCall(self, e):
        if _lanewise(e):
            return self._vmap(e)
        return self._call(e, [self.expr(a) for a in e.args])

    def _call(self, call, values) -> CExpr:
        """A built-in ``call`` rendered by its entry, its arguments ``values``."""
        args = [bare(v) for v in values]
        return _rendered(
            call.builtin, builtins.get(call.builtin).cuda(self, call, args)
        )

    def _e_FuncCall(self, e):
        return call(e.func, *[self.expr(a) for a in e.args])


_UNSIGNED_OPS = ("+", "-", "*", "//", "%")


def _rendered(builtin: str, value) -> CExpr:
    """A built-in's rendering, which must be an expression tree."""
    if not isinstance(value, CExpr):
        raise TypeError(
            f"built-in {builtin!r}: its cuda= rendering returned "
            f"{type(value).__name__}, not a CExpr (see docs/contributing.md)"
        )
    return value


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


def _parameter(t, name: str) -> str:
    """A parameter's declaration: ``const float* x``, or a fixed-shape array
    by reference, ``float (&scratch)[32]``."""
    if isinstance(t, ir.PointerType) and t.shape == ():  # a shared scalar
        return f"{'const ' if t.const else ''}{ctype(t.elem)}& {name}"
    if isinstance(t, ir.PointerType) and t.shape is not None:
        const = "const " if t.const else ""
        dims = "".join(f"[{d}]" for d in t.shape)
        return f"{const}{ctype(t.elem)} (&{name}){dims}"
    if isinstance(t, ir.TensorMapType):  # in parameter space, where TMA reads it
        return f"const __grid_constant__ {ctype(t)} {name}"
    return f"{ctype(t)} {name}"


def basename(path: str) -> str:
    """The file name of ``path`` (``#line`` directives and the header name
    the Python file by it)."""
    return path.replace("\\", "/").rsplit("/", 1)[-1]


def _conditional(cond: CExpr, a: CExpr, b: CExpr) -> CExpr:
    """``(cond ? a : b)``; the condition and branches as they stand."""
    return atom(conditional(cond, a, b))


def _condition(c: CExpr) -> CExpr:
    """A vector ``?:``'s condition: bare, but a conditional keeps its
    parentheses (``(p ? q : r) ? a : b``)."""
    inside = bare(c)
    return c if inside.kind == "conditional" else inside


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
