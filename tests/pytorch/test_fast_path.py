"""kdsl.torch's eager fast path (docs/pytorch.md, "What a call costs"): a
call that nothing traces, fakes or records runs the function itself, without
PyTorch's dispatcher (on CPU tensors: its launches in the interpreter); a
call that needs a gradient runs as one autograd.Function whose backward plan
is kept per input signature.  Everything else goes through the
torch.library operator as before.  The GPU half is at the end."""

import pytest

torch = pytest.importorskip("torch")

import kdsl  # noqa: E402
import kdsl.torch as kt  # noqa: E402
from kdsl import Float32, Float64, Int32, Pointer, block_idx, thread_idx  # noqa: E402
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel
def mul_backward(
    x: Pointer[D], w: Pointer[D], grad_y: Pointer[D], grad_x: Pointer[D], n: Int32
):
    C = Float64 if D.width == 64 else Float32
    i = block_idx.x * 64 + thread_idx.x
    if i < n:
        grad_x[i] = (grad_y[i].to(C) * w[i].to(C)).to(D)


@kdsl.kernel(backward=mul_backward)
def mul(x: Pointer[D], w: Pointer[D], y: Pointer[D], n: Int32):
    """y = x * w (w gets no gradient: the backward has no grad_w)"""
    C = Float64 if D.width == 64 else Float32
    i = block_idx.x * 64 + thread_idx.x
    if i < n:
        y[i] = (x[i].to(C) * w[i].to(C)).to(D)


