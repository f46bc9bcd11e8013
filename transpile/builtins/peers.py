"""Memory of other GPUs (peers) and signals between them:
``kdsl.peer_pointer`` and ``kdsl.wait_signal``.

``kdsl.peer_pointer(address, like)`` is the pointer at a ``Uint64`` address
(a peer's buffer, read from a table of peer addresses the host gave the
kernel, such as a symmetric-memory buffer's), typed like the pointer
``like``: in C++ ``reinterpret_cast<T*>(address)``.  ``kdsl.wait_signal(ptr,
index, value, scope="system")`` spins, with acquire loads at ``scope``,
until ``ptr[index] >= value`` (an unsigned integer signal that only grows).
With ``kdsl.atomic_store(..., order="release", scope="system")`` they make
the signals and barriers of communication kernels (docs/distributed.md).

The interpreter runs several ranks in one process (``kdsl.run_ranks``,
``runtime/interpreter/ranks.py``): an address is one of the arrays some
rank's launch was given, and a rank whose signal has not arrived lets the
others run; a wait no rank can end is a located error.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from kdsl.transpile import ir
from kdsl.transpile.builtins.atomics import SCOPES, _c_scope, _operand
from kdsl.transpile.builtins.registry import register, want_args
from kdsl.transpile.core import arith, lanes
from kdsl.transpile.core.cxx import call, template
from kdsl.transpile.core.types import NumericMeta, Uint32, Uint64
from kdsl.transpile.errors import error


def _lower_peer(lw, entry, args, kwargs):
    want_args(entry, args, 2)
    address, like = args
    pointer = lw.is_memory(like) and getattr(like, "shape", None) is None
    if not pointer or like.expr.type.space != "global":
        raise error("peer-like", callee=entry.spelled, got=lw.describe(like))
    if not isinstance(like.elem, NumericMeta):
        raise error("peer-like", callee=entry.spelled, got=lw.describe(like))
    address = arith.as_numeric(address)
    if not (arith.is_python_number(address) or address.dtype is Uint64):
        raise error("peer-address", callee=entry.spelled, got=lw.describe(address))
    value = arith.convert(address, Uint64).ir_value()
    ptype = ir.PointerType(like.elem)
    # the pointer `like` is (its Python name: what stores mark written)
    return replace(like, expr=ir.BuiltinCall(ptype, entry.name, (value,)))


def _cuda_peer(r, c, args):
    return call(template("reinterpret_cast", f"{c.type.elem.c_name}*"), *args)


def _interpret_peer(t, c, args, mask):
    return t.peer(c, args[0], mask)


register(
    "peer_pointer",
    "`kdsl.peer_pointer(address, like)`: the pointer at the Uint64 `address` (a "
    "peer GPU's buffer), of the type of the pointer `like` "
    "(`reinterpret_cast<T*>(address)`)",
    _lower_peer,
    cuda=_cuda_peer,
    interpret=_interpret_peer,
)


_SIGNALS = (Uint32, Uint64)


def _lower_wait(lw, entry, args, kwargs):
    want_args(entry, args, 3)
    scope = kwargs.pop("scope", "system")
    if scope not in SCOPES:
        raise error(
            "atomic-scope", callee=entry.spelled, got=repr(scope), scopes=SCOPES
        )
    target, index, value = args
    if not lw.is_memory(target):
        raise error("atomic-target", callee=entry.spelled, got=lw.describe(target))
    t = target.elem
    if t not in _SIGNALS:
        listed = ", ".join(x.__name__ for x in _SIGNALS)
        raise error("atomic-type", callee=entry.spelled, supported=listed, type=repr(t))
    indices = index if isinstance(index, tuple) else (index,)
    base, flat = lw.address(target, indices)
    slot = ir.Address(ir.PointerType(t, space=base.type.space), base, flat)
    operand = _operand(entry.name, value, t)
    call_ = ir.BuiltinCall(
        None, entry.name, (slot, operand), options=(("scope", scope),)
    )
    lw.emit(ir.ExprStmt(call_))
    return None


def _cuda_wait(r, c, args):
    scope = _c_scope(dict(c.options)["scope"])
    return call(template("kdsl::wait_signal", scope), *args)


def _interpret_wait(t, c, args, mask):
    slot, value = args
    elem = c.args[0].type.elem
    wanted = value[mask].astype(np.uint64)

    def arrived():
        now = lanes.from_memory(slot.mem.data[slot.addr], elem).astype(np.uint64)
        return bool((now >= wanted).all())

    def found():
        now = lanes.from_memory(slot.mem.data[slot.addr], elem)
        k = int(np.argmax(now.astype(np.uint64) < wanted))
        lane = int(np.flatnonzero(mask)[k])
        index = int(slot.addr[k]) - slot.mem.origin
        return (
            f"{t.who(lane)} waits for {slot.mem.name}[{index}] >= {int(wanted[k])}, "
            f"which holds {int(now[k])}"
        )

    t.wait(c, arrived, found)


register(
    "wait_signal",
    '`kdsl.wait_signal(ptr, index, value, scope="system")`: waits (acquire loads '
    "at `scope`) until `ptr[index] >= value` (Uint32 or Uint64)",
    _lower_wait,
    cuda=_cuda_wait,
    interpret=_interpret_wait,
    keywords=("scope",),
    prelude=("signals.h",),
)
