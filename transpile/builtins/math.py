"""Numbers: ``kdsl.math.*`` and Python's ``min``/``max``.

``kdsl.math`` on Float32/Float64 calls CUDA's ``expf``/``exp`` …;
Float16/BFloat16 compute in float and round once to their type; integers
are converted to Float32.  The exact functions fold at compile time
(``mathfns``); the transcendental ones never fold.  Every ``math.`` entry
is lane-wise on vectors (``lanewise.py``): these functions see scalars."""

from __future__ import annotations

from kdsl.transpile import ir
from kdsl.transpile.builtins.registry import register, want_args
from kdsl.transpile.core import arith, lanes, mathfns, values
from kdsl.transpile.core.promotion import binary_types
from kdsl.transpile.core.types import Boolean, Float32, Vector
from kdsl.transpile.errors import error


def _common(a, b):
    ta = type(arith.as_numeric(a))
    tb = type(arith.as_numeric(b))
    return binary_types("+", ta, tb)


# -- kdsl.math ------------------------------------------------------------------------
def _lower_math(lw, entry, args, kwargs):
    fn = entry.name.split(".", 1)[1]
    want_args(entry, args, mathfns.arity(fn))
    nums = [arith.as_numeric(a) for a in args]  # scalars (lanewise.py maps vectors)
    t = type(nums[0])
    for n in nums[1:]:
        t, _ = _common(t._static(0) if t is not Boolean else False, n)
    if t.kind != "float":
        t = Float32 if t.kind in ("int", "bool") else t
    if t.kind == "narrow":
        raise error("narrow-arithmetic", type=t.__name__, op=f"kdsl.{entry.name}")
    nums = [arith.convert(n, t) for n in nums]
    if mathfns.host_fold(fn) and all(n.is_static() for n in nums):
        return t._static(mathfns.fold(fn, [n.value for n in nums], t))
    return t._dynamic(ir.BuiltinCall(t, entry.name, tuple(n.ir_value() for n in nums)))


def _render_math(fn):
    def render(r, call, args):
        t = call.type
        if t.width in (32, 64):
            return f"{mathfns.c_name(fn, t.width)}({', '.join(args)})"
        # Float16/BFloat16: compute in float, round once to the type.
        wide = [r.convert(t, Float32, a) for a in args]
        return r.convert(Float32, t, f"{mathfns.c_name(fn, 32)}({', '.join(wide)})")

    return render


def _interpret_math(fn):
    return lambda t, call, args, mask: lanes.math_call(fn, args, call.type)


def _doc(fn: str, signature: str) -> str:
    if mathfns.host_fold(fn):
        return f"`{signature}`: exact (correctly rounded); folds at compile time"
    c32 = mathfns.c_name(fn, 32)
    return f"`{signature}`: CUDA's `{c32}`/`{mathfns.c_name(fn, 64)}`; never folded"


for _fn, _signature in mathfns.MATH_FUNCTIONS.items():
    register(
        f"math.{_fn}",
        _doc(_fn, _signature),
        _lower_math,
        cuda=_render_math(_fn),
        interpret=_interpret_math(_fn),
    )


# -- min, max ---------------------------------------------------------------------------
_BETTER = {"min": "<", "max": ">"}


def _lower_minmax(lw, entry, args, kwargs):
    if len(args) < 2:
        raise error("wrong-arg-count", callee=entry.name, n="2 or more", got=len(args))
    result = args[0]
    for other in args[1:]:
        result = _minmax2(entry.name, result, other)
    return result


def _minmax2(name, a, b):
    """Python's ``min``/``max`` of two values: ``b`` wins only if strictly better."""
    if arith.is_python_number(a) and arith.is_python_number(b):
        return min(a, b) if name == "min" else max(a, b)
    if isinstance(a, Vector) or isinstance(b, Vector):  # lane by lane
        return arith.select(arith.binary(_BETTER[name], b, a), b, a)
    t, _ = _common(a, b)
    a, b = arith.convert(arith.as_numeric(a), t), arith.convert(arith.as_numeric(b), t)
    if a.is_static() and b.is_static():
        better = values.binary(_BETTER[name], b.value, a.value, t)
        return b if better else a
    return t._dynamic(ir.BuiltinCall(t, name, (a.ir_value(), b.ir_value())))


for _name in ("min", "max"):
    register(
        _name,
        f"`{_name}(a, b, ...)`: Python's {_name}, the first argument unless a later "
        f"one is strictly {'smaller' if _name == 'min' else 'larger'} "
        "(lane-wise on vectors)",
        _lower_minmax,
        cuda=lambda r, call, args: f"kdsl::{call.builtin}({args[0]}, {args[1]})",
        interpret=lambda t, call, args, mask: lanes.select_min_max(call.builtin, *args),
        prelude=("intrinsics.h",),
    )
