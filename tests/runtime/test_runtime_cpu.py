"""The launch path without a GPU: plans, argument checks and packing, caches.

CuPy imports and NVRTC compiles here, but no memory can be allocated, so the
device queries and the module loading are replaced by fakes and the arrays are
CuPy arrays over unowned (never touched) addresses or objects exposing
``__cuda_array_interface__``.  The generated launch functions run for real.
"""

import importlib
import importlib.util
import sys
from pathlib import Path
import types

import numpy as np
import pytest

import kdsl
from kdsl import Array, Constexpr, Float32, Int32, Pointer, thread_idx
from kdsl.runtime import arrays, cache, compile as kcompile, debug, launch
from kdsl.transpile import pipeline
from kdsl.transpile.core import types as T

cupy = pytest.importorskip("cupy")

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel(dtypes=[Float32])
def scaled(
    out: Pointer[D],
    n: Int32,
    B: Constexpr[int] = 4,
    S: Constexpr[float] = 1.0,
    F: Constexpr[bool] = False,
):
    if thread_idx.x < n:
        out[0] = out[0] * S


@kdsl.kernel
def no_dtype_params(out: Pointer[Float32], n: Int32):
    if thread_idx.x < n:
        out[0] = 1.0


@kdsl.kernel
def strided(a: Array[D, 2], n: Int32):
    if thread_idx.x < n:
        a[0, 0] = a[0, 1]


@kdsl.kernel
def broadcast_reader(a: Array[Float32, 2], out: Pointer[Float32]):
    out[0] = a[1, 1]


@kdsl.kernel
def vector_param(out: Pointer[kdsl.Float32x4], n: Int32):
    if thread_idx.x < n:
        out[0] = out[0]


@kdsl.kernel
def float_scalar(out: Pointer[Float32], s: kdsl.Float64):
    out[0] = s.to(Float32)


@kdsl.kernel
def grid_synced(out: Pointer[Float32], n: Int32):
    if thread_idx.x < n:
        out[0] = out[0] + 1.0
    kdsl.grid_sync()


@kdsl.kernel(debug=True)
def checked(out: Pointer[Float32], n: Int32):
    i = thread_idx.x
    assert i < n, "i below n"
    out[i] = 1.0


@kdsl.kernel
def staged(x: Pointer[Float32], n: Int32):
    tile = kdsl.dynamic_shared_array(Float32)
    if thread_idx.x < n:
        tile[thread_idx.x] = x[thread_idx.x]


@kdsl.kernel(launch_bounds=128)
def bounded(out: Pointer[Float32], n: Int32):
    if thread_idx.x < n:
        out[thread_idx.x] = 1.0


@kdsl.kernel(dtypes=[Float32], block="BLOCK")
def blocked(out: Pointer[D], n: Int32, BLOCK: Constexpr[int] = 128):
    if thread_idx.x < n:
        out[thread_idx.x] = 1.0


@kdsl.kernel(dtypes=[Float32])
def biased(out: Pointer[D], bias: Pointer[D] | None, n: Int32):
    if thread_idx.x < n:
        if bias is not None:
            out[0] = out[0] + bias[0]


@kdsl.kernel
def takes_map(tmap: kdsl.TensorMap, out: Pointer[Float32], n: Int32):
    if thread_idx.x < n:
        out[0] = 1.0


# -- the harness -------------------------------------------------------------------------
class FakeFunction:
    ptr = 0xF00D  # the CUfunction handle the occupancy query is given

    def __init__(self, inst, device, log, options, shared):
        self.inst, self.device, self.log, self.options = inst, device, log, options
        self.shared = shared  # each launch's shared_mem
        # what cuFuncGetAttribute would say: CUDA's default dynamic maximum
        self.attributes = {"MAX_DYNAMIC_SHARED_SIZE_BYTES": 48 * 1024}
        self.attributes["SHARED_SIZE_BYTES"] = 0
        self.raised = []  # each cuFuncSetAttribute of the dynamic maximum
        self.streams = []  # each launch's stream
        self.blocks = []  # each launch's block

    def __call__(self, grid, block, args, shared_mem, stream, **options):
        self.log.append((self.inst.name, args))
        self.blocks.append(tuple(block))
        self.options.append(options)
        self.shared.append(shared_mem)
        self.streams.append(stream)


@pytest.fixture
def gpu(tmp_path, monkeypatch):
    """Device 0 with 1024 threads a block; loads and launches are recorded."""
    monkeypatch.setenv("KDSL_CACHE_DIR", str(tmp_path / "cache"))
    for c in (cache.SOURCES, cache.BINARIES):
        monkeypatch.setattr(c, "memory", {})
        monkeypatch.setattr(c, "writable", True)
    log, loads, options, shared, functions = [], [], [], [], []

    def load_function(inst, device):
        loads.append((inst.name, device))
        functions.append(FakeFunction(inst, device, log, options, shared))
        return functions[-1]

    def set_attribute(function, attribute, value):
        function.attributes[attribute] = value
        function.raised.append(value)

    monkeypatch.setattr(launch, "function_attribute", lambda f, a: f.attributes[a])
    monkeypatch.setattr(launch, "set_function_attribute", set_attribute)
    monkeypatch.setitem(launch._SHARED_OPTIN, 0, 227 * 1024)
    monkeypatch.setattr(kcompile, "load_function", load_function)
    monkeypatch.setattr(launch, "_get_device", lambda: 0)
    monkeypatch.setattr(cupy.cuda.runtime, "getDevice", lambda: 0)
    monkeypatch.setitem(launch._LIMITS, 0, 1024)
    monkeypatch.setitem(launch._BLOCK_DIMS, 0, (1024, 1024, 64))
    monkeypatch.setattr(arrays, "_device_of_pointer", lambda ptr: 0)
    # 4 multiprocessors that can launch cooperatively, 2 blocks of each size each
    monkeypatch.setitem(launch._COOPERATIVE, 0, (True, 4))
    occupancy = []

    def blocks_per_sm(func, threads, shared_mem):
        occupancy.append((func, threads, shared_mem))
        return 2

    monkeypatch.setattr(
        cupy.cuda.driver, "occupancyMaxActiveBlocksPerMultiprocessor", blocks_per_sm
    )
    kernels = (scaled, no_dtype_params, strided, vector_param, float_scalar)
    kernels += (broadcast_reader,)
    extra = (grid_synced, checked, staged, bounded, biased, blocked, takes_map)
    for k in kernels + extra:
        for attr in ("_instances", "_plans", "_launchers"):
            monkeypatch.setattr(k, attr, {})
    return types.SimpleNamespace(
        log=log,
        loads=loads,
        options=options,
        occupancy=occupancy,
        shared=shared,
        functions=functions,
    )


