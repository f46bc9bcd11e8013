"""The driver-level launch (kdsl.runtime.launch, ``_driver_fields``): a
plan whose function is a plain CuPy ``Function`` and whose parameters are
pointers, integers and Float32/Float64 writes its arguments into a
parameter buffer kept per thread and calls ``cuLaunchKernel`` itself.
Without a GPU the driver call is replaced by one that reads the buffer as
the driver would: each parameter's bytes at the address the array gives."""

import ctypes
import threading

import numpy as np
import pytest

torch = pytest.importorskip("torch")
cupy = pytest.importorskip("cupy")

import kdsl  # noqa: E402
from kdsl import Float32, Float64, Int32, Int64, Pointer, Uint8  # noqa: E402
from kdsl import thread_idx  # noqa: E402
from kdsl.runtime import autotune as at  # noqa: E402
from kdsl.runtime import compile as kcompile  # noqa: E402
from kdsl.runtime import kernel as kmod  # noqa: E402
from kdsl.runtime import launch as lmod  # noqa: E402

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel
def axpy(x: Pointer[D], y: Pointer[D], a: Float32, n: Int32, big: Int64, b: Float64):
    i = thread_idx.x
    if i < n and big > 0:
        y[i] = (a * x[i].to(Float32) + b.to(Float32)).to(D)


@kdsl.kernel
def bytes_in(x: Pointer[Uint8], h: kdsl.Float16):
    if h > 0.0:
        x[thread_idx.x] = x[thread_idx.x]


@kdsl.struct
class Block:
    scale: Float32
    q: kdsl.Int8[4]


@kdsl.kernel
def blocks_in(x: Pointer[Block], n: Int32):
    if thread_idx.x < n:
        x[thread_idx.x].scale = Float32(1.0)


@kdsl.kernel
def map_in(m: kdsl.TensorMap, x: Pointer[Float32], n: Int32):
    if thread_idx.x < n:
        x[thread_idx.x] = Float32(1.0)


class Function:
    """Stands in for CuPy's Function (``_is_cupy_function`` says it is one)."""

    ptr = 0xF00D

    def __init__(self, calls):
        self.calls = calls

    def __call__(self, grid, block, args, shared_mem, stream, **kw):
        self.calls.append(("cupy", grid, block, args))


class DriverError(Exception):
    def __init__(self, status):
        self.status = status


C_TYPES = {"p": ctypes.c_uint64, "f": ctypes.c_float, "i": ctypes.c_int32}
C_TYPES.update({"q": ctypes.c_int64, "d": ctypes.c_double})


class Launches(list):
    kinds = ""  # each parameter's C type, by its letter in C_TYPES
    fail: list  # driver errors to raise, by status, before launching


@pytest.fixture
def driver(monkeypatch):
    """Device -1 (CPU tensors pass as its tensors); each launch's arguments
    as the driver reads them, by the parameters' C types given in
    ``launches.kinds``."""
    launches = Launches()
    device = lambda: -1  # noqa: E731
    for module in (lmod, kmod, at):
        monkeypatch.setattr(module, "current_device", device)
    monkeypatch.setattr(lmod, "_get_device", device)
    monkeypatch.setattr(lmod, "_several_gpus", lambda: True)
    monkeypatch.setitem(lmod._LIMITS, -1, 1024)
    monkeypatch.setitem(lmod._BLOCK_DIMS, -1, (1024, 1024, 64))
    monkeypatch.setattr(lmod, "_is_cupy_function", lambda f: isinstance(f, Function))
    monkeypatch.setattr(kcompile, "load_function", lambda i, d: Function(launches))
    monkeypatch.setattr(lmod, "raw_stream_query", lambda t: lambda d: 0x5EA)
    monkeypatch.setattr(cupy.cuda.driver, "CUDADriverError", DriverError)

    def launch(f, gx, gy, gz, bx, by, bz, smem, stream, params, extra):
        if launches.fail:
            status = launches.fail.pop(0)
            raise DriverError(status)
        addresses = (ctypes.c_void_p * len(launches.kinds)).from_address(params)
        values = [
            C_TYPES[k].from_address(a).value for k, a in zip(launches.kinds, addresses)
        ]
        launches.append((f, (gx, gy, gz), (bx, by, bz), smem, stream, values))

    launches.fail = []
    monkeypatch.setattr(cupy.cuda.driver, "launchKernel", launch)
    for k in (axpy, bytes_in, blocks_in):
        monkeypatch.setattr(k, "_plans", {})
        monkeypatch.setattr(k, "_launchers", {})
    return launches


