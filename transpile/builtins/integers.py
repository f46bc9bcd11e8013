"""Integer intrinsics, one registry entry each: ``kdsl.byte_perm``,
``kdsl.funnelshift_l``/``_r`` (and the clamping ``_lc``/``_rc``),
``kdsl.mulhi``/``umulhi``, ``kdsl.mul24``/``umul24`` and ``kdsl.sad``/``usad``,
CUDA's ``__byte_perm`` … .

Each takes the argument types of its CUDA function (``mulhi``/``umulhi``
have a 32- and a 64-bit form, chosen by the arguments); a run-time argument
of another type is an error, a Python int or a static integer converts as
``.to()`` would.  Static arguments fold on Python ints; the interpreter
computes the same on numpy lanes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from kdsl.transpile import ir
from kdsl.transpile.builtins.registry import register, want_args
from kdsl.transpile.core.cxx import call
from kdsl.transpile.core import arith, values
from kdsl.transpile.core.types import Int32, Int64, Uint32, Uint64, Vector
from kdsl.transpile.errors import error

M32 = 0xFFFFFFFF


@dataclass(frozen=True)
class Form:
    """One signature of an intrinsic: argument types, result, CUDA function."""

    params: tuple
    result: type
    cuda: str


@dataclass(frozen=True)
class Intrinsic:
    signature: str  # its arguments, for the doc line
    what: str  # what it computes, for the doc line
    forms: tuple[Form, ...]
    fold: Callable  # (argument values, width) -> the result, to be wrapped
    lanes: Callable  # (argument lanes...) -> result lanes


# -- folds on the arguments' values (Python ints) ---------------------------------------
def _fold_byte_perm(args, width):
    x, y, s = args
    both = (x & M32) | ((y & M32) << 32)
    picks = ((both >> (8 * ((s >> (4 * k)) & 7))) & 0xFF for k in range(4))
    return sum(byte << (8 * k) for k, byte in enumerate(picks))


def _fold_funnelshift(left: bool, clamp: bool):
    def fold(args, width):
        lo, hi, shift = args
        n = min(shift, 32) if clamp else shift & 31
        both = ((hi & M32) << 32) | (lo & M32)
        return (both << n) >> 32 if left else both >> n

    return fold


def _signed24(v: int) -> int:
    return ((v & 0xFFFFFF) ^ 0x800000) - 0x800000


def _fold_sad(args, width):
    x, y, z = args
    return abs(x - y) + z


# -- the same on lanes (numpy arrays of the argument types) ------------------------------
def _u64(*arrays):
    return [a.astype(np.uint64) for a in arrays]


def _lanes_byte_perm(x, y, s):
    both = x.astype(np.uint64) | (y.astype(np.uint64) << np.uint64(32))
    r = np.zeros(x.shape, np.uint64)
    for k in range(4):
        select = ((s >> np.uint32(4 * k)) & np.uint32(7)).astype(np.uint64)
        byte = (both >> (select * np.uint64(8))) & np.uint64(0xFF)
        r |= byte << np.uint64(8 * k)
    return r.astype(np.uint32)


def _lanes_funnelshift(left: bool, clamp: bool):
    def lanes(lo, hi, shift):
        n = np.minimum(shift, np.uint32(32)) if clamp else shift & np.uint32(31)
        lo, hi, n = _u64(lo, hi, n)
        both = lo | (hi << np.uint64(32))
        r = (both << n) >> np.uint64(32) if left else both >> n
        return r.astype(np.uint32)  # the low 32 bits

    return lanes


def _umulhi64(a, b):
    """The high 64 bits of the 128-bit product of uint64 lanes."""
    low, half = np.uint64(M32), np.uint64(32)
    a0, a1, b0, b1 = a & low, a >> half, b & low, b >> half
    p00, p01, p10 = a0 * b0, a0 * b1, a1 * b0
    middle = (p00 >> half) + (p01 & low) + (p10 & low)
    return a1 * b1 + (p01 >> half) + (p10 >> half) + (middle >> half)


def _lanes_mulhi(x, y):
    if x.dtype.itemsize == 4:
        wide = np.int64 if x.dtype.kind == "i" else np.uint64
        return ((x.astype(wide) * y.astype(wide)) >> 32).astype(x.dtype)
    high = _umulhi64(x.view(np.uint64), y.view(np.uint64))
    if x.dtype.kind == "i":  # two's complement: subtract what the signs added
        zero = np.uint64(0)
        high = high - np.where(x < 0, y.view(np.uint64), zero)
        high = high - np.where(y < 0, x.view(np.uint64), zero)
    return high.view(x.dtype)


def _lanes_mul24(x, y):
    def signed24(a):
        return ((a.astype(np.int64) & 0xFFFFFF) ^ 0x800000) - 0x800000

    return (signed24(x) * signed24(y)).astype(np.int32)  # the low 32 bits


def _lanes_umul24(x, y):
    low = np.uint32(0xFFFFFF)
    return ((x & low).astype(np.uint64) * (y & low)).astype(np.uint32)


def _lanes_sad(x, y, z):
    difference = np.abs(x.astype(np.int64) - y.astype(np.int64))
    return (difference + z.astype(np.int64)).astype(np.uint32)  # modulo 2**32


# -- the entries ------------------------------------------------------------------------
def _one(params, result, cuda):
    return (Form(params, result, cuda),)


_U3 = (Uint32, Uint32, Uint32)
_FUNNEL = "`hi:lo` (64 bits) shifted"
INTRINSICS = {
    "byte_perm": Intrinsic(
        "x, y, s",
        "bytes picked from `y:x` by the low 3 bits of each of the 4 low nibbles of "
        "`s`",
        _one(_U3, Uint32, "__byte_perm"),
        _fold_byte_perm,
        _lanes_byte_perm,
    ),
    "funnelshift_l": Intrinsic(
        "lo, hi, shift",
        f"the high 32 bits of {_FUNNEL} left by `shift & 31`",
        _one(_U3, Uint32, "__funnelshift_l"),
        _fold_funnelshift(True, False),
        _lanes_funnelshift(True, False),
    ),
    "funnelshift_lc": Intrinsic(
        "lo, hi, shift",
        f"the high 32 bits of {_FUNNEL} left by `min(shift, 32)`",
        _one(_U3, Uint32, "__funnelshift_lc"),
        _fold_funnelshift(True, True),
        _lanes_funnelshift(True, True),
    ),
    "funnelshift_r": Intrinsic(
        "lo, hi, shift",
        f"the low 32 bits of {_FUNNEL} right by `shift & 31`",
        _one(_U3, Uint32, "__funnelshift_r"),
        _fold_funnelshift(False, False),
        _lanes_funnelshift(False, False),
    ),
    "funnelshift_rc": Intrinsic(
        "lo, hi, shift",
        f"the low 32 bits of {_FUNNEL} right by `min(shift, 32)`",
        _one(_U3, Uint32, "__funnelshift_rc"),
        _fold_funnelshift(False, True),
        _lanes_funnelshift(False, True),
    ),
    "mulhi": Intrinsic(
        "x, y",
        "the high half of the full product of two Int32 (Int64)",
        (
            Form((Int32, Int32), Int32, "__mulhi"),
            Form((Int64, Int64), Int64, "__mul64hi"),
        ),
        lambda args, width: (args[0] * args[1]) >> width,
        _lanes_mulhi,
    ),
    "umulhi": Intrinsic(
        "x, y",
        "the high half of the full product of two Uint32 (Uint64)",
        (
            Form((Uint32, Uint32), Uint32, "__umulhi"),
            Form((Uint64, Uint64), Uint64, "__umul64hi"),
        ),
        lambda args, width: (args[0] * args[1]) >> width,
        _lanes_mulhi,
    ),
    "mul24": Intrinsic(
        "x, y",
        "the low 32 bits of the product of the signed low 24 bits of two Int32",
        _one((Int32, Int32), Int32, "__mul24"),
        lambda args, width: _signed24(args[0]) * _signed24(args[1]),
        _lanes_mul24,
    ),
    "umul24": Intrinsic(
        "x, y",
        "the low 32 bits of the product of the low 24 bits of two Uint32",
        _one((Uint32, Uint32), Uint32, "__umul24"),
        lambda args, width: (args[0] & 0xFFFFFF) * (args[1] & 0xFFFFFF),
        _lanes_umul24,
    ),
    "sad": Intrinsic(
        "x, y, z",
        "`abs(x - y) + z` for Int32 `x`, `y` and a Uint32 `z`, modulo 2**32 (Uint32)",
        _one((Int32, Int32, Uint32), Uint32, "__sad"),
        _fold_sad,
        _lanes_sad,
    ),
    "usad": Intrinsic(
        "x, y, z",
        "`abs(x - y) + z` for Uint32 `x`, `y`, `z`, modulo 2**32 (Uint32)",
        _one(_U3, Uint32, "__usad"),
        _fold_sad,
        _lanes_sad,
    ),
}


# -- typing -----------------------------------------------------------------------------
def _accepts(n, t) -> bool:
    """Whether argument ``n`` can be passed as a ``t``: one already, or a
    static integer (converted as ``.to()`` does)."""
    if isinstance(n, Vector):
        return False
    return type(n) is t or (n.is_static() and type(n).kind == "int")


def _choose(entry, spec: Intrinsic, nums) -> Form:
    """The form the arguments select: every argument accepted, most of them
    of the exact type; between forms that static arguments alone leave open,
    the narrowest as wide as the widest of them."""
    fits = [f for f in spec.forms if all(map(_accepts, nums, f.params))]
    if not fits:
        raise _mismatch(entry, spec, nums)
    most = max(_exact(nums, f) for f in fits)
    fits = [f for f in fits if _exact(nums, f) == most]
    widest = max(type(n).width for n in nums)
    return next((f for f in fits if f.result.width >= widest), fits[-1])


def _exact(nums, form: Form) -> int:
    return sum(type(n) is t for n, t in zip(nums, form.params))


def _mismatch(entry, spec: Intrinsic, nums):
    got = [type(n) for n in nums]
    width = next((t.width for t in got if getattr(t, "kind", "") == "int"), 32)
    form = next((f for f in spec.forms if f.params[0].width == width), spec.forms[0])
    bad = next(
        k for k, (n, t) in enumerate(zip(nums, form.params)) if not _accepts(n, t)
    )
    return error(
        "integer-intrinsic-operand",
        callee=entry.spelled,
        takes=" or ".join(_spelled(f.params) for f in spec.forms),
        got=_spelled(got),
        want=form.params[bad].__name__,
    )


def _spelled(types) -> str:
    return "(" + ", ".join(t.__name__ for t in types) + ")"


def _lower(lw, entry, args, kwargs):
    spec = INTRINSICS[entry.name]
    want_args(entry, args, len(spec.forms[0].params))
    nums = [arith.as_numeric(a) for a in args]
    form = _choose(entry, spec, nums)
    nums = [arith.convert(n, t) for n, t in zip(nums, form.params)]
    if all(n.is_static() for n in nums):
        folded = spec.fold([n.value for n in nums], form.params[0].width)
        return form.result._static(values.wrap(folded, form.result))
    call = ir.BuiltinCall(form.result, entry.name, tuple(n.ir_value() for n in nums))
    return form.result._dynamic(call)


def form_of(call) -> Form:
    """The form of ``call`` (an ``ir.BuiltinCall`` of an intrinsic)."""
    types = tuple(a.type for a in call.args)
    return next(f for f in INTRINSICS[call.builtin].forms if f.params == types)


for _name, _spec in INTRINSICS.items():
    _cuda = "`/`".join(f.cuda for f in _spec.forms)
    register(
        _name,
        f"`kdsl.{_name}({_spec.signature})`: {_spec.what}; CUDA's `{_cuda}`",
        _lower,
        cuda=lambda r, c, args: call(form_of(c).cuda, *args),
        interpret=(lambda fn: lambda t, call, args, mask: fn(*args))(_spec.lanes),
    )
