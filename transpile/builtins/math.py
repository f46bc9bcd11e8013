"""Numbers: ``kdsl.math.*`` and Python's ``min``/``max``.

``kdsl.math`` on Float32/Float64 calls CUDA's ``expf``/``exp`` …;
Float16/BFloat16 compute in float and round once to their type; integers
are converted to Float32.  Most return the float type; ``isnan``/``isinf``/
``isfinite`` return Boolean and ``frexp_exponent`` Int32, and ``ldexp``
takes an Int32 exponent.  The exact functions fold at compile time; the
transcendental ones never fold.  Each function is one row of ``mathfns``'s
table (its fold, CUDA spelling and numpy semantics): this module registers
one entry per row, with no code of its own.  Every ``math.`` entry is
lane-wise on vectors (``lanewise.py``): these functions see scalars."""

from __future__ import annotations

from dataclasses import fields, replace

from kdsl.transpile import ir
from kdsl.transpile.builtins.registry import register, want_args
from kdsl.transpile.core.cxx import CExpr, call, infix, number
from kdsl.transpile.core import arith, lanes, mathfns, values
from kdsl.transpile.core.promotion import binary_types
from kdsl.transpile.core.types import (
    Boolean,
    Float16,
    Float32,
    Int32,
    Vector,
    VectorMeta,
)
from kdsl.transpile.errors import error


def _common(a, b):
    ta = type(arith.as_numeric(a))
    tb = type(arith.as_numeric(b))
    return binary_types("+", ta, tb)


# -- kdsl.math ------------------------------------------------------------------------
def _lower_math(lw, entry, args, kwargs):
    fn = entry.name.split(".", 1)[1]
    spec = mathfns.spec(fn)
    want_args(entry, args, len(spec.params))
    nums = [arith.as_numeric(a) for a in args]  # scalars (lanewise.py maps vectors)
    floats = [n for n, p in zip(nums, spec.params) if p not in spec.ints]
    t = type(floats[0])
    for n in floats[1:]:
        t, _ = _common(t._static(0) if t is not Boolean else False, n)
    if t.kind != "float":
        t = Float32 if t.kind in ("int", "bool") else t
    if t.kind == "narrow":
        raise error("narrow-arithmetic", type=t.__name__, op=f"kdsl.{entry.name}")
    if mathfns.approximate(fn) and t is not Float32:
        raise error(
            "fast-math-type",
            callee=entry.spelled,
            got=t.__name__,
            accurate=_ACCURATE[fn],
        )
    nums = [
        _exponent(entry, n) if p in spec.ints else arith.convert(n, t)
        for n, p in zip(nums, spec.params)
    ]
    result = spec.result or t
    if mathfns.host_fold(fn) and all(n.is_static() for n in nums):
        return result._static(mathfns.fold(fn, [n.value for n in nums], t))
    call = ir.BuiltinCall(result, entry.name, tuple(n.ir_value() for n in nums))
    return result._dynamic(call)


# what a fast intrinsic approximates, accurately for every float type (E252)
_ACCURATE = {
    "fast_exp": "kdsl.math.exp()",
    "fast_exp2": "kdsl.math.exp2()",
    "fast_exp2_ftz": "kdsl.math.exp2()",
    "fast_log": "kdsl.math.log()",
    "fast_log2": "kdsl.math.log2()",
    "fast_sin": "kdsl.math.sin()",
    "fast_cos": "kdsl.math.cos()",
    "fast_div": "x / y",
    "fast_rsqrt": "kdsl.math.rsqrt()",
}


def _exponent(entry, n):
    """An Int32 argument (``ldexp``'s ``n``): an Int32, or a static integer
    in its range."""
    t = type(n)
    fits = n.is_static() and t.kind == "int" and Int32.min() <= n.value <= Int32.max()
    if t is not Int32 and not fits:
        raise error("math-exponent", callee=entry.spelled, got=t.__name__)
    return arith.convert(n, Int32)