def device_array(n, dtype=np.float32, ptr=0x10000, device=0):
    """A CuPy array over an address nothing reads (no allocation, no GPU)."""
    size = n * np.dtype(dtype).itemsize + 64
    mem = cupy.cuda.UnownedMemory(ptr, size, None, device_id=device)
    return cupy.ndarray((n,), dtype, memptr=cupy.cuda.MemoryPointer(mem, 0))


class CAI:
    """An array known only through ``__cuda_array_interface__``."""

    def __init__(self, shape, typestr="<f4", strides=None, ptr=0x10000):
        self.__cuda_array_interface__ = dict(
            shape=shape, typestr=typestr, strides=strides, data=(ptr, False), version=3
        )


def launched(gpu):
    return gpu.log[-1][0]


# -- which instance a launch runs ----------------------------------------------------------
def test_instance_launch_refuses_constexprs_even_with_a_cached_plan(gpu):
    x = device_array(16)
    inst = scaled.dispatch("f32")
    inst[1, 16](x, 16)
    with pytest.raises(kdsl.DSLError, match="constexprs fixed"):
        inst[1, 16](x, 16, B=128)
    assert len(gpu.log) == 1


@pytest.mark.parametrize(
    "good,bad",
    [({"B": 1}, {"B": True}), ({"F": True}, {"F": 1}), ({"B": 1}, {"B": np.int64(1)})],
)
def test_a_cached_plan_does_not_accept_a_wrong_constexpr(gpu, good, bad):
    x = device_array(16)
    scaled[1, 16](x, 16, **good)
    with pytest.raises(kdsl.DSLError, match="Constexpr"):
        scaled[1, 16](x, 16, **bad)
    assert len(gpu.log) == 1


def test_negative_zero_constexpr_is_its_own_instance(gpu):
    assert scaled.dispatch("f32", S=0.0).name == "scaled__f32__4__0p0__false"
    assert scaled.dispatch("f32", S=-0.0).name == "scaled__f32__4__m0p0__false"
    x = device_array(16)
    scaled[1, 16](x, 16, S=0.0)
    scaled[1, 16](x, 16, S=-0.0)
    assert launched(gpu) == "scaled__f32__4__m0p0__false"


def test_nan_constexpr_is_one_instance(gpu):
    a = scaled.dispatch("f32", S=float("nan"))
    assert scaled.dispatch("f32", S=float("nan")) is a
    assert len(scaled.instances()) == 1


def test_float_constexpr_beyond_every_float_is_a_named_error(gpu):
    with pytest.raises(kdsl.DSLError, match="constexpr 'S'"):
        scaled.dispatch("f32", S=10**400)


def test_constexpr_given_positionally_at_launch_is_refused_with_a_cached_plan(gpu):
    x = device_array(16)
    scaled[1, 16](x, 16)
    with pytest.raises(kdsl.DSLError, match="constexprs go by keyword"):
        scaled[1, 16](x, 16, 8)
    assert len(gpu.log) == 1


def test_one_module_load_per_instance_and_device(gpu):
    x = device_array(16)
    scaled[1, 16](x, 16)
    scaled[1, 16](x, 16, B=4)
    scaled[1, 16](x, 16, S=1.0, B=4)
    scaled.dispatch("f32")[1, 16](x, 16)
    assert gpu.loads == [("scaled__f32__4__1p0__false", 0)]


def test_kernels_without_dtype_parameters_take_the_fast_path(gpu, monkeypatch):
    x = device_array(16)
    no_dtype_params[1, 16](x, 16)

    def slow(*args, **kwargs):
        raise AssertionError("a cached launch must not take the slow path")

    monkeypatch.setattr(no_dtype_params, "_launch", slow)
    no_dtype_params[1, 16](x, 16)
    assert len(gpu.log) == 2


def _no_slow_path(kernel, monkeypatch):
    def slow(*args, **kwargs):
        raise AssertionError("a cached launch must not take the slow path")

    monkeypatch.setattr(kernel, "_launch", slow)


def test_constexpr_keywords_take_the_fast_path_once_seen(gpu, monkeypatch):
    # autotuned launches pass their configuration as keywords: after the
    # first launch of each, the Launcher's own plan table serves them
    x = device_array(16)
    launcher = scaled[1, 16]
    launcher(x, 16, B=8)
    launcher(x, 16, B=2, S=0.5)
    _no_slow_path(scaled, monkeypatch)
    launcher(x, 16, B=8)
    assert launched(gpu) == "scaled__f32__8__1p0__false"
    launcher(x, 16, B=2, S=0.5)
    assert launched(gpu) == "scaled__f32__2__0p5__false"


