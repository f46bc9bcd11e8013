"""Arrays a kernel declares: ``kdsl.shared_array`` and ``kdsl.local_array``
(lowered to an :class:`ir.ArrayDecl`, not a call), and views of the launch's
dynamic shared memory, ``kdsl.dynamic_shared_array`` (a pointer into it,
:class:`ir.DynamicShared`)."""

from __future__ import annotations

from kdsl.transpile.builtins.registry import get, register, want_args
from kdsl.transpile.core.types import NumericMeta, VectorMeta
from kdsl.transpile.errors import error


def _lower_array(lw, entry, args, kwargs):
    name = entry.name
    want_args(entry, args, 2)
    elem, shape = args
    scalar = isinstance(elem, NumericMeta) and not elem.abstract
    if not (scalar or isinstance(elem, VectorMeta) and elem.dtype is not None):
        raise error("array-element-type", callee=entry.spelled, got=repr(elem))
    shape = shape if isinstance(shape, tuple) else (shape,)
    dims = [lw.static_integer(d, f"the shape of {name}()") for d in shape]
    scalar = name == "shared_array" and not dims  # shape (): a shared scalar
    if (not dims and not scalar) or any(d <= 0 for d in dims):
        raise error("array-shape", callee=entry.spelled, shape=shape)
    space = "shared" if name == "shared_array" else "local"
    return lw.declare_array(elem, tuple(dims), space)


def _lower_scalar(lw, entry, args, kwargs):
    want_args(entry, args, 1)
    return _lower_array(lw, get("shared_array"), [args[0], ()], kwargs)


register(
    "shared_array",
    "`kdsl.shared_array(T, shape)`: a `__shared__` array of static shape, one per "
    "block (`T` a scalar or vector type)",
    _lower_array,
    kind="syntax",
)
register(
    "shared_scalar",
    "`kdsl.shared_scalar(T)`: one `__shared__` value of type T a block (the same "
    "as `kdsl.shared_array(T, ())`), read and written as `s[()]`",
    _lower_scalar,
    kind="syntax",
)
register(
    "local_array",
    "`kdsl.local_array(T, shape)`: a per-thread array of static shape (`T` a scalar "
    "or vector type)",
    _lower_array,
    kind="syntax",
)


def _lower_len(lw, entry, args, kwargs):
    """``len(x)``: a tuple's length; an ``Array``'s first extent (an Int64),
    a shared or local array's first dimension (an int)."""
    want_args(entry, args, 1)
    (x,) = args
    if isinstance(x, tuple):
        return len(x)
    if lw.is_memory(x) and getattr(x, "shape", ()):
        return x.shape[0]
    raise error("len-type", got=lw.describe(x))


register(
    "len",
    "`len(x)`: the first extent of an `Array` (`x.shape[0]`, Int64) or of a shared "
    "or local array (a compile-time int), or a tuple's length",
    _lower_len,
    kind="syntax",
)


def _lower_dynamic(lw, entry, args, kwargs):
    want_args(entry, args, 1, 2)
    elem = args[0]
    if not (
        isinstance(elem, (NumericMeta, VectorMeta)) and not getattr(elem, "abstract", 0)
    ):
        raise error("array-element-type", callee=entry.spelled, got=repr(elem))
    scalar = elem.dtype if isinstance(elem, VectorMeta) else elem
    if scalar.np_dtype is None:
        raise error("dynamic-shared-element", type=elem.__name__)
    nbytes = scalar.np_dtype.itemsize * getattr(elem, "lanes", 1)
    return lw.dynamic_shared_view(elem, nbytes, args[1] if len(args) == 2 else None)


register(
    "dynamic_shared_array",
    "`kdsl.dynamic_shared_array(T, size)`: `size` elements of T of the launch's "
    "dynamic shared memory (`shared_mem=` bytes a block), after the views declared "
    "before it; without a size, the rest of it",
    _lower_dynamic,
    kind="syntax",
)
