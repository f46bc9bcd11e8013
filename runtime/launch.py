"""Launching: ``kernel[grid, block](*args, stream=None, shared_mem=0, **constexprs)``.

The launch path is a hot path.  Each (dtypes, constexprs, device) gets a
``LaunchPlan`` once: the compiled function plus a small Python function
generated for that signature, which checks and packs the arguments with
plain attribute reads and comparisons (CuPy arrays and PyTorch tensors take
the fast branch) and calls CuPy's ``Function``.  Anything unusual falls to
``check_argument``, the one slow, thorough place that names the parameter in
its error.  Nothing is launched when an argument is wrong.  An instance that
grid-syncs launches through :class:`Cooperative` (a co-residency check,
then a cooperative launch); the others' launch functions do not change.
"""

from __future__ import annotations

import functools
import math
import os
import sys
import threading
import warnings

from dataclasses import dataclass, replace

import numpy as np

from kdsl.runtime import arrays
from kdsl.runtime.checks import (
    check_layout,
    optional_mismatch,
    check_launch_bounds,
    check_shared_mem,
    dim3 as _dim3,
    grid_dims as _grid_dims,
    scalar_packer,
    scalar_value,
    shared_mem_bytes,
    struct_record,
)
from kdsl.runtime import compile as kcompile
from kdsl.runtime import debug
from kdsl.runtime.nvrtc import require_cuda_extra
from kdsl.runtime.tensormap import check_tensor_map
from kdsl.transpile.core.structs import StructMeta, is_struct
from kdsl.transpile.core.types import Numeric, NumericMeta, VectorMeta
from kdsl.transpile.errors import DSLError, error
from kdsl.transpile.tracebacks import for_the_user

# A constexpr that takes more distinct values than this in one process gets a
# warning: each value is a separate compilation (reference, "Choosing what to
# specialise on").
MANY_INSTANCES = 8


class _Intercept(threading.local):
    """Per thread: ``hook(launcher, args, stream, shared_mem, constexprs)``
    takes every launch in its place while set (``kdsl.torch`` records
    launches for autograd, skips them on fake tensors while PyTorch traces,
    and runs them in the interpreter on CPU tensors)."""

    hook = None


INTERCEPT = _Intercept()

# os.environ's own bytes -> bytes mapping, where the platform has one: a
# lookup in it costs a dict read, os.environ.get several times that (it
# encodes the key and decodes the value), and the autotuned launch's fast
# path asks at every call.
_ENVIRON = getattr(os, "environ")
_ENVIRON_BYTES = getattr(_ENVIRON, "_data", None)
if not (isinstance(_ENVIRON_BYTES, dict) and os.name == "posix"):
    _ENVIRON_BYTES = None


def interpret_requested() -> bool:
    """Whether ``KDSL_INTERPRET=1`` is set now (every launch in the
    interpreter, SPEC section 9)."""
    if _ENVIRON_BYTES is not None:
        return _ENVIRON_BYTES.get(b"KDSL_INTERPRET") == b"1"
    return _ENVIRON.get("KDSL_INTERPRET") == "1"


