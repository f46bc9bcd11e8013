"""``kdsl.torch.op(replay=True)``: once two recorded calls of one input
signature agree, later calls allocate the outputs and make the recorded
launches without running the function (docs/pytorch.md, "Replayed calls");
``overwrites``: gradients the backward kernel writes whole are not
zero-filled (NaN on the CPU, where a skipped element shows).  On CPU tensors
the replayed launches run in the interpreter, so all of it is tested here;
tests/pytorch/test_replay_gpu.py replays on the GPU."""

import pytest

torch = pytest.importorskip("torch")

import kdsl  # noqa: E402
import kdsl.torch as kt  # noqa: E402
from kdsl import DSLError, Float32, Float64, Int32, Pointer  # noqa: E402
from kdsl import block_idx, thread_idx  # noqa: E402

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel
def scale_backward(grad_y: Pointer[D], grad_x: Pointer[D], n: Int32, s: Float32):
    C = Float64 if D.width == 64 else Float32
    i = block_idx.x * 64 + thread_idx.x
    if i < n:
        grad_x[i] = (grad_y[i].to(C) * s.to(C)).to(D)


@kdsl.kernel(backward=scale_backward)
def scale(x: Pointer[D], y: Pointer[D], n: Int32, s: Float32):
    C = Float64 if D.width == 64 else Float32
    i = block_idx.x * 64 + thread_idx.x
    if i < n:
        y[i] = (x[i].to(C) * s.to(C)).to(D)


@kdsl.kernel
def half_backward(grad_y: Pointer[D], grad_x: Pointer[D], n: Int32, s: Float32):
    """Writes the first half of grad_x only (a kernel that must not claim
    to overwrite it)."""
    C = Float64 if D.width == 64 else Float32
    i = block_idx.x * 64 + thread_idx.x
    if i < n // 2:
        grad_x[i] = (grad_y[i].to(C) * s.to(C)).to(D)


@kdsl.kernel(backward=half_backward)
def scale_half(x: Pointer[D], y: Pointer[D], n: Int32, s: Float32):
    C = Float64 if D.width == 64 else Float32
    i = block_idx.x * 64 + thread_idx.x
    if i < n:
        y[i] = (x[i].to(C) * s.to(C)).to(D)


CALLS = []  # one entry per run of a function below


@kt.op("kdsl_replay::scale", replay=True, overwrites="grad_x")
def scale_op(x: torch.Tensor, s: float) -> torch.Tensor:
    CALLS.append("scale")
    x = x.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    scale[kt.blocks(n, 64), 64](x, y, n, s)
    return y


@kt.op("kdsl_replay::scale_pair", replay=True)
def scale_pair(x: torch.Tensor, *, s: float) -> tuple[torch.Tensor, torch.Tensor]:
    """Two outputs, a keyword argument, two launches, one on a view."""
    CALLS.append("pair")
    y, z = torch.empty_like(x), torch.empty_like(x)
    n = x.numel()
    scale[kt.blocks(n, 64), 64](x.view(-1), y, n, s)
    scale[kt.blocks(n, 64), 64](y, z.view(-1), n, 2.0)
    return y, z


COUNTER = [0]


@kt.op("kdsl_replay::drifting", replay=True)
def drifting(x: torch.Tensor) -> torch.Tensor:
    """A function that breaks replay's promise: its launch depends on a
    counter, not on the arguments."""
    CALLS.append("drifting")
    COUNTER[0] += 1
    y = torch.empty_like(x)
    scale[kt.blocks(x.numel(), 64), 64](x, y, x.numel(), float(COUNTER[0]))
    return y


@kt.op("kdsl_replay::scratch", replay=True)
def scratch(x: torch.Tensor) -> torch.Tensor:
    """A temporary buffer between two launches."""
    CALLS.append("scratch")
    t, y = torch.empty_like(x), torch.empty_like(x)
    scale[kt.blocks(x.numel(), 64), 64](x, t, x.numel(), 2.0)
    scale[kt.blocks(x.numel(), 64), 64](t, y, x.numel(), 3.0)
    return y


@kt.op("kdsl_replay::sliced", replay=True)
def sliced(x: torch.Tensor) -> torch.Tensor:
    """Returns a view of a larger buffer."""
    CALLS.append("sliced")
    buf = torch.empty(x.numel() + 8, dtype=x.dtype)
    y = buf[8:]
    scale[kt.blocks(x.numel(), 64), 64](x, y, x.numel(), 2.0)
    return y.view(x.shape)


