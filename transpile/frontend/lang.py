"""The names a kernel is written with: annotations, dtype parameters, built-ins.

These objects are markers.  Outside a kernel most of them do nothing useful;
inside one the lowering pass recognises them (by their ``builtin`` name) and
turns them into IR.  ``kdsl`` re-exports them all.
"""

from __future__ import annotations

import inspect
import sys
from dataclasses import dataclass

from kdsl.transpile.errors import DSLError, error
from kdsl.transpile.frontend.options import flag_option
from kdsl.transpile.sites import DefSite, at_caller
from kdsl.transpile.tracebacks import for_the_user, user_facing
from kdsl.transpile.source import Span
from kdsl.transpile.core.structs import is_struct
from kdsl.transpile.core.types import (
    NumericMeta,
    VectorMeta,
    BFloat16,
    Boolean,
    Float,
    Float16,
    Float32,
    Float64,
    Int8,
    Int16,
    Int32,
    Int64,
    Integer,
    Numeric,
    Uint8,
    Uint16,
    Uint32,
    Uint64,
)


# -- dtype parameters ---------------------------------------------------------------
class Int:
    """Bound for a dtype parameter over the integers (``TypeVar(bound=Int)``)."""


class Num:
    """Bound: every integer and float type."""


class Bool:
    """Bound: Boolean."""


class Dtype:
    """Bound: every type of the other four bounds."""


_FLOATS = (Float16, BFloat16, Float32, Float64)
_INTS = (Int8, Int16, Int32, Int64, Uint8, Uint16, Uint32, Uint64)
IMPLICIT_DTYPES = {
    Float: _FLOATS,
    Int: _INTS,
    Integer: _INTS,
    Num: _INTS + _FLOATS,
    Numeric: _INTS + _FLOATS,
    Bool: (Boolean,),
    Dtype: _INTS + _FLOATS + (Boolean,),
}


class TypeVar:
    """A dtype parameter: ``D = kdsl.TypeVar("D", bound=kdsl.Float)``.

    Each kernel instance fixes it to one concrete type; ``bound`` gives the
    implicit set of supported dtypes (SPEC section 4).
    """

    def __init__(self, name: str, bound=None):
        self.name = name
        self.bound = bound

    def implicit_dtypes(self):
        return IMPLICIT_DTYPES.get(self.bound)

    def __repr__(self) -> str:
        return f"TypeVar({self.name!r})"


# -- parameter annotations --------------------------------------------------------
@dataclass(frozen=True)
class PointerSpec:
    elem: object  # a scalar type, a vector type or a TypeVar
    optional: bool = False  # Optional[Pointer[T]]: the launch may pass None

    def __or__(self, other):  # Pointer[T] | None
        return _optional(self) if other is None else NotImplemented

    def __ror__(self, other):  # None | Pointer[T]
        return _optional(self) if other is None else NotImplemented


@dataclass(frozen=True)
class NotOptional:
    """``Optional[x]`` of something other than a ``Pointer[T]`` (refused by
    the signature, where the parameter is known)."""

    spec: object


def _optional(spec):
    """``kdsl.Optional[Pointer[T]]``: a pointer the launch may pass as None
    (each of the two cases is its own instance)."""
    if isinstance(spec, PointerSpec):
        return PointerSpec(spec.elem, optional=True)
    return NotOptional(spec)


@dataclass(frozen=True)
class ArraySpec:
    elem: object
    ndim: int


class TensorMap:
    """Annotation of a TMA tensor-map parameter (``tmap: kdsl.TensorMap``):
    the launch passes the map ``kdsl.tensor_map(array, box=...)`` built on the
    host, and ``kdsl.tma_load``/``tma_store`` copy boxes of its tensor."""

    def __init__(self, *args, **kwargs):
        raise error("tensor-map-annotation", call="kdsl.TensorMap(...)")


@dataclass(frozen=True)
class ConstexprSpec:
    kind: type  # int, bool or float


class _Subscriptable:
    """An annotation written with brackets (``Pointer[Float32]``)."""

    def __init__(self, name, make, doc):
        self._name, self._make = name, make
        self.__doc__ = doc

    def __getitem__(self, key):
        try:
            return self._make(*(key if isinstance(key, tuple) else (key,)))
        except DSLError as exc:  # in an annotation: located there
            raise for_the_user(at_caller(exc)) from None  # KDSL_TRACEBACK=1: all

    def __repr__(self) -> str:
        return self._name


def _constexpr(kind):
    if kind not in (int, bool, float):
        raise error("constexpr-kind", got=getattr(kind, "__name__", repr(kind)))
    return ConstexprSpec(kind)


def _element_ok(elem) -> bool:
    """A scalar type, a vector type, a struct type or a dtype parameter
    (abstract types are refused by the signature, which names the parameter)."""
    if is_struct(elem):
        return True
    if isinstance(elem, VectorMeta):
        return elem.dtype is not None or isinstance(elem, TypeVar)
    return isinstance(elem, (NumericMeta, TypeVar))


