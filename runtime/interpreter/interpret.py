"""The CPU interpreter: run a kernel instance's IR on numpy arrays.

``kernel.interpret[grid, block](*args, **constexprs)`` — or any launch when
``KDSL_INTERPRET=1`` was set before the kernel was defined — executes the
same verified IR the CUDA code is generated from, with the exact value
semantics of ``kdsl.transpile.core.values`` (``lanes`` computes them on arrays).
The threads of a batch of blocks run in lock-step as numpy arrays (``simt``).
Arrays are numpy arrays; CuPy arrays and PyTorch tensors are copied to the
host before the run and back after it.

An index out of bounds, a barrier or shuffle in divergent code and a data
race on shared memory are errors naming the thread and the Python line,
where the GPU would have undefined behaviour.  ``kdsl.math`` transcendental
functions use numpy's, not CUDA's: they can differ in the last bit.
"""

from __future__ import annotations

import math

import numpy as np

from kdsl.transpile.core import limits, values
from kdsl.runtime.errors import InterpretError
from kdsl.transpile.errors import error
from kdsl.transpile import ir
from kdsl.transpile.core.types import Int32, NumericMeta, VectorMeta

from kdsl.transpile.core.structs import StructMeta, is_struct
from kdsl.runtime.checks import (
    BLOCK_LIMITS,
    MAX_SHARED_MEM,
    MAX_THREADS,
    check_block,
    check_layout,
    check_launch_bounds,
    check_shared_mem,
    dim3,
    grid_dims,
    optional_mismatch,
    scalar_value,
    shared_mem_bytes,
    struct_record,
)
from kdsl.runtime.interpreter import ranks, simt
from kdsl.runtime.interpreter.memory import Memory

__all__ = ["InterpretError", "bind_arguments", "interpret"]