@kt.op("kdsl_fast::mul")
def mul_op(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    n = x.numel()
    mul[kt.blocks(n, 64), 64](x, w, y, n)
    return y


class ThroughTheLayer(TorchDispatchMode):
    """A dispatch mode that changes nothing: under it no call is plain, so
    the operator's gradient comes from custom_op's autograd layer (the
    reference the fast path's node is compared with)."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def layer_gradients(op, args, inputs, g):
    """The gradients of ``op(*args)`` with respect to ``inputs`` for the
    incoming ``g`` as custom_op's autograd layer gives them: the reference
    the fast path's node is compared with."""
    with ThroughTheLayer():
        reference = op.op(*args)
    return torch.autograd.grad(reference, inputs, g)


@pytest.fixture
def no_dispatcher(monkeypatch):
    """The torch.library operator refuses to be called: a call that reaches
    it did not take the fast path."""
    calls = []

    def refuse(*args, **kwargs):
        calls.append(args)
        raise AssertionError("the dispatcher was called")

    monkeypatch.setattr(mul_op, "op", refuse)
    return calls


@pytest.fixture
def counted_plans(monkeypatch):
    """How many times the backward was planned from a recorded run."""
    runs = []
    recorded = kt._recorded
    monkeypatch.setattr(
        kt, "_recorded", lambda *a, **k: (runs.append(1), recorded(*a, **k))[1]
    )
    mul_op.plans.clear()
    return runs


def test_an_eager_call_on_cpu_tensors_skips_the_dispatcher(no_dispatcher):
    x = torch.linspace(-1, 1, 100, dtype=torch.float64)
    w = torch.full_like(x, 3.0)
    assert torch.equal(mul_op(x, w), 3.0 * x)


def test_a_gradient_through_the_fast_path_equals_the_operators(
    no_dispatcher, counted_plans, monkeypatch
):
    x = torch.randn(130, dtype=torch.float64, requires_grad=True)
    w = torch.randn(130, dtype=torch.float64)
    y = mul_op(x, w)
    assert type(y.grad_fn).__name__ == "_DifferentiableBackward"
    (fast,) = torch.autograd.grad((y * y).sum(), x)
    monkeypatch.undo()  # the operator again, through the dispatcher
    with ThroughTheLayer():
        y2 = mul_op.op(x, w)
    assert type(y2.grad_fn).__name__ != "_DifferentiableBackward"
    (slow,) = torch.autograd.grad((y2 * y2).sum(), x)
    assert torch.equal(fast, slow)
    assert torch.equal(y.detach(), y2.detach())


def test_gradcheck_through_the_fast_path(no_dispatcher):
    x = torch.randn(20, dtype=torch.float64, requires_grad=True)
    w = torch.randn(20, dtype=torch.float64)
    assert torch.autograd.gradcheck(mul_op, (x, w))


def test_the_backward_plan_is_kept_per_input_signature(no_dispatcher, counted_plans):
    w = torch.randn(50, dtype=torch.float64)
    for _ in range(3):
        x = torch.randn(50, dtype=torch.float64, requires_grad=True)
        mul_op(x, w).sum().backward()
        torch.testing.assert_close(x.grad, w)
    assert len(counted_plans) == 1
    x = torch.randn(70, dtype=torch.float64, requires_grad=True)  # a new shape
    w = torch.randn(70, dtype=torch.float64)
    mul_op(x, w).sum().backward()
    torch.testing.assert_close(x.grad, w)
    assert len(counted_plans) == 2


def test_the_dispatchers_autograd_gives_plain_tensors_the_fast_paths_node(
    counted_plans,
):
    """Through the dispatcher (``op.op``, ``torch.ops``), plain tensors that
    need a gradient get the fast path's node, its plans kept per input
    signature; tensors that are not plain (here: inside a dispatch mode)
    get custom_op's autograd layer, planned at each call."""
    w = torch.randn(50, dtype=torch.float64)
    for _ in range(3):
        x = torch.randn(50, dtype=torch.float64, requires_grad=True)
        y = mul_op.op(x, w)
        assert type(y.grad_fn).__name__ == "_DifferentiableBackward"
        y.sum().backward()
        torch.testing.assert_close(x.grad, w)
    assert len(counted_plans) == 1
    for _ in range(2):
        x = torch.randn(50, dtype=torch.float64, requires_grad=True)
        with ThroughTheLayer():
            y = mul_op(x, w)
        y.sum().backward()
        torch.testing.assert_close(x.grad, w)
    assert len(counted_plans) == 3


def test_a_backward_plan_named_in_another_process_is_rebuilt(monkeypatch):
    """A compiled graph holds the backward operator's plan argument, and
    Inductor's cache hands that graph to later processes: the argument must
    name the same plan in a process that made other plans first, or none."""
    x = torch.randn(30, dtype=torch.float64, requires_grad=True)
    w = torch.randn(30, dtype=torch.float64)
    calls = []
    backward_op = mul_op.backward_op
    monkeypatch.setattr(
        mul_op, "backward_op", lambda *a: (calls.append(a), backward_op(*a))[1]
    )
    with ThroughTheLayer():  # custom_op's autograd: the backward operator
        y = mul_op.op(x, w)
    y.sum().backward()
    (args,) = calls
    plan = args[2]
    assert isinstance(plan, str) and "mul" in plan  # what the graph holds
    for fresh in (True, False):  # "another process": no plans, or others first
        monkeypatch.setattr(kt, "_PLANS", {})
        monkeypatch.setattr(kt, "_KEYS", {})
        if not fresh:
            y = torch.randn(7, dtype=torch.float64, requires_grad=True)
            with ThroughTheLayer():
                z = mul_op.op(y, torch.ones(7, dtype=torch.float64))
            z.sum().backward()
        (grad_x,) = torch.ops.kdsl_fast.mul_backward.default(*args)
        assert torch.equal(grad_x, args[1][0] * w)
    with pytest.raises(kdsl.DSLError, match="E537"):  # a kernel it cannot find
        torch.ops.kdsl_fast.mul_backward.default(
            args[0], args[1], plan.replace(":mul ", ":no_such_kernel "), *args[3:]
        )


def test_the_same_tensor_twice_is_planned_at_each_call(no_dispatcher, counted_plans):
    """``op(x, x)``: which input a launch argument is cannot be told from
    shapes, so such a call is planned each time (and the gradient flows
    through the first, as the operator's does)."""
    for _ in range(2):
        x = torch.randn(40, dtype=torch.float64, requires_grad=True)
        mul_op(x, x).sum().backward()
        torch.testing.assert_close(x.grad, x.detach())
    assert len(counted_plans) == 2


def test_inputs_named_by_keyword_take_the_fast_path_with_a_gradient(
    no_dispatcher, counted_plans
):
    """``op(x, w=w)`` needing a gradient: the autograd node takes its inputs
    by position, so the named ones are put in their places (it went
    through the dispatcher, twice the host time of the fast path)."""
    w = torch.randn(30, dtype=torch.float64)
    for call in (
        lambda x: mul_op(x, w=w),
        lambda x: mul_op(x=x, w=w),
        lambda x: mul_op(w=w, x=x),
        lambda x: mul_op(x, w),
    ):
        x = torch.randn(30, dtype=torch.float64, requires_grad=True)
        y = call(x)
        assert type(y.grad_fn).__name__ == "_DifferentiableBackward"
        y.sum().backward()
        torch.testing.assert_close(x.grad, w)
    assert len(counted_plans) == 1  # one signature: the same plan each time


def test_a_keyword_the_function_does_not_have_is_the_operators_error():
    x = torch.randn(5, dtype=torch.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="missing value for argument 'w'"):
        mul_op(x, weight=torch.ones(5, dtype=torch.float64))


def test_double_backward_is_refused(no_dispatcher):
    x = torch.randn(10, dtype=torch.float64, requires_grad=True)
    w = torch.randn(10, dtype=torch.float64)
    (g,) = torch.autograd.grad(mul_op(x, w).sum(), x, create_graph=True)
    with pytest.raises(RuntimeError):  # not a wrong second derivative
        g.sum().backward()


def test_no_grad_mode_takes_the_plain_fast_path(no_dispatcher, counted_plans):
    x = torch.randn(10, requires_grad=True)
    with torch.no_grad():
        y = mul_op(x, torch.ones(10))
    assert y.grad_fn is None and not y.requires_grad and counted_plans == []


@pytest.mark.parametrize(
    "context",
    [
        "fake",
        "profiler",
        "function_mode",
        "vmap",
        "meta",
        "subclass",
    ],
)
def test_what_must_see_the_operator_still_does(context):
    """Fake tensors, the profiler, torch function modes, functorch
    transforms, meta tensors and tensor subclasses each get the operator
    (through the dispatcher), not the function run directly."""
    seen = []
    op = mul_op.op

    def spy(*args, **kwargs):
        seen.append(1)
        return op(*args, **kwargs)

    x, w = torch.ones(8), torch.ones(8)
    mul_op.op = spy
    try:
        if context == "fake":
            from torch._subclasses.fake_tensor import FakeTensorMode

            with FakeTensorMode() as mode:
                mul_op(mode.from_tensor(x), mode.from_tensor(w))
        elif context == "profiler":
            with torch.profiler.profile() as prof:
                mul_op(x, w)
            assert "kdsl_fast::mul" in {e.name for e in prof.events()}
        elif context == "function_mode":
            from torch.overrides import TorchFunctionMode

            class Passing(TorchFunctionMode):
                def __torch_function__(self, func, types, args=(), kwargs=None):
                    return func(*args, **(kwargs or {}))

            with Passing():
                mul_op(x, w)
        elif context == "vmap":
            xs = torch.arange(16.0).view(2, 8)
            assert torch.equal(torch.vmap(mul_op)(xs, 2 * xs), 2 * xs * xs)
        elif context == "meta":
            mul_op(x.to("meta"), w.to("meta"))
        else:

            class Sub(torch.Tensor):
                pass

            mul_op(x.as_subclass(Sub), w)
    finally:
        mul_op.op = op
    assert seen


def test_torch_compile_still_gets_the_operator_in_one_graph():
    """Under dynamo the fast path's test is a constant (is_compiling()), so
    the traced graph holds the operator."""
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    compiled = torch.compile(
        lambda a, b: mul_op(a, b) + 1.0, fullgraph=True, backend=backend
    )
    x = torch.randn(30, dtype=torch.float64)
    assert torch.equal(compiled(x, x), x * x + 1.0)
    (gm,) = graphs
    targets = {str(n.target) for n in gm.graph.nodes if n.op == "call_function"}
    assert "kdsl_fast.mul.default" in targets


def _inductor_code(run, *args):
    """``(run(*args), the wrapper code Inductor generated meanwhile)``, with
    nothing cached (the code is generated here)."""
    from torch._inductor import config
    from torch._inductor.utils import run_and_get_code

    torch._dynamo.reset()
    with config.patch(force_disable_caches=True):
        out, codes = run_and_get_code(run, *args)
    return out, "\n".join(codes)


def test_inductor_calls_the_function_not_the_operator():
    """A compiled graph's call of the operator is the function itself
    (``_kdsl_cpu`` on CPU tensors: its launches interpreted), not a call
    through the dispatcher; the backward operator's too.  (Graphs of the
    operators alone: an elementwise node beside them would have Inductor
    compile a C++ kernel, 10 s of the suite's CPU, for nothing tested here.)"""
    x = torch.randn(40, dtype=torch.float64)
    w = torch.randn(40, dtype=torch.float64)
    forward = torch.compile(lambda a, b: mul_op(a, b), fullgraph=True)
    y, code = _inductor_code(forward, x, w)
    assert torch.equal(y, x * w)
    assert "torch.ops.kdsl_fast.mul.default._kdsl_cpu(" in code
    assert "torch.ops.kdsl_fast.mul.default(" not in code
    assert torch.ops.kdsl_fast.mul.default._kdsl_cuda is mul_op.fn

    xg = x.clone().requires_grad_()
    product = torch.compile(lambda a, b: mul_op(a, b), fullgraph=True)
    grad = torch.full_like(x, 2.0)
    _, code = _inductor_code(lambda: product(xg, w).backward(grad))
    torch.testing.assert_close(xg.grad, 2.0 * w)
    assert "torch.ops.kdsl_fast.mul_backward.default._kdsl_cpu(" in code


@kt.op("kdsl_fast::mul_two")
def mul_two_op(
    x: torch.Tensor, w: torch.Tensor, *, twice: bool
) -> tuple[torch.Tensor, torch.Tensor]:
    """(x * w, w * w), or (x * w, x * w) when ``twice``: two outputs and a
    keyword-only argument."""
    y, z = torch.empty_like(x), torch.empty_like(x)
    n = x.numel()
    mul[kt.blocks(n, 64), 64](x, w, y, n)
    mul[kt.blocks(n, 64), 64](x if twice else w, w, z, n)
    return y, z


def test_inductor_calls_a_function_of_two_outputs_and_a_keyword():
    x = torch.randn(40, dtype=torch.float64)
    w = torch.randn(40, dtype=torch.float64)
    both = torch.compile(lambda a, b: mul_two_op(a, b, twice=False), fullgraph=True)
    (y, z), code = _inductor_code(both, x, w)
    assert torch.equal(y, x * w) and torch.equal(z, w * w)
    assert "mul_two.default._kdsl_cpu(arg0_1, arg1_1, twice=False)" in code


@kt.op("kdsl_fast::mul_as")
def mul_as_op(
    x: torch.Tensor, w: torch.Tensor, out_dtype: torch.dtype = torch.float64
) -> torch.Tensor:
    """x * w, returned as ``out_dtype``: a dtype argument."""
    y = torch.empty_like(x)
    n = x.numel()
    mul[kt.blocks(n, 64), 64](x, w, y, n)
    return y.to(out_dtype)


def test_inductor_calls_a_function_with_a_dtype_argument():
    """Inductor writes a dtype argument as its ScalarType number (the
    dispatcher takes either): the function gets the dtype (found on the
    H200: ``scaled_mm_fp8(..., out_dtype=15)`` failed in torch.empty)."""
    x = torch.randn(40, dtype=torch.float64)
    w = torch.randn(40, dtype=torch.float64)
    # (the operator alone in its graphs: no C++ kernel for Inductor to build)
    run = torch.compile(
        lambda a, b: mul_as_op(a, b, out_dtype=torch.float32), fullgraph=True
    )
    y, code = _inductor_code(run, x, w)
    assert y.dtype == torch.float32
    assert torch.equal(y, (x * w).to(torch.float32))
    assert "mul_as.default._kdsl_cpu(" in code
    # the operator compiled itself, the dtype an argument of the call
    direct = torch.compile(mul_as_op, fullgraph=True)
    y, code = _inductor_code(direct, x, w, torch.float32)
    assert y.dtype == torch.float32 and torch.equal(y, (x * w).to(torch.float32))
    assert "mul_as.default._kdsl_cpu(" in code
    # the default filled in by Inductor: out_dtype=7 in its code
    y, code = _inductor_code(direct, x, w)
    assert y.dtype == torch.float64 and torch.equal(y, x * w)
    assert "mul_as.default._kdsl_cpu(" in code


@kt.op("kdsl_fast::mul_by")
def mul_by_op(x: torch.Tensor, w: torch.Tensor, by: float = 1.0) -> torch.Tensor:
    """x * w * by: a parameter with a default, given by position."""
    y = torch.empty_like(x)
    n = x.numel()
    mul[kt.blocks(n, 64), 64](x, w, y, n)
    return y * by


def test_inductor_passes_a_default_by_position():
    """Inductor holds an argument given its default value by keyword
    (``eps=1e-05``); the call line gives it by position, as the caller did:
    a compiled replay is tested for positional calls only (found on the
    H200: layer norm's call in a graph took the Python replay, 17 us against
    8 eagerly)."""
    x = torch.randn(40, dtype=torch.float64)
    w = torch.randn(40, dtype=torch.float64)
    run = torch.compile(lambda a, b: mul_by_op(a, b, 1.0), fullgraph=True)
    y, code = _inductor_code(run, x, w)
    assert torch.equal(y, x * w)
    assert "mul_by.default._kdsl_cpu(arg0_1, arg1_1, 1.0)" in code
    # keyword-only stays a keyword (test_inductor_calls_a_function_of_two_...)


def test_the_dispatcher_path_runs_the_function_directly():
    """Below autograd the operator's kernels are the function itself (CPU:
    its launches interpreted), not custom_op's generic wrapper."""
    x = torch.randn(33, dtype=torch.float64)
    w = torch.randn(33, dtype=torch.float64)
    assert torch.equal(torch.ops.kdsl_fast.mul.default(x, w), x * w)
    ran = torch._C._dispatch_has_kernel_for_dispatch_key("kdsl_fast::mul", "CPU")
    assert ran and torch._C._dispatch_has_kernel_for_dispatch_key(
        "kdsl_fast::mul", "CUDA"
    )


def test_below_the_dispatcher_a_call_needing_a_gradient_gets_the_autograd_layer():
    """The Autograd-key short cut runs the function only for plain tensors
    that need no gradient; a gradient still comes from the pairing, and
    fake tensors still get the fake implementation."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    x = torch.randn(21, dtype=torch.float64, requires_grad=True)
    w = torch.randn(21, dtype=torch.float64)
    y = torch.ops.kdsl_fast.mul.default(x, w)
    assert y.grad_fn is not None
    y.sum().backward()
    torch.testing.assert_close(x.grad, w)
    assert torch.ops.kdsl_fast.mul.default(x.detach(), w).grad_fn is None
    with FakeTensorMode() as mode:
        out = torch.ops.kdsl_fast.mul.default(mode.from_tensor(x), mode.from_tensor(w))
        assert out.shape == (21,)


@pytest.fixture
def stub_gpu(monkeypatch):
    """The CUDA branch of the fast path on the CPU: device -1, CPU tensors
    taken for CUDA ones, every loaded function a recorder of its launches
    (nothing computes)."""
    from kdsl.runtime import autotune as at
    from kdsl.runtime import compile as kcompile
    from kdsl.runtime import kernel as kmod
    from kdsl.runtime import launch as lmod

    calls = []

    class Recorded:
        def __init__(self, name):
            self.name = name

        def __call__(self, grid, block, args, shared_mem, stream, **kw):
            calls.append((self.name, grid, block))

    device = lambda: -1  # noqa: E731
    for module in (lmod, kmod, at):
        monkeypatch.setattr(module, "current_device", device)
    monkeypatch.setattr(lmod, "_get_device", device)
    monkeypatch.setattr(lmod, "_several_gpus", lambda: True)
    monkeypatch.setattr(lmod, "torch_stream", lambda d: None)
    monkeypatch.setitem(lmod._LIMITS, -1, 1024)
    monkeypatch.setitem(lmod._BLOCK_DIMS, -1, (1024, 1024, 64))
    monkeypatch.setattr(
        kcompile, "load_function", lambda inst, d: Recorded(inst.name.split("__")[0])
    )
    for k in (mul, mul_backward):
        monkeypatch.setattr(k, "_plans", {})
        monkeypatch.setattr(k, "_launchers", {})
    inspect = kt._inspect  # the CPU tensors taken for the stub's (device -1)
    monkeypatch.setattr(
        kt, "_inspect", lambda a, k: (lambda f: f and ("cuda", *f[1:]))(inspect(a, k))
    )
    mul_op.plans.clear()
    return calls


def test_the_cuda_branch_launches_forward_and_backward_once_each(stub_gpu, monkeypatch):
    launched = []
    seen = kt.Op._gradients
    monkeypatch.setattr(
        kt.Op,
        "_gradients",
        staticmethod(lambda c, g: (launched.append(1), seen(c, g))[1]),
    )
    for _ in range(3):
        x = torch.randn(100, requires_grad=True)
        mul_op(x, torch.ones(100)).sum().backward()
        assert x.grad is not None and x.grad.shape == (100,)
    assert stub_gpu == [("mul", (2,), (64,)), ("mul_backward", (2,), (64,))] * 3
    assert len(launched) == 3
    (planned,) = mul_op.plans.values()
    launch, grid, block = planned.__dict__["packer"]  # the backward's, kept
    assert (grid, block) == ((2,), (64,))
    with torch.no_grad():
        mul_op(torch.ones(130), torch.ones(130))
    assert stub_gpu[-1] == ("mul", (3,), (64,))


def test_the_cuda_branch_backward_becomes_one_generated_function(stub_gpu, monkeypatch):
    monkeypatch.setattr(kt, "_one_gpu", lambda: True)  # (the stub's device -1)
    slow = []
    before = kt._planned_backward
    monkeypatch.setattr(
        kt, "_planned_backward", lambda *a: (slow.append(1), before(*a))[1]
    )
    planned = []
    for k in range(4):
        x = torch.randn(100, requires_grad=True)
        mul_op(x, torch.ones(100)).sum().backward()
        assert x.grad is not None and x.grad.shape == (100,)
        (p,) = mul_op.plans.values()
        planned.append("fast" in p.__dict__)
    assert planned == [True] * 4 and slow == [1]  # made by the first, used after
    assert stub_gpu == [("mul", (2,), (64,)), ("mul_backward", (2,), (64,))] * 4
    source = p.__dict__["fast"].__kdsl_source__
    # saved x and w, the incoming gradient made contiguous, grad_x zero-filled
    # (mul_op does not declare it overwritten), n a constant of the signature
    assert "    g0 = grad_outputs[0].contiguous()\n" in source
    assert "    n0 = _zeros_like(s0)\n" in source
    assert "_launch(_grid, _block, (s0, s1, g0, n0, _c4,), None, 0)" in source
    assert source.endswith("    return [n0, None]\n")


# -- on the GPU -------------------------------------------------------------------------
gpu = pytest.mark.gpu


def example_ops():
    """examples/pytorch/ops.py, loaded once (its operators register) under
    the name test_example_ops.py gives it."""
    import importlib.util
    import sys
    from pathlib import Path

    ops = sys.modules.get("kdsl_example_ops")
    if ops is None:
        path = Path(__file__).resolve().parents[2] / "examples" / "pytorch" / "ops.py"
        spec = importlib.util.spec_from_file_location("kdsl_example_ops", path)
        ops = sys.modules["kdsl_example_ops"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(ops)
    return ops


@gpu
def test_gpu_an_eager_call_skips_the_dispatcher_and_equals_the_reference(
    no_dispatcher,
):
    ops = example_ops()

    x = torch.randn(64, 1024, device="cuda", dtype=torch.bfloat16)
    mul_x = torch.randn(1000, device="cuda")
    w = torch.randn(1000, device="cuda")
    assert torch.equal(mul_op(mul_x, w), mul_x * w)
    want = torch.nn.functional.gelu(x.float(), approximate="tanh")
    torch.testing.assert_close(ops.gelu(x).float(), want, rtol=1e-2, atol=1e-2)
    want = torch.softmax(x.float(), dim=-1)
    torch.testing.assert_close(ops.softmax(x).float(), want, rtol=1e-2, atol=1e-3)


@gpu
def test_gpu_fast_path_gradients_equal_the_operators_and_pass_gradcheck():
    ops = example_ops()
    x = torch.randn(8, 64, device="cuda", dtype=torch.float64, requires_grad=True)
    w = torch.randn(64, device="cuda", dtype=torch.float64, requires_grad=True)
    for op, args in (
        (mul_op, (x, torch.randn_like(x))),
        (ops.gelu, (x,)),
        (ops.softmax, (x,)),
        (ops.layer_norm, (x, w, None, 1e-5)),
    ):
        # (layer norm's weight gradient is a sum by atomics: any order)
        assert torch.autograd.gradcheck(op, args, nondet_tol=1e-12)
        y = op(*args)
        assert type(y.grad_fn).__name__ == "_DifferentiableBackward"
        g = torch.randn_like(y)
        inputs = [a for a in args if isinstance(a, torch.Tensor) and a.requires_grad]
        fast = torch.autograd.grad(y, inputs, g)
        slow = layer_gradients(op, args, inputs, g)
        for f, s in zip(fast, slow):  # (w's: sums by atomics, in any order)
            torch.testing.assert_close(f, s, rtol=1e-10, atol=1e-12)


@gpu
def test_gpu_fast_path_calls_are_captured_in_a_cuda_graph(no_dispatcher):
    ops = example_ops()

    x = torch.randn(64, 1024, device="cuda", dtype=torch.bfloat16)
    ops.softmax(ops.gelu(x))  # compiles, tunes and loads outside the capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y = ops.softmax(ops.gelu(x))
    for _ in range(2):
        x.copy_(torch.randn_like(x))
        graph.replay()
        torch.cuda.synchronize()
        torch.testing.assert_close(y, ops.softmax(ops.gelu(x)), rtol=0, atol=0)


@gpu
@pytest.mark.parametrize("mode", [None, "reduce-overhead"])
def test_gpu_compiled_with_fullgraph_and_reduce_overhead(mode):
    ops = example_ops()

    def model(t):
        return ops.softmax(ops.gelu(t) * 2.0)

    compiled = torch.compile(model, fullgraph=True, mode=mode)
    x = torch.randn(64, 1024, device="cuda", dtype=torch.bfloat16)
    for _ in range(3):  # reduce-overhead records its CUDA graph on a later call
        x.copy_(torch.randn_like(x))
        torch.testing.assert_close(compiled(x), model(x), rtol=1e-2, atol=1e-3)
    xg = torch.randn(64, 1024, device="cuda", requires_grad=True)
    compiled(xg).sum().backward()
    want = xg.grad.clone()
    xg.grad = None
    model(xg).sum().backward()
    torch.testing.assert_close(xg.grad, want, rtol=1e-5, atol=1e-6)


_CACHED_GRAPH_SCRIPT = """
import sys
import torch
import kdsl
import kdsl.torch as kt
from kdsl import Float32, Float64, Int32, Pointer, block_idx, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel
def scale_backward(grad_y: Pointer[D], grad_x: Pointer[D], n: Int32, s: Float32):
    i = block_idx.x * 64 + thread_idx.x
    if i < n:
        grad_x[i] = (grad_y[i].to(Float64) * s.to(Float64)).to(D)


@kdsl.kernel(backward=scale_backward)
def scale(x: Pointer[D], y: Pointer[D], n: Int32, s: Float32):
    i = block_idx.x * 64 + thread_idx.x
    if i < n:
        y[i] = (x[i].to(Float64) * s.to(Float64)).to(D)


@kdsl.kernel
def negate_backward(grad_y: Pointer[D], grad_x: Pointer[D], n: Int32):
    i = block_idx.x * 64 + thread_idx.x
    if i < n:
        grad_x[i] = -grad_y[i]


@kdsl.kernel(backward=negate_backward)
def negate(x: Pointer[D], y: Pointer[D], n: Int32):
    i = block_idx.x * 64 + thread_idx.x
    if i < n:
        y[i] = -x[i]


@kt.op("kdsl_cached::scale")
def scale_op(x: torch.Tensor, s: float) -> torch.Tensor:
    y = torch.empty_like(x)
    scale[kt.blocks(x.numel(), 64), 64](x, y, x.numel(), s)
    return y


@kt.op("kdsl_cached::negate")
def negate_op(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    negate[kt.blocks(x.numel(), 64), 64](x, y, x.numel())
    return y


if sys.argv[1] == "second":  # another plan first: this process's first plan
    from torch.utils._python_dispatch import TorchDispatchMode

    class ThroughTheLayer(TorchDispatchMode):  # (the backward operator's path)
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    v = torch.ones(5, dtype=torch.float64, requires_grad=True)
    with ThroughTheLayer():
        negated = negate_op.op(v)
    negated.sum().backward()
x = torch.linspace(-1, 1, 40, dtype=torch.float64, requires_grad=True)
compiled = torch.compile(lambda t: scale_op(t, 2.5), fullgraph=True)
compiled(x).sum().backward()
from torch._dynamo.utils import counters

print("cache hits", counters["aot_autograd"]["autograd_cache_hit"])
print("grad ok", torch.equal(x.grad, torch.full_like(x, 2.5)))
"""


def test_a_compiled_graph_from_inductors_cache_runs_its_own_backward(tmp_path):
    """Inductor's cache hands a graph compiled in one process to the next:
    the backward operator's plan argument in it must name the same plan in a
    process that made another plan first (it was a number, the plan's
    place in the first process's order: the second process ran the other
    operator's backward)."""
    import os
    import subprocess
    import sys

    script = tmp_path / "cached_graph.py"
    script.write_text(_CACHED_GRAPH_SCRIPT)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TORCHINDUCTOR")}
    env["TORCHINDUCTOR_CACHE_DIR"] = str(tmp_path / "inductor")
    env["KDSL_CACHE_DIR"] = str(tmp_path / "kdsl")
    outputs = []
    for run in ("first", "second"):
        done = subprocess.run(
            [sys.executable, str(script), run],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        outputs.append(done.stdout)
    assert "cache hits 0" in outputs[0] and "grad ok True" in outputs[0]
    assert "cache hits 1" in outputs[1], outputs[1]  # the first one's graph
    assert "grad ok True" in outputs[1], outputs[1]
