"""Launch checks shared by the GPU launch and the CPU interpreter (which
must not import CuPy): grid and block shapes against CUDA's limits and the
kernel's launch_bounds, the dynamic shared memory asked for, and a scalar
argument against its declared type."""

from __future__ import annotations

import math
import sys

import numpy as np

from kdsl.transpile.core import values
from kdsl.transpile.core.structs import Struct, align_of
from kdsl.transpile.core.types import Numeric
from kdsl.transpile.errors import error
from kdsl.transpile.sites import at_user_code


def dim3(value, what: str) -> tuple:
    if type(value) is tuple and 0 < len(value) < 4:  # the usual: Python ints
        for v in value:
            if type(v) is not int or v <= 0:
                break
        else:
            return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, np.bool_):
        value = (value,)
    if _is_symint(value):  # traced with dynamic shapes: specialised (a guard)
        value = (int(value),)
    if isinstance(value, tuple):  # numpy integers (a grid computed with numpy)
        value = tuple(
            (
                int(v)
                if isinstance(v, np.integer)
                and not isinstance(v, np.bool_)
                or _is_symint(v)
                else v
            )
            for v in value
        )
    if not (
        isinstance(value, tuple)
        and 1 <= len(value) <= 3
        and all(isinstance(v, int) and v > 0 for v in value)
    ):
        raise error("launch-dims", dims=what, value=repr(value))
    return value


def _is_symint(value) -> bool:
    """Whether ``value`` is PyTorch's symbolic int (a size while
    ``torch.compile`` traces with dynamic shapes)."""
    torch = sys.modules.get("torch")  # only if the program uses PyTorch
    return torch is not None and isinstance(value, getattr(torch, "SymInt", ()))


GRID_LIMITS = (2**31 - 1, 65535, 65535)  # CUDA's, on every current GPU


def grid_dims(value, what: str = "grid") -> tuple:
    grid = dim3(value, what)
    for n, limit, axis in zip(grid, GRID_LIMITS, "xyz"):
        if n > limit:
            raise error(
                "launch-grid-limit", dims=what, grid=grid, axis=axis, n=n, limit=limit
            )
    return grid


BLOCK_LIMITS = (1024, 1024, 64)  # CUDA's largest block per axis, every current GPU
MAX_THREADS = 1024  # threads per block, every current GPU


def check_block(kernel_name, block, max_threads, max_dims, where) -> None:
    """``block`` against the thread and per-axis limits of ``where`` (a device)."""
    threads = 1
    for b in block:
        threads *= b
    if threads > max_threads:
        raise error(
            "launch-block-threads",
            block=block,
            kernel=kernel_name,
            threads=threads,
            where=where,
            limit=max_threads,
        )
    for axis, b, most in zip("xyz", block, max_dims):
        if b > most:
            raise error(
                "launch-block-axis",
                block=block,
                kernel=kernel_name,
                n=b,
                axis=axis,
                where=where,
                limit=most,
            )


def check_launch_bounds(kernel_name, block, options, constexprs=None) -> None:
    """``block`` against the kernel's ``launch_bounds`` (its options; bounds
    that name a constexpr are checked once its value, in ``constexprs``,
    the instance's, is known)."""
    bound = options.max_threads
    if bound is None and constexprs is not None:
        bound = (options.bounds(constexprs) or (None,))[0]
    threads = 1
    for b in block:
        threads *= b
    if bound is not None and threads > bound:
        raise error(
            "launch-bounds-exceeded",
            block=block,
            kernel=kernel_name,
            threads=threads,
            bound=bound,
        )


# The most shared memory (static and dynamic) any current GPU lets a block
# opt into: 227 KB on the H100, H200 and B200.
MAX_SHARED_MEM = 227 * 1024


def shared_mem_bytes(value) -> int:
    """``shared_mem=`` as a number of bytes (a non-negative int)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        if value >= 0:
            return int(value)
    raise error("launch-shared-mem-value", got=repr(value))


def check_shared_mem(kernel_name, shared_mem, total, static, where) -> None:
    """``shared_mem`` bytes against what ``where`` allows a block in all
    (``total``), less the kernel's ``static`` shared arrays."""
    if shared_mem > total - static:
        raise at_user_code(  # the launch's line
            error(
                "launch-shared-mem-limit",
                kernel=kernel_name,
                shared_mem=shared_mem,
                where=where,
                limit=total - static,
                total=total,
                static=static,
            )
        )


