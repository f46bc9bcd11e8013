"""Bit intrinsics on 32- and 64-bit integers: ``kdsl.popc``, ``kdsl.clz``,
``kdsl.ffs`` (results Int32) and ``kdsl.brev`` (the argument's type).

Each reads its argument's bits as unsigned, as CUDA's ``__popc``/``__clz``
/``__ffs``/``__brev`` (and their ``ll`` forms) do; a static argument folds."""

from __future__ import annotations

import numpy as np

from kdsl.transpile import ir
from kdsl.transpile.builtins.registry import register, want_args
from kdsl.transpile.core.cxx import call
from kdsl.transpile.core import arith
from kdsl.transpile.core.types import Int32, Int64, Uint32, Uint64, Vector
from kdsl.transpile.errors import error

_TYPES = (Int32, Uint32, Int64, Uint64)


def _lower(fold, same_type):
    def lower(lw, entry, args, kwargs):
        want_args(entry, args, 1)
        x = arith.as_numeric(args[0])
        if isinstance(x, Vector) or x.dtype not in _TYPES:
            raise error("bit-operand", callee=entry.spelled, got=x.dtype.__name__)
        t = x.dtype
        result = t if same_type else Int32
        if x.is_static():
            bits = fold(x.value & ((1 << t.width) - 1), t.width)
            return result._static(_signed(bits, t) if same_type else bits)
        return result._dynamic(ir.BuiltinCall(result, entry.name, (x.ir_value(),)))

    return lower


def _signed(bits: int, t) -> int:
    """``bits`` (unsigned, ``t.width`` wide) as a value of the integer ``t``."""
    if t.signed and bits >> (t.width - 1):
        return bits - (1 << t.width)
    return bits


# -- folds on unsigned Python ints ---------------------------------------------------
def _fold_popc(u: int, width: int) -> int:
    return bin(u).count("1")


def _fold_clz(u: int, width: int) -> int:
    return width - u.bit_length()


def _fold_ffs(u: int, width: int) -> int:
    return (u & -u).bit_length()


def _fold_brev(u: int, width: int) -> int:
    return int(format(u, f"0{width}b")[::-1], 2)


# -- the same on lanes (numpy arrays of the argument's type) ---------------------------
def _unsigned(a: np.ndarray) -> np.ndarray:
    return a.astype(np.dtype(f"u{a.dtype.itemsize}"))


def _lanes_popc(a):
    return np.bitwise_count(_unsigned(a)).astype(np.int32)


def _lanes_clz(a):
    u, width = _unsigned(a), 8 * a.dtype.itemsize
    n = np.zeros(u.shape, np.int32)
    for shift in (32, 16, 8, 4, 2, 1):
        if shift >= width:
            continue
        empty = (u >> np.array(width - shift, u.dtype)) == 0
        n += np.where(empty, shift, 0).astype(np.int32)
        u = np.where(empty, u << np.array(shift, u.dtype), u)
    return n + (u == 0).astype(np.int32)


def _lanes_ffs(a):
    u = _unsigned(a)
    lowest = u & (~u + np.array(1, u.dtype))  # the lowest set bit alone
    position = np.bitwise_count(lowest - np.array(1, u.dtype)).astype(np.int32) + 1
    return np.where(u == 0, 0, position).astype(np.int32)


_REVERSED_BYTE = np.array([int(f"{b:08b}"[::-1], 2) for b in range(256)], np.uint8)


def _lanes_brev(a):
    a = np.ascontiguousarray(a)
    as_bytes = a.view(np.uint8).reshape(a.shape + (a.dtype.itemsize,))
    return _REVERSED_BYTE[as_bytes[..., ::-1]].copy().view(a.dtype).reshape(a.shape)


def _render(cuda32, cuda64, cast=False):
    def render(r, c, args):
        t = c.args[0].type
        value = call(cuda32 if t.width == 32 else cuda64, args[0])
        return call(t.c_name, value) if cast and t.signed else value

    return render


_BITS = {
    "popc": ("the number of bits set (Int32)", _fold_popc, _lanes_popc, False),
    "clz": ("the number of leading zero bits (Int32)", _fold_clz, _lanes_clz, False),
    "ffs": (
        "the position of the lowest bit set, from 1 (0 if none; Int32)",
        _fold_ffs,
        _lanes_ffs,
        False,
    ),
    "brev": ("the bits in reverse order (its type)", _fold_brev, _lanes_brev, True),
}

for _name, (_what, _fold, _lanes, _same) in _BITS.items():
    register(
        _name,
        f"`kdsl.{_name}(x)`: of a 32- or 64-bit integer, {_what}; CUDA's "
        f"`__{_name}`/`__{_name}ll`",
        _lower(_fold, _same),
        cuda=_render(f"__{_name}", f"__{_name}ll", cast=_same),
        interpret=(lambda lanes_fn: lambda t, call, args, mask: lanes_fn(args[0]))(
            _lanes
        ),
    )
