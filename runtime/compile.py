"""From a kernel instance to a loaded CUDA function, with every step cached.

1. Transpiled source: in memory on the instance, on disk keyed by the
   kernel's source files, kdsl's own sources and the instance.
2. Binary (cubin): on disk keyed by the source, the architecture, NVRTC's
   version and the options (kdsl's and the kernel's own, ``maxrregcount``).
3. Loaded module and function: in memory per (instance, device).

A new process with a warm cache therefore neither transpiles nor compiles.
"""

from __future__ import annotations

import hashlib
import struct
from functools import lru_cache
from importlib import resources
from pathlib import Path
from types import CodeType, ModuleType

import numpy as np

from kdsl.runtime import cache, nvrtc
from kdsl.transpile.core.structs import is_struct
from kdsl.transpile.core.types import Numeric, NumericMeta, VectorMeta
from kdsl.transpile.pipeline import Transpiled, entry_name
from kdsl.transpile.version import __version__


def _kdsl_function(value) -> bool:
    """A ``@kdsl.kernel`` or ``@kdsl.func`` (by their marks: this module is
    below the kernel module); the classes carrying the marks are not one
    (``from kdsl import *`` brings ``Kernel`` into a kernel's module)."""
    return not isinstance(value, type) and bool(
        getattr(value, "__kdsl_kernel__", False)
        or getattr(value, "__kdsl_func__", False)
    )


@lru_cache(maxsize=None)
def kdsl_fingerprint() -> str:
    """A hash of kdsl's own transpiler and templates: a new kdsl, new keys."""
    files = []
    for pkg in ("kdsl", "kdsl.transpile", "kdsl.templates"):
        base = Path(str(resources.files(pkg)))
        files += sorted(p for p in base.rglob("*") if p.suffix in (".py", ".h", ".j2"))
    return cache.digest(__version__, *(f.read_bytes() for f in files))


def kernel_fingerprint(kernel) -> str:
    """A hash of what a kernel's code can come from: the files of its module
    and of the device functions, kernels and modules it refers to (followed
    through device functions and module attributes, wherever they live), and
    the values of the module-level constants it reads (``from cfg import
    TILE`` changes with cfg.py, and a value computed at import changes with
    no file at all)."""
    paths = {kernel.fn.__code__.co_filename}
    for value in list(kernel.fn.__globals__.values()):
        if _kdsl_function(value):
            paths.add(value.fn.__code__.co_filename)
    constants: set = set()
    seen: set = set()

    def visit(fn):
        if id(fn) in seen:
            return
        seen.add(id(fn))
        paths.add(fn.__code__.co_filename)
        names = _names(fn.__code__)
        scopes = [fn.__globals__]
        while scopes:
            scope = scopes.pop()
            for name in names:
                value = scope.get(name, _MISSING)
                if _kdsl_function(value):
                    visit(value.fn)
                elif isinstance(value, ModuleType):
                    if id(value) not in seen:
                        seen.add(id(value))
                        if getattr(value, "__file__", None):
                            paths.add(value.__file__)
                        scopes.append(vars(value))
                elif _is_constant(value):
                    constants.add(f"{name}={_constant_key(value)}")
                elif isinstance(value, np.ndarray):  # a constant table
                    constants.add(f"{name}={_array_key(value)}")
                elif is_struct(value):  # its layout, wherever it is defined
                    constants.add(f"{name}={_struct_key(value)}")

    visit(kernel.fn)
    for info in kernel.signature.params:  # struct types of the annotations
        elem = getattr(info.spec, "elem", info.spec)
        if is_struct(elem):
            constants.add(f"{info.name}:{_struct_key(elem)}")
    texts = []
    for path in sorted(paths):
        try:
            texts.append(Path(path).read_bytes())
        except OSError:
            texts.append(path.encode())
    return cache.digest(*texts, *sorted(constants))


_MISSING = object()