def test_keyed_fast_path_tells_true_from_1_and_minus_zero_from_zero(gpu):
    x = device_array(16)
    launcher = scaled[1, 16]
    launcher(x, 16, S=0.0)
    launcher(x, 16, S=-0.0)
    assert launched(gpu) == "scaled__f32__4__m0p0__false"
    launcher(x, 16, F=True)
    with pytest.raises(kdsl.DSLError):  # an int for a bool constexpr: refused
        launcher(x, 16, F=1)


def test_too_few_arguments_with_optional_pointers_is_a_kdsl_error(gpu):
    out, bias = device_array(16), device_array(16, ptr=0x20000)
    launcher = biased[1, 16]
    launcher(out, bias, 16)  # a plan: the next launch looks in the keyed table
    with pytest.raises(kdsl.DSLError):
        launcher(out)


def test_a_block_that_follows_a_keyword_takes_the_fast_path(gpu, monkeypatch):
    x = device_array(256)
    launcher = blocked[2]  # block="BLOCK": the block is each instance's BLOCK
    launcher(x, 256, BLOCK=64)
    launcher(x, 256)
    _no_slow_path(blocked, monkeypatch)
    launcher(x, 256, BLOCK=64)
    launcher(x, 256)
    launcher(x, 256, BLOCK=64)
    assert gpu.functions[0].blocks[-2:] == [(64,), (64,)]
    assert gpu.functions[1].blocks == [(128,), (128,)]


def test_optional_pointers_take_the_fast_path_by_which_are_none(gpu, monkeypatch):
    out, bias = device_array(16), device_array(16, ptr=0x20000)
    launcher = biased[1, 16]
    launcher(out, bias, 16)
    launcher(out, None, 16)
    _no_slow_path(biased, monkeypatch)
    launcher(out, bias, 16)
    with_bias = launched(gpu)
    launcher(out, None, 16)
    assert (with_bias, launched(gpu)) == ("biased__f32", "biased__f32__nobias")


def test_a_cuda_array_interface_object_carries_the_dtype(gpu):
    strided[1, 16](CAI((4, 4)), 16)
    assert launched(gpu) == "strided__f32"
    strided[1, 16](CAI((4, 4)), 16)
    assert len(gpu.loads) == 1


def test_block_over_the_device_limit_in_z_is_a_named_error(gpu):
    x = device_array(16)
    scaled[1, 16](x, 16)  # a plan exists: a new configuration must still be checked
    with pytest.raises(kdsl.DSLError, match="at most 64"):
        scaled[1, (1, 1, 128)](x, 16)
    assert len(gpu.log) == 1


# -- dynamic shared memory and launch bounds -------------------------------------------------
def test_without_shared_mem_the_launch_reads_no_attribute(gpu, monkeypatch):
    def forbidden(*args):
        raise AssertionError("shared_mem=0 must not query the function")

    monkeypatch.setattr(launch, "function_attribute", forbidden)
    monkeypatch.setattr(launch, "set_function_attribute", forbidden)
    x = device_array(16)
    staged[1, 16](x, 16)
    staged[1, 16](x, 16, shared_mem=0)
    assert gpu.shared == [0, 0]
    source = staged[1, 16].plans[(None, 0)].__kdsl_source__
    assert source.splitlines()[1:3] == [
        "    if shared_mem:",
        "        _shared_mem(shared_mem)",
    ]


def test_dynamic_shared_memory_over_48_kb_is_raised_once_per_size(gpu, monkeypatch):
    x = device_array(16)
    for size in (1024, 65536, 65536, 50000, 100000, 65536):
        staged[1, 16](x, 16, shared_mem=size)
    (function,) = gpu.functions
    assert function.raised == [65536, 100000]  # only above the current maximum
    assert gpu.shared == [1024, 65536, 65536, 50000, 100000, 65536]

    def slow(*args, **kwargs):
        raise AssertionError("a cached launch must not take the slow path")

    monkeypatch.setattr(staged, "_launch", slow)
    staged[1, 16](x, 16, shared_mem=131072)  # the fast path checks it too
    assert function.raised == [65536, 100000, 131072]


def test_more_than_the_device_allows_is_a_launch_error_naming_the_maximum(
    gpu, monkeypatch
):
    load = kcompile.load_function  # the fixture's fake

    def with_static(inst, device):  # a function with 4 KB of static shared memory
        function = load(inst, device)
        function.attributes["SHARED_SIZE_BYTES"] = 4096
        return function

    monkeypatch.setattr(kcompile, "load_function", with_static)
    x = device_array(16)
    staged[1, 16](x, 16, shared_mem=227 * 1024 - 4096)  # the most it may have
    with pytest.raises(kdsl.LaunchError) as info:
        staged[1, 16](x, 16, shared_mem=227 * 1024 - 4095)
    assert info.value.code == "E471"
    assert (
        "'staged' asks for shared_mem=228353 bytes; device 0 allows it at most "
        "228352 bytes of dynamic shared memory (232448 a block, less 4096 of static "
        "shared arrays)"
    ) in str(info.value)
    assert len(gpu.log) == 1 and gpu.functions[0].raised == [227 * 1024 - 4096]


@pytest.mark.parametrize("bad", [-1, 2.5, True, "1024"])
def test_a_shared_mem_that_is_not_a_size_is_a_launch_error(gpu, bad):
    x = device_array(16)
    with pytest.raises(kdsl.LaunchError, match=rf"non-negative int, got {bad!r}"):
        staged[1, 16](x, 16, shared_mem=bad)
    assert not gpu.log


def test_a_block_over_the_launch_bounds_is_refused_before_anything_runs(gpu):
    x = device_array(256)
    bounded[2, 128](x, 256)
    for launcher in (lambda: bounded[1, 256], lambda: bounded.dispatch()[1, (8, 32)]):
        with pytest.raises(kdsl.LaunchError) as info:
            launcher()
        assert info.value.code == "E472"
    assert "more than its launch_bounds allow (128)" in str(info.value)
    assert len(gpu.log) == 1


