"""A readable text form of the typed IR, for developers (``kdsl-transpile --ir``).

Every expression shows its type once, after a colon: ``i:Int32``,
``(a + b):Float32``, ``x:ptr<Float32>[i:Int32]:Float32``.  Statements are one
per line, nested bodies indented by two spaces.  The form is driven by
:func:`dataclasses.fields`, so a node class without a rule of its own prints
as ``kind names(args):Type``: its leading ``str`` fields as names, its
expressions as arguments and its other fields as ``field=value``; statement
bodies (tuples of statements) follow as indented blocks.
"""

from __future__ import annotations

import re
from dataclasses import fields

from kdsl.transpile.ir import nodes as ir

__all__ = ["format_function", "format_instance", "format_expr", "format_type"]

INDENT = "  "


def format_instance(kernel: ir.Function, functions) -> str:
    """An instance's device functions (a sequence, or a dict by name: in its
    order, callees first), then its kernel."""
    functions = functions.values() if isinstance(functions, dict) else functions
    return "\n".join(format_function(f) for f in [*functions, kernel])


def format_function(f: ir.Function) -> str:
    params = ", ".join(f"{p.name}: {format_type(p.type)}" for p in f.params)
    kind = "kernel" if f.is_kernel else "device"
    ret = "" if f.ret is None else f" -> {format_type(f.ret)}"
    ret += " contract" if f.contract else ""  # contract=True: every a*b + c fuses
    ret += " no_overflow" if f.no_overflow else ""  # signed + - * never overflow
    return "\n".join([f"{kind} {f.name}({params}){ret}:", *_block(f.body, 1)]) + "\n"


def format_type(t) -> str:
    if t is None:
        return "void"
    if isinstance(t, ir.PointerType):
        quals = [t.space] * (t.space != "global") + ["const"] * t.const
        return f"ptr<{' '.join([*quals, format_type(t.elem)])}>"
    if isinstance(t, ir.TensorMapType):
        return "tensor_map"
    return getattr(t, "__name__", None) or repr(t)


def format_expr(e: ir.Expr) -> str:
    if isinstance(e, ir.Const):
        text = repr(e.value)
    elif isinstance(e, ir.Var):
        text = e.name
    elif isinstance(e, (ir.BinOp, ir.Logical)):
        text = f"({format_expr(e.lhs)} {e.op} {format_expr(e.rhs)})"
        if getattr(e, "contract", False):  # inside kdsl.contract(...)
            text = f"contract{text}"
    elif isinstance(e, ir.UnaryOp):
        sep = " " if e.op[-1].isalpha() else ""
        text = f"({e.op}{sep}{format_expr(e.operand)})"
    elif _shown(e) == ["base", "indices"]:  # a load, or an address: &base[...]
        text = f"{format_expr(e.base)}[{_join(e.indices)}]"
        text = text if isinstance(e, ir.Load) else f"{_kind(e)} {text}"
    else:
        text = _generic(e, skip={"type"})
    return f"{text}:{format_type(e.type)}"


def _value(v) -> str:
    if isinstance(v, ir.Expr):
        return format_expr(v)
    if isinstance(v, tuple) and any(isinstance(x, ir.Expr) for x in v):
        return f"[{_join(v)}]"
    if isinstance(v, (type, ir.PointerType)):
        return format_type(v)
    return repr(v)


def _join(values) -> str:
    return ", ".join(_value(v) for v in values)


def _kind(node) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", type(node).__name__).lower()


