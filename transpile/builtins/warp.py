"""Warp cooperation: shuffles (``kdsl.shfl_down/up/xor/idx``), votes
(``ballot``, ``any_sync``, ``all_sync``, ``uni_sync``), ``activemask``, the lane masks
(``lanemask_lt`` … ``lanemask_ge``), ``syncwarp``,
matches (``match_any``, ``match_all``) and reductions
(``reduce_add_sync`` … ``reduce_xor_sync``).

Every collective here takes ``mask=``, the lanes that take part (bit k for
lane k; the full warp ``0xffffffff`` by default), as its first IR operand:
the interpreter checks that every running lane the mask names reaches the
call with the same mask, and that the calling lane is in its mask
(``together.Threads.check_collective``).  The lanes taking part are then
the mask's lanes (with the full mask: the warp's running lanes).

The semantics follow the PTX ISA:

* ``shfl.sync`` (CUDA passes ``c = ((32 - width) << 8) | 31``, and ``c =
  (32 - width) << 8`` for ``up``): with ``seg = (32 - width) & 31`` and ``b``
  the operand's low 5 bits, lane ``me`` reads lane ``j`` = ``me + b``
  (down), ``me - b`` (up), ``me ^ b`` (xor) or ``(me & seg) | (b & ~seg)``
  (idx); a ``j`` past its segment's last lane ``(me & seg) | (31 & ~seg)``
  (for up: below its first lane ``me & seg``) reads the lane's own value.
  Reading a lane outside the mask is undefined on the GPU: an interpreter
  error.
* ``vote.sync``: ``ballot`` sets bit k for each lane k taking part whose
  predicate holds; ``any``/``all`` whether one/every lane's does; ``uni``
  whether all lanes' predicates are equal (all true or all false).
* ``match.sync`` (on the value's bits: ``-0.0`` and ``0.0`` differ, equal
  NaN bits match): ``any`` gives the lanes taking part whose value equals
  this lane's; ``all`` gives the lanes taking part if they all hold one
  value, else 0, and the predicate whether they do.
* ``redux.sync``: the sum (wrapping to 32 bits), minimum, maximum (signed or
  unsigned by the type), and, or, xor of the values of the lanes taking
  part.  ``__reduce_*_sync`` need sm_80 (kdsl compiles for sm_90);
  ``__match_*_sync`` sm_70.
* ``activemask``: the lanes of the warp executing the call.  The
  interpreter runs lanes in lock-step, so these are exactly the lanes whose
  control flow reaches it; on the GPU lanes that diverged earlier may not
  have reconverged (independent thread scheduling), so only a kernel whose
  lanes are converged there gets the same bits.
"""

from __future__ import annotations

import numpy as np

from kdsl.transpile import ir
from kdsl.transpile.builtins.registry import register, want_args
from kdsl.transpile.core.cxx import CExpr, call, number
from kdsl.transpile.core import arith
from kdsl.transpile.core.types import (
    Boolean,
    Float32,
    Float64,
    Int32,
    Int64,
    Numeric,
    Uint32,
    Uint64,
    Vector,
)
from kdsl.transpile.errors import error

WARP = 32
FULL = 0xFFFFFFFF
_MASK_DOC = "mask=0xffffffff"


# -- the lane mask ----------------------------------------------------------------------
def lane_mask(entry, kwargs):
    """The ``mask=`` keyword as a Uint32 value: the full warp by default, an
    Int32 or Uint32 value, or a Python int (or compile-time integer) of 32
    bits."""
    raw = kwargs.pop("mask", FULL)
    if isinstance(raw, Numeric) and raw.is_static() and raw.kind == "int":
        raw = int(raw.value)  # a compile-time integer: as a Python int
    if isinstance(raw, int) and not isinstance(raw, bool):
        if not -(1 << 31) <= raw <= FULL:
            raise error("warp-mask-type", callee=entry.spelled, got=f"{raw:#x}")
        value = Uint32._static(raw & FULL)
    elif isinstance(raw, Numeric) and type(raw) in (Int32, Uint32):
        value = arith.convert(raw, Uint32)
    else:
        raise error("warp-mask-type", callee=entry.spelled, got=_kind(raw))
    if value.is_static() and value.value == 0:
        raise error("warp-mask-empty", callee=entry.spelled)
    return value


def _kind(value) -> str:
    return type(value).__name__


def _mask_text(c, value: CExpr) -> CExpr:
    """A static mask in hexadecimal (``0xffffffffu``), as CUDA code writes it."""
    mask = c.args[0]
    return number(f"{mask.value:#x}u") if isinstance(mask, ir.Const) else value


