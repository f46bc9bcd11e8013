"""Calls of kdsl built-ins inside kernels: one handler per built-in, by name.

Each handler takes the lowerer, the evaluated arguments and the call node and
returns a value (or None for statements such as ``syncthreads``).  A handler
is registered with the keywords it takes; :func:`call` rejects any other.
"""

from __future__ import annotations

from kdsl.transpile.core import arith, mathfns, values
from kdsl.transpile import ir
from kdsl.transpile.errors import error
from kdsl.transpile.frontend.lower_expr import (
    ArrayValue,
    FixedArray,
    PointerValue,
    is_python_number,
    static_integer,
)
from kdsl.transpile.core.types import (
    BFloat16,
    Boolean,
    Float16,
    Float32,
    Float64,
    Int32,
    Int64,
    NumericMeta,
    Uint32,
    Uint64,
    Vector,
)

HANDLERS = {}
KEYWORDS = {}  # built-in name -> the keyword arguments it takes


def handler(*names, keywords=()):
    def register(fn):
        for name in names:
            HANDLERS[name] = fn
            KEYWORDS[name] = tuple(keywords)
        return fn

    return register


def call(lw, name, args, kwargs, node):
    """Lower a call of the built-in ``name`` (a key of ``HANDLERS``)."""
    allowed = KEYWORDS[name]
    unknown = [k for k in kwargs if k not in allowed]
    if unknown:
        takes = (
            "takes only " + ", ".join(f"{k}=" for k in allowed) + " as keywords"
            if allowed
            else "takes no keyword arguments"
        )
        raise error(
            "bad-call",
            what=f"{_spelled(name)}() got an unexpected keyword argument "
            f"'{unknown[0]}'; it {takes}",
        )
    return HANDLERS[name](lw, name, args, dict(kwargs), node)


def _spelled(name):
    return name if name in ("min", "max") else f"kdsl.{name}"


def _want(args, n, name):
    if len(args) != n:
        raise error(
            "bad-call",
            what=f"{_spelled(name)}() takes {n} argument{'s' * (n != 1)}, "
            f"got {len(args)}",
        )


@handler("syncthreads")
def _syncthreads(lw, name, args, kwargs, node):
    _want(args, 0, name)
    lw.emit(ir.ExprStmt(ir.Call(None, "syncthreads", ())))
    return None


@handler("lane_id")
def _lane_id(lw, name, args, kwargs, node):
    _want(args, 0, name)
    return Int32._dynamic(ir.Call(Int32, "lane_id", ()))


@handler("shared_array", "local_array")
def _array(lw, name, args, kwargs, node):
    _want(args, 2, name)
    elem, shape = args
    if not (isinstance(elem, NumericMeta) and not elem.abstract):
        raise error("bad-call", what=f"{name}() needs an element type, got {elem!r}")
    shape = shape if isinstance(shape, tuple) else (shape,)
    dims = [static_integer(d, f"the shape of {name}()") for d in shape]
    if not dims or any(d <= 0 for d in dims):
        raise error(
            "bad-call", what=f"{name}() needs a positive static shape, got {shape}"
        )
    space = "shared" if name == "shared_array" else "local"
    return lw.declare_array(elem, tuple(dims), space, node)


_MINMAX_OP = {"min": "<", "max": ">"}


@handler("min", "max")
def _minmax(lw, name, args, kwargs, node):
    if len(args) < 2:
        raise error("bad-call", what=f"{name}() takes two or more numbers")
    result = args[0]
    for other in args[1:]:
        result = _minmax2(name, result, other)
    return result


def _minmax2(name, a, b):
    """Python's ``min``/``max`` of two values: ``b`` wins only if strictly better."""
    if is_python_number(a) and is_python_number(b):
        return min(a, b) if name == "min" else max(a, b)
    if isinstance(a, Vector) or isinstance(b, Vector):  # lane by lane
        return arith.select(arith.binary(_MINMAX_OP[name], b, a), b, a)
    t, _ = _common(a, b)
    a, b = arith.convert(arith.as_numeric(a), t), arith.convert(arith.as_numeric(b), t)
    if a.is_static() and b.is_static():
        better = values.binary(_MINMAX_OP[name], b.value, a.value, t)
        return b if better else a
    return t._dynamic(ir.Call(t, name, (a.ir_value(), b.ir_value())))