# -- array checks --------------------------------------------------------------------------
def test_fast_path_refuses_a_cupy_array_on_another_device(gpu):
    x = device_array(16)
    scaled[1, 16](x, 16)  # the plan is cached: the next call is the fast path
    other = device_array(16, device=1)
    with pytest.raises(kdsl.DSLError, match="'out' lives on device 1"):
        scaled[1, 16](other, 16)
    assert len(gpu.log) == 1


class TorchDtype:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return f"torch.{self.name}"


def fake_torch(monkeypatch, current_stream=0):
    """A stand-in ``torch`` module: float32 CUDA tensors of 16 elements on a
    chosen device, and PyTorch's current stream pointer."""
    torch = types.ModuleType("torch")
    for name in [
        "float16",
        "bfloat16",
        "float32",
        "float64",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "bool",
    ]:
        setattr(torch, name, TorchDtype(name))

    class Tensor:
        __module__ = "torch"
        dtype = torch.float32
        is_cuda = True
        shape = (16,)

        def __init__(self, device):
            self.device = types.SimpleNamespace(index=device)

        def get_device(self):
            return self.device.index

        def is_contiguous(self):
            return True

        def data_ptr(self):
            return 0x10000

        def stride(self):
            return (1,)

    torch.Tensor = Tensor
    torch._C = types.SimpleNamespace(
        _cuda_getCurrentRawStream=lambda device: current_stream
    )
    monkeypatch.setitem(sys.modules, "torch", torch)
    return torch


def test_fast_path_refuses_a_torch_tensor_on_another_device(gpu, monkeypatch):
    Tensor = fake_torch(monkeypatch).Tensor
    scaled[1, 16](Tensor(0), 16)
    with pytest.raises(kdsl.DSLError, match="'out' lives on device 1"):
        scaled[1, 16](Tensor(1), 16)
    assert len(gpu.log) == 1


@pytest.mark.parametrize("path", ["fast", "thorough"])
def test_tensors_launch_on_pytorchs_current_stream(gpu, monkeypatch, path):
    """With no ``stream=``, a launch on PyTorch tensors goes to PyTorch's
    current stream (where ``torch.cuda.stream(s)`` or a graph capture put
    it), the null stream when that is PyTorch's; ``stream=`` still wins."""
    Tensor = fake_torch(monkeypatch, current_stream=0xABC0).Tensor
    extra = {"S": 2.0} if path == "thorough" else {}
    scaled[1, 16](Tensor(0), 16, **extra)
    scaled[1, 16](Tensor(0), 16, **extra)
    assert [s.ptr for s in gpu.functions[-1].streams] == [0xABC0, 0xABC0]
    mine = types.SimpleNamespace(ptr=0xDEF0)  # any object with a stream pointer
    scaled[1, 16](Tensor(0), 16, stream=mine, **extra)
    assert gpu.functions[-1].streams[-1].ptr == 0xDEF0
    sys.modules["torch"]._C._cuda_getCurrentRawStream = lambda device: 0
    scaled[1, 16](Tensor(0), 16, **extra)
    assert gpu.functions[-1].streams[-1] is cupy.cuda.Stream.null


def test_arrays_other_than_tensors_keep_cupys_stream(gpu, monkeypatch):
    fake_torch(monkeypatch, current_stream=0xABC0)
    scaled[1, 16](device_array(16), 16)
    assert gpu.functions[-1].streams == [None]


@pytest.mark.parametrize(
    "make,message",
    [
        (lambda: CAI((4, 4), strides=(16, 6)), "'a'.*multiple of"),
        (lambda: CAI((4, 4), typestr="<zz"), "'a'"),
        (lambda: device_array(16).data, "'a'"),
    ],
)
def test_unreadable_arrays_are_named_errors(gpu, make, message):
    inst = strided.dispatch("f32")
    with pytest.raises(kdsl.DSLError, match=message):
        inst[1, 16](make(), 16)
    assert not gpu.log


def test_byte_strides_that_are_not_whole_elements_are_not_contiguous(gpu):
    inst = scaled.dispatch("f32")
    with pytest.raises(
        kdsl.DSLError, match="'out' is a Pointer and needs a contiguous"
    ):
        inst[1, 16](CAI((4,), strides=(6,)), 16)
    assert not gpu.log


def test_a_written_array_with_a_zero_stride_is_refused(gpu):
    """A broadcast view's elements are one location: threads writing them
    would race (E815); a kernel that only reads it launches."""
    a = device_array(16)
    shared = cupy.ndarray((4, 4), np.float32, memptr=a.data, strides=(0, 4))
    with pytest.raises(kdsl.DSLError) as info:
        strided[1, 16](shared, 16)
    assert info.value.code == "E815" and "(0, 1)" in info.value.message
    assert not gpu.log
    broadcast_reader[1, 1](shared, device_array(1))
    ptr, *rest, out = gpu.log[-1][1]
    assert [int(v) for v in rest] == [4, 4, 0, 1]


@pytest.mark.parametrize("kernel", ["pointer", "array"])
def test_an_array_that_starts_between_elements_is_refused(gpu, kernel):
    """The GPU cannot load a float32 at an odd address (E816): the thorough
    path checks it (the fast path takes CuPy arrays and tensors, which
    their libraries keep aligned, unchecked)."""
    with pytest.raises(kdsl.DSLError) as info:
        if kernel == "pointer":
            scaled.dispatch("f32")[1, 16](CAI((4,), ptr=0x10002), 16)
        else:
            odd = cupy.ndarray((2, 2), np.float32, memptr=device_array(8).data + 2)
            strided[1, 16](odd, 16)
    assert info.value.code == "E816" and "0x10002" in info.value.message
    assert not gpu.log