def _collective(t, entry, members, value):
    return t._dynamic(ir.BuiltinCall(t, entry.name, (members.ir_value(), value)))


# -- shuffles ------------------------------------------------------------------------------
def _lower_shuffle(lw, entry, args, kwargs):
    want_args(entry, args, 2)
    value = arith.as_numeric(args[0])
    if (
        isinstance(value, Vector)
        or value.dtype.kind not in ("int", "float")
        or value.dtype.width not in (8, 16, 32, 64)
    ):
        raise error("shuffle-type", callee=entry.spelled, got=_kind(value))
    members = lane_mask(entry, kwargs)
    lane = arith.as_numeric(args[1])
    if isinstance(lane, Vector) or lane.dtype.kind not in ("int", "bool"):
        raise error("shuffle-lane-type", callee=entry.spelled, got=_kind(lane))
    lane = arith.convert(lane, Int32)
    width = arith.convert(arith.as_numeric(kwargs.pop("width", WARP)), Int32)
    if width.is_static() and width.value not in (1, 2, 4, 8, 16, 32):
        raise error("shuffle-width", callee=entry.spelled, width=width.value)
    t = value.dtype
    operands = (members, value, lane, width)
    return t._dynamic(
        ir.BuiltinCall(t, entry.name, tuple(o.ir_value() for o in operands))
    )


def _shuffle(source_lane):
    """The interpreter of a shuffle whose source is ``source_lane(me, b,
    seg) -> (j, in_range)``."""

    def interpret(t, call, args, mask):
        members, value, operand, width = args
        me = t.lane.astype(np.int64)
        b = operand.astype(np.int64) & (WARP - 1)
        seg = (WARP - width.astype(np.int64)) & (WARP - 1)
        j, in_range = source_lane(me, b, seg)
        return t.from_lanes(call, mask, value, np.where(in_range, j, me), members)

    return interpret


def _last(me, seg):
    return (me & seg) | ((WARP - 1) & ~seg)


def _up(me, b, seg):
    return me - b, me - b >= (me & seg)


def _down(me, b, seg):
    return me + b, me + b <= _last(me, seg)


def _xor(me, b, seg):
    return me ^ b, (me ^ b) <= _last(me, seg)


def _idx(me, b, seg):
    j = (me & seg) | (b & ~seg)
    return j, j <= _last(me, seg)


# name -> (CUDA function, the operand's name, what it reads, source rule)
_SHUFFLES = {
    "shfl_down": ("__shfl_down_sync", "delta", "the lane `delta` above", _down),
    "shfl_up": ("__shfl_up_sync", "delta", "the lane `delta` below", _up),
    "shfl_xor": ("__shfl_xor_sync", "lane_mask", "lane `lane_id() ^ lane_mask`", _xor),
    "shfl_idx": ("__shfl_sync", "lane", "lane `lane`", _idx),
}


def _render_call(cuda_name):
    def render(r, c, args):
        return call(cuda_name, _mask_text(c, args[0]), *args[1:])

    return render


for _name, (_cuda, _operand, _what, _source) in _SHUFFLES.items():
    register(
        _name,
        f"`kdsl.{_name}(value, {_operand}, width=32, {_MASK_DOC})`: the value "
        f"of {_what} in this lane's segment of `width` lanes, else its own; "
        f"CUDA's `{_cuda}`",
        _lower_shuffle,
        cuda=_render_call(_cuda),
        interpret=_shuffle(_source),
        keywords=("mask", "width"),
        collective="warp",
    )


# -- votes -----------------------------------------------------------------------------------
def _lower_vote(result):
    def lower(lw, entry, args, kwargs):
        want_args(entry, args, 1)
        pred = args[0]
        pred = Boolean._static(pred) if isinstance(pred, bool) else pred
        if not isinstance(pred, Numeric) or type(pred) is not Boolean:
            raise error("warp-predicate-type", callee=entry.spelled, got=_kind(pred))
        return _collective(result, entry, lane_mask(entry, kwargs), pred.ir_value())

    return lower


def _lane_bit(t):
    return np.left_shift(np.uint32(1), t.lane.astype(np.uint32))


def _ballot(t, call, args, mask):
    members, pred = args
    return t.warp_reduce(members, mask, np.where(pred, _lane_bit(t), 0), np.bitwise_or)


def _vote(ufunc):
    return lambda t, call, args, mask: t.warp_reduce(args[0], mask, args[1], ufunc)


def _as_bool(cuda_name):
    """An ``int`` vote as a Boolean: ``__any_sync(mask, p) != 0``."""

    def render(r, c, args):
        return r.convert(Int32, Boolean, _render_call(cuda_name)(r, c, args))

    return render