class Launcher:
    """``kernel[grid, block]``: call it with the kernel's arguments.

    The fast path (at most one dtype parameter or a fixed instance, a fixed
    grid) finds its plan with one dict lookup keyed by the dtype of one
    argument and the current device, and, where they pick the instance, the
    constexpr keywords and which optional pointers are None (autotuned
    launches pass their configuration as keywords); everything else goes
    through ``Kernel._launch``, which also fills ``plans``.
    """

    __slots__ = (
        "kernel",
        "grid",
        "block",
        "follows",
        "threads",
        "instance",
        "plans",
        "dt_index",
        "last",
        "optional_at",
    )

    def __init__(self, kernel, config, instance=None):
        how = instance.name if instance is not None else kernel.name
        grid, block, self.follows = launch_config(kernel, config, instance, how)
        self.kernel = kernel
        self.grid = grid if callable(grid) else _grid_dims(grid)
        self.block = _dim3(block, "block") if block is not None else None
        # (position, name) of the optional pointers whose None picks the instance
        self.optional_at = kernel.signature.optional_at if instance is None else ()
        if self.block is None:  # BLOCK given at each launch: the thorough path
            self.threads, self.instance, self.plans = 0, instance, {}
            self.last, self.dt_index = (None, None, None), None
            _init_device_query()
            return
        self.threads = 1
        for b in self.block:
            self.threads *= b
        check_launch_bounds(kernel.name, self.block, kernel.options)
        self.instance = instance
        # (dtype number, device[, constexprs, absent pointers]) -> launch function
        self.plans: dict = {}
        self.last = (None, None, None)  # (dtype object, device, launch function)
        self.dt_index = None
        if not callable(grid):
            if instance is not None:
                self.dt_index = -1  # the plan depends on the device only
            elif len(kernel._dtype_args) == 1:
                self.dt_index = kernel._dtype_args[0]
            elif not kernel.signature.typevars:
                self.dt_index = -1  # no dtype parameters: the device only
        _init_device_query()

    def __call__(self, *args, stream=None, shared_mem=0, **constexprs):
        try:  # no cost unless raised (its DSLErrors: kdsl's frames hidden)
            if INTERCEPT.hook is not None:  # kdsl.torch traces or interprets
                return INTERCEPT.hook(self, args, stream, shared_mem, constexprs)
            i = self.dt_index
            if i is not None:
                try:
                    dt = args[i].dtype if i >= 0 else None
                except (IndexError, AttributeError):
                    dt = False
                if dt is not False:
                    try:
                        device = _get_device()
                    except Exception:  # no GPU: the thorough path says so
                        return self.kernel._launch(
                            self, args, constexprs, stream, shared_mem
                        )
                    block = self.block
                    if constexprs or self.optional_at:
                        try:  # the block too: it may follow a constexpr keyword
                            launch, block = self.plans.get(
                                self._keyed(dt, device, args, constexprs), (None, None)
                            )
                        except (TypeError, IndexError):  # unhashable, or too few
                            launch = None  # arguments: the thorough path says so
                    else:
                        last_dt, last_device, launch = self.last
                        if dt is not last_dt or device != last_device:
                            try:
                                launch = self.plans.get(
                                    (getattr(dt, "num", dt), device)
                                )
                            except TypeError:  # an unhashable dtype: the thorough path
                                launch = None
                            if launch is not None:
                                self.last = (dt, device, launch)
                    if launch is not None:
                        if stream is not None:
                            stream = as_cupy_stream(stream)
                        return launch(self.grid, block, args, stream, shared_mem)
            return self.kernel._launch(self, args, constexprs, stream, shared_mem)
        except DSLError as exc:
            raise for_the_user(exc)  # kdsl's frames hidden; KDSL_TRACEBACK=1: all

    def _keyed(self, dt, device, args, constexprs) -> tuple:
        """The plan key of a launch whose keywords or None pointers matter."""
        absent = ()
        for i, _ in self.optional_at:
            if args[i] is None:
                absent += (i,)
        return (getattr(dt, "num", dt), device, constexpr_key(constexprs), absent)

    def remember(self, plan, args, constexprs, device, block):
        """Keep ``plan`` (launched with ``block``) for the fast path when this
        call could have used it."""
        i = self.dt_index
        if i is None:
            return
        try:
            dt = args[i].dtype if i >= 0 else None
        except (IndexError, AttributeError):
            return
        if constexprs or self.optional_at:
            try:
                key = self._keyed(dt, device, args, constexprs)
                self.plans[key] = (plan.launch, block)
            except (TypeError, IndexError):  # unhashable: the thorough path each time
                pass
            return
        self.plans[(getattr(dt, "num", dt), device)] = plan.launch
        self.last = (dt, device, plan.launch)


def constexpr_key(constexprs: dict) -> tuple:
    """The launch keywords as a plan key: by type too (``B=True`` is not
    ``B=1``, which the check would refuse) and floats by their repr
    (``-0.0`` is not ``0.0``).  Plain ints, the usual case, key as they are
    (pairs, where the typed key has triples: the two never collide)."""
    for v in constexprs.values():
        if v.__class__ is not int:
            return tuple(
                (k, type(v), repr(float(v)) if isinstance(v, float) else v)
                for k, v in constexprs.items()
            )
    return tuple(constexprs.items())


def launch_config(kernel, config, instance, how: str) -> tuple:
    """``(grid, block, follows)`` of ``kernel[config]``: ``[grid, block]``,
    or ``[grid]`` for a kernel declared with ``block=`` (a block shape, or
    the name of the constexpr the block follows: ``follows`` is true and the
    block is that constexpr's value in ``instance``, else its default, else
    None: known at each launch)."""
    option = kernel.block_option
    if isinstance(config, tuple) and len(config) == 2:
        return config[0], config[1], False
    if option is None:
        if isinstance(config, tuple) and len(config) != 1:
            raise error("launch-syntax", name=kernel.name, how=how)
        raise error("launch-block-undeclared", kernel=kernel.name, how=how)
    grid = config[0] if isinstance(config, tuple) and len(config) == 1 else config
    if not isinstance(option, str):
        return grid, option, False
    if instance is not None:
        return grid, instance.constexprs[option], True
    spec = next(c for c in kernel.signature.constexprs if c.name == option)
    return grid, spec.default if spec.has_default else None, True