def test_negative_strides_are_passed_in_elements(gpu):
    a = device_array(16)
    view = cupy.ndarray((4, 4), np.float32, memptr=a.data)[::-1, ::2]
    strided[1, 16](view, 16)
    ptr, *rest = gpu.log[-1][1]
    assert int(ptr) == 0x10000 + 12 * 4
    assert [int(v) for v in rest] == [4, 2, -4, 2, 16]


def test_host_dlpack_array_is_a_named_error(gpu):
    class HostDLPack:
        def __init__(self):
            self.a = np.zeros(4, np.float32)

        def __dlpack__(self, **kwargs):
            return self.a.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    with pytest.raises(kdsl.DSLError, match="'out' is a host"):
        scaled.dispatch("f32")[1, 16](HostDLPack(), 16)


def test_unsupported_dtype_names_the_parameter_and_not_the_contents(gpu):
    x = device_array(16, np.complex64)
    with pytest.raises(kdsl.UnsupportedDtypeError) as info:
        strided[1, 16](cupy.ndarray((4, 4), np.complex64, memptr=x.data), 16)
    assert "parameter 'a'" in str(info.value) and "complex64" in str(info.value)


def test_vector_element_parameter_is_a_named_error(gpu):
    with pytest.raises(kdsl.DSLError, match="'out'"):
        vector_param[1, 16](device_array(16), 16)


# -- cooperative launches (kdsl.grid_sync) ---------------------------------------------------
def test_a_kernel_that_grid_syncs_is_launched_cooperatively(gpu):
    x = device_array(16)
    grid_synced[8, 256](x, 16)
    grid_synced[8, 256](x, 16)  # the fast path, through the same plan
    scaled[1, 16](x, 16)
    assert gpu.options == [{"enable_cooperative_groups": True}] * 2 + [{}]
    assert gpu.occupancy == [(FakeFunction.ptr, 256, 0)]  # asked once per size
    assert "enable_cooperative_groups" not in scaled[1, 16].last[2].__kdsl_source__


def test_a_grid_that_cannot_be_resident_at_once_is_refused(gpu):
    x = device_array(16)
    with pytest.raises(kdsl.DSLError) as info:
        grid_synced[(3, 3), (16, 16)](x, 16, shared_mem=1024)
    assert isinstance(info.value, kdsl.LaunchError) and info.value.code == "E458"
    text = str(info.value)
    assert "all 9 blocks of grid (3, 3) must be resident on device 0" in text
    assert "1024 bytes of dynamic shared memory at most 8 fit" in text
    assert "(2 per multiprocessor × 4)" in text
    assert gpu.occupancy == [(FakeFunction.ptr, 256, 1024)]
    assert not gpu.log
    grid_synced[(2, 4), (16, 16)](x, 16, shared_mem=1024)  # 8 blocks fit
    assert len(gpu.log) == 1 and len(gpu.occupancy) == 1


def test_a_device_that_cannot_launch_cooperatively_is_a_named_error(gpu, monkeypatch):
    monkeypatch.setitem(launch._COOPERATIVE, 0, (False, 4))
    with pytest.raises(kdsl.DSLError, match="device 0 cannot launch cooperatively"):
        grid_synced[1, 32](device_array(16), 16)
    assert not gpu.log
    scaled[1, 16](device_array(16), 16)  # kernels that do not grid-sync launch
    assert len(gpu.log) == 1


def test_the_cooperative_flag_survives_the_disk_cache(gpu, monkeypatch):
    first = kcompile.transpiled(grid_synced.dispatch())
    plain = kcompile.transpiled(scaled.dispatch("f32"))
    assert first.cooperative and "this_grid().sync()" in first.source
    assert not plain.cooperative
    cache.SOURCES.memory.clear()  # a new process: only the disk cache

    def no_transpiling(self):
        raise AssertionError("a warm disk cache must not transpile")

    monkeypatch.setattr(pipeline.Compilation, "transpiled", no_transpiling)
    for k, dtypes, was in ((grid_synced, (), first), (scaled, (Float32,), plain)):
        assert kcompile.transpiled(k.dispatch(*dtypes)) == was


# -- debug builds ----------------------------------------------------------------------------
class FakeRecord:
    """An assertion record in no memory: clearing and reading it go to the
    launch log; a read returns ``ints``."""

    def __init__(self, log):
        self.log, self.ints = log, [0] * debug.RECORD_INTS
        self.pointer = np.uintp(0x20000)

    def clear(self, stream):
        self.log.append(("clear", stream))

    def read(self, stream):
        self.log.append(("read", stream))
        return list(self.ints)


def test_a_debug_launch_passes_clears_and_reads_the_assertion_record(gpu, monkeypatch):
    records = []

    def record(device):
        records.append(FakeRecord(gpu.log))
        return records[-1]

    monkeypatch.setattr(debug, "Record", record)
    x = device_array(16)
    checked[1, 16](x, 16)
    assert [entry[0] for entry in gpu.log] == ["clear", "checked", "read"]
    assert gpu.log[1][1][-1] is records[0].pointer and len(gpu.log[1][1]) == 3
    records[0].ints = [1, 5, 0, 0, 2, 0, 0, 0]
    with pytest.raises(kdsl.DeviceAssertionError) as info:
        checked[1, 16](x, 16)  # the fast path: the same plan, the same record
    err = info.value
    assert len(records) == 1 and len(gpu.log) == 6
    assert (err.thread, err.block) == ((5, 0, 0), (2, 0, 0))
    line = checked.fn.__code__.co_firstlineno + 3
    assert str(err).startswith(f"{__file__}:{line}:5: error[E460]: assertion failed")
    assert "thread (5, 0, 0) of block (2, 0, 0): i below n" in str(err)


