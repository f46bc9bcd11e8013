"""kdsl: write GPU kernels in typed Python, get readable CUDA C++.

This module is the public API.  Kernels are written with the names here
(docs/language.md); the built-ins ``kdsl.range``, ``kdsl.range_constexpr``,
``kdsl.syncthreads``, ``kdsl.shared_array``, ``kdsl.atomic_add`` … are
installed from the built-in registry (``kdsl.transpile.builtins``).  The
arithmetic types and their promotion rules (docs/types.md) live in
:mod:`kdsl.transpile.core`; dispatch and compile-time parameters are in
docs/dispatch.md, launching in docs/runtime.md.
"""

import builtins as _builtins

from kdsl.transpile.core.arith import PrecisionWarning, as_numeric
from kdsl.transpile.errors import (
    DSLError,
    DSLSyntaxError,
    DSLTypeError,
    DSLValueError,
    DSLZeroDivisionError,
    DynamicValueError,
    UnsupportedDtypeError,
)
from kdsl.transpile.core.types import (
    BFloat16,
    Boolean,
    Float,
    Float4E2M1FN,
    Float6E2M3FN,
    Float6E3M2FN,
    Float8E4M3,
    Float8E4M3B11FNUZ,
    Float8E4M3FN,
    Float8E4M3FNUZ,
    Float8E5M2,
    Float8E8M0FNU,
    Float16,
    Float32,
    Float64,
    Int4,
    Int8,
    Int16,
    Int32,
    Int64,
    Int128,
    Integer,
    Numeric,
    Uint8,
    Uint16,
    Uint32,
    Uint64,
    Uint128,
    Vector,
    vector_aliases,
)

from kdsl.transpile.frontend.lang import (
    Array,
    Bool,
    Constexpr,
    Dtype,
    Int,
    Num,
    Optional,
    Pointer,
    TensorMap,
    TypeVar,
    block_dim,
    block_idx,
    func,
    grid_dim,
    thread_idx,
)
from kdsl.transpile.core.structs import Struct, struct
from kdsl.transpile.builtins import public as _public_builtins
from kdsl.runtime.kernel import (
    Kernel,
    KernelInstance,
    ManyInstancesWarning,
    host_backward,
    kernel,
)
from kdsl.runtime.autotune import AutotuneWarning, Config, autotune
from kdsl.runtime.tensormap import tensor_map
from kdsl.runtime.interpreter.ranks import run_ranks
from kdsl.runtime.errors import (
    AssumptionError,
    DeviceAssertionError,
    InterpretError,
    LaunchError,
    NoDeviceError,
    NVRTCError,
)
from kdsl import math

from kdsl.transpile.version import __version__  # noqa: E402,F401

globals().update(
    _public_builtins()
)  # range, range_constexpr, syncthreads, atomic_add, ...

globals().update(vector_aliases())  # Float32x4, BFloat16x8, Int32x4, ...

# What ``from kdsl import *`` binds: every public name except those that would
# shadow a Python built-in (``kdsl.range``: a kernel's ``range`` is already
# Python's) and the module ``kdsl.math`` (it would hide Python's ``math``);
# reach those as ``kdsl.range`` and ``kdsl.math``.
_NOT_STARRED = ("math", "range", "runtime", "transpile", "vector_aliases")
__all__ = sorted(
    name
    for name in globals()
    if not name.startswith("_")
    and name not in _NOT_STARRED
    and not hasattr(_builtins, name)
)

# kdsl's earlier spellings, kept working with a DeprecationWarning
_DEPRECATED = {"atomic_and_": "atomic_and", "atomic_or_": "atomic_or"}


def __getattr__(name: str):
    """``kdsl.<name>`` for a name kdsl does not have: a deprecated spelling
    (``atomic_and_``) still works and warns; another library's name
    (``kdsl.program_id``, ``kdsl.syncthreads_count``, ``kdsl.__shfl_down_sync``)
    gets kdsl's for it (the same table serves kernels, error E277)."""
    if name in _DEPRECATED:
        from kdsl.transpile.tracebacks import warn_user

        new = _DEPRECATED[name]
        warn_user(
            f"kdsl.{name} is deprecated: it is now kdsl.{new} (the same built-in)",
            DeprecationWarning,
        )
        return globals()[new]
    message = f"module 'kdsl' has no attribute {name!r}"
    if not (name.startswith("__") and name.endswith("__")):
        from kdsl.transpile.errors import did_you_mean
        from kdsl.transpile.frontend.foreign import advice

        other = advice(name)
        if other is not None:
            message += f": it is another library's name; in kdsl write {other}"
        else:
            public = [n for n in globals() if not n.startswith("_")]
            message += did_you_mean([name], public, quote=True)
    raise AttributeError(message, name=name, obj=__import__(__name__))