def check_tied_block(kernel, block, instance) -> None:
    """A block that differs from the constexpr a kernel declared it follows."""
    param = kernel.block_option
    if not isinstance(param, str) or block is None:
        return
    value = instance.constexprs[param]
    threads = 1
    for b in block:
        threads *= b
    if threads != value or block[0] != value:
        shown = tuple(block) + (1,) * (3 - len(block))
        raise error(
            "launch-block-mismatch",
            kernel=kernel.name,
            param=param,
            value=value,
            block=shown,
            threads=threads,
        )


_get_device = None


def _init_device_query():
    global _get_device
    if _get_device is None:
        try:
            import cupy
        except ImportError:  # each launch reports it (current_device)
            return
        _get_device = cupy.cuda.runtime.getDevice


def current_device() -> int:
    """The current CUDA device; CuPy's exception when there is none (no
    driver, no GPU) or ImportError without CuPy (the caller reports it)."""
    import cupy

    return cupy.cuda.runtime.getDevice()


def no_gpu(kernel: str, exc: BaseException):
    """E503 for ``kernel``, from the exception ``current_device`` raised."""
    detail = str(exc) or type(exc).__name__
    if isinstance(exc, ImportError):
        require_cuda_extra(f"launching kernel '{kernel}' on the GPU")
        detail = f"CuPy cannot be imported: {detail}"
    return error("launch-no-gpu", kernel=kernel, name=kernel, detail=detail)


_STREAMS: dict = {}


def as_cupy_stream(stream):
    """A CuPy stream for a CuPy stream, a PyTorch stream or anything with a
    ``cuda_stream``/``ptr`` attribute (cached per stream pointer)."""
    import cupy

    if isinstance(stream, cupy.cuda.Stream):
        return stream
    ptr = getattr(stream, "cuda_stream", None)
    if ptr is None:
        ptr = getattr(stream, "ptr", None)
    if not isinstance(ptr, int):
        raise error("launch-stream", got=repr(stream))
    return _external_stream(ptr)


def _external_stream(ptr: int):
    """The CuPy stream over the CUDA stream ``ptr`` (made once per pointer)."""
    import cupy

    if ptr not in _STREAMS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            _STREAMS[ptr] = cupy.cuda.ExternalStream(ptr)
    return _STREAMS[ptr]


def torch_stream(device: int):
    """PyTorch's current stream on ``device`` as a CuPy stream: a launch on
    tensors with no ``stream=`` goes where PyTorch would put its own work
    (inside ``torch.cuda.stream(s)`` or a graph capture, too)."""
    import cupy
    import torch

    ptr = raw_stream_query(torch)(device)
    return cupy.cuda.Stream.null if ptr == 0 else _external_stream(ptr)


def raw_stream_query(torch):
    """PyTorch's ``device -> its current stream's CUstream`` (a C function;
    ``torch.cuda.current_stream()`` makes a Python object each call)."""
    query = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if query is None:  # a build without CUDA: no tensor of it reaches a launch
        return lambda device: torch.cuda.current_stream(device).cuda_stream
    return query


_LIMITS: dict = {}


def max_threads_per_block(device: int) -> int:
    if device not in _LIMITS:
        import cupy

        _LIMITS[device] = cupy.cuda.Device(device).attributes["MaxThreadsPerBlock"]
    return _LIMITS[device]


_BLOCK_DIMS: dict = {}


def max_block_dims(device: int) -> tuple:
    """The device's largest block in x, y and z (z is 64 on every GPU so far)."""
    if device not in _BLOCK_DIMS:
        import cupy

        attrs = cupy.cuda.Device(device).attributes
        _BLOCK_DIMS[device] = tuple(attrs[f"MaxBlockDim{c}"] for c in "XYZ")
    return _BLOCK_DIMS[device]


_SHARED_OPTIN: dict = {}


def shared_mem_optin(device: int) -> int:
    """The most shared memory a block may opt into on ``device`` (static
    and dynamic together)."""
    if device not in _SHARED_OPTIN:
        import cupy

        props = cupy.cuda.runtime.getDeviceProperties(device)
        _SHARED_OPTIN[device] = int(props["sharedMemPerBlockOptin"])
    return _SHARED_OPTIN[device]


def function_attribute(function, attribute: str) -> int:
    """A ``CU_FUNC_ATTRIBUTE_<attribute>`` of a loaded CuPy ``Function``."""
    from cupy.cuda import driver

    return driver.funcGetAttribute(
        getattr(driver, f"CU_FUNC_ATTRIBUTE_{attribute}"), function.ptr
    )


def set_function_attribute(function, attribute: str, value: int) -> None:
    from cupy.cuda import driver

    driver.funcSetAttribute(
        function.ptr, getattr(driver, f"CU_FUNC_ATTRIBUTE_{attribute}"), value
    )


