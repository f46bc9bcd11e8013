"""kdsl.torch on the CPU: operators whose launches run in the interpreter,
their fake implementations, autograd from the backward pairing, gradcheck and
torch.compile(fullgraph=True)."""

from typing import Optional

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import kdsl  # noqa: E402
import kdsl.torch as kt  # noqa: E402
from kdsl import (  # noqa: E402
    Constexpr,
    Float32,
    Float64,
    Int32,
    Pointer,
    block_idx,
    thread_idx,
)

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel
def cube_backward(
    x: Pointer[D],
    grad_y: Pointer[D],
    grad_x: Pointer[D],
    n: Int32,
    K: Constexpr[float] = 1.0,
):
    i = block_idx.x * 64 + thread_idx.x
    if i < n:
        grad_x[i] = (grad_y[i] * (3.0 * K) * x[i] * x[i]).to(D)


@kdsl.kernel(backward=cube_backward)
def cube(x: Pointer[D], y: Pointer[D], n: Int32, K: Constexpr[float] = 1.0):
    """y = K * x**3"""
    i = block_idx.x * 64 + thread_idx.x
    if i < n:
        y[i] = (K * x[i] * x[i] * x[i]).to(D)


@kt.op("kdsl_tests::cube")
def cube_op(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    n = x.numel()
    cube[kt.blocks(n, 64), 64](x, y, n, K=2.0)
    return y


@kdsl.kernel
def scale_by(x: Pointer[Float32], y: Pointer[Float32], n: Int32):
    i = block_idx.x * 64 + thread_idx.x
    if i < n:
        y[i] = 2.0 * x[i]


@kt.op("kdsl_tests::double")
def double_op(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    scale_by[kt.blocks(x.numel(), 64), 64](x, y, x.numel())
    return y


@kdsl.kernel
def halve_backward(
    grad_y: Pointer[D], grad_x: Pointer[D], n: Int32, BLOCK: Constexpr[int] = 64
):
    i = block_idx.x * BLOCK + thread_idx.x
    if i < n:
        grad_x[i] = (0.5 * grad_y[i]).to(D)


@kdsl.kernel(block="BLOCK", backward=halve_backward)
def halve(x: Pointer[D], y: Pointer[D], n: Int32, BLOCK: Constexpr[int] = 64):
    i = block_idx.x * BLOCK + thread_idx.x
    if i < n:
        y[i] = (0.5 * x[i]).to(D)


@kt.op("kdsl_tests::halve")
def halve_op(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    halve[kt.blocks(x.numel(), 32)](x, y, x.numel(), BLOCK=32)
    return y


def test_a_kernel_whose_block_follows_BLOCK():
    x = torch.randn(100, dtype=torch.float64, requires_grad=True)
    y = halve_op(x)
    torch.testing.assert_close(y, 0.5 * x.detach())
    y.sum().backward()
    torch.testing.assert_close(x.grad, torch.full_like(x, 0.5))


@kdsl.kernel
def exp_backward(
    y: Pointer[D], grad_y: Pointer[D], grad_x: Pointer[D] | None, n: Int32
):
    i = block_idx.x * 64 + thread_idx.x
    if i < n and grad_x is not None:
        grad_x[i] = (grad_y[i] * y[i]).to(D)


@kdsl.kernel(backward=exp_backward)
def exp_of(x: Pointer[D], y: Pointer[D], n: Int32):
    """y = exp(x): its backward reads the output y"""
    i = block_idx.x * 64 + thread_idx.x
    if i < n:
        y[i] = kdsl.math.exp(x[i])


@kt.op("kdsl_tests::exp_rows")
def exp_rows_op(x: torch.Tensor) -> torch.Tensor:
    """exp of a contiguous tensor, launched on (rows, cols) views of it and
    of its output."""
    y = torch.empty_like(x)
    n = x.numel()
    exp_of[kt.blocks(n, 64), 64](x.view(-1, x.shape[-1]), y.view(-1, 1), n)
    return y


def test_the_backward_gets_the_forwards_output_and_views_count_as_it():
    x = torch.linspace(-2, 2, 77 * 2, dtype=torch.float64).view(2, 77)
    x.requires_grad_()
    y = exp_rows_op(x)
    torch.testing.assert_close(y, torch.exp(x.detach()))
    g = torch.randn_like(y)
    y.backward(g)
    torch.testing.assert_close(x.grad, g * torch.exp(x.detach()))
    assert torch.autograd.gradcheck(exp_rows_op, (x,))


@kdsl.kernel
def affine_backward(
    x: Pointer[D],
    w: Pointer[D] | None,
    grad_y: Pointer[D],
    grad_x: Pointer[D],
    grad_w: Pointer[D] | None,
    n: Int32,
):
    i = block_idx.x * 64 + thread_idx.x
    if i < n:
        if w is None:
            grad_x[i] = grad_y[i]
        else:
            grad_x[i] = (grad_y[i] * w[i]).to(D)
        if grad_w is not None:
            grad_w[i] = (grad_y[i] * x[i]).to(D)


@kdsl.kernel(backward=affine_backward)
def affine(x: Pointer[D], w: Pointer[D] | None, y: Pointer[D], n: Int32):
    """y = x * w, or x when w is None"""
    i = block_idx.x * 64 + thread_idx.x
    if i < n:
        if w is None:
            y[i] = x[i]
        else:
            y[i] = (x[i] * w[i]).to(D)


@kt.op("kdsl_tests::affine")
def affine_op(x: torch.Tensor, w: Optional[torch.Tensor]) -> torch.Tensor:
    y = torch.empty_like(x)
    affine[kt.blocks(x.numel(), 64), 64](x, w, y, x.numel())
    return y


@pytest.mark.parametrize("with_w", [True, False])
def test_an_optional_pointer_left_out_is_none_in_the_backward_too(with_w):
    x = torch.randn(70, dtype=torch.float64, requires_grad=True)
    w = torch.randn(70, dtype=torch.float64, requires_grad=True) if with_w else None
    y = affine_op(x, w)
    torch.testing.assert_close(y, x.detach() * (1 if w is None else w.detach()))
    assert torch.autograd.gradcheck(affine_op, (x, w))
    y.sum().backward()
    torch.testing.assert_close(x.grad, torch.ones_like(x) if w is None else w.detach())
    if with_w:
        torch.testing.assert_close(w.grad, x.detach())


@kdsl.kernel
def scaled_backward(
    x: Pointer[D],
    w: Pointer[D],
    grad_y: Pointer[D],
    grad_x: Pointer[D],
    grad_w: Pointer[Float64],
    n: Int32,
):
    i = block_idx.x * 64 + thread_idx.x
    if i < n:
        grad_x[i] = (grad_y[i] * w[0]).to(D)
        kdsl.atomic_add(grad_w, 0, (grad_y[i] * x[i]).to(Float64))


@kdsl.kernel(backward=scaled_backward)
def scaled(x: Pointer[D], w: Pointer[D], y: Pointer[D], n: Int32):
    """y = x * w[0]: w's gradient is a sum over every element"""
    i = block_idx.x * 64 + thread_idx.x
    if i < n:
        y[i] = (x[i] * w[0]).to(D)


@kt.op("kdsl_tests::scaled")
def scaled_op(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    scaled[kt.blocks(x.numel(), 64), 64](x, w, y, x.numel())
    return y


def test_a_gradient_with_a_dtype_of_its_own_is_summed_in_it_then_rounded():
    # 4096 ones summed in BFloat16 would stop at 256 (256 + 1 rounds to 256)
    x = torch.ones(4096, dtype=torch.bfloat16)
    w = torch.ones(1, dtype=torch.bfloat16, requires_grad=True)
    scaled_op(x, w).sum().backward()
    assert w.grad.dtype == torch.bfloat16 and w.grad.item() == 4096.0
    x64 = torch.randn(50, dtype=torch.float64, requires_grad=True)
    w64 = torch.randn(1, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(scaled_op, (x64, w64))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
def test_an_operator_on_cpu_tensors_runs_in_the_interpreter(dtype):
    x = torch.linspace(-2, 2, 100, dtype=dtype)
    y = cube_op(x)
    assert y.dtype == dtype and y.shape == x.shape
    want = 2.0 * x.double() ** 3
    tol = 1e-2 if dtype == torch.bfloat16 else 1e-6
    torch.testing.assert_close(y.double(), want, rtol=tol, atol=tol)


def test_the_gradient_comes_from_the_paired_backward_kernel():
    x = torch.linspace(-2, 2, 77, dtype=torch.float64, requires_grad=True)
    cube_op(x).sum().backward()
    torch.testing.assert_close(x.grad, 6.0 * x.detach() ** 2)


def test_gradcheck_in_float64():
    x = torch.randn(13, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(cube_op, (x,))


def test_the_fake_implementation_launches_nothing():
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode() as mode:
        x = mode.from_tensor(torch.randn(10, 3))
        y = cube_op.op(x)
        assert y.shape == (10, 3) and y.dtype == torch.float32


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_torch_compile_keeps_the_operator_in_one_graph(backend):
    def model(x):
        return torch.sin(cube_op(x) + 1.0)

    compiled = torch.compile(model, fullgraph=True, backend=backend)
    x = torch.randn(40, dtype=torch.float64, requires_grad=True)
    y = compiled(x)
    torch.testing.assert_close(y, model(x))
    y.sum().backward()
    want = torch.cos(2 * x.detach() ** 3 + 1.0) * 6 * x.detach() ** 2
    torch.testing.assert_close(x.grad, want)


def test_an_operator_without_a_paired_backward_says_so_when_differentiated():
    x = torch.randn(5, requires_grad=True)
    with pytest.raises(kdsl.DSLError, match=r"E530.*kdsl_tests::double.*scale_by"):
        double_op(x).sum().backward()
    torch.testing.assert_close(double_op(x.detach()), 2 * x.detach())


# -- on the GPU -------------------------------------------------------------------------
cuda = pytest.mark.gpu


@cuda
def test_gpu_gradcheck_and_compiled_graph():
    x = torch.randn(300, dtype=torch.float64, device="cuda", requires_grad=True)
    assert torch.autograd.gradcheck(cube_op, (x,))
    compiled = torch.compile(lambda t: torch.sin(cube_op(t)), fullgraph=True)
    y = compiled(x)
    torch.testing.assert_close(y, torch.sin(2 * x**3))
    y.sum().backward()
    want = torch.cos(2 * x.detach() ** 3) * 6 * x.detach() ** 2
    torch.testing.assert_close(x.grad, want)


@cuda
def test_gpu_launches_go_to_pytorchs_current_stream():
    """Inside ``torch.cuda.stream(s)`` the launch waits behind what s waits
    for: a snapshot taken meanwhile on the default stream still sees zeros."""
    x = torch.randn(1 << 16, device="cuda")
    y = torch.zeros_like(x)
    scale_by[kt.blocks(x.numel(), 64), 64](x, torch.empty_like(x), x.numel())
    torch.cuda.synchronize()
    slow, s = torch.cuda.Stream(), torch.cuda.Stream()
    with torch.cuda.stream(slow):
        torch.cuda._sleep(200_000_000)  # ~0.1 s of GPU cycles
    s.wait_stream(slow)
    with torch.cuda.stream(s):
        scale_by[kt.blocks(x.numel(), 64), 64](x, y, x.numel())
    snapshot = y.clone()  # the default stream does not wait for s
    torch.cuda.synchronize()
    assert not snapshot.any()
    torch.testing.assert_close(y, 2 * x)


@cuda
def test_gpu_capture_in_a_cuda_graph_and_replay():
    x = torch.randn(4099, device="cuda")
    cube_op(x)  # compiles and loads outside the capture
    n = x.numel()
    y2 = torch.empty_like(x)
    scale_by[kt.blocks(n, 64), 64](x, y2, n)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y = cube_op(x)
        scale_by[kt.blocks(n, 64), 64](x, y2, n)
    for _ in range(2):
        x.copy_(torch.randn_like(x))
        graph.replay()
        torch.cuda.synchronize()
        torch.testing.assert_close(y, 2 * x**3)
        torch.testing.assert_close(y2, 2 * x)


def test_the_example_in_docs_pytorch_md_runs_on_the_cpu(tmp_path):
    """docs/pytorch.md's first example, on CPU tensors (the interpreter),
    torch.compile included."""
    import re
    import runpy
    from pathlib import Path

    doc = Path(__file__).resolve().parents[2] / "docs" / "pytorch.md"
    code = re.findall(r"```python\n(.*?)```", doc.read_text(), re.S)[0]
    code = code.replace('"mylib::square"', '"kdsl_doc::square"')
    script = tmp_path / "example.py"
    script.write_text(code.replace('device="cuda"', 'device="cpu"'))
    env = runpy.run_path(str(script))
    x = env["x"].detach()
    torch.testing.assert_close(env["y"].detach(), x * x)
    torch.testing.assert_close(env["x"].grad, 2 * x)
    torch.testing.assert_close(env["model"](x), (x * x).relu())


@kdsl.kernel(backward=cube_backward)
def cube_k(x: Pointer[D], y: Pointer[D], n: Int32, K: Constexpr[float] = 1.0):
    i = block_idx.x * 64 + thread_idx.x
    if i < n:
        y[i] = (K * x[i] * x[i] * x[i]).to(D)


@kt.op("kdsl_tests::cube_k")
def cube_k_op(x: torch.Tensor, *, k: float = 1.0) -> torch.Tensor:
    y = torch.empty_like(x)
    n = x.numel()
    cube_k[kt.blocks(n, 64), 64](x, y, n, K=k)
    return y


def test_keyword_only_arguments_reach_the_function_its_fake_and_its_gradient():
    """A keyword-only parameter of the function (PyTorch's schema gives it
    one) is passed to the forward, the fake implementation and the recorded
    run that plans the backward."""
    x = torch.linspace(-1.0, 1.0, 70, dtype=torch.float64, requires_grad=True)
    y = cube_k_op(x, k=2.0)
    assert torch.equal(y, 2.0 * x.detach() ** 3)
    (g,) = torch.autograd.grad(y.sum(), x)
    assert torch.allclose(g, 6.0 * x.detach() ** 2)
    compiled = torch.compile(cube_k_op, fullgraph=True, backend="eager")
    xd = x.detach()
    assert torch.equal(compiled(xd, k=3.0), 3.0 * xd * xd * xd)


def test_under_kdsl_interpret_the_operator_records_its_launches(monkeypatch):
    """With KDSL_INTERPRET=1 every ``kernel[grid, block]`` runs in the
    interpreter; kdsl.torch still sees the launches (the backward plan, the
    fake implementation under torch.compile)."""
    monkeypatch.setenv("KDSL_INTERPRET", "1")
    x = torch.linspace(-1.0, 1.0, 70, dtype=torch.float64, requires_grad=True)
    y = cube_op(x)
    assert torch.equal(y, 2.0 * x.detach() ** 3)
    (g,) = torch.autograd.grad(y.sum(), x)
    assert torch.allclose(g, 6.0 * x.detach() ** 2)
    compiled = torch.compile(cube_op, fullgraph=True, backend="eager")
    assert torch.equal(compiled(x.detach()), y.detach())


halve_tuned = kdsl.autotune(
    configs=[kdsl.Config(BLOCK=32), kdsl.Config(BLOCK=64)], key=["n"]
)(halve)


@kt.op("kdsl_tests::halve_tuned")
def halve_tuned_op(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    n = x.numel()
    halve_tuned[lambda m: kt.blocks(n, m["BLOCK"])](x, y, n)  # grid only
    return y


@pytest.mark.parametrize("interpret", ["0", "1"])
def test_an_autotuned_grid_only_launch_in_an_operator(monkeypatch, interpret):
    """An autotuned kernel launched grid-only inside an operator, with and
    without KDSL_INTERPRET=1: forward, gradient and the fake implementation
    (the launch is recorded, never run on fake tensors)."""
    monkeypatch.setenv("KDSL_INTERPRET", interpret)
    x = torch.randn(100, dtype=torch.float64, requires_grad=True)
    y = halve_tuned_op(x)
    assert torch.equal(y, 0.5 * x.detach())
    (g,) = torch.autograd.grad(y.sum(), x)
    assert torch.equal(g, torch.full_like(x, 0.5))
    compiled = torch.compile(halve_tuned_op, fullgraph=True, backend="eager")
    assert torch.equal(compiled(x.detach()), y.detach())


@pytest.mark.parametrize("op", [halve_op, halve_tuned_op])
def test_a_grid_traced_with_dynamic_shapes_is_specialised(op):
    """docs/pytorch.md: under torch.compile with dynamic shapes the grid
    (a symbolic size there) is specialised to the traced size."""
    compiled = torch.compile(op, fullgraph=True, backend="eager", dynamic=True)
    for n in (100, 37):
        x = torch.randn(n, dtype=torch.float64)
        assert torch.equal(compiled(x), 0.5 * x)


# -- a host backward: a function that launches kernels (kdsl.host_backward) -------------
@kdsl.kernel(block="BLOCK")
def pair_sums(
    g: Pointer[D], k: Float32, gy: Pointer[D], m: Int32, BLOCK: Constexpr[int]
):
    j = block_idx.x * BLOCK + thread_idx.x
    if j < m:
        gy[j] = (k * (g[2 * j] + g[2 * j + 1])).to(D)


@kdsl.kernel(block="BLOCK")
def copy_grad(g: Pointer[D], gx: Pointer[D], n: Int32, BLOCK: Constexpr[int]):
    i = block_idx.x * BLOCK + thread_idx.x
    if i < n:
        gx[i] = g[i]


HOST_CALLS = []


def add_scaled_backward(grad_out, grad_x, grad_y, k, n, WIDTH):
    """Two launches of their own grids; WIDTH: the forward's constexpr."""
    HOST_CALLS.append(WIDTH)
    copy_grad[kt.blocks(n, 32), 32](grad_out, grad_x, n, BLOCK=32)
    pair_sums[kt.blocks(n // 2, 16), 16](grad_out, k, grad_y, n // 2, BLOCK=16)


@kdsl.kernel(backward=kdsl.host_backward(add_scaled_backward))
def add_scaled_w(
    x: Pointer[D], y: Pointer[D], out: Pointer[D], k: Float32, n: Int32,
    WIDTH: Constexpr[int] = 3,
):  # fmt: skip
    """out[i] = x[i] + k * y[i // 2]: y's gradient sums pairs (another grid)"""
    i = block_idx.x * 64 + thread_idx.x
    if i < n:
        out[i] = (x[i] + k * y[i // 2]).to(D)


@kt.op("kdsl_tests::add_scaled")
def add_scaled_op(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    add_scaled_w[kt.blocks(x.numel(), 64), 64](x, y, out, 1.5, x.numel(), WIDTH=5)
    return out


def test_a_host_backward_launches_kernels_of_its_own_grids():
    x = torch.randn(70, dtype=torch.float64, requires_grad=True)
    y = torch.randn(35, dtype=torch.float64, requires_grad=True)
    HOST_CALLS.clear()
    out = add_scaled_op(x, y)
    torch.testing.assert_close(out, x + 1.5 * y.repeat_interleave(2))
    g = torch.randn(70, dtype=torch.float64)
    out.backward(g)
    assert HOST_CALLS == [5]  # the forward launch's constexpr, by name
    torch.testing.assert_close(x.grad, g)
    torch.testing.assert_close(y.grad, 1.5 * (g[0::2] + g[1::2]))


def test_a_host_backward_parameter_that_matches_nothing_is_e533():
    def bad_backward(grad_out, grad_x, nothing):
        pass

    @kdsl.kernel(backward=kdsl.host_backward(bad_backward))
    def fwd(x: Pointer[Float64], out: Pointer[Float64], n: Int32):
        i = thread_idx.x
        if i < n:
            out[i] = x[i]

    @kt.op("kdsl_tests::host_unmatched")
    def op(x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        fwd[1, 64](x, out, x.numel())
        return out

    x = torch.randn(8, dtype=torch.float64, requires_grad=True)
    with pytest.raises(kdsl.DSLError, match="E533.*nothing"):
        op(x).sum().backward()


def test_a_plain_function_as_backward_is_e408():
    def grad(x, n):
        pass

    with pytest.raises(kdsl.DSLError, match="E408.*host_backward"):

        @kdsl.kernel(backward=grad)
        def fwd(x: Pointer[Float64], n: Int32):
            x[thread_idx.x] = x[0]


def map_backward(tmap_x, grad_y, grad_tmap_x, n, SCALE):
    """A host backward of a kernel that reads x through a TMA map: the map's
    parameter stands for its tensor, as do its gradient's."""
    scaled_copy[kt.blocks(n, 64), 64](grad_y, grad_tmap_x, n, float(SCALE))


@kdsl.kernel
def scaled_copy(g: Pointer[D], gx: Pointer[D], n: Int32, k: Float32):
    i = block_idx.x * 64 + thread_idx.x
    if i < n:
        gx[i] = (k * g[i]).to(D)


@kdsl.kernel(backward=kdsl.host_backward(map_backward))
def through_map(
    tmap_x: kdsl.TensorMap, y: Pointer[Float32], n: Int32, SCALE: Constexpr[int] = 1
):
    i = block_idx.x * 64 + thread_idx.x
    if i < n:
        y[i] = 0.0


def test_a_tensor_map_argument_stands_for_its_tensor_in_the_backward_plan():
    """attention_tma's case without a GPU (a map needs the driver; the
    interpreter refuses it): the plan of a recorded launch taking a map of
    the input (a contiguous 2-d view of it), then the backward it plans."""
    from kdsl.runtime.tensormap import TensorMapArg

    x = torch.randn(4, 16, dtype=torch.float32)
    y = torch.empty(64, dtype=torch.float32)
    tmap = object.__new__(TensorMapArg)  # what kdsl.tensor_map(x.view(-1, 16)) keeps
    tmap.array = x.view(-1, 16)
    launch = kt.Launch(through_map[1, 64], (tmap, y, 64), 0, {"SCALE": 3})
    plan, saved, ints, floats = kt._plan("kdsl_tests::map", [x], [y], [launch])
    assert plan.sources == (
        ("saved", 0),
        ("grad", 0),
        ("new", 0),
        ("int", 0),
        ("const", 3),
    )
    assert saved == [x] and plan.new_input == (0,)
    g = torch.randn(64, dtype=torch.float32)
    (gx,) = kt._run(kt._backward_launch, saved, [g], kt._name(plan), ints, floats)
    torch.testing.assert_close(gx, 3 * g.view(4, 16))


def test_host_backward_of_a_kernel_or_a_number_is_e640():
    for bad in (through_map, 3):
        with pytest.raises(kdsl.DSLError, match="E640"):
            kdsl.host_backward(bad)