register(
    "ballot",
    f"`kdsl.ballot(pred, {_MASK_DOC})`: bit k set for each lane k of the mask "
    "whose `pred` holds (Uint32); CUDA's `__ballot_sync`",
    _lower_vote(Uint32),
    cuda=_render_call("__ballot_sync"),
    interpret=_ballot,
    keywords=("mask",),
    collective="warp",
)
register(
    "any_sync",
    f"`kdsl.any_sync(pred, {_MASK_DOC})`: whether `pred` holds in any lane of "
    "the mask (Boolean); CUDA's `__any_sync`",
    _lower_vote(Boolean),
    cuda=_as_bool("__any_sync"),
    interpret=_vote(np.logical_or),
    keywords=("mask",),
    collective="warp",
)
register(
    "all_sync",
    f"`kdsl.all_sync(pred, {_MASK_DOC})`: whether `pred` holds in every lane of "
    "the mask (Boolean); CUDA's `__all_sync`",
    _lower_vote(Boolean),
    cuda=_as_bool("__all_sync"),
    interpret=_vote(np.logical_and),
    keywords=("mask",),
    collective="warp",
)
register(
    "uni_sync",
    f"`kdsl.uni_sync(pred, {_MASK_DOC})`: whether `pred` is the same in every "
    "lane of the mask (Boolean); CUDA's `__uni_sync`",
    _lower_vote(Boolean),
    cuda=_as_bool("__uni_sync"),
    interpret=lambda t, call, args, mask: (
        t.warp_reduce(args[0], mask, args[1], np.logical_and)
        | ~t.warp_reduce(args[0], mask, args[1], np.logical_or)
    ),
    keywords=("mask",),
    collective="warp",
)


# -- the active lanes, and the warp barrier ------------------------------------------------------
def _lower_activemask(lw, entry, args, kwargs):
    want_args(entry, args, 0)
    return Uint32._dynamic(ir.BuiltinCall(Uint32, entry.name, ()))


def _activemask(t, call, args, mask):
    everyone = np.full(len(mask), FULL, np.uint32)
    return t.warp_reduce(everyone, mask, _lane_bit(t), np.bitwise_or)


register(
    "activemask",
    "`kdsl.activemask()`: bit k set for each lane k of the warp executing the "
    "call (Uint32); CUDA's `__activemask`",
    _lower_activemask,
    cuda=lambda r, c, args: call("__activemask"),
    interpret=_activemask,
)


# -- lane masks --------------------------------------------------------------------------
def _lower_lanemask(lw, entry, args, kwargs):
    want_args(entry, args, 0)
    return Uint32._dynamic(ir.BuiltinCall(Uint32, entry.name, ()))


# name -> (what it holds, its bits for the lanes (an Int64 array; below 2**33))
_LANEMASKS = {
    "lt": ("bit k set for each lane k below this one", lambda lane: (1 << lane) - 1),
    "le": (
        "bit k set for each lane k up to this one, this one included",
        lambda lane: (2 << lane) - 1,
    ),
    "eq": ("this lane's bit alone, `1 << lane_id()`", lambda lane: 1 << lane),
    "gt": (
        "bit k set for each lane k above this one",
        lambda lane: FULL - ((2 << lane) - 1),
    ),
    "ge": (
        "bit k set for each lane k from this one up, this one included",
        lambda lane: FULL - ((1 << lane) - 1),
    ),
}


def _lanemask(bits):
    def interpret(t, call, args, mask):
        return bits(t.lane.astype(np.int64)).astype(np.uint32)

    return interpret


for _name, (_lanes, _bits) in _LANEMASKS.items():
    register(
        f"lanemask_{_name}",
        f"`kdsl.lanemask_{_name}()`: {_lanes} "
        f"(Uint32); the special register `%lanemask_{_name}`",
        _lower_lanemask,
        cuda=(lambda name: lambda r, c, args: call(f"kdsl::lanemask_{name}"))(_name),
        interpret=_lanemask(_bits),
        prelude=("warp.h",),
    )


def _lower_syncwarp(lw, entry, args, kwargs):
    want_args(entry, args, 0, 0 if "mask" in kwargs else 1)
    if args:  # kdsl.syncwarp(m), as CUDA's __syncwarp(m)
        kwargs["mask"] = args.pop()
    members = lane_mask(entry, kwargs)
    lw.emit(ir.ExprStmt(ir.BuiltinCall(None, entry.name, (members.ir_value(),))))
    return None


def _render_syncwarp(r, c, args):
    mask = c.args[0]
    if isinstance(mask, ir.Const) and mask.value == FULL:
        return call("__syncwarp")
    return call("__syncwarp", _mask_text(c, args[0]))