def test_a_release_plan_calls_the_function_itself(gpu):
    x = device_array(16)
    scaled[1, 16](x, 16)
    (plan,) = {id(p): p for p in scaled._plans.values()}.values()
    assert type(plan.function) is FakeFunction
    assert len(gpu.log[-1][1]) == 2


def test_the_source_cache_keeps_the_assertions_and_builds_apart(gpu):
    inst = checked.dispatch()
    first = kcompile.transpiled(inst)
    assert [message for _, message in first.assertions] == ["i below n"]
    cache.SOURCES.memory.clear()  # a new process: from the disk cache
    again = kcompile.transpiled(inst)
    assert again == first and again is not first
    release = kdsl.kernel(checked.fn, debug=False).dispatch()
    assert "assert_failed" not in kcompile.transpiled(release).source
    assert kcompile.transpiled(release).assertions == ()


def test_a_copy_of_a_kernel_file_elsewhere_names_its_own_file(gpu, tmp_path):
    text = (
        "import kdsl\nfrom kdsl import Pointer, Float32\n"
        "@kdsl.kernel(debug=True)\ndef k(x: Pointer[Float32]):\n"
        "    assert x[0] > 0\n"
    )
    paths = []
    for folder in ("first", "second"):
        (tmp_path / folder).mkdir()
        paths.append(tmp_path / folder / "copied.py")
        paths[-1].write_text(text)
    for k, path in enumerate(paths):  # the same bytes: only the path differs
        module = _load(path, f"kdsl_test_copied_{k}")
        sys.modules.pop(f"kdsl_test_copied_{k}")
        ((span, _),) = kcompile.transpiled(module.k.dispatch()).assertions
        assert span.path == str(path)


# -- scalars -------------------------------------------------------------------------------
def test_huge_int_for_a_float_parameter_is_a_named_error(gpu):
    with pytest.raises(kdsl.DSLError, match="'s'"):
        float_scalar.dispatch()[1, 1](device_array(4), 2**2000)


def test_int4_scalar_is_packed_as_its_c_type():
    packed = launch.check_scalar("n", T.Int4, -3)
    assert type(packed) is np.int8 and packed == -3


# -- the source cache key ------------------------------------------------------------------
def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_redefined_kernel_of_the_same_name_gets_its_own_source(gpu, tmp_path):
    path = tmp_path / "redefined.py"
    path.write_text(
        "import kdsl\nfrom kdsl import Pointer, Float32\n"
        "@kdsl.kernel\ndef k(x: Pointer[Float32]):\n    x[0] = 1.5\nFIRST = k\n"
        "@kdsl.kernel\ndef k(x: Pointer[Float32]):\n    x[0] = 2.5\n"
    )
    m = _load(path, "kdsl_test_redefined")
    sys.modules.pop("kdsl_test_redefined")
    assert "1.5f" in kcompile.transpiled(m.FIRST.dispatch()).source
    assert "2.5f" in kcompile.transpiled(m.k.dispatch()).source


def test_constants_and_device_functions_of_other_modules_are_in_the_key(
    gpu, tmp_path, monkeypatch
):
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "kdsl_test_cfg.py").write_text("SCALE = 1.5\n")
    (tmp_path / "kdsl_test_helpers.py").write_text(
        "import kdsl\n" "@kdsl.func\ndef bump(v):\n    return v + 0.25\n"
    )
    (tmp_path / "kdsl_test_user.py").write_text(
        "import kdsl\nfrom kdsl import Pointer, Float32\n"
        "import kdsl_test_helpers\nfrom kdsl_test_cfg import SCALE\n"
        "@kdsl.kernel\ndef k(x: Pointer[Float32]):\n"
        "    x[0] = kdsl_test_helpers.bump(x[0] * SCALE)\n"
    )

    def source():
        for name in ("kdsl_test_cfg", "kdsl_test_helpers", "kdsl_test_user"):
            sys.modules.pop(name, None)
        cache.SOURCES.memory.clear()  # a new process: only the disk cache
        m = importlib.import_module("kdsl_test_user")
        return kcompile.transpiled(m.k.dispatch()).source

    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    try:
        assert "1.5f" in source() and "0.25f" in source()
        (tmp_path / "kdsl_test_cfg.py").write_text("SCALE = 3.25\n")
        assert "3.25f" in source()
        (tmp_path / "kdsl_test_helpers.py").write_text(
            (tmp_path / "kdsl_test_helpers.py").read_text().replace("0.25", "0.875")
        )
        assert "0.875f" in source()
    finally:
        for name in ("kdsl_test_cfg", "kdsl_test_helpers", "kdsl_test_user"):
            sys.modules.pop(name, None)


def test_a_plan_made_before_pytorch_was_imported_learns_about_it(monkeypatch):
    """The packer binds torch.Tensor only if PyTorch is imported; a plan made
    earlier regenerates its packer, so tensors do not take the slow path."""
    import types

    from kdsl.runtime import launch

    calls = []
    plan = launch.LaunchPlan.__new__(launch.LaunchPlan)
    plan.kernel = plan.instance = plan.function = plan.loaded = None
    plan.device, plan.alignment = 0, {}

    def fake_generate(kernel, inst, device, function, alignment, loaded):
        calls.append("torch" in sys.modules)
        return lambda *a: None

    monkeypatch.setattr(launch, "_generate", fake_generate)
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    plan.refresh()
    assert plan.current() is plan and calls == [False]
    monkeypatch.setitem(sys.modules, "torch", types.ModuleType("torch"))
    assert plan.current() is plan and calls == [False, True]
    plan.current()
    assert calls == [False, True]  # regenerated once


@pytest.mark.parametrize(
    "grid,message",
    [
        ((1, 65536), "grid"),
        ((1, 1, 70000), "grid"),
        (2**31, "grid"),
        ((0,), "positive"),
    ],
)
def test_grid_limits_are_checked_before_anything_runs(grid, message):
    from kdsl.runtime.launch import Launcher

    kernel = _vector_add()
    with pytest.raises(kdsl.DSLError, match=message):
        Launcher(kernel, (grid, 256))