class DynamicSharedMemory:
    """A plan's ``shared_mem=``: checked against what the device allows the
    function (its opt-in limit, less the function's static shared memory),
    and the function's maximum dynamic shared memory raised, once per size,
    for a size above it (CUDA's default is 48 KB less the static part).
    Called by the launch only when ``shared_mem`` is not 0."""

    def __init__(self, kernel_name: str, function, device: int):
        self.kernel_name, self.function, self.device = kernel_name, function, device
        self.allowed: set = set()  # sizes checked and allowed so far
        self.current = None  # the function's maximum, once read

    def __call__(self, shared_mem) -> None:
        if type(shared_mem) is int and shared_mem in self.allowed:
            return
        size = shared_mem_bytes(shared_mem)
        if self.current is None:
            self.current = function_attribute(
                self.function, "MAX_DYNAMIC_SHARED_SIZE_BYTES"
            )
            self.static = function_attribute(self.function, "SHARED_SIZE_BYTES")
        total = shared_mem_optin(self.device)
        where = f"device {self.device}"
        check_shared_mem(self.kernel_name, size, total, self.static, where)
        if size > self.current:
            set_function_attribute(self.function, "MAX_DYNAMIC_SHARED_SIZE_BYTES", size)
            self.current = size
        self.allowed.add(size)


# -- scalars ----------------------------------------------------------------------
def check_scalar(param, t, value):
    """A scalar argument checked against its declared type, then packed."""
    value = scalar_value(param, t, value)
    try:
        return scalar_packer(t)(value)
    except OverflowError:
        raise error(
            "launch-scalar-range",
            param=param,
            type=t.__name__,
            value=value,
            bounds=f"the range of {t.__name__}",
        ) from None


def check_struct(param, t, value):
    """A struct argument checked, as CuPy passes it by value: a one-element
    array of a void dtype of the struct's size (its bytes are copied into
    the launch's parameter buffer, where the kernel's C++ struct lies)."""
    record = struct_record(param, t, value)
    return np.frombuffer(record.tobytes(), np.uint8).view(f"V{t.size}")


# -- arrays ------------------------------------------------------------------------------
def check_array(param, kind, t, value, device, align, written=False):
    """An array argument checked (device, dtype, layout, alignment), then
    packed; ``written``: the kernel may store to it."""
    try:
        info = arrays.describe(value)
    except Exception as e:  # whatever a foreign object raises, name the parameter
        raise error(
            "launch-array-unreadable",
            param=param,
            type=type(value).__name__,
            detail=e,
        ) from None
    if info is None:
        raise error(
            "launch-not-an-array",
            param=param,
            accepted="a device array (CuPy, PyTorch CUDA, __cuda_array_interface__ "
            "or DLPack)",
            got=type(value).__name__,
        )
    if info.device is None:
        raise error("launch-host-array", param=param, library=info.library)
    if info.device != device:
        raise error("launch-array-device", param=param, got=info.device, device=device)
    if is_struct(t):
        info = _records(param, t, value, info)
    elif info.dtype is not t:
        got = info.dtype.__name__ if info.dtype is not None else "an unsupported dtype"
        raise error("launch-array-dtype", param=param, type=t.__name__, got=got)
    if info.strides is not None:
        check_layout(param, t, info.ptr, info.shape, info.strides, written)
    if kind == "pointer":
        if not info.contiguous:
            raise error("launch-array-contiguous", param=param, type=t.__name__)
        if info.ptr % align:
            raise error(
                "launch-array-alignment",
                param=param,
                align=align,
                address=f"{info.ptr:#x}",
            )
        return (np.uintp(info.ptr),)
    ndim = kind[1]
    if len(info.shape) != ndim:
        raise error(
            "launch-array-ndim",
            param=param,
            type=t.__name__,
            ndim=ndim,
            got=len(info.shape),
        )
    if info.strides is None:
        raise error("launch-array-strides", param=param)
    return (
        np.uintp(info.ptr),
        *(np.int64(n) for n in info.shape),
        *(np.int64(s) for s in info.strides),
    )