@kt.op("kdsl_replay::twice", replay=True)
def twice(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """One output returned twice (a replay would make two)."""
    CALLS.append("twice")
    y = torch.empty_like(x)
    scale[kt.blocks(x.numel(), 64), 64](x, y, x.numel(), 2.0)
    return y, y


@kt.op("kdsl_replay::skipping", overwrites=("grad_x",))
def skipping(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    scale_half[kt.blocks(x.numel(), 64), 64](x, y, x.numel(), 3.0)
    return y


@kt.op("kdsl_replay::misnamed", overwrites=("grad_y",))
def misnamed(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    scale[kt.blocks(x.numel(), 64), 64](x, y, x.numel(), 3.0)
    return y


@kt.op("kdsl_replay::outer", replay=True)
def outer(x: torch.Tensor) -> torch.Tensor:
    """An operator whose function calls another replayed operator: the inner
    call's launches are the outer call's (recorded, interpreted), never a
    replay that would bypass them."""
    CALLS.append("outer")
    return scale_op(x, 4.0)


def runs(fn, *args, times=5, **kwargs):
    """The outputs of ``times`` calls, and how many ran the function."""
    CALLS.clear()
    outs = [fn(*args, **kwargs) for _ in range(times)]
    return outs, len(CALLS)


def test_a_signature_is_replayed_after_two_recorded_calls_agree():
    x = torch.linspace(-2, 2, 200, dtype=torch.float64).reshape(10, 20)
    scale_op.forget()
    outs, ran = runs(scale_op, x, 1.5)
    assert ran == 3  # the first call, then two recorded ones
    for y in outs:
        assert torch.equal(y, x * 1.5)
        assert y.shape == x.shape and y.stride() == x.stride()
    outs = [scale_op(x + k, 1.5) for k in range(3)]  # new values, one signature
    for k, y in enumerate(outs):
        assert torch.equal(y, (x + k) * 1.5)
    assert len(outs) == 3 and len(CALLS) == 3  # no further run of the function
    (replay,) = [v for v in scale_op.replays.values() if callable(v)]
    assert "<kdsl replay" in replay.__code__.co_filename
    assert "_launch0(" in replay.__kdsl_source__


def test_each_signature_is_learnt_apart():
    scale_op.forget()
    x = torch.arange(64, dtype=torch.float32)
    runs(scale_op, x, 2.0)
    # another scalar value, another dtype, another shape: learnt anew
    for args in ((x, 3.0), (x.double(), 2.0), (x[:10].clone(), 2.0)):
        outs, ran = runs(scale_op, *args)
        assert ran == 3
        assert all(torch.equal(y, args[0] * args[1]) for y in outs)
    # -0.0 and 0.0 are two values
    outs, ran = runs(scale_op, x, -0.0, times=4)
    assert ran == 3 and all(torch.equal(y, x * -0.0) for y in outs)
    assert str(scale_op(x, 0.0)[1].item()) == "0.0"  # not the -0.0 replay


def test_two_outputs_a_keyword_and_views_are_replayed():
    x = torch.linspace(-1, 1, 96, dtype=torch.float64).reshape(8, 12)
    scale_pair.forget()
    outs, ran = runs(scale_pair, x, s=0.5)
    assert ran == 3
    for y, z in outs:
        assert torch.equal(y, x * 0.5) and torch.equal(z, x)


def test_a_function_whose_launches_drift_is_never_replayed():
    drifting.forget()
    COUNTER[0] = 0
    x = torch.ones(32, dtype=torch.float64)
    outs, ran = runs(drifting, x, times=8)
    assert ran == 8
    assert [y[0].item() for y in outs] == [float(k) for k in range(1, 9)]
    assert set(drifting.replays.values()) == {kt._NEVER}


@pytest.mark.parametrize(
    "fn", [scratch, sliced, twice], ids=["temporary", "view-output", "same-output"]
)
def test_what_a_replay_cannot_repeat_runs_the_function(fn):
    fn.forget()
    x = torch.arange(16, dtype=torch.float64)
    outs, ran = runs(fn, x)
    assert ran == 5
    if fn is twice:
        assert all(y is z and torch.equal(y, x * 2.0) for y, z in outs)
    else:
        want = x * 6.0 if fn is scratch else x * 2.0
        assert all(torch.equal(y, want) for y in outs)
    assert set(fn.replays.values()) == {kt._NEVER}


def test_the_dispatcher_path_is_replayed_too():
    x = torch.arange(40, dtype=torch.float64)
    scale_op.forget()
    outs, ran = runs(scale_op.op, x, 2.0)  # through torch.library: replayed too
    assert ran == 3 and all(torch.equal(y, 2.0 * x) for y in outs)


def test_a_replayed_forward_keeps_its_gradient():
    scale_op.forget()
    scale_op.plans.clear()
    x = torch.linspace(-1, 1, 50, dtype=torch.float64, requires_grad=True)
    for _ in range(5):
        x.grad = None
        scale_op(x, 3.0).sum().backward()
        assert torch.equal(x.grad, torch.full_like(x, 3.0))
    assert any(callable(v) for v in scale_op.replays.values())
    assert torch.autograd.gradcheck(lambda v: scale_op(v, 0.25), (x,))


def test_an_overwritten_gradient_a_kernel_skips_shows_nan_on_the_cpu():
    x = torch.linspace(-1, 1, 10, dtype=torch.float64, requires_grad=True)
    skipping(x).sum().backward()
    assert torch.equal(x.grad[:5], torch.full((5,), 3.0, dtype=torch.float64))
    assert x.grad[5:].isnan().all()
    x.grad = None  # the dispatcher's autograd too
    skipping.op(x).sum().backward()
    assert x.grad[5:].isnan().all() and not x.grad[:5].isnan().any()


def test_overwrites_must_name_a_computed_gradient():
    x = torch.ones(4, dtype=torch.float64, requires_grad=True)
    with pytest.raises(DSLError, match="E535") as info:
        misnamed(x).sum().backward()
    assert "grad_y" in str(info.value) and "grad_x" in str(info.value)


def test_an_operator_called_inside_another_is_recorded_with_it():
    scale_op.forget()
    outer.forget()
    x = torch.arange(24, dtype=torch.float64)
    for _ in range(4):  # the inner operator learns its replay, eagerly
        scale_op(x, 4.0)
    CALLS.clear()
    for k in range(6):
        assert torch.equal(outer(x + k), (x + k) * 4.0)
    # the outer function ran three times (each time the inner one's function,
    # never its replay), then the outer replay made the launch itself
    assert CALLS == ["outer", "scale"] * 3
    assert any(callable(v) for v in outer.replays.values())