def test_an_unhashable_dtype_takes_the_thorough_path(monkeypatch):
    from kdsl.runtime import launch

    kernel = _vector_add()
    launcher = launch.Launcher.__new__(launch.Launcher)
    launcher.kernel, launcher.dt_index, launcher.last = kernel, 0, (None, None, None)
    launcher.plans, launcher.grid, launcher.block = {}, (1,), (1,)
    launcher.optional_at, launcher.follows = (), False
    monkeypatch.setattr(launch, "_get_device", lambda: 0)
    called = []
    monkeypatch.setattr(kernel, "_launch", lambda *a: called.append(a))

    class Odd:
        dtype = ["not", "hashable"]

    launcher(Odd(), Odd(), Odd(), 1)
    assert called


def _vector_add():
    sys.path.insert(0, str(Path(__file__).parents[1]))
    from examples_index import example_modules

    return example_modules()["vector_add"].vector_add


def test_none_for_an_optional_pointer_launches_the_instance_without_it(gpu):
    out, bias = device_array(4), device_array(4, ptr=0x20000)
    for args in [(out, bias, 4), (out, None, 4), (out, bias, 4), (out, None, 4)]:
        biased[1, 32](*args)
    assert [name for name, _ in gpu.log] == [
        "biased__f32",
        "biased__f32__nobias",
        "biased__f32",
        "biased__f32__nobias",
    ]
    assert [len(packed) for _, packed in gpu.log] == [3, 2, 3, 2]
    assert gpu.log[1][1][0] is out and gpu.log[1][1][1] == 4
    assert len(gpu.loads) == 2  # one plan each


def test_an_instance_launch_checks_none_against_the_instance(gpu):
    out, bias = device_array(4), device_array(4, ptr=0x20000)
    without = biased.dispatch(Float32, bias=None)
    without[1, 32](out, None, 4)
    assert gpu.log[-1][0] == "biased__f32__nobias"
    with pytest.raises(kdsl.DSLError, match=r"E486.*'bias' is an array"):
        without[1, 32](out, bias, 4)
    with pytest.raises(kdsl.DSLError, match=r"E486.*'bias' is None"):
        biased.dispatch(Float32)[1, 32](out, None, 4)


def test_a_tensor_subclass_launches_on_pytorchs_current_stream(gpu, monkeypatch):
    """A tensor whose type is a subclass of ``torch.Tensor`` (``nn.Parameter``)
    misses the fast path's exact type test; the launch still goes to
    PyTorch's current stream, not CuPy's."""
    Tensor = fake_torch(monkeypatch, current_stream=0xABC0).Tensor

    class Parameter(Tensor):
        pass

    scaled[1, 16](Parameter(0), 16)
    scaled[1, 16](Parameter(0), 16)
    assert [s.ptr for s in gpu.functions[-1].streams] == [0xABC0, 0xABC0]


# -- tensor maps ----------------------------------------------------------------------------
def _fake_map(device=0):
    from kdsl.runtime import tensormap

    param = np.arange(16, dtype=np.uint64).view("V128")
    info = arrays.describe(device_array(64 * 64, np.float16).reshape(64, 64))
    return tensormap.TensorMapArg(None, info, (64, 64), 128, param)


def test_a_tensor_map_is_passed_as_its_128_bytes(gpu):
    tmap, x = _fake_map(), device_array(16)
    for _ in range(2):  # the first launch, then the cached plan
        takes_map[1, 16](tmap, x, 16)
        packed = gpu.log[-1][1]
        assert packed[0] is tmap.param and packed[0].dtype.itemsize == 128
        assert packed[0].shape == (1,)  # CuPy passes a size-one array by value
        assert packed[1] is x and int(packed[2]) == 16


def test_a_tensor_map_parameter_takes_only_a_built_map(gpu):
    x = device_array(16)
    takes_map[1, 16](_fake_map(), x, 16)
    for wrong in (x, np.zeros(16, np.uint64), None):
        with pytest.raises(kdsl.DSLError, match="E846"):
            takes_map[1, 16](wrong, x, 16)
    with pytest.raises(kdsl.DSLError, match="device"):
        takes_map[1, 16](_fake_map(device=0).__class__(
            None, arrays.ArrayInfo(0, T.Float16, (64, 64), (64, 1), True, 1, "cupy"),
            (64, 64), 128, _fake_map().param), x, 16)  # fmt: skip
    assert len(gpu.log) == 1