def test_the_arguments_reach_the_driver_in_their_c_types(driver):
    driver.kinds = "ppfiqd"
    x, y = torch.ones(32), torch.empty(32)
    axpy[2, 32](x, y, 0.1, 32, 2**40, -0.0)
    (launch,) = driver
    assert launch[:5] == (0xF00D, (2, 1, 1), (32, 1, 1), 0, 0x5EA)
    values = launch[5]
    assert values[:2] == [x.data_ptr(), y.data_ptr()]
    assert values[2] == float(np.float32(0.1))  # rounded as CuPy's packing rounds
    assert values[3:5] == [32, 2**40]
    assert str(values[5]) == "-0.0"


def test_a_scalar_out_of_range_is_refused_before_the_driver(driver):
    x, y = torch.ones(32), torch.empty(32)
    with pytest.raises(kdsl.DSLError, match="E"):
        axpy[1, 32](x, y, 1.0, 2**31, 1, 0.0)
    assert driver == []


def test_a_given_stream_is_launched_on(driver):
    driver.kinds = "ppfiqd"
    x, y = torch.ones(8), torch.empty(8)

    class Stream:
        cuda_stream = 0xABC

    monkey = cupy.cuda.ExternalStream
    try:
        cupy.cuda.ExternalStream = lambda ptr: type("S", (), {"ptr": ptr})()
        lmod._STREAMS.pop(0xABC, None)
        axpy[1, 8](x, y, 1.0, 8, 1, 0.0, stream=Stream())
    finally:
        cupy.cuda.ExternalStream = monkey
        lmod._STREAMS.pop(0xABC, None)
    assert driver[0][4] == 0xABC


def test_each_thread_has_a_buffer_of_its_own(driver):
    driver.kinds = "ppfiqd"
    x, y = torch.ones(8), torch.empty(8)
    axpy[1, 8](x, y, 1.0, 8, 1, 0.0)
    buffers = []
    plan = axpy[1, 8].last[2]
    parameters = plan.__globals__["_parameters"]
    buffers.append(parameters.buffer)
    t = threading.Thread(target=lambda: buffers.append(parameters.buffer))
    t.start()
    t.join()
    assert buffers[0][1] != buffers[1][1]  # two address arrays
    assert buffers[0][0] is not buffers[1][0]


def test_a_thread_without_a_context_gets_one_and_launches_again(driver, monkeypatch):
    driver.kinds = "ppfiqd"
    made = []
    monkeypatch.setattr(cupy.cuda.runtime, "setDevice", lambda d: made.append(d))
    monkeypatch.setattr(cupy.cuda.runtime, "free", lambda p: made.append(p))
    driver.fail = [201]  # CUDA_ERROR_INVALID_CONTEXT
    x, y = torch.ones(8), torch.empty(8)
    axpy[1, 8](x, y, 1.0, 8, 1, 0.0)
    assert made == [-1, 0] and len(driver) == 1
    driver.fail = [700]  # anything else is the caller's
    with pytest.raises(DriverError):
        axpy[1, 8](x, y, 1.0, 8, 1, 0.0)


def test_kernels_the_driver_path_cannot_pack_launch_through_cupy(driver):
    x = torch.zeros(8, dtype=torch.uint8)
    bytes_in[1, 8](x, 1.0)  # a Float16 parameter: CuPy packs it
    (call,) = driver
    assert call[0] == "cupy" and call[3][0] == x.data_ptr()
    source = bytes_in[1, 8].last[2].__kdsl_source__
    assert "_launch_kernel" not in source and "_function(grid" in source


def test_a_pointer_to_structs_launches_through_cupy(driver):
    """A struct's type (like a tensor map's) names no dtype: the plan falls
    back to CuPy's launch (the H200 run found AttributeError: type object
    'block_q8_0' has no attribute 'name')."""
    loaded = Function(driver)
    inst = blocks_in.dispatch()
    assert lmod._driver_fields(blocks_in, inst, {}, loaded, loaded) is None
    inst = map_in.dispatch()  # a tensor map (the TMA GEMMs' and attention's)
    assert lmod._driver_fields(map_in, inst, {}, loaded, loaded) is None
    inst = axpy.dispatch("f32")
    fields = lmod._driver_fields(axpy, inst, {"D": Float32}, loaded, loaded)
    assert fields[0] is ctypes.c_uint64 and len(fields) == 6


