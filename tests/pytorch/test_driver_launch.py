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
    for k in (axpy, bytes_in, blocks_in, twice, twice_backward):
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


# -- the compiled replay (runtime/native.c) --------------------------------------------
import kdsl.torch as kt  # noqa: E402
from kdsl.runtime import native  # noqa: E402

needs_cc = pytest.mark.skipif(
    native.module() is None, reason=f"no compiled replay: {native.why()}"
)

CALLS = []  # one entry per run of axpy_op's function


@kt.op("kdsl_native::axpy", replay=True)
def axpy_op(x: torch.Tensor, a: float, n: int) -> torch.Tensor:
    CALLS.append(n)
    y = torch.empty_like(x)
    axpy[2, 32](x, y, a, n, 2**40, -0.5)
    return y


@kt.op("kdsl_native::axpy_pair", replay=True)
def axpy_pair(x: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Two outputs, one of them of no input's shape, two launches."""
    CALLS.append("pair")
    y, z = torch.empty_like(x), torch.empty(x.shape[0] + 1, dtype=x.dtype)
    axpy[1, 32](x, y, 2.0, x.shape[0], 1, 0.0)
    axpy[1, 32](w, z, 3.0, x.shape[0], 1, 0.0)
    return y, z


@kdsl.kernel
def twice_backward(grad_y: Pointer[D], grad_x: Pointer[D], n: Int32):
    if thread_idx.x < n:
        grad_x[thread_idx.x] = grad_y[thread_idx.x] + grad_y[thread_idx.x]


@kdsl.kernel(backward=twice_backward)
def twice(x: Pointer[D], y: Pointer[D], n: Int32):
    if thread_idx.x < n:
        y[thread_idx.x] = x[thread_idx.x] + x[thread_idx.x]


@kt.op("kdsl_native::twice", replay=True)
def twice_op(x: torch.Tensor) -> torch.Tensor:
    CALLS.append("twice")
    y = torch.empty_like(x)
    twice[1, 32](x, y, x.numel())
    return y


LAUNCH_KERNEL = ctypes.CFUNCTYPE(
    ctypes.c_int,
    *([ctypes.c_void_p] + [ctypes.c_uint] * 7 + [ctypes.c_void_p] * 3),
)


@pytest.fixture
def compiled(driver, monkeypatch):
    """The compiled replay on device -1: CPU tensors are its tensors, and
    its cuLaunchKernel (a ctypes function) reads the parameters as the
    driver fixture's launch does, or returns the status in
    ``driver.fail``."""

    def launch_kernel(f, gx, gy, gz, bx, by, bz, smem, stream, params, extra):
        if driver.fail:
            return driver.fail.pop(0)
        driver.native += 1
        launch = cupy.cuda.driver.launchKernel
        launch(f, gx, gy, gz, bx, by, bz, smem, stream, params, extra)
        return 0

    driver.native = 0
    function = LAUNCH_KERNEL(launch_kernel)
    monkeypatch.setattr(kt, "_NATIVE", {})
    monkeypatch.setattr(kt, "_NATIVE_CALL", kt._NATIVE_CALL)
    monkeypatch.setattr(kt, "_NATIVE_REPLAY", kt._NATIVE_REPLAY)
    monkeypatch.setattr(kt, "_one_gpu", lambda: True)  # (the fixture's device -1)
    inspect = kt._inspect  # the CPU tensors taken for device -1's
    monkeypatch.setattr(
        kt, "_inspect", lambda a, k: (lambda f: f and ("cuda", *f[1:]))(inspect(a, k))
    )
    ops = (axpy_op, axpy_pair, twice_op)
    for op in ops:
        monkeypatch.setattr(op, "replays", {})
        monkeypatch.setattr(op, "plans", {})
        op.native.clear()  # (the list the dispatcher's kernels hold too)
    kt._native_configure(ctypes.cast(function, ctypes.c_void_p).value, lambda d: 0x5EA)
    CALLS.clear()
    yield driver
    KEEP.append(function)  # (the module keeps its address)
    for op in ops:
        op.native.clear()


KEEP = []


@needs_cc
def test_a_replay_runs_compiled_after_two_recorded_calls_agree(compiled):
    compiled.kinds = "ppfiqd"
    x = torch.arange(32, dtype=torch.float32)
    outs = [axpy_op(x, 0.5, 32) for _ in range(5)]
    assert CALLS == [32] * 3  # the first call, two recorded: then compiled
    assert compiled.native == 2 and len(axpy_op.native) == 1
    for (f, grid, block, smem, stream, values), y in zip(compiled, outs):
        assert (f, grid, block, smem, stream) == (
            0xF00D,
            (2, 1, 1),
            (32, 1, 1),
            0,
            0x5EA,
        )
        assert values == [x.data_ptr(), y.data_ptr(), 0.5, 32, 2**40, -0.5]
    assert len({y.data_ptr() for y in outs}) == 5  # each call its own output
    assert outs[-1].shape == x.shape and outs[-1].dtype == x.dtype
    axpy_op.op(x, 0.5, 32)  # through the dispatcher: its autograd-key kernel
    assert compiled.native == 3 and len(CALLS) == 3


@needs_cc
def test_another_signature_takes_the_python_path(compiled):
    compiled.kinds = "ppfiqd"
    x = torch.ones(32, 1)
    for _ in range(3):
        axpy_op(x, 0.5, 32)
    CALLS.clear()
    axpy_op(x, 0.25, 32)  # another scalar: learnt anew
    axpy_op(x, 0.5, 31)
    axpy_op(x.double(), 0.5, 32)
    axpy_op(torch.ones(16, 2), 0.5, 32)  # another shape
    axpy_op(torch.ones(1, 32).t(), 0.5, 32)  # other strides (32 x 1 too)
    assert CALLS == [32, 31, 32, 32, 32] and compiled.native == 0
    axpy_op(torch.ones(33)[1:].view(32, 1), 0.5, 32)  # another address
    assert compiled.native == 1


@needs_cc
def test_what_must_see_the_call_keeps_it_from_the_compiled_replay(
    compiled, monkeypatch
):
    compiled.kinds = "ppfiqd"
    x = torch.ones(32)
    for _ in range(3):
        axpy_op(x, 0.5, 32)
    CALLS.clear()
    with torch.no_grad():  # a tensor that requires grad: another signature
        axpy_op(x.clone().requires_grad_(), 0.5, 32)

    funcs = []

    class Passing(torch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            funcs.append(func)
            return func(*args, **(kwargs or {}))

    with Passing():  # a mode sees the operator: the call goes to the dispatcher
        axpy_op(x, 0.5, 32)
    assert funcs == [axpy_op.overload]
    assert compiled.native == 1  # (below the mode, the operator's kernel)
    seen = []
    with kt._intercepting(lambda *a: seen.append(a)):  # a call being recorded
        axpy_op(x, 0.5, 32)
    assert compiled.native == 1 and len(seen) == 1
    axpy_op(x, 0.5, 32)
    assert compiled.native == 2


@needs_cc
def test_a_call_that_needs_a_gradient_gets_a_node_whose_forward_runs_compiled(
    compiled,
):
    """A signature with a tensor that requires grad: with grad mode on, the
    compiled test hands the call to autograd's node (the backward plan and
    launch as before), whose forward runs the compiled replay; under
    no_grad the call runs it at once."""
    compiled.kinds = "ppi"
    x = torch.ones(32, requires_grad=True)
    for _ in range(5):
        twice_op(x).sum().backward()
    # the first call, its backward plan's recorded run, two recorded calls
    assert CALLS == ["twice"] * 4
    assert len(twice_op.native) == 1
    assert len(compiled) == 10  # a forward and a backward launch each time
    # compiled: the last two forwards, and the backwards after the first
    # (its plan's generated backward calls the compiled one)
    assert compiled.native == 2 + 4
    (planned,) = twice_op.plans.values()
    assert "_native((s0, g0,))" in planned.fast.__kdsl_source__
    assert x.grad.shape == x.shape
    with torch.no_grad():
        y = twice_op(x)
    assert compiled.native == 7 and not y.requires_grad
    (replay,) = twice_op.replays.values()
    assert "_native(inputs)" in replay.__kdsl_source__


@needs_cc
def test_two_outputs_and_launches_replay_compiled(compiled):
    compiled.kinds = "ppfiqd"
    x, w = torch.ones(8), torch.zeros(8)
    outs = [axpy_pair(x, w) for _ in range(4)]
    assert CALLS == ["pair"] * 3 and compiled.native == 2
    y, z = outs[-1]
    assert z.shape == (9,) and z.dtype == torch.float32
    first, second = compiled[-2:]
    assert first[5][:4] == [x.data_ptr(), y.data_ptr(), 2.0, 8]
    assert second[5][:4] == [w.data_ptr(), z.data_ptr(), 3.0, 8]
    CALLS.clear()
    axpy_pair(x, x)  # one tensor twice: not this signature
    assert CALLS == ["pair"] and compiled.native == 2


@needs_cc
def test_the_compiled_test_tells_what_the_signature_tells(compiled):
    """Floats by their bits, scalars by their exact type, nn.Parameter as a
    tensor, a subclass not."""
    compiled.kinds = "ppfiqd"
    x = torch.ones(32)
    for _ in range(3):
        axpy_op(x, 0.0, 32)
    CALLS.clear()
    axpy_op(x, -0.0, 32)  # not 0.0
    with pytest.raises(kdsl.DSLError, match="E427"):  # a bool is not an int:
        axpy_op(x, 0.0, True)  # the function's launch says so
    assert CALLS == [32, True] and compiled.native == 0
    axpy_op(torch.nn.Parameter(torch.ones(32), requires_grad=False), 0.0, 32)
    assert compiled.native == 1

    class Sub(torch.Tensor):
        pass

    axpy_op(torch.ones(32).as_subclass(Sub), 0.0, 32)
    assert compiled.native == 1


@needs_cc
def test_the_compiled_test_refuses_a_misaligned_address(compiled):
    """A launch that needs 16-byte addresses: a view 4 bytes in is not
    its call (the Python path says what is wrong)."""
    module = kt._NATIVE["module"]
    compiled.kinds = "p"
    x = torch.ones(64)
    tensor = ("tensor", x.dtype, torch.Size([32]), (1,), False, False)
    launch = (0xF00D, (1, 1, 1), (32, 1, 1), 0, bytes(8), (0,), ((0, 0, 0, 16),))
    replay = module.Replay((tensor,), ((0, None, (), {}),), (launch,), False, 0, "t")
    assert replay.tag == "t"
    assert module.call([replay], (x[1:33],)) is None
    assert replay((x[1:33],)) is None
    assert module.call([replay], (x[:32], x)) is None  # another arity
    out = module.call([replay], (x[:32],))
    assert out.shape == (32,) and compiled[-1][5] == [x.data_ptr()]
    stray = (*launch[:6], ((0, 5, 0, 16),))  # input 5 of 1
    with pytest.raises(ValueError, match="a pointer of no tensor"):
        module.Replay((tensor,), ((0, None, (), {}),), (stray,), False, 0, None)


@needs_cc
def test_a_failed_launch_raises_or_gets_a_context(compiled, monkeypatch):
    compiled.kinds = "ppfiqd"
    made = []
    x = torch.ones(32)
    for _ in range(3):
        axpy_op(x, 0.5, 32)
    compiled.fail = [700]
    with pytest.raises(DriverError) as caught:
        axpy_op(x, 0.5, 32)
    assert caught.value.status == 700 and compiled.native == 0
    compiled.fail = [201]  # no context on this thread: made, launched again
    monkeypatch.setattr(
        lmod, "_with_context", lambda d, r: lambda e: made.append((d, e.status))
    )
    axpy_op(x, 0.5, 32)
    assert made == [(0, 201)] and compiled.native == 1


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
