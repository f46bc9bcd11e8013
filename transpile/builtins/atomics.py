"""Atomic read-modify-write on global or shared memory: ``kdsl.atomic_add``
… ``kdsl.atomic_cas``, ``kdsl.atomic_inc``/``atomic_dec`` (CUDA's wrapping
counters), each returning the old value.

The interpreter applies them one thread at a time in thread order (or as one
``ufunc.at``, which keeps that order, when the old value is unused)."""

from __future__ import annotations

import numpy as np

from kdsl.transpile import ir
from kdsl.transpile.builtins.registry import register, want_args
from kdsl.transpile.core import arith, values
from kdsl.transpile.core.types import (
    BFloat16,
    Float16,
    Float32,
    Float64,
    Int32,
    Int64,
    Uint32,
    Uint64,
)
from kdsl.transpile.errors import error

_RMW = (Int32, Uint32, Uint64)
# name -> (CUDA function, element types, update(old, operands, t), ufunc or None)
_ATOMICS = {
    "atomic_add": (
        "atomicAdd",
        (Int32, Uint32, Uint64, Float16, BFloat16, Float32, Float64),
        lambda old, ops, t: values.binary("+", old, ops[0], t),
        np.add,
    ),
    "atomic_max": (
        "atomicMax",
        (Int32, Uint32, Int64, Uint64),
        lambda old, ops, t: max(old, ops[0]),
        np.maximum,
    ),
    "atomic_min": (
        "atomicMin",
        (Int32, Uint32, Int64, Uint64),
        lambda old, ops, t: min(old, ops[0]),
        np.minimum,
    ),
    "atomic_exch": (
        "atomicExch",
        (Int32, Uint32, Uint64, Float32),
        lambda old, ops, t: ops[0],
        None,
    ),
    "atomic_cas": (
        "atomicCAS",
        _RMW,
        lambda old, ops, t: ops[1] if old == ops[0] else old,
        None,
    ),
    "atomic_inc": (
        "atomicInc",
        (Uint32,),
        lambda old, ops, t: 0 if old >= ops[0] else old + 1,
        None,
    ),
    "atomic_dec": (
        "atomicDec",
        (Uint32,),
        lambda old, ops, t: ops[0] if old == 0 or old > ops[0] else old - 1,
        None,
    ),
    "atomic_and_": (
        "atomicAnd",
        _RMW,
        lambda old, ops, t: values.binary("&", old, ops[0], t),
        np.bitwise_and,
    ),
    "atomic_or_": (
        "atomicOr",
        _RMW,
        lambda old, ops, t: values.binary("|", old, ops[0], t),
        np.bitwise_or,
    ),
    "atomic_xor": (
        "atomicXor",
        _RMW,
        lambda old, ops, t: values.binary("^", old, ops[0], t),
        np.bitwise_xor,
    ),
}


def _lower_atomic(lw, entry, args, kwargs):
    name = entry.name
    want_args(entry, args, 4 if name == "atomic_cas" else 3)
    target, index = args[0], args[1]
    if not lw.is_memory(target):
        raise error("atomic-target", callee=entry.spelled, got=type(target).__name__)
    t = target.elem
    supported = _ATOMICS[name][1]
    if t not in supported:
        listed = ", ".join(x.__name__ for x in supported)
        raise error("atomic-type", callee=entry.spelled, supported=listed, type=repr(t))
    indices = index if isinstance(index, tuple) else (index,)
    base, flat = lw.address(target, indices)
    lw.mark_written(target)
    operands = []
    for v in args[2:]:
        v = arith.as_numeric(v)
        if arith.is_python_number(v) or v.is_static() or v.dtype is t:
            operands.append(arith.convert(v, t).ir_value())
        else:
            raise error(
                "store-type", value=v.dtype.__name__, target=name, elem=t.__name__
            )
    slot = ir.Address(ir.PointerType(t, space=base.type.space), base, flat)
    return t._dynamic(ir.BuiltinCall(t, name, (slot, *operands)))


def _render(cuda_name):
    return lambda r, call, args: f"{cuda_name}({', '.join(args)})"


def _interpret(update):
    def interpret(t, call, args, mask):
        return t.atomic(call, args[0], args[1:], mask, update)

    return interpret


def _interpret_unused(ufunc):
    def interpret(t, call, args, mask):
        return t.atomic_unused(call, args[0], args[1:], mask, ufunc)

    return interpret


_DOC = {
    "atomic_cas": "`kdsl.atomic_cas(ptr, index, compare, value)`: stores `value` "
    "if the element equals `compare`; the old value",
    "atomic_inc": "`kdsl.atomic_inc(ptr, index, limit)`: CUDA's `atomicInc`, stores "
    "`0 if old >= limit else old + 1`; the old value (Uint32)",
    "atomic_dec": "`kdsl.atomic_dec(ptr, index, limit)`: CUDA's `atomicDec`, stores "
    "`limit if old == 0 or old > limit else old - 1`; the old value (Uint32)",
}

for _name, (_cuda, _types, _update, _ufunc) in _ATOMICS.items():
    register(
        _name,
        _DOC.get(
            _name,
            f"`kdsl.{_name}(ptr, index, value)`: CUDA's `{_cuda}`; the old value "
            f"({', '.join(t.__name__ for t in _types)})",
        ),
        _lower_atomic,
        cuda=_render(_cuda),
        interpret=_interpret(_update),
        interpret_unused=None if _ufunc is None else _interpret_unused(_ufunc),
    )