def _syncwarp(t, call, args, mask):
    t.warp_barrier(args[0], mask)


register(
    "syncwarp",
    f"`kdsl.syncwarp({_MASK_DOC})`: a barrier for the lanes of the mask, which "
    "orders their memory accesses; CUDA's `__syncwarp` (the mask may be given "
    "by position too: `kdsl.syncwarp(m)`)",
    _lower_syncwarp,
    cuda=_render_syncwarp,
    interpret=_syncwarp,
    keywords=("mask",),
    collective="warp",
)


# -- matches ------------------------------------------------------------------------------------
_MATCHED = (Int32, Uint32, Int64, Uint64, Float32, Float64)


def _match_operand(entry, args):
    want_args(entry, args, 1)
    value = arith.as_numeric(args[0])
    if isinstance(value, Vector) or type(value) not in _MATCHED:
        raise error("match-type", callee=entry.spelled, got=_kind(value))
    return value


def _lower_match_any(lw, entry, args, kwargs):
    value = _match_operand(entry, args)
    return _collective(Uint32, entry, lane_mask(entry, kwargs), value.ir_value())


def _lower_match_all(lw, entry, args, kwargs):
    value = _match_operand(entry, args)
    call = _collective(Uint32, entry, lane_mask(entry, kwargs), value.ir_value())
    matched = lw.hold(call, "matched", entry.spelled)
    return matched, arith.truth(matched)


def _bits(value):
    return np.ascontiguousarray(value).view(f"u{value.dtype.itemsize}")


def _match_any(t, call, args, mask):
    members, value = args
    bit = _lane_bit(t)
    return t.warp_reduce(members, mask, bit, np.bitwise_or, key=_bits(value))


def _match_all(t, call, args, mask):
    members = args[0]
    taking_part = t.warp_reduce(members, mask, _lane_bit(t), np.bitwise_or)
    same = _match_any(t, call, args, mask)
    return np.where(same == taking_part, taking_part, np.uint32(0))


register(
    "match_any",
    f"`kdsl.match_any(value, {_MASK_DOC})`: bit k set for each lane k of the "
    "mask whose value has this lane's bits (Uint32); CUDA's `__match_any_sync`",
    _lower_match_any,
    cuda=_render_call("__match_any_sync"),
    interpret=_match_any,
    keywords=("mask",),
    collective="warp",
)
register(
    "match_all",
    f"`m, ok = kdsl.match_all(value, {_MASK_DOC})`: whether every lane of the "
    "mask has the same bits: `m` the mask (Uint32; 0 if not), `ok` whether "
    "(Boolean); CUDA's `__match_all_sync`",
    _lower_match_all,
    cuda=_render_call("kdsl::match_all"),
    interpret=_match_all,
    keywords=("mask",),
    collective="warp",
    prelude=("warp.h",),
)


# -- reductions ------------------------------------------------------------------------------
def _lower_reduce(bitwise):
    def lower(lw, entry, args, kwargs):
        want_args(entry, args, 1)
        value = arith.as_numeric(args[0])
        if isinstance(value, Vector) or type(value) not in (Int32, Uint32):
            raise error("warp-reduce-type", callee=entry.spelled, got=_kind(value))
        if bitwise:  # CUDA's are unsigned only
            value = arith.convert(value, Uint32)
        members = lane_mask(entry, kwargs)
        return _collective(type(value), entry, members, value.ir_value())

    return lower


def _reduce(ufunc):
    return lambda t, call, args, mask: t.warp_reduce(args[0], mask, args[1], ufunc)


# name -> (ufunc, what, bitwise)
_REDUCTIONS = {
    "add": (np.add, "the sum (wrapping)", False),
    "min": (np.minimum, "the minimum", False),
    "max": (np.maximum, "the maximum", False),
    "and": (np.bitwise_and, "the bitwise and", True),
    "or": (np.bitwise_or, "the bitwise or", True),
    "xor": (np.bitwise_xor, "the bitwise xor", True),
}

for _op, (_ufunc, _what, _bitwise) in _REDUCTIONS.items():
    _type = "Uint32" if _bitwise else "its type"
    register(
        f"reduce_{_op}_sync",
        f"`kdsl.reduce_{_op}_sync(value, {_MASK_DOC})`: {_what} of an Int32 or "
        f"Uint32 over the lanes of the mask ({_type}); CUDA's "
        f"`__reduce_{_op}_sync` (sm_80+)",
        _lower_reduce(_bitwise),
        cuda=_render_call(f"__reduce_{_op}_sync"),
        interpret=_reduce(_ufunc),
        keywords=("mask",),
        collective="warp",
    )