def _render_math(fn):
    result = mathfns.spec(fn).result

    def render(r, c, args):
        t = c.args[0].type  # the float type (Int32: ldexp's exponent)
        if fn == "copysign" and t.width == 16:
            return _copysign_bits(t, *args)
        if t.width in (32, 64):
            value = call(mathfns.c_name(fn, t.width), *args)
        else:  # Float16/BFloat16: compute in float, round once to the type
            wide = [
                r.convert(a.type, Float32, v) if a.type is t else v
                for a, v in zip(c.args, args)
            ]
            value = call(mathfns.c_name(fn, 32), *wide)
            if result is None:
                return r.convert(Float32, t, value)
        return call("bool", value) if result is Boolean else value  # C's isnan: int

    return render


def _copysign_bits(t, x: CExpr, y: CExpr) -> CExpr:
    """copysign of two 16-bit floats on their bits: through float, the GPU's
    conversion of a NaN drops its sign, which copysign reads."""
    name = "half" if t is Float16 else "bfloat16"
    magnitude, sign = (call(f"__{name}_as_ushort", a) for a in (x, y))
    magnitude = infix("&", magnitude, number("0x7fffu"), "as_is")
    sign = infix("&", sign, number("0x8000u"), "as_is")
    return call(f"__ushort_as_{name}", infix("|", magnitude, sign, "atom"))


def _interpret_math(fn):  # the row's numpy semantics (lanes.math_call)
    return lambda t, call, args, mask: lanes.math_call(fn, args, call.args[0].type)


def _doc(fn: str, signature: str) -> str:
    what = mathfns.spec(fn).what
    if mathfns.approximate(fn):
        error = mathfns.spec(fn).error
        return f"`{signature}`: {what}; Float32, approximate: {error}; never folded"
    if what:
        return f"`{signature}`: {what}; exact, folds at compile time"
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
        prelude=("mathfns.h",) if mathfns.c_name(_fn, 32).startswith("kdsl::") else (),
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
        cuda=lambda r, c, args: call(f"kdsl::{c.builtin}", args[0], args[1]),
        interpret=lambda t, call, args, mask: lanes.select_min_max(call.builtin, *args),
        prelude=("intrinsics.h",),
    )


# -- kdsl.contract ----------------------------------------------------------------------
def _lower_contract(lw, entry, args, kwargs):
    """``kdsl.contract(expr)``: ``expr`` with its float ``+``/``-`` marked
    contractible (``ir.BinOp.contract``); the pass ``contract`` fuses those
    with a product operand into fma (passes/contract.py)."""
    want_args(entry, args, 1)
    x = args[0]
    if arith.is_python_number(x):
        return x
    if not isinstance(x, Vector):
        x = arith.as_numeric(x)  # a value, or E-not-numeric
    if x.is_static():
        return x
    return type(x)._dynamic(_marked(x.ir_value()))


def _marked(e):
    """``e`` with every float ``+``/``-`` inside it marked (a variable's
    value is another statement's: it is a leaf here)."""
    changed = {}
    for fld in fields(e):
        value = getattr(e, fld.name)
        if isinstance(value, ir.Expr):
            new = _marked(value)
        elif isinstance(value, tuple) and any(isinstance(v, ir.Expr) for v in value):
            new = tuple(_marked(v) if isinstance(v, ir.Expr) else v for v in value)
        else:
            continue
        changed[fld.name] = new
    if isinstance(e, ir.BinOp) and e.op in ("+", "-") and _is_float(e.type):
        changed["contract"] = True
    return replace(e, **changed) if changed else e


def _is_float(t) -> bool:
    lane = t.dtype if isinstance(t, VectorMeta) else t
    return getattr(lane, "kind", None) == "float"


register(
    "contract",
    "`kdsl.contract(expr)`: `expr` with its Float32/Float64 `a * b + c`, "
    "`c + a * b`, `a * b - c` and `c - a * b` fused into `kdsl.math.fma` by "
    "kdsl's rule (docs/language.md, Contraction), in a kernel without "
    "`contract=True`",
    _lower_contract,
    kind="syntax",
)
