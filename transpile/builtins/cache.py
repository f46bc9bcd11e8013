"""Global-memory loads and stores with a cache hint, CUDA's ``__ldg``,
``__ldcs``, ``__stcs`` … : ``kdsl.ldcs(ptr, index)``,
``kdsl.stcs(ptr, index, value)``.  They take the element of a pointer or
``Array`` (a scalar, or a vector through a ``.vec(N)`` view) and change
nothing but the caching: the interpreter runs them as plain loads and stores.

Scalars CUDA has an overload for render as the intrinsic itself
(``__ldcs(&x[i])``); other elements (vectors, 8-bit floats, ``Bool``) go
through ``kdsl::ldcs`` (templates/prelude/cache.h), which moves them as
words of their alignment (a 16-byte vector: one ``uint4``)."""

from __future__ import annotations

from kdsl.transpile import ir
from kdsl.transpile.builtins.registry import register, want_args
from kdsl.transpile.core.cxx import call
from kdsl.transpile.core import arith
from kdsl.transpile.core.types import (
    BFloat16,
    Float16,
    Float32,
    Float64,
    Int8,
    Int16,
    Int32,
    Int64,
    Uint8,
    Uint16,
    Uint32,
    Uint64,
    VectorMeta,
)
from kdsl.transpile.errors import error

# the element types CUDA's cache-hint intrinsics are overloaded for
_NATIVE = (
    Int8,
    Uint8,
    Int16,
    Uint16,
    Int32,
    Uint32,
    Int64,
    Uint64,
    Float16,
    BFloat16,
    Float32,
    Float64,
)

LOADS = {
    "ldg": "through the read-only (texture) cache: data no thread writes "
    "during the kernel",
    "ldca": "cached in all levels (L1 and L2)",
    "ldcg": "cached in L2 only, not L1",
    "ldcs": "streaming: likely read once, evicted first",
    "ldlu": "last use: the line is not needed again",
    "ldcv": "volatile: fetched again from memory, never from a cache",
}
STORES = {
    "stwb": "write-back through all levels (a plain store)",
    "stcg": "cached in L2 only, not L1",
    "stcs": "streaming: likely written once, evicted first",
    "stwt": "write-through to system memory",
}


def _slot(lw, entry, target, index):
    """``(element type, ir.Address)`` of ``target[index]`` in global memory."""
    if not lw.is_memory(target):
        raise error("cache-hint-target", callee=entry.spelled, got=lw.describe(target))
    indices = index if isinstance(index, tuple) else (index,)
    base, flat = lw.address(target, indices)
    if base.type.space != "global":
        raise error(
            "cache-hint-target",
            callee=entry.spelled,
            got=f"{lw.describe(target)} ({base.type.space} memory)",
        )
    t = target.elem
    return t, ir.Address(ir.PointerType(t, space="global"), base, flat)


def _variant(name, t):
    """The entry a call on elements ``t`` renders through."""
    return name if t in _NATIVE else f"{name}.word"


def _lower_load(lw, entry, args, kwargs):
    want_args(entry, args, 2)
    t, slot = _slot(lw, entry, args[0], args[1])
    return t._dynamic(ir.BuiltinCall(t, _variant(entry.name, t), (slot,)))


def _lower_store(lw, entry, args, kwargs):
    want_args(entry, args, 3)
    t, slot = _slot(lw, entry, args[0], args[1])
    lw.mark_written(args[0])
    value = args[2]
    if isinstance(t, VectorMeta):
        if type(value) is not t:
            raise error(
                "store-type",
                value=type(value).__name__,
                target=entry.spelled,
                elem=t.__name__,
            )
    else:
        value = arith.as_numeric(value)
        if not (arith.is_python_number(value) or value.is_static() or value.dtype is t):
            raise error(
                "store-type",
                value=value.dtype.__name__,
                target=entry.spelled,
                elem=t.__name__,
            )
        value = arith.convert(value, t)
    call = ir.BuiltinCall(None, _variant(entry.name, t), (slot, value.ir_value()))
    lw.emit(ir.ExprStmt(call))
    return None


def _interpret_load(t, call, args, mask):
    return t.load(call, args[0], mask)


def _interpret_store(t, call, args, mask):
    t.store(call, args[0], args[1], mask)


def _render(function):
    return lambda r, c, args: call(function, *args)


for _name, _what in LOADS.items():
    _doc = (
        f"`kdsl.{_name}(ptr, index)`: `ptr[index]` loaded {_what} (CUDA's "
        f"`__{_name}`; scalars or `.vec(N)` vectors of global memory)"
    )
    register(
        _name,
        _doc,
        _lower_load,
        cuda=_render(f"__{_name}"),
        interpret=_interpret_load,
    )
    register(
        f"{_name}.word",
        _doc,
        _lower_load,
        cuda=_render(f"kdsl::{_name}"),
        interpret=_interpret_load,
        prelude=("cache.h",),
    )
for _name, _what in STORES.items():
    _doc = (
        f"`kdsl.{_name}(ptr, index, value)`: stores `value` to `ptr[index]`, "
        f"{_what} (CUDA's `__{_name}`; scalars or `.vec(N)` vectors of global "
        "memory)"
    )
    register(
        _name,
        _doc,
        _lower_store,
        cuda=_render(f"__{_name}"),
        interpret=_interpret_store,
    )
    register(
        f"{_name}.word",
        _doc,
        _lower_store,
        cuda=_render(f"kdsl::{_name}"),
        interpret=_interpret_store,
        prelude=("cache.h",),
    )
