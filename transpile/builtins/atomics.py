"""Atomic read-modify-write on global or shared memory: ``kdsl.atomic_add``
… ``kdsl.atomic_cas``, ``kdsl.atomic_inc``/``atomic_dec`` (CUDA's wrapping
counters), each returning the old value.

The interpreter applies them one thread at a time in thread order (or as one
``ufunc.at``, which keeps that order, when the old value is unused)."""

from __future__ import annotations

import numpy as np

from kdsl.transpile import ir
from kdsl.transpile.builtins.registry import register, want_args
from kdsl.transpile.core import cxx
from kdsl.transpile.core.cxx import call, template
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
    "atomic_and": (
        "atomicAnd",
        _RMW,
        lambda old, ops, t: values.binary("&", old, ops[0], t),
        np.bitwise_and,
    ),
    "atomic_or": (
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
    ordered = _order_and_scope(entry, kwargs)
    t, slot = _slot(lw, entry, args[0], args[1], ordered)
    operands = [_operand(name, v, t) for v in args[2:]]
    if ordered:
        call = ir.BuiltinCall(t, f"{name}.ordered", (slot, *operands), options=ordered)
    else:
        call = ir.BuiltinCall(t, name, (slot, *operands))
    return t._dynamic(call)


def _slot(lw, entry, target, index, ordered):
    """``(element type, ir.Address)`` of ``target[index]``, checked."""
    if not lw.is_memory(target):
        raise error("atomic-target", callee=entry.spelled, got=type(target).__name__)
    t = target.elem
    supported = _ORDERED_TYPES.get(entry.name) if ordered else None
    supported = supported or _ATOMICS[entry.name][1]
    if t not in supported:
        listed = ", ".join(x.__name__ for x in supported)
        raise error("atomic-type", callee=entry.spelled, supported=listed, type=repr(t))
    indices = index if isinstance(index, tuple) else (index,)
    base, flat = lw.address(target, indices)
    if entry.name != "atomic_load":
        lw.mark_written(target)
    return t, ir.Address(ir.PointerType(t, space=base.type.space), base, flat)


def _operand(name, v, t):
    v = arith.as_numeric(v)
    if arith.is_python_number(v) or v.is_static() or v.dtype is t:
        return arith.convert(v, t).ir_value()
    raise error("store-type", value=v.dtype.__name__, target=name, elem=t.__name__)


# -- memory order and scope ---------------------------------------------------------
ORDERS = ("relaxed", "acquire", "release", "acq_rel", "seq_cst")
SCOPES = ("block", "device", "system")
_FAILURE = {  # a failed compare-and-swap only loads: no release in its order
    "relaxed": "relaxed",
    "acquire": "acquire",
    "release": "relaxed",
    "acq_rel": "acquire",
    "seq_cst": "seq_cst",
}
_INTEGERS = (Int32, Uint32, Int64, Uint64)
_ORDERED_TYPES = {  # CUDA's scoped atomics: integers (and float add, min, max)
    "atomic_add": (Int32, Uint32, Int64, Uint64, Float32, Float64),
    "atomic_exch": _INTEGERS,
    "atomic_cas": _INTEGERS,
    "atomic_load": _INTEGERS,
    "atomic_store": _INTEGERS,
}


def _order_and_scope(entry, kwargs, default_order=None):
    """The call's ``order=``/``scope=`` as IR options, or () when it gives
    neither (and the entry has no default order): CUDA's plain atomics."""
    order = kwargs.pop("order", default_order)
    scope = kwargs.pop("scope", None)
    if order is None and scope is None:
        return ()
    order, scope = order or "relaxed", scope or "device"
    if order not in ORDERS:
        raise error(
            "atomic-order", callee=entry.spelled, got=repr(order), orders=ORDERS
        )
    if scope not in SCOPES:
        raise error(
            "atomic-scope", callee=entry.spelled, got=repr(scope), scopes=SCOPES
        )
    return (("order", order), ("scope", scope))


def _c_order(order: str) -> str:
    return f"__NV_ATOMIC_{order.upper()}"


def _c_scope(scope: str) -> str:
    return f"__NV_THREAD_SCOPE_{scope.upper()}"


def _render_ordered(name):
    """CUDA's scoped atomic intrinsics (``__nv_atomic_fetch_add`` …)."""

    def render(r, c, args):
        options = dict(c.options)
        order, scope = _c_order(options["order"]), _c_scope(options["scope"])
        if name == "atomic_cas":
            failure = _c_order(_FAILURE[options["order"]])
            return call(template("kdsl::atomic_cas", order, failure, scope), *args)
        function = _ORDERED_CUDA[name]
        return call(function, *args, cxx.name(order), cxx.name(scope))

    return render


_ORDERED_CUDA = {
    "atomic_add": "__nv_atomic_fetch_add",
    "atomic_max": "__nv_atomic_fetch_max",
    "atomic_min": "__nv_atomic_fetch_min",
    "atomic_exch": "__nv_atomic_exchange_n",
    "atomic_and": "__nv_atomic_fetch_and",
    "atomic_or": "__nv_atomic_fetch_or",
    "atomic_xor": "__nv_atomic_fetch_xor",
    "atomic_load": "__nv_atomic_load_n",
    "atomic_store": "__nv_atomic_store_n",
}


def _render(cuda_name):
    return lambda r, c, args: call(cuda_name, *args)


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
        keywords=("order", "scope"),
    )
    register(
        f"{_name}.ordered",
        f"`kdsl.{_name}(..., order=, scope=)`: with a memory order and scope",
        _lower_atomic,
        cuda=_render_ordered(_name),
        interpret=_interpret(_update),
        interpret_unused=None if _ufunc is None else _interpret_unused(_ufunc),
        prelude=("atomics.h",) if _name == "atomic_cas" else (),
    )