def _generic(node, skip=()) -> str:
    """``kind names(args)``: leading strings as names, expressions (and the
    node's only tuple of them) as arguments, any other field as ``field=value``."""
    names, args = [], []
    shown = [f for f in fields(node) if f.name not in skip and f.name != "span"]
    tuples = [f for f in shown if isinstance(getattr(node, f.name), tuple)]
    for i, f in enumerate(shown):
        v = getattr(node, f.name)
        if isinstance(v, str) and len(names) == i:
            names.append(v)
        elif isinstance(v, ir.Expr):
            args.append(format_expr(v))
        elif tuples == [f] and _is_exprs(v, f):  # a call's arguments, a vector's lanes
            args.append(_join(v))
        else:
            args.append(f"{f.name}={_value(v)}")
    return " ".join([_kind(node), *names]) + (f"({', '.join(args)})" if args else "")


def _shown(node) -> list[str]:
    return [f.name for f in fields(node) if f.name not in ("type", "span")]


def _is_exprs(v: tuple, f) -> bool:
    return all(isinstance(x, ir.Expr) for x in v) and "Stmt" not in str(f.type)


def _is_body(v, f) -> bool:
    return isinstance(v, tuple) and (
        any(isinstance(s, ir.Stmt) for s in v) or (not v and "Stmt" in str(f.type))
    )


def _block(stmts, depth: int) -> list[str]:
    lines = [line for s in stmts for line in _stmt(s, depth)]
    return lines or [INDENT * depth + "pass"]


def _stmt(s: ir.Stmt, depth: int) -> list[str]:
    pad = INDENT * depth
    if isinstance(s, ir.Comment):
        return [f"{pad}# {line}" for line in s.text.splitlines() or [""]]
    if isinstance(s, ir.Declare):
        init = "" if s.init is None else f" = {format_expr(s.init)}"
        return [f"{pad}declare {s.name}: {format_type(s.type)}{init}"]
    if isinstance(s, ir.ArrayDecl):
        dims = "".join(f"[{n}]" for n in s.shape)
        return [f"{pad}declare {s.space} {s.name}: {format_type(s.elem)}{dims}"]
    if isinstance(s, ir.ExprStmt):
        return [pad + format_expr(s.expr)]
    if isinstance(s, ir.Return):
        value = "" if s.value is None else f" {format_expr(s.value)}"
        return [f"{pad}return{value}"]
    if isinstance(s, ir.Assign):
        return [f"{pad}{s.name} = {format_expr(s.value)}"]
    if isinstance(s, ir.AssignLane):
        return [f"{pad}{s.name}.lane[{s.lane}] = {format_expr(s.value)}"]
    if isinstance(s, (ir.Store, ir.StoreLane)):
        target = f"{format_expr(s.base)}[{_join(s.indices)}]"
        lane = f".lane[{s.lane}]" if isinstance(s, ir.StoreLane) else ""
        return [f"{pad}{target}{lane} = {format_expr(s.value)}"]
    if isinstance(s, ir.Print):  # print "i = %d\n"(i:Int32)
        spelled = [t.replace("%", "%%") for t in s.text]
        text = spelled[0] + "".join(f"%{f}{t}" for f, t in zip(s.formats, spelled[1:]))
        args = f"({_join(s.values)})" if s.values else ""
        return [f"{pad}{'print_once' if s.once else 'print'} {text!r}{args}"]
    bodies = [f for f in fields(s) if _is_body(getattr(s, f.name), f)]
    if isinstance(s, (ir.If, ir.While)):
        head = f"{_kind(s)} {format_expr(s.cond)}"
    elif isinstance(s, ir.For):
        bounds = _join((s.start, s.stop, s.step))
        head = f"for {s.var}: {format_type(s.type)} in range({bounds})"
        head += "" if s.unroll is None else f" unroll {s.unroll}"
    else:
        head = _generic(s, skip={f.name for f in bodies})
    if not bodies:
        return [pad + head]
    lines = [f"{pad}{head}:", *_block(getattr(s, bodies[0].name), depth + 1)]
    for f in bodies[1:]:
        body = getattr(s, f.name)
        if body or not isinstance(s, ir.If):
            label = "else" if f.name == "orelse" else f.name
            lines += [f"{pad}{label}:", *_block(body, depth + 1)]
    return lines
