"""Structs: ``@kdsl.struct`` records with C's layout.

A struct type is a class of annotated fields — kdsl scalars, vectors,
fixed-length arrays of them (``qs: Int8[32]``) and other structs — turned by
:func:`struct` into a :class:`StructMeta` class.  The class is its own
constructor: on the host ``Pair(1.5, 2.0)`` is a record the launch passes
by value; in a kernel the same call builds a struct value.  Its layout is
C's: each field at the next multiple of its alignment, the size a multiple
of the largest alignment (``packed=True``: no padding at all, alignment 1),
so that ``Pair.dtype`` (a numpy structured dtype, numpy's ``align=True``
layout for scalar fields) describes the same bytes as the C++ ``struct``
the generated code declares, and ``Pair.dtype.itemsize`` is its
``sizeof``.

In a kernel a struct value is an instance made by ``_dynamic`` (its IR
expression), as scalars and vectors are; field reads and stores are
lowered by ``frontend/lower_struct.py``.
"""

from __future__ import annotations

import keyword
import linecache
import re
import sys
from dataclasses import dataclass

import numpy as np

from kdsl.transpile.errors import DSLError, error
from kdsl.transpile.sites import at_caller
from kdsl.transpile.source import Span
from kdsl.transpile.core.types import (
    Boolean,
    FieldArray,
    NumericMeta,
    array_field,
    VectorMeta,
    vector_align,
)


@dataclass(frozen=True)
class Field:
    name: str
    type: object  # a scalar, vector or struct type, or a FieldArray
    offset: int  # bytes from the start of the struct