# -- binding arguments ---------------------------------------------------------------------
def bind_arguments(kernel, inst, kernel_ir, args):
    """IR parameter name -> value for the interpreter, from the user's
    arguments (numpy arrays; CuPy/PyTorch ones are copied to the host).
    Returns (env, write_backs) where write_backs copy results back."""
    params = kernel.signature.runtime
    if len(args) != len(params):
        kernel._bad_count(args)
    ir_params = iter(kernel_ir.params)
    env, write_backs = {}, []
    dtype_map = dict(zip((tv.name for tv in kernel.signature.typevars), inst.dtypes))
    alignment = inst.lowered.alignment  # what .vec(N) needs, as on the GPU
    for info, value in zip(params, args):
        if info.optional and (value is None) != (info.name in inst.absent):
            raise optional_mismatch(inst, info.name, value)
        if info.name in inst.absent:
            continue  # not a parameter of this instance
        if info.kind == "tensormap":
            raise error("interpret-tensor-map", kernel=kernel.name, param=info.name)
        elem = getattr(info.spec, "elem", info.spec)
        if isinstance(elem, VectorMeta):
            raise error(
                "interpret-vector-pointer",
                param=info.name,
                type=elem.__name__,
                scalar=elem.dtype.__name__,
                lanes=elem.lanes,
            )
        concrete = isinstance(elem, (NumericMeta, StructMeta))
        t = elem if concrete else dtype_map[elem.name]
        p = next(ir_params)
        if info.kind == "struct":
            env[p.name] = struct_record(info.name, t, value)
            continue
        if info.kind == "scalar":
            env[p.name] = values.from_python(scalar_value(info.name, t, value), t)
            continue
        host, back, address = _host_array(info.name, value, t)
        ranks.register(value, host, info.name)  # a peer's array (kdsl.peer_pointer)
        if back is not None:
            write_backs.append(back)
        if any(stride % host.itemsize for stride in host.strides):
            raise error(  # a structured array's field: strides in bytes
                "launch-array-element-stride",
                param=info.name,
                strides=host.strides,
                type=t.__name__,
                itemsize=host.itemsize,
            )
        written = info.name in inst.lowered.written
        if written and not host.flags.writeable:
            raise error("launch-read-only", param=info.name)
        check_layout(info.name, t, address, host.shape, host.strides, written)
        if info.kind == "pointer":
            if not host.flags.c_contiguous:
                raise error("launch-array-contiguous", param=info.name, type=t.__name__)
            align = alignment.get(info.name, 1)
            if address % align:
                raise error(
                    "launch-array-alignment",
                    param=info.name,
                    align=align,
                    address=f"{address:#x}",
                )
            env[p.name] = Memory(host.reshape(-1), t, info.name)
            continue
        if host.ndim != info.spec.ndim:
            raise error(
                "launch-array-ndim",
                param=info.name,
                type=t.__name__,
                ndim=info.spec.ndim,
                got=host.ndim,
            )
        env[p.name] = _strided_memory(host, t, info.name)
        strides = [s // host.itemsize for s in host.strides]
        for n in host.shape:
            env[next(ir_params).name] = int(n)
        for s in strides:
            env[next(ir_params).name] = int(s)
    return env, write_backs


def _strided_memory(host, t, name) -> Memory:
    """The elements an array view can reach, as one flat run of memory (from
    its lowest address: strides may be negative)."""
    strides = [s // host.itemsize for s in host.strides]
    if not host.size:
        return Memory(host.reshape(-1)[:0], t, name)
    lowest = tuple(
        slice(n - 1, n) if s < 0 else slice(0, 1) for n, s in zip(host.shape, strides)
    )
    low = sum(min(0, (n - 1) * s) for n, s in zip(host.shape, strides))
    high = sum(max(0, (n - 1) * s) for n, s in zip(host.shape, strides))
    flat = np.lib.stride_tricks.as_strided(
        host[lowest], shape=(high - low + 1,), strides=(host.itemsize,)
    )
    return Memory(flat, t, name, origin=-low)


def _host_array(name, value, t):
    if isinstance(value, np.ndarray):
        host, back, address = value, None, _offset_in_allocation(value)
    elif type(value).__module__.split(".")[0] == "cupy":
        host, address = value.get(), value.data.ptr
        back = lambda: value.set(host)  # noqa: E731
    elif type(value).__module__.split(".")[0] == "torch":
        host, back = _torch_on_host(value)
        address = value.data_ptr()
    else:
        raise error(
            "launch-not-an-array",
            param=name,
            accepted="an array (numpy, CuPy or PyTorch)",
            got=type(value).__name__,
        )
    if is_struct(t) and host.dtype != t.dtype:
        return _records(name, value, host, back, address, t)
    if t.np_dtype is None or host.dtype != t.np_dtype:
        raise error("launch-array-dtype", param=name, type=t.__name__, got=host.dtype)
    return host, back, address


def _records(name, value, host, back, address, t):
    """A byte array (uint8, contiguous) passed for a pointer to structs:
    its bytes viewed as the records (written back through the same bytes)."""
    if host.dtype != np.uint8 or not host.flags.c_contiguous or host.size % t.size:
        got = f"{host.dtype} (an array of {t.__name__}.dtype or of its bytes, uint8)"
        raise error("launch-array-dtype", param=name, type=t.__name__, got=got)
    return host.reshape(-1).view(t.dtype), back, address


def _torch_on_host(tensor):
    """A numpy copy (or, for a CPU tensor, view) of a PyTorch tensor and the
    function that copies it back; bfloat16 travels as its bits (numpy has no
    bfloat16 of PyTorch's, ml_dtypes has)."""
    import ml_dtypes
    import torch

    t = tensor.detach()
    if t.dtype == torch.bfloat16:
        host = t.view(torch.int16).cpu().numpy().view(ml_dtypes.bfloat16)
        return host, lambda: t.view(torch.int16).copy_(
            torch.from_numpy(host.view(np.int16))
        )
    host = t.cpu().numpy()
    return host, lambda: t.copy_(torch.from_numpy(host))


def _offset_in_allocation(a: np.ndarray) -> int:
    """Where ``a`` starts in the numpy array that owns its memory: the GPU's
    allocations are aligned far beyond any vector, numpy's only to 16 bytes,
    so alignment is judged as if the owner were a device allocation."""
    root = a
    while isinstance(root.base, np.ndarray):
        root = root.base
    return a.ctypes.data - root.ctypes.data


def interpret(kernel, inst, grid, block, args, shared_mem=0):
    """Run ``inst`` of ``kernel`` on the CPU, with ``shared_mem`` bytes of
    dynamic shared memory a block."""
    grid, block = grid_dims(grid), dim3(block, "block")  # as on the GPU
    check_block(kernel.name, block, MAX_THREADS, BLOCK_LIMITS, "CUDA")
    check_launch_bounds(kernel.name, block, kernel.options, inst.constexprs)
    shared_mem = shared_mem_bytes(shared_mem)
    grid, block = _padded(grid), _padded(block)
    threads = math.prod(grid) * math.prod(block)
    if limits.INTERPRETED_THREADS.exceeded(threads):
        raise error(
            "interpret-thread-limit",
            threads=threads,
            grid=grid,
            block=block,
            cap=limits.INTERPRETED_THREADS.value(),
            env=limits.INTERPRETED_THREADS.env,
        )
    lowered = inst.rewritten  # what the GPU runs: contracted fmas included
    if shared_mem:
        static = static_shared_bytes(lowered)
        where = "the interpreter, like the largest GPUs,"
        check_shared_mem(kernel.name, shared_mem, MAX_SHARED_MEM, static, where)
    ranks.new_launch()  # outside kdsl.run_ranks: its own arrays are its peers
    try:
        env, write_backs = bind_arguments(kernel, inst, lowered.kernel, args)
        if lowered.assertions:  # a failed assert raises at once: nothing reads it
            record = lowered.kernel.params[-1].name
            env[record] = Memory(np.zeros(8, np.int32), Int32, "the assertion record")
        simt.run(
            lowered.kernel,
            lowered.by_name,
            grid,
            block,
            env,
            lowered.cooperative,
            shared_mem,
            {t.cname: Memory(t.values, t.elem, t.name) for t in lowered.constants},
        )
        for back in write_backs:
            back()
    finally:
        ranks.new_launch()  # and only while it runs


def static_shared_bytes(lowered) -> int:
    """The bytes of the instance's static shared arrays (its kernel's and
    device functions'), without the padding a compiler may add."""
    total = 0
    for f in (lowered.kernel, *lowered.functions):
        for s in ir.statements(f.body):
            if isinstance(s, ir.ArrayDecl) and s.space == "shared":
                total += int(np.prod(s.shape)) * _bytes(s.elem)
    return total


def _bytes(t) -> int:
    """The bytes of one element of type ``t`` on the GPU."""
    if isinstance(t, VectorMeta):
        return _bytes(t.dtype) * t.lanes
    return t.np_dtype.itemsize if t.np_dtype is not None else t.width // 8


def _padded(dims: tuple) -> tuple:
    return tuple(dims) + (1,) * (3 - len(dims))
