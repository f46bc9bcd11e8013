"""The C++ of struct types (``core/structs.py``): one ``struct`` declaration
per type an instance uses, after the ones it contains, each followed by
``static_assert``s that its size and alignment are those ``T.dtype``
describes (the launch copies records by those bytes)."""

from __future__ import annotations

from kdsl.transpile import ir
from kdsl.transpile.core.structs import StructMeta, nested_structs
from kdsl.transpile.core.types import FieldArray


def used_structs(functions) -> list:
    """The struct types of these IR functions, each after those it contains."""
    seen: list = []

    def note(t):
        if isinstance(t, (ir.PointerType, ir.RefType)):
            t = t.elem
        if isinstance(t, FieldArray):
            t = t.elem
        if isinstance(t, StructMeta):
            for u in nested_structs(t):
                if u not in seen:
                    seen.append(u)

    for f in functions:
        note(f.ret)
        for p in f.params:
            note(p.type)
        for s in ir.statements(f.body):
            note(getattr(s, "type", None))
            note(getattr(s, "elem", None))
        for e in ir.expressions(f.body):
            note(e.type)
    return seen


def declaration(t: StructMeta, ctype) -> str:
    """``struct T { ... };``, each field's byte offset in a comment, and
    ``static_assert``s of its size and alignment; ``ctype`` spells a type.
    (NVRTC has no ``offsetof``: the offsets follow from the field order and
    the alignments, which the asserts pin.)"""
    head = "struct __attribute__((packed)) " if t.packed else "struct "
    fields = []
    for f in t.fields:
        if isinstance(f.type, FieldArray):
            fields.append(f"{ctype(f.type.elem)} {f.name}[{f.type.count}];")
        else:
            fields.append(f"{ctype(f.type)} {f.name};")
    width = max(len(text) for text in fields)
    lines = [f"{head}{t.c_name} {{"]
    for f, text in zip(t.fields, fields):
        lines.append(f"    {text.ljust(width)}  // byte {f.offset}")
    lines.append("};")
    layout = "packed" if t.packed else "C"
    lines.append(
        f'static_assert(sizeof({t.c_name}) == {t.size}, "{t.c_name}: {t.size} bytes '
        f'({layout} layout, as {t.c_name}.dtype)");'
    )
    lines.append(
        f'static_assert(alignof({t.c_name}) == {t.align}, "{t.c_name}: '
        f'aligned to {t.align} byte{"s" if t.align != 1 else ""}");'
    )
    return "\n".join(lines)


def grouped(t: StructMeta, values: list) -> list:
    """A ``MakeStruct``'s rendered values grouped by field: an array
    field's elements as one list (``{a, b, ...}`` in C++)."""
    out, k = [], 0
    for f in t.fields:
        if isinstance(f.type, FieldArray):
            out.append(list(values[k : k + f.type.count]))
            k += f.type.count
        else:
            out.append(values[k])
            k += 1
    return out
