"""Structs in the interpreter: a struct value is a numpy structured array of
the struct's dtype, one record per thread; memory of structs is a
structured array too (a pointer's numpy/CuPy array, or bytes viewed as
it).  A field read is numpy's field view; a field store writes only the
field's bytes (``StoreField``): of the element in memory, or of a copy of
the variable's records (a struct variable is a value).

A mixin of ``simt.Batch``: it uses the batch's ``eval``, ``_element``,
``_oob``, ``n`` and ``span``.
"""

from __future__ import annotations

import numpy as np

from kdsl.transpile import ir
from kdsl.transpile.core.structs import StructMeta
from kdsl.transpile.core.types import FieldArray, VectorMeta


def lanes_of(value, t):
    """A field's numpy array as the interpreter's value of type ``t``: a
    vector as a tuple of lane arrays, anything else as it is."""
    if isinstance(t, VectorMeta):
        return tuple(np.ascontiguousarray(value[:, k]) for k in range(t.lanes))
    if isinstance(t, (StructMeta, FieldArray)):
        return value
    return np.ascontiguousarray(value)


def as_field(value, t):
    """The interpreter's value of type ``t`` as a field's numpy array."""
    if isinstance(t, VectorMeta):
        return np.stack(value, axis=1)
    return value


class StructOps:
    """``e_Member``, ``e_Element``, ``e_MakeStruct`` and ``s_StoreField``."""

    def e_Member(self, e, m, frame):
        return lanes_of(self.eval(e.base, m, frame)[e.field], e.type)

    def e_Element(self, e, m, frame):
        base = self.eval(e.base, m, frame)
        index = self._field_index(e, m, frame)
        return lanes_of(base[np.arange(self.n), index], e.type)

    def _field_index(self, e: ir.Element, m, frame):
        """Each thread's index into the array field, checked (0 in the
        threads that do not run)."""
        i = np.asarray(self.eval(e.index, m, frame)).astype(np.int64)
        bad = m & ((i < 0) | (i >= e.count))
        if bad.any():
            lane = int(np.argmax(bad))
            self._oob(e, "index")(
                lane,
                f"{_spelled(e)}[{int(i[lane])}] (the field has {e.count} elements)",
            )
        return np.where(m, i, 0)

    def e_MakeStruct(self, e, m, frame):
        out = np.zeros(self.n, e.type.dtype)
        values = iter(e.values)
        for f in e.type.fields:
            if isinstance(f.type, FieldArray):
                for k in range(f.type.count):
                    v = self.eval(next(values), m, frame)
                    out[f.name][:, k] = as_field(v, f.type.elem)
            else:
                out[f.name] = as_field(self.eval(next(values), m, frame), f.type)
        return out

    def s_StoreField(self, s, m, frame):
        value = self.eval(s.value, m, frame)  # first, as in C++17 and Python
        steps, root = [], s.target
        while isinstance(root, (ir.Member, ir.Element, ir.Extract)):
            steps.append(root)
            root = root.vector if isinstance(root, ir.Extract) else root.base
        steps.reverse()
        active = np.flatnonzero(m)
        if isinstance(root, ir.Load):  # a field of an element of memory
            mem, addr = self._element(root, m, frame, "store to")
            view, rows = mem.data, [addr]
        else:  # a struct variable (a value: its records are copied)
            old = frame.env.get(root.name)
            view = np.zeros(self.n, root.type.dtype) if old is None else old.copy()
            frame.env[root.name] = view
            rows = [active]
        for step in steps:
            if isinstance(step, ir.Member):
                view = view[step.field]
            elif isinstance(step, ir.Extract):  # a lane of a vector field
                rows.append(step.lane)
            else:
                rows.append(self._field_index(step, m, frame)[m])
        field = as_field(value, s.target.type)
        view[tuple(rows)] = field[m] if len(field) == self.n else field
        self.writes += 1


def _spelled(e) -> str:
    """``.qs`` of ``p[i].qs[j]``, for messages."""
    parts = []
    while isinstance(e, (ir.Member, ir.Element)):
        if isinstance(e, ir.Member):
            parts.append(f".{e.field}")
        e = e.base
    return "".join(reversed(parts)).lstrip(".") or "field"