# -- sizes and alignments (C's) --------------------------------------------------
def size_of(t) -> int:
    if isinstance(t, FieldArray):
        return size_of(t.elem) * t.count
    if isinstance(t, StructMeta):
        return t.size
    if isinstance(t, VectorMeta):
        lane = size_of(t.dtype)
        size = lane * t.lanes
        align = vector_align(t)
        return -(-size // align) * align
    return (t.width + 7) // 8


def align_of(t) -> int:
    if isinstance(t, FieldArray):
        return align_of(t.elem)
    if isinstance(t, StructMeta):
        return t.align
    if isinstance(t, VectorMeta):
        return vector_align(t)
    return size_of(t)


def numpy_dtype(t) -> np.dtype:
    """The numpy dtype of one field of type ``t``."""
    if isinstance(t, FieldArray):
        return np.dtype((numpy_dtype(t.elem), (t.count,)))
    if isinstance(t, StructMeta):
        return t.dtype
    if isinstance(t, VectorMeta):
        return np.dtype((t.dtype.np_dtype, (t.lanes,)))
    return np.dtype(t.np_dtype)


def leaf_types(t) -> set:
    """The scalar and vector types inside ``t`` (for headers and preludes)."""
    if isinstance(t, FieldArray):
        return leaf_types(t.elem)
    if isinstance(t, StructMeta):
        out = set()
        for f in t.fields:
            out |= leaf_types(f.type)
        return out
    return {t}


def nested_structs(t) -> list:
    """The struct types ``t`` uses, each after the ones it contains."""
    out: list = []

    def visit(u):
        if isinstance(u, FieldArray):
            visit(u.elem)
        elif isinstance(u, StructMeta):
            for f in u.fields:
                visit(f.type)
            if u not in out:
                out.append(u)

    visit(t)
    return out


# -- the types ------------------------------------------------------------------------
class StructMeta(type):
    """Metaclass of struct types; the class's facts are its attributes:
    ``fields``, ``size``, ``align``, ``packed``, ``dtype``, ``c_name``."""

    fields: tuple = ()
    size = 0
    align = 1
    packed = False
    dtype = None
    c_name = ""
    # what code written over element types reads of every type (the
    # interpreter's memory, device functions' C++ names)
    kind = "struct"
    width = 0
    np_dtype = None
    short = ""

    def __repr__(cls) -> str:
        return cls.__name__

    def __getitem__(cls, count):  # Pair[4]: an array field of 4 Pairs
        return array_field(cls, count)

    def field(cls, name: str) -> Field | None:
        return next((f for f in cls.fields if f.name == name), None)

    def __call__(cls, *args, **kwargs):
        """A host record (the kernel's own calls are lowered, never run)."""
        return Struct._host(cls, args, kwargs)


def bind_fields(t: StructMeta, args, kwargs, complete: bool = False) -> dict:
    """``{field: value}`` of a constructor call ``T(*args, **kwargs)`` (the
    fields in order, or by name): E921 for too many arguments, a field named
    twice or unknown, or (``complete``) a field left out."""
    names = [f.name for f in t.fields]

    def refuse(problem):
        return error(
            "struct-arguments",
            struct=t.__name__,
            problem=problem,
            fields=", ".join(names),
        )

    if len(args) > len(names):
        raise refuse(f"takes {len(names)} fields, got {len(args)} arguments")
    given = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names or k in given:
            what = "twice" if k in given else "which is not one of its fields"
            raise refuse(f"got the field {k!r} {what}")
        given[k] = v
    missing = [n for n in names if n not in given]
    if complete and missing:
        raise refuse(f"misses the field(s) {', '.join(missing)}")
    return given


class Struct(metaclass=StructMeta):
    """Base of every struct type.  A host instance holds a numpy record
    (``_record``, a one-element array of the struct's dtype); an instance in
    a kernel (``_dynamic``) holds its IR expression (``_expr``)."""

    __slots__ = ("_record", "_expr")
    __hash__ = None

    @classmethod
    def _dynamic(cls, expr) -> "Struct":
        obj = object.__new__(cls)
        object.__setattr__(obj, "_expr", expr)
        object.__setattr__(obj, "_record", None)
        return obj

    @staticmethod
    def _host(cls, args, kwargs) -> "Struct":
        given = bind_fields(cls, args, kwargs)
        record = np.zeros(1, cls.dtype)
        for name, v in given.items():
            if isinstance(v, Struct):
                v = v._record[0]
            record[name][0] = v
        obj = object.__new__(cls)
        object.__setattr__(obj, "_record", record)
        object.__setattr__(obj, "_expr", None)
        return obj

    @classmethod
    def from_record(cls, record) -> "Struct":
        """The host struct holding ``record`` (a numpy scalar of its dtype)."""
        obj = object.__new__(cls)
        object.__setattr__(obj, "_record", np.array([record], cls.dtype))
        object.__setattr__(obj, "_expr", None)
        return obj

    def is_static(self) -> bool:
        return False

    def __bool__(self):
        if object.__getattribute__(self, "_expr") is not None:  # in a kernel
            raise error(
                "struct-value-use", struct=type(self).__name__, use="as a condition"
            )
        return True

    def ir_value(self):
        return self._expr

    def __getattr__(self, name):
        record = object.__getattribute__(self, "_record")
        if record is not None and name in record.dtype.names:
            value = record[name][0]
            t = type(self).field(name).type
            return t.from_record(value) if isinstance(t, StructMeta) else value
        raise AttributeError(name)

    def __setattr__(self, name, value):
        record = object.__getattribute__(self, "_record")
        if record is None or name not in record.dtype.names:
            raise AttributeError(name)
        record[name][0] = value._record[0] if isinstance(value, Struct) else value

    def __repr__(self) -> str:
        record = object.__getattribute__(self, "_record")
        if record is None:
            return f"{type(self).__name__}(<dynamic>)"
        parts = ", ".join(f"{n}={record[n][0]!r}" for n in record.dtype.names)
        return f"{type(self).__name__}({parts})"


def _field_type_ok(t) -> bool:
    if isinstance(t, FieldArray):
        return _field_type_ok(t.elem) and not isinstance(t.elem, FieldArray)
    if isinstance(t, StructMeta):
        return True
    if isinstance(t, VectorMeta):
        return t.dtype is not None and _field_type_ok(t.dtype)
    return (
        isinstance(t, NumericMeta)
        and not t.abstract
        and t.np_dtype is not None
        and t.width % 8 == 0
        and (t.width in (8, 16, 32, 64) or t is Boolean)
    )


def struct(cls=None, *, packed: bool = False):
    """``@kdsl.struct`` (or ``@kdsl.struct(packed=True)``): the class's
    annotated fields, in order, as a struct type."""
    if cls is None:
        return lambda c: struct(c, packed=packed)
    try:
        return _make(cls, bool(packed))
    except DSLError as exc:
        raise at_caller(exc) from None


_RESERVED = ("fields", "size", "align", "packed", "dtype", "c_name", "from_record")
_RESERVED += ("kind", "width", "np_dtype", "short", "field")


def _make(cls, packed: bool) -> StructMeta:
    annotations = dict(getattr(cls, "__annotations__", {}))
    if not annotations:
        raise error(
            "struct-field-type", struct=cls.__name__, field="(none)", got="no fields"
        )
    fields, offset, align = [], 0, 1
    for name, t in annotations.items():
        if isinstance(t, str):
            import sys

            module = sys.modules.get(cls.__module__)
            t = eval(t, vars(module) if module else {})  # noqa: S307 - user code
        if not _field_type_ok(t) or keyword.iskeyword(name) or name in _RESERVED:
            got = getattr(t, "__name__", None) or repr(t)
            exc = error("struct-field-type", struct=cls.__name__, field=name, got=got)
            raise _at_field(exc, cls, name)
        a = 1 if packed else align_of(t)
        offset = -(-offset // a) * a
        fields.append(Field(name, t, offset))
        offset += size_of(t)
        align = max(align, a)
    size = -(-offset // align) * align
    dtype = np.dtype(
        {
            "names": [f.name for f in fields],
            "formats": [numpy_dtype(f.type) for f in fields],
            "offsets": [f.offset for f in fields],
            "itemsize": size,
            "aligned": not packed,
        }
    )
    attrs = dict(
        __slots__=(),
        __doc__=cls.__doc__,
        __module__=cls.__module__,
        __qualname__=cls.__qualname__,
        fields=tuple(fields),
        size=size,
        align=align,
        packed=packed,
        dtype=dtype,
        c_name=cls.__name__,
        width=size * 8,
        np_dtype=dtype,
        short=cls.__name__,
    )
    return StructMeta(cls.__name__, (Struct,), attrs)


def _at_field(exc: DSLError, cls, name: str) -> DSLError:
    """``exc`` located at the annotation of the field ``name`` of ``cls``:
    found in the file of the frame that applied the decorator, from the
    decorator's line on."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back
    if frame is None:
        return exc
    path, line = frame.f_code.co_filename, frame.f_lineno
    for k in range(line, line + 200):
        text = linecache.getline(path, k)
        if not text:
            break
        match = re.match(rf"\s*({re.escape(name)})\s*:", text)
        if match:
            span = Span(path, k, match.start(1) + 1, k, len(text.rstrip()) + 1)
            return exc.locate(span, text.rstrip("\n"))
    return exc


def is_struct(t) -> bool:
    return isinstance(t, StructMeta) and t is not Struct