def _records(param, t, value, info):
    """A device array for a pointer to structs: of the struct's dtype, or
    its bytes (uint8, contiguous, a whole number of records); ``info`` with
    its shape and strides counted in records."""
    dtype = getattr(value, "dtype", None)
    if dtype == t.dtype:
        return info
    size = math.prod(info.shape)
    if dtype == np.uint8 and info.contiguous and size % t.size == 0:
        return replace(info, shape=(size // t.size,), strides=(1,))
    got = f"{dtype} (an array of {t.__name__}.dtype or of its bytes, uint8)"
    raise error("launch-array-dtype", param=param, type=t.__name__, got=got)


# -- plans -----------------------------------------------------------------------------------
class LaunchPlan:
    """One instance on one device: its function and its argument packer."""

    def __init__(self, kernel, inst, device: int):

        self.kernel = kernel
        self.instance = inst
        self.device = device
        transpiled = inst.cached
        function = self.loaded = kcompile.load_function(inst, device)
        if transpiled.cooperative:  # it grid-syncs
            function = Cooperative(function, kernel.name, device)
        self.function = debug.checked(function, transpiled, device)  # asserts
        self.alignment = transpiled.alignment
        self.refresh()

    def refresh(self):
        """(Re)generate the packer; it knows PyTorch only if it was imported."""
        self.knows_torch = "torch" in sys.modules
        self.launch = _generate(
            self.kernel,
            self.instance,
            self.device,
            self.function,
            self.alignment,
            self.loaded,
        )

    def current(self) -> "LaunchPlan":
        """This plan, its packer regenerated if PyTorch came after it."""
        if not self.knows_torch and "torch" in sys.modules:
            self.refresh()
        return self


# -- cooperative launches (kdsl.grid_sync) ---------------------------------------------
_COOPERATIVE: dict = {}


def cooperative_device(device: int) -> tuple:
    """``(whether device can launch cooperatively, its multiprocessor count)``."""
    if device not in _COOPERATIVE:
        import cupy

        attrs = cupy.cuda.Device(device).attributes
        _COOPERATIVE[device] = (
            bool(attrs["CooperativeLaunch"]),
            attrs["MultiProcessorCount"],
        )
    return _COOPERATIVE[device]


class Cooperative:
    """A kernel that grid-syncs, launched as a launch plan's function: it
    checks that every block of the grid can be resident at once (a grid
    barrier waits for all of them) and launches cooperatively, as
    cooperative groups' ``this_grid().sync()`` requires."""

    __slots__ = ("function", "kernel", "device", "sms", "per_sm")

    def __init__(self, function, kernel: str, device: int):
        supported, self.sms = cooperative_device(device)
        if not supported:
            raise error("launch-not-cooperative", kernel=kernel, device=device)
        self.function, self.kernel, self.device = function, kernel, device
        self.per_sm: dict = {}  # (threads a block, dynamic shared memory) -> blocks

    def __call__(self, grid, block, args, shared_mem, stream):
        blocks = threads = 1
        for n in grid:
            blocks *= n
        for n in block:
            threads *= n
        per_sm = self.per_sm.get((threads, shared_mem))
        if per_sm is None:
            import cupy

            per_sm = cupy.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(
                self.function.ptr, threads, shared_mem
            )
            self.per_sm[(threads, shared_mem)] = per_sm
        if blocks > per_sm * self.sms:
            raise error(
                "launch-grid-not-resident",
                kernel=self.kernel,
                blocks=blocks,
                grid=grid,
                device=self.device,
                block=block,
                shared_mem=shared_mem,
                limit=per_sm * self.sms,
                per_sm=per_sm,
                sms=self.sms,
            )
        self.function(
            grid, block, args, shared_mem, stream, enable_cooperative_groups=True
        )


_CUPY_FAST = """\
    if type({a}) is _cupy_ndarray and {a}.dtype is _dt{i} and {a}.{contig}{cdev}{align_check}:
        p{i} = {a}
    elif type({a}) is _torch_tensor and {a}.dtype is _tdt{i} and {tdev} and {a}.is_contiguous(){talign_check}:
        p{i} = _uintp({a}.data_ptr())
        torch_args = True
    else:
        (p{i},) = _array({i}, {a}){tflag}
"""

# The driver's launch takes addresses as plain ints: PyTorch's tensors
# first (kdsl.torch's case), no numpy scalar made, the address read once
# (in the alignment test where there is one).
_DRIVER_FAST = """\
    if type({a}) is _torch_tensor and {a}.dtype is _tdt{i} and {tdev} and {a}.is_contiguous(){tptr_check}:
{tptr}        torch_args = True
    elif type({a}) is _cupy_ndarray and {a}.dtype is _dt{i} and {a}.{contig}{cdev}{align_check}:
        p{i} = {a}.data.ptr
    else:
        (p{i},) = _array({i}, {a}){tflag}
"""


def _several_gpus() -> bool:
    import cupy

    try:
        return cupy.cuda.runtime.getDeviceCount() > 1
    except Exception:  # noqa: BLE001 - unknown: keep the device checks
        return True


def _generate(kernel, inst, device, function, alignment, loaded):
    """Python source of a launch function specialised for this plan
    (``function`` launches; ``loaded`` is CuPy's function under it, whose
    attributes the dynamic shared memory check reads and raises)."""
    import cupy

    multi = _several_gpus()
    torch = sys.modules.get("torch")  # only if the program uses PyTorch at all
    if torch is not None:
        torch_tensor = torch.Tensor
        torch_dtypes = {v: k for k, v in _torch_dtypes().items()}
    else:
        torch_tensor, torch_dtypes = _NoTensor, {}
    global _CONTIGUOUS
    if _CONTIGUOUS is None:
        _CONTIGUOUS = _contiguous_attribute()
    dtype_map = dict(zip((tv.name for tv in kernel.signature.typevars), inst.dtypes))
    written = inst.cached.written
    fields = _driver_fields(kernel, inst, dtype_map, function, loaded)
    driver = fields is not None  # a leaner launch: the driver's, see _driver_fields
    env = {
        "_cupy_ndarray": cupy.ndarray,
        "_torch_tensor": torch_tensor,
        "_uintp": np.uintp,
        "_function": function,
        "_bad_count": kernel._bad_count,
        "_shared_mem": DynamicSharedMemory(kernel.name, loaded, device),
    }
    lines = [
        "def launch(grid, block, args, stream, shared_mem):",
        "    if shared_mem:",
        "        _shared_mem(shared_mem)",
    ]
    if torch is not None:  # tensors launch on PyTorch's current stream
        env["_torch_stream"] = functools.partial(torch_stream, device)
        env["_raw_stream"] = raw_stream_query(torch)
        lines.append("    torch_args = False")
    params = kernel.signature.runtime
    names = [f"a{i}" for i in range(len(params))]
    if names:
        lines.append("    try:")
        lines.append(
            f"        {', '.join(names)}{',' if len(names) == 1 else ''} = args"
        )
        lines.append("    except ValueError:")
        lines.append("        _bad_count(args)")
    else:
        lines.append("    if args:")
        lines.append("        _bad_count(args)")
    packed = []
    sources = []  # (the parameter, its alignment; 0: a scalar) of each packed
    for i, info in enumerate(params):
        spec = info.spec
        if info.optional:  # None or not: the instance's, or a LaunchError
            env[f"_mismatch{i}"] = _bind(optional_mismatch, inst, info.name)
            absent = info.name in inst.absent
            lines.append(
                f"    if ({names[i]} is None) != {absent}: "
                f"raise _mismatch{i}({names[i]})"
            )
            if absent:
                continue
        elem = getattr(spec, "elem", spec)
        if isinstance(elem, VectorMeta):
            raise error(
                "launch-vector-parameter",
                param=info.name,
                kernel=kernel.name,
                vtype=elem.__name__,
                dtype=elem.dtype.__name__,
                lanes=elem.lanes,
            )
        a = names[i]
        if info.kind == "tensormap":  # 128 bytes by value
            env[f"_tmap{i}"] = _bind(check_tensor_map, info.name, device)
            lines.append(f"    p{i} = _tmap{i}({a})")
            packed.append(f"p{i}")
            continue
        concrete = isinstance(elem, (NumericMeta, StructMeta))
        t = elem if concrete else dtype_map[elem.name]
        if info.kind == "struct":  # its bytes, by value
            env[f"_struct{i}"] = _bind(check_struct, info.name, t)
            lines.append(f"    p{i} = _struct{i}({a})")
            packed.append(f"p{i}")
            continue
        if info.kind == "scalar":
            env[f"_scalar{i}"] = _bind(check_scalar, info.name, t)
            # (the driver's launch: the checked value itself, written into
            # a field of the parameter's C type)
            conv = f"{a}" if driver else f"_conv{i}({a})"
            if t.kind == "int" and t.width <= 64:
                env[f"_conv{i}"] = scalar_packer(t)
                lines.append(
                    f"    p{i} = {conv} if type({a}) is int and {t.min()} <= {a} <= {t.max()} "
                    f"else _scalar{i}({a})"
                )
            elif t.kind == "float" and t.__name__ != "BFloat16":
                env[f"_conv{i}"] = t.np_dtype.type
                lines.append(
                    f"    p{i} = {conv} if type({a}) is float else _scalar{i}({a})"
                )
            else:
                lines.append(f"    p{i} = _scalar{i}({a})")
            packed.append(f"p{i}")
            sources.append((i, 0))
            continue
        kind = "pointer" if info.kind == "pointer" else ("array", spec.ndim)
        align = alignment.get(info.name, 1)
        env[f"_array{i}"] = _bind_array(
            check_array, info.name, kind, t, device, align, info.name in written
        )
        if info.kind == "array":
            if torch is not None:
                lines.append(
                    f"    torch_args = torch_args or isinstance({a}, _torch_tensor)"
                )
            lines.append(f"    p{i} = _array{i}({a})")
            packed.append(f"*p{i}")
            continue
        env[f"_dt{i}"] = t.np_dtype if t.np_dtype is not None else object()
        env[f"_tdt{i}"] = torch_dtypes.get(t, object())
        align_check = f" and {a}.data.ptr % {align} == 0" if align > 1 else ""
        talign_check = f" and {a}.data_ptr() % {align} == 0" if align > 1 else ""
        lines.append(
            (_DRIVER_FAST if driver else _CUPY_FAST)
            .format(
                a=a,
                i=i,
                contig=_CONTIGUOUS,
                # With one GPU an array cannot live on another device: the
                # fast path checks the device only where it could differ.
                cdev=f" and {a}.data.device_id == {device}" if multi else "",
                tdev=f"{a}.get_device() == {device}" if multi else f"{a}.is_cuda",
                align_check=align_check,
                talign_check=talign_check,
                tptr_check=(
                    f" and (p{i} := {a}.data_ptr()) % {align} == 0" if align > 1 else ""
                ),
                tptr="" if align > 1 else f"        p{i} = {a}.data_ptr()\n",
                # a subclass (nn.Parameter) or a tensor the check converts
                # still launches on PyTorch's current stream
                tflag=(
                    f"\n        torch_args = torch_args or isinstance({a}, _torch_tensor)"
                    if torch is not None
                    else ""
                ),
            )
            .replace(f"_array({i}, {a})", f"_array{i}({a})")
            .rstrip("\n")
        )
        packed.append(f"p{i}")
        sources.append((i, align))
    args = ", ".join(packed) + ("," if len(packed) == 1 else "")
    if driver:
        lines += _driver_launch(env, fields, packed, device, torch is not None, loaded)
    else:
        if torch is not None:
            lines.append("    if stream is None and torch_args:")
            lines.append("        stream = _torch_stream()")
        lines.append(f"    _function(grid, block, ({args}), shared_mem, stream)")
    launch = generated(lines, f"<kdsl launch {inst.name}>", env, "launch")
    if driver:
        launch.driver = DriverLaunch(
            loaded.ptr, tuple((i, t, a) for (i, a), t in zip(sources, fields))
        )
    return launch


@dataclass(frozen=True)
class DriverLaunch:
    """What a launch function that launches through the driver passes, for
    kdsl's compiled replay (runtime/native.c): the ``CUfunction``, and per
    parameter it packs (in order) the kernel parameter it comes from, its
    ctypes type and, for a pointer, the alignment its address needs (0 for
    a scalar)."""

    function: int
    params: tuple


def generated(lines, filename: str, env: dict, name: str):
    """The function ``name`` that the source ``lines`` define, compiled in
    ``env`` under ``filename`` (what a traceback names), its source kept as
    ``__kdsl_source__``: kdsl's generated launch, replay and backward
    functions."""
    code = "\n".join(lines) + "\n"
    exec(compile(code, filename, "exec"), env)  # noqa: S102
    fn = env[name]
    fn.__kdsl_source__ = code
    return fn


def _driver_fields(kernel, inst, dtype_map, function, loaded):
    """The ctypes type of each argument the kernel is passed, when the plan
    can launch through the driver itself (``cuLaunchKernel`` on a
    parameter buffer kept per thread, which CuPy's ``Function`` would build
    anew at each call, wrapping each argument in an object of its own):
    a plain loaded function (no assertion record, not cooperative) whose
    parameters are pointers, integers of 8 to 64 bits, Float32 or Float64.
    None otherwise (CuPy's ``Function`` launches), or when
    ``KDSL_CUPY_LAUNCH=1`` asks for CuPy's launch."""
    import ctypes

    if function is not loaded or not _is_cupy_function(loaded):
        return None
    if _ENVIRON.get("KDSL_CUPY_LAUNCH") == "1":
        return None
    fields = []
    for info in kernel.signature.runtime:
        if info.optional and info.name in inst.absent:
            continue
        elem = getattr(info.spec, "elem", info.spec)
        # a number type, or a dtype parameter's (a struct's or a tensor
        # map's type names no dtype)
        t = elem if isinstance(elem, NumericMeta) else dtype_map.get(_dtype_name(elem))
        if info.kind == "pointer" and isinstance(t, NumericMeta):
            fields.append(ctypes.c_uint64)
        elif info.kind == "scalar" and t is not None and _driver_scalar(t):
            fields.append(np.ctypeslib.as_ctypes_type(t.np_dtype))
        else:  # arrays (shape and strides), structs, tensor maps, halves
            return None
    return fields


def _dtype_name(spec):
    """The name of the dtype parameter ``spec`` is, or None."""
    name = getattr(spec, "name", None)
    return name if isinstance(name, str) else None


def _is_cupy_function(function) -> bool:
    """Whether ``function`` is a CuPy ``Function`` (whose ``ptr`` is the
    ``CUfunction`` the driver launches)."""
    from cupy.cuda.function import Function

    return isinstance(function, Function)


def _driver_scalar(t) -> bool:
    if t.kind == "int":
        return 8 <= t.width <= 64
    return t.kind == "float" and np.dtype(t.np_dtype) in (np.float32, np.float64)


def parameter_struct(fields) -> tuple:
    """``(the ctypes structure of a driver launch's arguments, each one's
    offset in it)`` for their C types ``fields``: the parameter buffer's
    layout, which the Python launch and kdsl's compiled replay both
    write."""
    import ctypes

    class Arguments(ctypes.Structure):
        _fields_ = [(f"a{i}", t) for i, t in enumerate(fields)]

    return Arguments, [getattr(Arguments, f"a{i}").offset for i in range(len(fields))]


class _Parameters(threading.local):
    """A plan's parameter buffer, one per thread (the driver reads it after
    the launch call has let go of the GIL): a ctypes structure of the
    arguments' C types and the array of their addresses, which is what
    ``cuLaunchKernel`` takes."""

    def __init__(self, fields):
        import ctypes

        Arguments, offsets = parameter_struct(fields)
        values = Arguments()
        start = ctypes.addressof(values)
        addresses = (ctypes.c_void_p * max(1, len(fields)))(
            *[start + o for o in offsets]
        )
        self.buffer = (values, ctypes.addressof(addresses) if fields else 0)
        self.keep = addresses


def _driver_launch(env, fields, packed, device, knows_torch, loaded) -> list:
    """The end of a launch function that launches through the driver: the
    stream (PyTorch's current one for tensors, CuPy's otherwise), the
    arguments written into this thread's parameter buffer, ``cuLaunchKernel``.
    A thread where CUDA has no context yet (CuPy's launch makes it) gets
    one, and the launch is tried once more."""
    from cupy.cuda import driver, get_current_stream, runtime

    env["_parameters"] = _Parameters(fields)
    env["_launch_kernel"] = driver.launchKernel
    env["_function_ptr"] = loaded.ptr
    env["_current_stream"] = get_current_stream
    env["_DriverError"] = driver.CUDADriverError
    env["_with_context"] = _with_context(device, runtime)
    lines = ["    if stream is not None:", "        stream = stream.ptr"]
    if knows_torch:
        lines.append("    elif torch_args:")
        lines.append(f"        stream = _raw_stream({device})")
    lines += [
        "    else:",
        "        stream = _current_stream().ptr",
        "    values, addresses = _parameters.buffer",
    ]
    lines += [f"    values.a{k} = {p}" for k, p in enumerate(packed)]
    lines += [
        "    gx, gy, gz = grid if len(grid) == 3 else (*grid, 1, 1)[:3]",
        "    bx, by, bz = block if len(block) == 3 else (*block, 1, 1)[:3]",
        "    try:",
        "        _launch_kernel(_function_ptr, gx, gy, gz, bx, by, bz, shared_mem,"
        " stream, addresses, 0)",
        "    except _DriverError as e:",
        "        _with_context(e)",
        "        _launch_kernel(_function_ptr, gx, gy, gz, bx, by, bz, shared_mem,"
        " stream, addresses, 0)",
    ]
    return lines


_INVALID_CONTEXT = 201  # CUDA_ERROR_INVALID_CONTEXT


def _with_context(device, runtime):
    """Re-raise a driver error, unless it says this thread has no current
    context: then make the device's primary context current (as CuPy's
    launch does) so that the caller can launch again."""

    def ensure(exc):
        if getattr(exc, "status", None) != _INVALID_CONTEXT:
            raise exc
        runtime.setDevice(device)
        runtime.free(0)  # the runtime makes the primary context current

    return ensure


def _contiguous_attribute():
    import cupy

    return (
        "_c_contiguous"
        if hasattr(cupy.ndarray, "_c_contiguous")
        else "flags.c_contiguous"
    )


_CONTIGUOUS = None


class _NoTensor:
    """Stands in for torch.Tensor when PyTorch is not imported."""


def _bind(fn, *bound):
    return lambda value: fn(*bound, value)


def _bind_array(fn, param, kind, t, device, align, written):
    return lambda value: fn(param, kind, t, value, device, align, written)


def _torch_dtypes():
    """torch dtype -> kdsl type, for every torch dtype kdsl knows (arrays.py)."""
    import torch

    out = {}
    for name in arrays.TORCH_NAMES:
        dtype = getattr(torch, name, None)
        if dtype is not None:
            out[dtype] = arrays.kdsl_dtype(dtype)
    return out


def dtype_of_argument(value):
    """The kdsl dtype an argument carries (arrays, numpy scalars, kdsl values)."""

    dtype = getattr(value, "dtype", None)
    if isinstance(value, Numeric):
        return type(value)
    if dtype is None:  # an array known only by __cuda_array_interface__ / DLPack
        try:
            info = arrays.describe(value)
        except Exception:
            return None
        return info.dtype if info is not None else None
    return arrays.kdsl_dtype(dtype)


def unsupported(kernel, tv_name, t, given, param=None):
    allowed = ", ".join(x.__name__ for x in kernel.supported[tv_name])
    # the dtype, never the array itself (its repr copies it to the host)
    got = t.__name__ if t is not None else str(getattr(given, "dtype", type(given)))
    where = f" (parameter '{param}')" if param else ""
    return error(
        "unsupported-dtype",
        kernel=kernel.name,
        dtype=got,
        typevar=tv_name,
        where=where,
        supported=allowed,
    )
