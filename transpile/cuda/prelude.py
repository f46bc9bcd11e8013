"""What a generated file includes, chosen from the IR: the CUDA headers and
prelude parts (``templates/prelude``) that the types it uses and the
built-ins it calls need — never from the text of the output."""

from __future__ import annotations

from kdsl.transpile import builtins, ir
from kdsl.transpile.core.structs import StructMeta, leaf_types
from kdsl.transpile.core.types import FieldArray, VectorMeta
from kdsl.transpile.cuda import cexpr

# Include order of the prelude parts (each may use the ones before it).
ORDER = (
    "core.h",
    "half.h",
    "bfloat16.h",
    "int128.h",
    "narrow_floats.h",
    "intrinsics.h",
    "atomics.h",
    "signals.h",
    "cache.h",
    "warp.h",
    "mathfns.h",
    "vector.h",
    "mma.h",
    "matrix.h",
    "cp_async.h",
    "wgmma.h",
    "tma.h",
    "debug.h",
    "vector3.h",
)


def needs(functions) -> tuple[list[str], list[str]]:
    """``(headers, prelude parts)`` for code of these IR functions."""
    types, parts, headers = set(), set(), []
    for f in functions:
        types.update(p.type for p in f.params)
        types.add(f.ret)
        for s in ir.statements(f.body):
            types.add(getattr(s, "type", None))
            if isinstance(s, ir.ArrayDecl):
                types.add(s.elem)
            if isinstance(s, ir.For) and isinstance(s.step, ir.Var):
                parts.add("intrinsics.h")  # kdsl::in_range, a run-time step's test
            if isinstance(s, ir.Assert) or isinstance(s, ir.Print) and s.once:
                parts.add("debug.h")  # kdsl::assert_failed, kdsl::first_thread
        for e in ir.expressions(f.body):
            types.add(e.type)
            if isinstance(e, ir.BinOp) and e.check is not None:
                parts.add("debug.h")  # kdsl::checked_add ... (no_overflow=True)
            name = e.builtin if isinstance(e, ir.BuiltinCall) else None
            name = e.name if isinstance(e, ir.Special) else name
            if name is not None:
                entry = builtins.get(name)
                parts.update(entry.prelude)
                headers += [h for h in entry.headers if h not in headers]
    if any(isinstance(t, ir.TensorMapType) for t in types):
        parts.add("tma.h")  # kdsl::TensorMap, a parameter's type
    types = {
        t.elem if isinstance(t, (ir.PointerType, ir.RefType)) else t for t in types
    }
    for t in [t for t in types if isinstance(t, (StructMeta, FieldArray))]:
        types.discard(t)  # a struct needs what its fields need
        types |= leaf_types(t)
    if any(isinstance(t, VectorMeta) for t in types):
        parts.add("vector.h")
    if any(isinstance(t, VectorMeta) and t.lanes == 3 for t in types):
        parts.add("vector3.h")  # float3's layout, not a power-of-two alignment
    parts.update(cexpr.prelude_parts(types))
    headers = cexpr.headers(types) + [
        h for h in headers if h not in cexpr.headers(types)
    ]
    return headers, sorted(parts, key=_rank)


def helpers(functions) -> str:
    """The helper functions that these IR functions' calls generate
    (``Builtin.helper``: one a distinct key, in key order), in ``namespace
    kdsl``; "" when there are none."""
    found = {}
    for f in functions:
        for e in ir.expressions(f.body):
            if isinstance(e, ir.BuiltinCall):
                helper = builtins.get(e.builtin).helper
                made = helper(e) if helper is not None else None
                if made is not None:
                    found.setdefault(made[0], made[1])
    if not found:
        return ""
    body = "\n\n".join(found[k].rstrip("\n") for k in sorted(found))
    return (
        "// the helpers this file's calls need (generated for their shapes)\n"
        f"namespace kdsl {{\n\n{body}\n\n}}  // namespace kdsl"
    )


def _rank(part: str):
    return (ORDER.index(part), part) if part in ORDER else (len(ORDER), part)