def test_gemm_tmas_two_launch_plan_launches_its_two_instances(gpu, monkeypatch):
    """examples/gemm_tma.py's split-K in two launches, as matmul() runs a
    plan of them: the instance of the kernel that only stores its slices
    (``arrived`` None), then split_sum's, each with its own arguments."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
    import gemm_tma as G

    M, N, K = 16, 256, 1024
    a = device_array(M * K, np.float16, ptr=0x20000).reshape(M, K)
    b = device_array(K * N, np.float16, ptr=0x40000).reshape(K, N)
    c = device_array(M * N, np.float16, ptr=0x80000).reshape(M, N)
    part = device_array(4 * M * N, ptr=0x100000)
    maps = (_fake_map(), _fake_map())
    m = dict(BN=128, STAGES=4, EDGE=True, B_ROW_MAJOR=True, SPLIT=4)
    grid = G.persistent_grid(M, N, 132)
    store, two = G.two_launches(m, grid, (*maps, c, part, None, M, N, K))
    monkeypatch.setattr(G, "multiprocessors", lambda: 132)
    monkeypatch.setattr(G, "workspace", lambda like, floats, counters: (part, "n/a"))
    plan = (132, store, M, N, K, 4 * M * N, 16, two)
    monkeypatch.setitem(G._PLANS, (a.shape, b.shape, c.shape, True, None), plan)
    G.matmul(a, b, c, maps=maps)
    (kernel, packed), (summing, summed) = gpu.log
    assert kernel == "gemm_tma__f16__128__4__8__true__true__4__noarrived"
    assert packed[2] is c and packed[3] is part and len(packed) == 7  # no arrived
    assert [int(v) for v in packed[4:]] == [M, N, K]
    assert summing == "split_sum__f16__4"
    assert (
        summed[0] is part and summed[1] is c and [int(v) for v in summed[2:]] == [M, N]
    )
    assert gpu.shared == [G.shared_mem(128, 4), 0]
    assert gpu.functions[0].blocks == [(G.THREADS,)]
    assert gpu.functions[1].blocks == [(256,)]


def test_tensor_map_reads_the_device_array(gpu, monkeypatch):
    from kdsl.runtime import tensormap

    seen = []
    monkeypatch.setattr(tensormap, "_encode", lambda enc: seen.append(enc) or "bytes")
    monkeypatch.setattr(tensormap, "_ENCODED", {})
    a = device_array(128 * 64, np.float16, ptr=0x20000).reshape(128, 64)
    m = kdsl.tensor_map(a, box=(64, 64))
    assert seen == [
        tensormap.Encoding("FLOAT16", 0x20000, (64, 128), 128, (64, 64), 128)
    ]
    assert m.param == "bytes" and m.array is a and m.device == 0
    assert m.box_bytes == 8192 and "box=(64, 64)" in repr(m)
    with pytest.raises(kdsl.DSLError, match="E844"):
        kdsl.tensor_map(a[:, 4:], box=(64, 32))  # its start: 8 bytes past 16
    with pytest.raises(kdsl.DSLError, match="E841"):
        kdsl.tensor_map(np.zeros((64, 64), np.float16), box=(64, 64))
    with pytest.raises(kdsl.DSLError, match="E841"):
        kdsl.tensor_map("a", box=(64, 64))


def test_a_map_of_the_same_memory_is_encoded_once(gpu, monkeypatch):
    from kdsl.runtime import tensormap

    seen = []
    monkeypatch.setattr(tensormap, "_encode", lambda enc: seen.append(enc) or [enc])
    monkeypatch.setattr(tensormap, "_ENCODED", {})
    a = device_array(128 * 64, np.float16, ptr=0x40000).reshape(128, 64)
    b = device_array(128 * 64, np.float16, ptr=0x40000).reshape(128, 64)
    first = kdsl.tensor_map(a, box=(64, 64))
    again = kdsl.tensor_map(b, box=(64, 64))  # another array, the same memory
    assert len(seen) == 1 and again.param is first.param and again.array is b
    # another box, swizzle, address or shape: encoded on its own
    kdsl.tensor_map(a, box=(32, 64))
    kdsl.tensor_map(a, box=(64, 32), swizzle=64)
    kdsl.tensor_map(a[64:], box=(64, 64))
    kdsl.tensor_map(a.reshape(64, 128), box=(64, 64))
    assert len(seen) == 5 and len(set(seen)) == 5
    # a bounded table: full, it starts again
    monkeypatch.setattr(tensormap, "MAX_ENCODED", 5)
    kdsl.tensor_map(a, box=(16, 64))
    assert len(tensormap._ENCODED) == 1 and len(seen) == 6


def _cuda_device_count() -> int:
    try:
        return cupy.cuda.runtime.getDeviceCount()
    except Exception:  # noqa: BLE001 - no driver: none
        return 0


def test_without_a_driver_building_a_map_says_so(gpu):
    # (not conftest's gpu_available: in a whole run another folder's
    # conftest module may answer to that name)
    if _cuda_device_count() > 0:
        pytest.skip("this machine has a CUDA driver: the map would be built")
    a = device_array(128 * 64, np.float16).reshape(128, 64)
    with pytest.raises(kdsl.DSLError, match="E845"):
        kdsl.tensor_map(a, box=(64, 64))


def test_a_struct_array_needs_its_alignment_not_its_size():
    """llama.cpp's 34-byte block_q8_0 (alignment 2) at a 4 KiB boundary, as
    CuPy allocates: accepted (E816 compared the address with the size, so
    every allocation not a multiple of 34 bytes was refused on the GPU);
    an odd address is still refused."""
    from kdsl.runtime.checks import check_layout

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import struct_kernels as K

    check_layout("x", K.BlockQ8_0, 0x7F9205E03000, (4,), (34,), False)
    check_layout("s", K.Segment, 0x10000 + 48 * 3, (4,), (48,), False)
    with pytest.raises(kdsl.DSLError) as info:
        check_layout("x", K.BlockQ8_0, 0x7F9205E03001, (4,), (34,), False)
    assert info.value.code == "E816" and "2-byte" in info.value.message
    with pytest.raises(kdsl.DSLError) as info:
        check_layout("s", K.Segment, 0x10008, (4,), (48,), False)
    assert info.value.code == "E816" and "16-byte" in info.value.message
    # an address between two 34-byte elements, 2-aligned: of the first two
    # even offsets into the buffer, at most one is a multiple of 34
    raw = np.zeros(8 * 34 + 4, np.uint8)
    skip = 2 if (raw.ctypes.data + 2) % 34 else 4
    blocks = raw[skip : skip + 8 * 34].view(K.BlockQ8_0.dtype)
    assert blocks.ctypes.data % 34 and blocks.ctypes.data % 2 == 0
    blocks["d"] = 1.0
    blocks["qs"] = 3
    y = np.zeros(8 * 32, np.float32)
    K.dequantize_q8_0.interpret[1, 256](blocks, y, 8 * 32)
    assert (y == 3.0).all()