def _names(code) -> set:
    """The global and attribute names a function's code reads."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, CodeType):
            names |= _names(const)
    return names


def _array_key(a: np.ndarray) -> str:
    """A module-level array by its dtype, shape and the hash of its bytes."""
    digest = hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()
    return f"ndarray:{a.dtype.str}:{a.shape}:{digest}"


def _struct_key(t) -> str:
    """A struct type by its name, packing and every field (nested structs
    by their own keys)."""

    def of(u) -> str:
        if is_struct(u):
            return _struct_key(u)
        elem = getattr(u, "elem", None)  # an array field: T[count]
        return f"{of(elem)}[{u.count}]" if elem is not None else repr(u)

    fields = ",".join(f"{f.name}:{of(f.type)}@{f.offset}" for f in t.fields)
    return f"struct:{t.__qualname__}:{t.packed}:{t.size}:{t.align}:({fields})"


def _constant_key(value) -> str:
    """A module constant by its type and exact value: a float by its bits
    (``repr`` spells every NaN ``nan``, and the payload reaches the source)."""
    if isinstance(value, tuple):
        return "(" + ",".join(_constant_key(v) for v in value) + ")"
    if isinstance(value, np.generic):  # a numpy (or ml_dtypes) scalar: its bytes
        return f"{type(value).__name__}:{value.dtype.str}:{value.tobytes().hex()}"
    bits = getattr(value, "bits", None)  # a NaN remembering its bits (NaNBits)
    if isinstance(value, float) and isinstance(bits, int):
        return f"NaNBits:{getattr(value, 'type_name', '')}:{bits:x}"
    if isinstance(value, float):
        return f"{type(value).__name__}:{struct.pack('<d', value).hex()}"
    if isinstance(value, complex):
        bits = struct.pack("<dd", value.real, value.imag).hex()
        return f"{type(value).__name__}:{bits}"
    if isinstance(value, Numeric) and isinstance(getattr(value, "_value", None), float):
        return f"{type(value).__name__}:{_constant_key(value._value)}"
    return f"{type(value).__name__}:{value!r}"


def _is_constant(value) -> bool:

    if isinstance(value, tuple):
        return all(_is_constant(v) for v in value)
    return value is None or isinstance(
        value,
        (
            bool,
            int,
            float,
            complex,
            str,
            bytes,
            np.generic,
            Numeric,
            NumericMeta,
            VectorMeta,
        ),
    )


def transpiled(inst) -> Transpiled:
    """The instance's source and requirements: the disk cache's entry if
    there, else transpiled and stored there (``KernelInstance.cached`` keeps
    the answer)."""
    kernel = inst.kernel
    key = cache.digest(
        kdsl_fingerprint(),
        kernel.fingerprint,
        kernel.fn.__qualname__,
        kernel.fn.__code__.co_firstlineno,  # a redefinition of the same name
        kernel.fn.__code__.co_filename,  # where its assertions are (a copy moved)
        inst.name,
        "debug" if kernel.debug else "release",
        repr(kernel.options),  # launch_bounds, contract= … change the source
    )
    entry = cache.SOURCES.get(key, Transpiled.from_json)
    if entry is None:
        entry = inst.compilation.transpiled()
        cache.SOURCES.put(key, entry.to_json().encode())
    return entry


def _decode_cubin(payload: bytes) -> bytes:
    cache.expect(payload.startswith(b"\x7fELF"), "an ELF image")
    return payload


@lru_cache(maxsize=None)
def device_arch(device_id: int) -> str:
    import cupy

    return "sm_" + cupy.cuda.Device(device_id).compute_capability


def target_arch(inst, arch: str, where: str = "the device") -> str:
    """What ``inst`` compiles to for architecture ``arch`` (a device's, from
    :func:`device_arch`, or ``kdsl-transpile --arch``: ``where`` names it in
    the error): ``arch`` itself, or the architecture-specific ``sm_90a`` an
    instance that calls a Hopper built-in (wgmma, setmaxnreg) needs — which
    only compute capability 9.0 runs (E361 elsewhere)."""
    required = inst.cached.arch
    if required is None or arch == required:
        return arch
    if arch != required.rstrip("a"):
        from kdsl.transpile.errors import error

        raise error(
            "launch-arch",
            kernel=inst.kernel.name,
            callee=_first_caller(inst, required),
            where=where,
            arch=arch,
        )
    return required


def _first_caller(inst, arch: str) -> str:
    """The first built-in of ``inst`` that needs ``arch`` (for E361)."""
    from kdsl.transpile import builtins, ir

    lowered = inst.lowered
    for f in lowered.functions + (lowered.kernel,):
        for e in ir.expressions(f.body):
            if isinstance(e, ir.BuiltinCall) and builtins.get(e.builtin).arch == arch:
                return builtins.get(e.builtin).spelled
    return "an sm_90a built-in"


def cubin_for(inst, arch: str) -> bytes:
    """``inst``'s cubin for a device of architecture ``arch`` (compiled for
    :func:`target_arch`)."""
    arch = target_arch(inst, arch)
    source = inst.cached.source
    options = inst.kernel.options.nvrtc_options()
    key = cache.digest(
        source, arch, nvrtc.nvrtc_version(), *nvrtc.EXACT_OPTIONS, *options
    )
    cubin = cache.BINARIES.get(key, _decode_cubin)
    if cubin is None:
        cubin = nvrtc.compile_to_cubin(source, inst.name, arch=arch, options=options)
        cache.BINARIES.put(key, cubin)
    return cubin


def load_function(inst, device_id: int):
    """The CuPy ``Function`` of ``inst`` on device ``device_id`` (loaded once)."""
    import cupy

    cubin = cubin_for(inst, device_arch(device_id))
    with cupy.cuda.Device(device_id):
        module = cupy.cuda.function.Module()
        module.load(cubin)
        return module.get_function(entry_name(inst.name))