def scalar_value(param, t, value):
    """A scalar argument checked against its declared type, as a Python
    number (a kdsl constant or numpy scalar unwrapped)."""
    if isinstance(value, Numeric):
        if not value.is_static():
            raise error("launch-scalar-dynamic", param=param)
        value = value.value
    if isinstance(value, np.generic):
        value = value.item()
    if t.kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise error(
                "launch-scalar-type",
                param=param,
                type=t.__name__,
                value=repr(value),
                kind="int",
            )
        if not t.min() <= value <= t.max():
            raise error(
                "launch-scalar-range",
                param=param,
                type=t.__name__,
                value=value,
                bounds=f"[{t.min()}, {t.max()}]",
            )
    elif t.kind == "bool":
        if not isinstance(value, bool):
            raise error(
                "launch-scalar-type",
                param=param,
                type="Boolean",
                value=repr(value),
                kind="bool",
            )
    elif not isinstance(value, (int, float)) or isinstance(value, bool):
        raise error(
            "launch-scalar-type",
            param=param,
            type=t.__name__,
            value=repr(value),
            kind="float",
        )
    else:
        _check_float_range(param, t, value)
    if scalar_packer(t) is None:
        raise error("launch-scalar-unpackable", param=param, type=t.__name__)
    return value


def _check_float_range(param, t, value) -> None:
    """A finite argument that ``t`` cannot hold is refused (E462) rather
    than becoming infinity (10**400 and 1e300 for a Float32 alike)."""
    largest = values.finite_limit(t)
    try:
        as_float = float(value)
    except OverflowError:  # an int beyond float64
        as_float = None
    if as_float is not None and (
        not math.isfinite(as_float) or math.isfinite(values.round_float(as_float, t))
    ):
        return
    bits = 0 if isinstance(value, float) else abs(value).bit_length()
    shown = repr(value) if bits <= 128 else f"an integer of {bits} bits"
    raise error(
        "launch-float-range", param=param, type=t.__name__, value=shown, largest=largest
    )


def struct_record(param, t, value):
    """A struct argument passed by value as a numpy record of ``t.dtype``:
    a host instance ``t(...)``, or a numpy scalar (or one-element array) of
    its dtype; anything else is E930, naming the parameter."""
    if isinstance(value, Struct) and type(value) is t:
        return value._record[0]
    if isinstance(value, np.void) and value.dtype == t.dtype:
        return value
    if isinstance(value, np.ndarray) and value.dtype == t.dtype and value.size == 1:
        return value.reshape(-1)[0]
    got = type(value).__name__
    if isinstance(value, Struct):
        got = f"a {got}"
    elif isinstance(value, (np.void, np.ndarray)):
        got = f"a numpy {type(value).__name__} of dtype {value.dtype}"
    raise error("launch-struct-argument", param=param, struct=t.__name__, got=got)


def scalar_packer(t):
    """A function turning a Python value into ``t``'s bits for the launch."""
    import ml_dtypes

    if t.kind == "int":
        if t.width > 64:
            return None
        if t.width < 8:  # Int4 is an int8_t in C; CuPy cannot pack ml_dtypes.int4
            return np.int8
        return t.np_dtype.type
    if t.kind == "bool":
        return np.bool_
    if t.__name__ == "BFloat16":
        return lambda v: np.array(v, ml_dtypes.bfloat16).view(np.uint16)[()]
    if t.kind == "narrow":

        return lambda v: np.uint8(values.to_bits(t(v).value, t))
    return t.np_dtype.type


def check_layout(param, t, address, shape, strides, written) -> None:
    """What both launch paths (the GPU's thorough one and the interpreter's)
    refuse of an array's layout: a start that is not a multiple of the
    element type's alignment (E816: the GPU faults on a misaligned load or
    store; C's alignment, which for a struct such as llama.cpp's 34-byte
    ``block_q8_0`` is its widest field's, 2, not its size), and,
    for a parameter the kernel writes, a zero stride on an axis of more than
    one element (E815: several elements are one location, a race)."""
    align = align_of(t)
    if address % align:
        raise error(
            "launch-array-misaligned",
            param=param,
            address=f"{address:#x}",
            align=align,
            type=t.__name__,
        )
    if written and any(s == 0 and n > 1 for n, s in zip(shape, strides)):
        raise error("launch-array-overlap", param=param, strides=tuple(strides))


def optional_mismatch(inst, param, value):
    """E486: an instance given None for an optional pointer it has, or an
    array for one it lacks."""
    if value is None:
        was = "is None, but this instance reads it"
    else:
        was = "is an array, but this instance was made for it to be None"
    return error("launch-optional-mismatch", instance=inst.name, param=param, was=was)