def _pointer(*args):
    if len(args) != 1 or not _element_ok(args[0]):
        raise _annotation_error("Pointer", args, "Pointer[T] with T a kdsl type")
    return PointerSpec(args[0])


def _array(*args):
    ndim = args[1] if len(args) == 2 else None
    if (
        len(args) != 2
        or not _element_ok(args[0])
        or is_struct(args[0])  # (records: Pointer[S])
        or not isinstance(ndim, int)
        or isinstance(ndim, bool)
        or ndim < 1
    ):
        raise _annotation_error(
            "Array", args, "Array[T, ndim] with T a kdsl type and ndim an int >= 1"
        )
    return ArraySpec(args[0], ndim)


def _annotation_error(name, args, expected):
    """E274, located at the user's line that spelled the annotation (Python
    evaluates it, outside any kernel source kdsl parses)."""
    spelled = ", ".join(
        a.name if isinstance(a, TypeVar) else getattr(a, "__name__", repr(a))
        for a in args
    )
    exc = error(
        "annotation-arguments", annotation=f"{name}[{spelled}]", expected=expected
    )
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back
    if frame is not None:
        info = inspect.getframeinfo(frame)
        line = info.lineno
        pos = getattr(info, "positions", None)
        col = (pos.col_offset or 0) + 1 if pos is not None else 1
        end = (pos.end_col_offset or col) + 1 if pos is not None else col + 1
        if pos is not None and pos.end_lineno != pos.lineno:
            end = col + 1
        source = info.code_context[0].rstrip("\n") if info.code_context else None
        exc.locate(Span(info.filename, line, col, line, max(end, col + 1)), source)
    return exc


Pointer = _Subscriptable(
    "Pointer",
    _pointer,
    "``Pointer[T]``: a kernel parameter that is a pointer to elements of T (an "
    "array's data; ``const`` in C++ when the kernel never stores to it); "
    "``Pointer[T] | None`` is an optional pointer (docs/language.md)",
)
Array = _Subscriptable(
    "Array",
    _array,
    "``Array[T, N]``: an N-dimensional array parameter, indexed ``a[i, j]`` "
    "with its ``shape`` and ``strides`` passed at launch (docs/language.md)",
)
Constexpr = _Subscriptable(
    "Constexpr",
    _constexpr,
    "``Constexpr[int]`` (or ``[bool]``, ``[float]``): a compile-time "
    "parameter, folded into the instance (one instance per value; "
    "docs/dispatch.md)",
)
Optional = _Subscriptable(
    "Optional",
    _optional,
    "``Optional[Pointer[T]]``: the same as ``Pointer[T] | None``, a pointer "
    "that may be passed as None (an instance of its own; docs/language.md)",
)


# -- where a thread is -----------------------------------------------------------------
class _Dim3:
    """``thread_idx`` etc.: ``.x``, ``.y``, ``.z`` are Int32 run-time values
    (the special registers ``thread_idx.x`` … of the built-in registry)."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


thread_idx = _Dim3("thread_idx")
block_idx = _Dim3("block_idx")
block_dim = _Dim3("block_dim")
grid_dim = _Dim3("grid_dim")


class DeviceFunction:
    """A ``@kdsl.func`` device function, specialised per argument types."""

    __kdsl_func__ = True

    def __init__(self, fn, contract: bool = False, no_overflow: bool = False):
        self.fn = fn
        self.name = fn.__name__
        self.__doc__ = fn.__doc__
        self.contract = contract  # fuse its a * b + c (passes/contract.py)
        self.no_overflow = no_overflow  # its signed + - * never overflow
        self._parsed = None

    def parsed(self):
        if self._parsed is None:
            from kdsl.transpile.frontend.parse import parse_function

            self._parsed = parse_function(self.fn)
        return self._parsed

    @user_facing
    def __call__(self, *args, **kwargs):
        raise error("outside-kernel", callee=f"@kdsl.func {self.name}")

    def __repr__(self) -> str:
        return f"<kdsl.func {self.name}>"


def func(fn=None, *, contract=False, no_overflow=False):
    """Decorator: a device function callable from kernels, ``@kdsl.func``
    or ``@kdsl.func(contract=True)`` (its float ``a * b + c`` fused into fma
    by kdsl's rule, in every kernel; a ``contract=True`` kernel contracts
    every device function it calls); ``no_overflow=True`` states that its
    signed ``+ - *`` never overflow (so does a ``no_overflow=True`` kernel
    for every device function it calls)."""

    def make(f):
        return DeviceFunction(
            f,
            _checked(f, "contract", contract),
            _checked(f, "no_overflow", no_overflow),
        )

    return make if fn is None else make(fn)


def _checked(fn, keyword, value) -> bool:
    """A Boolean option of ``@kdsl.func`` (E473 at the decorator)."""
    try:
        return flag_option(fn.__name__, keyword, value)
    except DSLError as exc:
        raise DefSite(fn).locate(exc, keyword=keyword) from None
