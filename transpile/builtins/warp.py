"""Warp shuffles: ``kdsl.shfl_down``, ``shfl_xor`` and ``shfl_idx``.

The interpreter reads the source lane by PTX ``shfl.sync``'s rule, with the
``c`` operand CUDA passes for a ``width``: segment mask ``32 - width``; a
source beyond the segment's last lane reads the lane's own value (an earlier
segment may be read)."""

from __future__ import annotations

import numpy as np

from kdsl.transpile import ir
from kdsl.transpile.builtins.registry import register, want_args
from kdsl.transpile.core import arith
from kdsl.transpile.core.types import Int32, Vector
from kdsl.transpile.errors import error

WARP = 32


def _lower_shuffle(lw, entry, args, kwargs):
    want_args(entry, args, 2)
    width = kwargs.pop("width", 32)
    value = arith.as_numeric(args[0])
    if isinstance(value, Vector) or value.dtype.kind not in ("int", "float"):
        raise error("shuffle-type", callee=entry.spelled, got=type(value).__name__)
    lane = arith.convert(arith.as_numeric(args[1]), Int32)
    width = arith.convert(arith.as_numeric(width), Int32)
    t = value.dtype
    operands = (value.ir_value(), lane.ir_value(), width.ir_value())
    return t._dynamic(ir.BuiltinCall(t, entry.name, operands))


def _shuffle(source_lane):
    """The interpreter of a shuffle whose source lane is ``source_lane(me,
    b, segment)`` (``b`` the lane/delta/mask operand)."""

    def interpret(t, call, args, mask):
        value, arg, width = args
        me = t.lane.astype(np.int64)
        b = arg.astype(np.int64) & (WARP - 1)
        segment = WARP - width.astype(np.int64)
        last = (me & segment) | ((WARP - 1) & ~segment)
        src = source_lane(me, b, segment)
        return t.from_lanes(call, mask, value, np.where(src <= last, src, me))

    return interpret


_SHUFFLES = {
    "shfl_down": (
        "__shfl_down_sync",
        "the value of the lane `delta` above",
        lambda me, b, segment: me + b,
    ),
    "shfl_xor": (
        "__shfl_xor_sync",
        "the value of lane `lane_id() ^ mask`",
        lambda me, b, segment: me ^ b,
    ),
    "shfl_idx": (
        "__shfl_sync",
        "the value of lane `lane`",
        lambda me, b, segment: (me & segment) | (b & ~segment),
    ),
}
_OPERAND = {"shfl_down": "delta", "shfl_xor": "mask", "shfl_idx": "lane"}


def _render(cuda_name):
    return lambda r, call, args: f"{cuda_name}(0xffffffffu, {', '.join(args)})"


for _name, (_cuda, _what, _source) in _SHUFFLES.items():
    register(
        _name,
        f"`kdsl.{_name}(value, {_OPERAND[_name]}, width=32)`: {_what}, "
        "over the full warp",
        _lower_shuffle,
        cuda=_render(_cuda),
        interpret=_shuffle(_source),
        keywords=("width",),
        collective="warp",
    )