def _common(a, b):
    from kdsl.transpile.core.promotion import binary_types

    ta = type(arith.as_numeric(a))
    tb = type(arith.as_numeric(b))
    return binary_types("+", ta, tb)


# -- math ------------------------------------------------------------------------------
def _math(lw, name, args, kwargs, node):
    fn = name.split(".", 1)[1]
    _want(args, mathfns.arity(fn), name)
    nums = [arith.as_numeric(a) for a in args]
    for n in nums:
        if isinstance(n, Vector):
            raise error("bad-call", what=f"kdsl.{name}() takes scalars")
    t = type(nums[0])
    for n in nums[1:]:
        t, _ = _common(t._static(0) if t is not Boolean else False, n)
    if t.kind != "float":
        t = Float32 if t.kind in ("int", "bool") else t
    if t.kind == "narrow":
        raise error("narrow-arithmetic", type=t.__name__, op=f"kdsl.{name}")
    nums = [arith.convert(n, t) for n in nums]
    if mathfns.host_fold(fn) and all(n.is_static() for n in nums):
        return t._static(mathfns.fold(fn, [n.value for n in nums], t))
    return t._dynamic(ir.Call(t, name, tuple(n.ir_value() for n in nums)))


handler(*(f"math.{fn}" for fn in mathfns.MATH_FUNCTIONS))(_math)


# -- warp shuffles ------------------------------------------------------------------------
@handler("shfl_down", "shfl_xor", "shfl_idx", keywords=("width",))
def _shuffle(lw, name, args, kwargs, node):
    _want(args, 2, name)
    width = kwargs.pop("width", 32)
    value = arith.as_numeric(args[0])
    if isinstance(value, Vector) or value.dtype.kind not in ("int", "float"):
        raise error("bad-call", what=f"{name}() shuffles an integer or float scalar")
    lane = arith.convert(arith.as_numeric(args[1]), Int32)
    width = arith.convert(arith.as_numeric(width), Int32)
    t = value.dtype
    call = ir.Call(t, name, (value.ir_value(), lane.ir_value(), width.ir_value()))
    return t._dynamic(call)


# -- atomics ---------------------------------------------------------------------------------
_ATOMIC_TYPES = {
    "atomic_add": (Int32, Uint32, Uint64, Float16, BFloat16, Float32, Float64),
    "atomic_max": (Int32, Uint32, Int64, Uint64),
    "atomic_min": (Int32, Uint32, Int64, Uint64),
    "atomic_exch": (Int32, Uint32, Uint64, Float32),
    "atomic_cas": (Int32, Uint32, Uint64),
    "atomic_and_": (Int32, Uint32, Uint64),
    "atomic_or_": (Int32, Uint32, Uint64),
    "atomic_xor": (Int32, Uint32, Uint64),
}


@handler(*_ATOMIC_TYPES)
def _atomic(lw, name, args, kwargs, node):
    n = 4 if name == "atomic_cas" else 3
    _want(args, n, name)
    target, index = args[0], args[1]
    if not isinstance(target, (PointerValue, ArrayValue, FixedArray)):
        raise error("bad-call", what=f"{name}() needs a pointer or array first")
    t = target.elem
    if t not in _ATOMIC_TYPES[name]:
        listed = ", ".join(x.__name__ for x in _ATOMIC_TYPES[name])
        raise error("bad-call", what=f"{name}() supports {listed}, not {t!r}")
    indices = index if isinstance(index, tuple) else (index,)
    base, flat = lw.address(target, indices)
    lw.mark_written(target)
    operands = []
    for v in args[2:]:
        v = arith.as_numeric(v)
        if is_python_number(v) or v.is_static() or v.dtype is t:
            operands.append(arith.convert(v, t).ir_value())
        else:
            raise error(
                "store-type", value=v.dtype.__name__, target=name, elem=t.__name__
            )
    slot = ir.Load(t, base, flat)
    return t._dynamic(ir.Call(t, name, (slot, *operands)))
