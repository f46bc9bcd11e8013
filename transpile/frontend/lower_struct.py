"""Lowering of struct values (``core/structs.py``): construction
``Pair(a, b)``, field reads ``s.x``, ``p[i].d``, ``p[i].qs[j]`` and field
stores ``s.x = v``, ``p[i].qs[j] = v``.

A struct value is an instance of its struct type holding an IR expression
(``Struct._dynamic``), as numbers and vectors are: it is assigned, stored,
passed to and returned from device functions whole.  A field read is an
``ir.Member`` of it; an array field is a :class:`FieldArrayValue`, which
only indexes (``ir.Element``).  A field store is one ``ir.StoreField`` of
the field's place, rooted at a struct variable or an element of memory.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from kdsl.transpile import ir
from kdsl.transpile.core import arith
from kdsl.transpile.core.structs import Struct, StructMeta, bind_fields
from kdsl.transpile.core.types import FieldArray, Vector, VectorMeta
from kdsl.transpile.errors import did_you_mean, error


@dataclass(frozen=True)
class FieldArrayValue:
    """An array field of a struct value (``p[i].qs``): indexed only."""

    expr: ir.Expr  # an ir.Member of FieldArray type
    type: FieldArray
    owner: str  # the struct type's name
    field: str
    code: str  # as the kernel spells it, for messages


def describe(v) -> str | None:
    """What a struct value or array field is, for messages (None otherwise)."""
    if isinstance(v, Struct):
        return f"a {type(v).__name__} (a struct)"
    if isinstance(v, FieldArrayValue):
        return f"the array field '{v.code}' ({v.type.__name__})"
    return None


class StructLowerer:
    """The struct part of the lowerer (a mixin of ``lower.Lowerer``)."""

    # -- reads ---------------------------------------------------------------------
    def struct_field(self, obj: Struct, name: str, node):
        t = type(obj)
        f = t.field(name)
        if f is None:
            raise error(
                "struct-no-field",
                struct=t.__name__,
                field=name,
                fields=", ".join(x.name for x in t.fields),
                hint=did_you_mean([name], [x.name for x in t.fields]),
            )
        member = ir.Member(f.type, obj.ir_value(), name)
        if isinstance(f.type, FieldArray):
            code = self.state.parsed.code(node)
            return FieldArrayValue(member, f.type, t.__name__, name, code)
        return f.type._dynamic(member)

    def field_element(self, arr: FieldArrayValue, indices):
        """``s.qs[j]``: one element of an array field."""
        if len(indices) != 1:
            raise error("index-count", target=describe(arr), got=len(indices))
        i = self.ensure_value(indices[0], "an index")
        if isinstance(i, Vector) or i.dtype.kind != "int":
            raise error("index-type", got=repr(i.dtype))
        n = arr.type.count
        if i.is_static() and not 0 <= i.value < n:
            raise error(
                "static-index-range",
                index=i.value,
                target=f"field '{arr.code}'",
                dim=0,
                n=n,
            )
        elem = arr.type.elem
        return elem._dynamic(ir.Element(elem, arr.expr, i.ir_value(), n))

    # -- construction ----------------------------------------------------------------
    def construct_struct(self, t: StructMeta, args, kwargs):
        """``Pair(a, b)`` / ``Pair(x=a, y=b)`` in a kernel: every field, in order."""
        given = bind_fields(t, args, kwargs, complete=True)
        parts = []
        for f in t.fields:
            parts.extend(self._field_values(t, f.name, f.type, given[f.name]))
        return t._dynamic(ir.MakeStruct(t, tuple(parts)))

    def _field_values(self, t, name, ftype, v) -> list:
        if isinstance(ftype, FieldArray):
            if not isinstance(v, tuple) or len(v) != ftype.count:
                got = (
                    f"a tuple of {len(v)}" if isinstance(v, tuple) else self.describe(v)
                )
                raise error(
                    "struct-field-value",
                    field=name,
                    struct=t.__name__,
                    want=f"{ftype.__name__} (a tuple of {ftype.count} values)",
                    got=got,
                )
            out = []
            for x in v:
                out.extend(self._field_values(t, name, ftype.elem, x))
            return out
        return [self.field_value(t.__name__, name, ftype, v).ir_value()]

    def field_value(self, struct: str, name: str, ftype, v):
        """``v`` as a value of the field ``name`` (of type ``ftype``): of
        that type, or a compile-time number converted to it."""
        if isinstance(ftype, StructMeta):
            wrong = type(v) is not ftype
        else:
            wrong = isinstance(v, Struct) or not (
                isinstance(v, (int, float)) or hasattr(v, "ir_value")
            )
        if wrong:
            raise error(
                "struct-field-value",
                field=name,
                struct=struct,
                want=f"a {ftype.__name__}",
                got=self.describe(v),
            )
        if isinstance(ftype, StructMeta):
            return v
        v = arith.as_numeric(v)
        if type(v) is ftype:
            return v
        if isinstance(ftype, VectorMeta) and not isinstance(v, Vector):
            return ftype(v)  # a scalar splat into every lane
        if not isinstance(v, Vector) and v.is_static():
            return arith.convert(v, ftype)
        raise error(
            "struct-field-value",
            field=name,
            struct=struct,
            want=f"a {ftype.__name__}",
            got=self.describe(v),
        )

    # -- stores ------------------------------------------------------------------------
    def store_field(self, target, value, value_node):
        """``s.f = value`` (``target`` an Attribute) or ``s.qs[j] = value``
        (a Subscript of an array field)."""
        code = self.state.parsed.code(target)
        if isinstance(target, cst.Attribute):
            holder = self.expr(target.value)
            if not isinstance(holder, Struct):  # (thread_idx.x = 1: not a store)
                raise error("assign-target", target=code)
            place = self.struct_field(holder, target.attr.value, target)
            if isinstance(place, FieldArrayValue):
                raise error(
                    "struct-array-field",
                    field=place.field,
                    struct=place.owner,
                    type=place.type.__name__,
                    code=code,
                )
        else:
            arr = self.expr(target.value)
            place = self.field_element(arr, self.subscript_indices(target))
        expr = place.ir_value()
        owner = _struct_name(expr)
        if type(place) is not type(value) or isinstance(value, Struct):
            if isinstance(place, Struct):
                value = self.field_value(owner, expr_field(expr), type(place), value)
            else:
                literal = value_node is None or _literal(value_node)
                v = self.ensure_value(value, "a store")
                if not (v.is_static() and literal):
                    raise error(
                        "struct-field-value",
                        field=expr_field(expr),
                        struct=owner,
                        want=f"a {type(place).__name__}",
                        got=self.describe(v),
                    )
                value = arith.convert(v, type(place))
        self.store_place(expr, value, code)

    def store_place(self, expr, value, code: str):
        """Store ``value`` (of the place's type) to the field place ``expr``
        (a Member/Element chain, or a lane of one: ``ir.Extract``)."""
        root = _root(expr)
        if isinstance(root, ir.Load):
            self._mark_root_written(root)
        elif not isinstance(root, ir.Var):
            raise error(
                "struct-store-target",
                target=code,
                got="a struct value that is no variable (a call's result, a "
                "constructor)",
            )
        self.emit(ir.StoreField(expr, value.ir_value()))

    def _mark_root_written(self, load: ir.Load):
        """The pointer (or array) a field store writes through is written."""
        for b in self.state.env.values():
            v = b.value
            held = getattr(v, "data", None) if hasattr(v, "strides") else None
            held = held if held is not None else getattr(v, "expr", None)
            if self.is_memory(v) and held == load.base:
                self.mark_written(v)
                return


def expr_field(expr) -> str:
    """The field name a Member/Element place ends in."""
    while isinstance(expr, ir.Element):
        expr = expr.base
    return expr.field


def _struct_name(expr) -> str:
    while isinstance(expr, ir.Element):
        expr = expr.base
    return expr.base.type.__name__


def is_place(expr) -> bool:
    """Whether ``expr`` is a field of a struct (a Member/Element chain)."""
    return isinstance(expr, (ir.Member, ir.Element))


def _root(expr):
    while isinstance(expr, (ir.Member, ir.Element, ir.Extract)):
        expr = expr.base if not isinstance(expr, ir.Extract) else expr.vector
    return expr


def _literal(node) -> bool:
    if isinstance(node, cst.UnaryOperation):
        node = node.expression
    return isinstance(node, (cst.Integer, cst.Float))