# -- loads and stores with an order, and fences --------------------------------------
def _lower_load(lw, entry, args, kwargs):
    want_args(entry, args, 2)
    options = _order_and_scope(entry, kwargs, default_order="acquire")
    t, slot = _slot(lw, entry, args[0], args[1], options)
    return t._dynamic(ir.BuiltinCall(t, entry.name, (slot,), options=options))


def _lower_store(lw, entry, args, kwargs):
    want_args(entry, args, 3)
    options = _order_and_scope(entry, kwargs, default_order="release")
    t, slot = _slot(lw, entry, args[0], args[1], options)
    value = _operand(entry.name, args[2], t)
    lw.emit(
        ir.ExprStmt(ir.BuiltinCall(None, entry.name, (slot, value), options=options))
    )
    return None


def _interpret_load(t, call, args, mask):
    return t.atomic(call, args[0], [], mask, lambda old, ops, typ: old)


def _interpret_store(t, call, args, mask):
    t.atomic(call, args[0], args[1:], mask, lambda old, ops, typ: ops[0])


register(
    "atomic_load",
    '`kdsl.atomic_load(ptr, index, order="acquire", scope="device")`: an '
    "atomic load (32/64-bit integers)",
    _lower_load,
    cuda=_render_ordered("atomic_load"),
    interpret=_interpret_load,
    keywords=("order", "scope"),
)
register(
    "atomic_store",
    '`kdsl.atomic_store(ptr, index, value, order="release", scope="device")`: '
    "an atomic store (32/64-bit integers)",
    _lower_store,
    cuda=_render_ordered("atomic_store"),
    interpret=_interpret_store,
    keywords=("order", "scope"),
)


def _fence(lw, entry, args, kwargs):
    want_args(entry, args, 0)
    lw.emit(ir.ExprStmt(ir.BuiltinCall(None, entry.name, ())))
    return None


def _no_op(t, call, args, mask):
    """The interpreter runs a batch's threads in lock-step and applies every
    memory access at once, in program order: already stronger than a fence."""


for _name, (_cuda, _what) in {
    "threadfence": ("__threadfence", "the device"),
    "threadfence_block": ("__threadfence_block", "the block"),
    "threadfence_system": ("__threadfence_system", "the system (host included)"),
}.items():
    register(
        _name,
        f"`kdsl.{_name}()`: orders this thread's memory accesses as seen by {_what} "
        f"(CUDA's `{_cuda}`)",
        _fence,
        cuda=(lambda f: lambda r, c, args: call(f))(_cuda),
        interpret=_no_op,
    )
