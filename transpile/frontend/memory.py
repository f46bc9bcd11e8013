"""The values of the lowering that name memory: pointers, views of dynamic
shared memory, ``Array`` parameters (and their rows) and fixed arrays."""

from __future__ import annotations

from dataclasses import dataclass

from kdsl.transpile import ir


@dataclass(frozen=True)
class PointerValue:
    """A pointer: a parameter, a ``.vec(N)``/``.view(T)`` view of one, or a
    moved pointer ``p + k`` (``name``: the Python name of the pointer it
    came from, which stores through it mark written)."""

    expr: ir.Expr
    elem: object
    name: str


@dataclass(frozen=True)
class SharedView(PointerValue):
    """A ``kdsl.dynamic_shared_array`` view: a pointer into the launch's
    dynamic shared memory (no ``.vec(N)``: view it as vectors instead)."""


@dataclass(frozen=True)
class ArrayValue:
    """An ``Array[T, ndim]`` parameter (or a row ``a[i]`` of one): data
    pointer, shape and strides."""

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