def test_cupy_launch_requested_by_the_environment(driver, monkeypatch):
    monkeypatch.setenv("KDSL_CUPY_LAUNCH", "1")
    x, y = torch.ones(8), torch.empty(8)
    axpy[1, 8](x, y, 1.0, 8, 1, 0.0)
    (call,) = driver
    assert call[0] == "cupy"


# -- on the GPU ------------------------------------------------------------------------
gpu = pytest.mark.gpu


@kdsl.kernel
def scale_add(x: Pointer[D], y: Pointer[D], a: Float32, n: Int32, b: Float64):
    i = kdsl.block_idx.x * 64 + thread_idx.x
    if i < n:
        y[i] = (a * x[i].to(Float32) + b.to(Float32)).to(D)


def _source(launcher) -> str:
    return launcher.last[2].__kdsl_source__


@gpu
def test_gpu_the_driver_launch_writes_what_the_reference_does():
    """Tensors, CuPy arrays, a given stream, another thread (no context
    made there yet) and a CUDA graph capture, each through the driver."""
    n = 1000
    x = torch.randn(n, device="cuda")
    want = (0.5 * x + 0.25).cpu()
    y = torch.empty_like(x)
    launcher = scale_add[(n + 63) // 64, 64]
    launcher(x, y, 0.5, n, 0.25)
    assert "_launch_kernel" in _source(launcher)
    torch.testing.assert_close(y.cpu(), want, rtol=0, atol=1e-6)
    cx, cy = cupy.asarray(x), cupy.empty(n, dtype=cupy.float32)
    launcher(cx, cy, 0.5, n, 0.25)
    torch.testing.assert_close(torch.as_tensor(cy.get()), want, rtol=0, atol=1e-6)
    side = torch.cuda.Stream()
    y.zero_()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # PyTorch's current stream
        launcher(x, y, 0.5, n, 0.25)
    side.synchronize()
    torch.testing.assert_close(y.cpu(), want, rtol=0, atol=1e-6)
    y.zero_()
    # (the zeroing runs on the current stream: the side stream waits for it,
    # or the kernel may run first and be zeroed; seen once on the H200)
    side.wait_stream(torch.cuda.current_stream())
    launcher(x, y, 0.5, n, 0.25, stream=side)  # a given stream
    side.synchronize()
    torch.testing.assert_close(y.cpu(), want, rtol=0, atol=1e-6)
    y.zero_()
    torch.cuda.synchronize()
    errors = []

    def elsewhere():
        try:
            launcher(x, y, 0.5, n, 0.25)
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    t = threading.Thread(target=elsewhere)
    t.start()
    t.join()
    assert not errors, errors
    torch.testing.assert_close(y.cpu(), want, rtol=0, atol=1e-6)
    y.zero_()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        launcher(x, y, 0.5, n, 0.25)
    x2 = torch.randn(n, device="cuda")
    x.copy_(x2)
    graph.replay()
    torch.cuda.synchronize()
    torch.testing.assert_close(y.cpu(), (0.5 * x2 + 0.25).cpu(), rtol=0, atol=1e-6)


@gpu
def test_gpu_the_driver_and_cupy_launch_agree_bit_for_bit(monkeypatch):
    n = 777
    x = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    outs = []
    for cupy_launch in ("0", "1"):
        monkeypatch.setenv("KDSL_CUPY_LAUNCH", cupy_launch)
        monkeypatch.setattr(scale_add, "_plans", {})
        monkeypatch.setattr(scale_add, "_launchers", {})
        y = torch.empty_like(x)
        launcher = scale_add[(n + 63) // 64, 64]
        launcher(x, y, 1.0 / 3.0, n, -0.1)
        assert ("_launch_kernel" in _source(launcher)) == (cupy_launch == "0")
        outs.append(y)
    assert torch.equal(outs[0].view(torch.int16), outs[1].view(torch.int16))
