"""examples/pytorch/ops.py: the examples as PyTorch operators, against
PyTorch's own functions (the interpreter on the CPU; the GPU below)."""

import importlib.util
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]
ops = sys.modules.get("kdsl_example_ops")  # loaded once: its operators register
if ops is None:
    spec = importlib.util.spec_from_file_location(
        "kdsl_example_ops", ROOT / "examples" / "pytorch" / "ops.py"
    )
    ops = sys.modules["kdsl_example_ops"] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ops)

F = torch.nn.functional


def test_gelu_forward_and_gradient_on_the_cpu():
    x = torch.linspace(-5, 5, 301, dtype=torch.float64, requires_grad=True)
    y = ops.gelu(x)
    want = F.gelu(x.detach(), approximate="tanh")
    torch.testing.assert_close(y.detach(), want)  # Float64 inside for Float64
    y.backward(torch.ones_like(y))
    xr = x.detach().clone().requires_grad_()
    F.gelu(xr, approximate="tanh").sum().backward()
    torch.testing.assert_close(x.grad, xr.grad)


def test_gelu_gradcheck_in_float64_on_the_cpu():
    x = torch.randn(19, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(ops.gelu, (x,))


def test_gelu_under_torch_compile_on_the_cpu():
    x = torch.randn(77, requires_grad=True)
    f = torch.compile(lambda t: ops.gelu(t) * 2, fullgraph=True, backend="aot_eager")
    y = f(x)
    torch.testing.assert_close(y, 2 * F.gelu(x, approximate="tanh"))
    y.sum().backward()
    xr = x.detach().clone().requires_grad_()
    (2 * F.gelu(xr, approximate="tanh")).sum().backward()
    torch.testing.assert_close(x.grad, xr.grad)


def test_the_row_ops_and_gelu_take_a_transposed_input_on_the_cpu():
    """A dense but not contiguous input (a transpose): each operator's
    output is a new contiguous tensor the kernel can write (gelu's was
    allocated with the input's strides, which its pointer refused)."""
    x = torch.randn(24, 16, dtype=torch.float64).t()
    w = torch.randn(24, dtype=torch.float64)
    for got, want in (
        (ops.gelu(x), F.gelu(x, approximate="tanh")),
        (ops.softmax(x), torch.softmax(x, dim=-1)),
        (ops.layer_norm(x, w, None, 1e-5), F.layer_norm(x, (24,), w, None, 1e-5)),
    ):
        assert got.is_contiguous() and got.shape == x.shape
        torch.testing.assert_close(got, want)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype,tol", [(torch.bfloat16, 1.6e-2), (torch.float32, 2e-6)])
def test_gelu_on_the_gpu_compiled_against_pytorch(dtype, tol):
    x = torch.randn(1 << 20 | 3, device="cuda", dtype=dtype, requires_grad=True)
    f = torch.compile(lambda t: ops.gelu(t) * 2, fullgraph=True)
    y = f(x)
    xr = x.detach().clone().requires_grad_()
    want = 2 * F.gelu(xr, approximate="tanh")
    torch.testing.assert_close(y, want, rtol=2 * tol, atol=2 * tol)
    g = torch.randn_like(y)
    y.backward(g)
    want.backward(g)
    torch.testing.assert_close(x.grad, xr.grad, rtol=4 * tol, atol=4 * tol)


@pytest.mark.gpu
def test_gelu_gradcheck_in_float64_on_the_gpu():
    x = torch.randn(1000, device="cuda", dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(ops.gelu, (x,))


# -- softmax and layer norm ----------------------------------------------------------
# (shapes: rows of odd and even widths, several leading dimensions)
SHAPES = [(3, 5, 37), (4, 64), (2, 333)]
AFFINE = ["weight+bias", "weight", "bias", "none"]


def _affine(kind, cols, dtype, device="cpu"):
    g = torch.Generator(device=device).manual_seed(cols)
    w = 0.5 + torch.rand(cols, generator=g, device=device, dtype=dtype)
    b = torch.randn(cols, generator=g, device=device, dtype=dtype)
    return (
        w.requires_grad_() if "weight" in kind else None,
        b.requires_grad_() if "bias" in kind else None,
    )


def _grads(out, tensors, g):
    """The gradients of ``out`` (weighted by ``g``) for each tensor, None
    for None."""
    live = [t for t in tensors if t is not None]
    got = iter(torch.autograd.grad(out, live, g))
    return [None if t is None else next(got) for t in tensors]


def _leaf(t):
    return None if t is None else t.detach().clone().requires_grad_()


@pytest.mark.parametrize("shape", SHAPES)
def test_softmax_forward_and_gradient_on_the_cpu(shape):
    x = torch.randn(shape, dtype=torch.float64, requires_grad=True)
    y = ops.softmax(x)
    want = F.softmax(x, dim=-1)
    torch.testing.assert_close(y, want, rtol=1e-14, atol=1e-15)  # Float64 inside
    g = torch.randn_like(y)
    (got,) = _grads(y, [x], g)
    (ref,) = _grads(want, [x], g)
    torch.testing.assert_close(got, ref, rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("affine", AFFINE)
def test_layer_norm_forward_and_gradients_on_the_cpu(shape, affine):
    x = 3 + torch.randn(shape, dtype=torch.float64)  # a mean far from 0
    x.requires_grad_()
    w, b = _affine(affine, shape[-1], torch.float64)
    y = ops.layer_norm(x, w, b, 1e-5)
    want = F.layer_norm(x, (shape[-1],), w, b, 1e-5)
    # eps is a Float32 parameter of the kernel: 1e-5 rounded to Float32
    torch.testing.assert_close(y, want, rtol=1e-10, atol=1e-10)
    g = torch.randn_like(y)
    got = _grads(y, [x, w, b], g)
    ref = _grads(want, [x, w, b], g)
    for a, r in zip(got, ref):
        if r is not None:
            torch.testing.assert_close(a, r, rtol=1e-9, atol=1e-9)


def test_softmax_gradcheck_in_float64_on_the_cpu():
    x = torch.randn(3, 2, 9, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(ops.softmax, (x,))


@pytest.mark.parametrize("affine", AFFINE)
def test_layer_norm_gradcheck_in_float64_on_the_cpu(affine):
    x = torch.randn(4, 11, dtype=torch.float64, requires_grad=True)
    w, b = _affine(affine, 11, torch.float64)
    assert torch.autograd.gradcheck(ops.layer_norm, (x, w, b, 1e-5))


def test_layer_norm_gradients_of_16_bit_weights_are_summed_wide_on_the_cpu():
    # dweight and dbias are sums over the rows, kept in Float64 and rounded
    # once: closer to the exact sum than BFloat16 steps would be
    x = torch.randn(256, 64, dtype=torch.bfloat16, requires_grad=True)
    w, b = _affine("weight+bias", 64, torch.bfloat16)
    g = torch.randn(256, 64, dtype=torch.bfloat16)
    got = _grads(ops.layer_norm(x, w, b, 1e-5), [x, w, b], g)
    x64, w64, b64 = (_leaf(t.double()) for t in (x, w, b))
    ref = _grads(F.layer_norm(x64, (64,), w64, b64, 1e-5), [x64, w64, b64], g.double())
    for a, r in zip(got, ref):
        assert a.dtype == torch.bfloat16
        err = (a.double() - r).abs().max() / r.abs().max()
        assert err < 8e-3, err


def test_softmax_and_layer_norm_under_torch_compile_on_the_cpu():
    def model(x, w, b):
        return ops.softmax(ops.layer_norm(x, w, b, 1e-5)) * 2

    def reference(x, w, b):
        return F.softmax(F.layer_norm(x, (x.shape[-1],), w, b, 1e-5), dim=-1) * 2

    x = torch.randn(6, 40, dtype=torch.float64, requires_grad=True)
    w, b = _affine("weight+bias", 40, torch.float64)
    y = torch.compile(model, fullgraph=True, backend="aot_eager")(x, w, b)
    xr, wr, br = _leaf(x), _leaf(w), _leaf(b)
    want = reference(xr, wr, br)
    torch.testing.assert_close(y, want)
    g = torch.randn_like(y)
    y.backward(g)
    want.backward(g)
    for a, r in ((x, xr), (w, wr), (b, br)):
        torch.testing.assert_close(a.grad, r.grad)


def test_rows_too_long_for_the_registers_are_refused():
    x = torch.zeros(1, 16 * 32 * 8 * 2 + 2, dtype=torch.float64)  # 2 lanes a vector
    with pytest.raises(ValueError, match="at most 8192"):
        ops.softmax(x)


# -- on the GPU ------------------------------------------------------------------------
# bf16 tolerances (relative to the largest reference value): both sides round
# their outputs to bf16 (2**-8 apart); kdsl computes in Float32 and sums
# dweight/dbias in Float64, PyTorch in Float32
BF16_TOL = {"y": 1e-2, "grad": 2e-2}


def _assert_close_scaled(got, want, tol):
    scale = want.double().abs().max().item()
    torch.testing.assert_close(got.double(), want.double(), rtol=tol, atol=tol * scale)


@pytest.mark.gpu
@pytest.mark.parametrize("rows,cols", [(512, 1000), (64, 4096), (37, 3001)])
def test_softmax_bf16_gradients_match_pytorch_on_the_gpu(rows, cols):
    x = torch.randn(rows, cols, device="cuda", dtype=torch.bfloat16) * 3
    xk, xr = _leaf(x), _leaf(x)
    y, want = ops.softmax(xk), F.softmax(xr, dim=-1)
    _assert_close_scaled(y, want, BF16_TOL["y"])
    g = torch.randn_like(y)
    y.backward(g)
    want.backward(g)
    _assert_close_scaled(xk.grad, xr.grad, BF16_TOL["grad"])


@pytest.mark.gpu
@pytest.mark.parametrize("rows,cols", [(512, 1024), (64, 4096), (37, 3001)])
@pytest.mark.parametrize("affine", ["weight+bias", "none"])
def test_layer_norm_bf16_gradients_match_pytorch_on_the_gpu(rows, cols, affine):
    x = 3 + torch.randn(rows, cols, device="cuda", dtype=torch.bfloat16)
    w, b = _affine(affine, cols, torch.bfloat16, "cuda")
    xk, wk, bk = _leaf(x), _leaf(w), _leaf(b)
    xr, wr, br = _leaf(x), _leaf(w), _leaf(b)
    y = ops.layer_norm(xk, wk, bk, 1e-5)
    want = F.layer_norm(xr, (cols,), wr, br, 1e-5)
    _assert_close_scaled(y, want, BF16_TOL["y"])
    g = torch.randn_like(y)
    got = _grads(y, [xk, wk, bk], g)
    ref = _grads(want, [xr, wr, br], g)
    for a, r in zip(got, ref):
        if r is not None:
            _assert_close_scaled(a, r, BF16_TOL["grad"])


@pytest.mark.gpu
def test_softmax_and_layer_norm_gradcheck_in_float64_on_the_gpu():
    x = torch.randn(5, 67, device="cuda", dtype=torch.float64, requires_grad=True)
    w, b = _affine("weight+bias", 67, torch.float64, "cuda")
    assert torch.autograd.gradcheck(ops.softmax, (x,))
    assert torch.autograd.gradcheck(ops.layer_norm, (x, w, b, 1e-5))
    assert torch.autograd.gradcheck(ops.layer_norm, (x, None, None, 1e-5))


@pytest.mark.gpu
def test_the_three_ops_under_torch_compile_inductor_on_the_gpu():
    def model(x, w, b):
        return ops.softmax(ops.layer_norm(ops.gelu(x), w, b, 1e-5)) * 2

    def reference(x, w, b):
        h = F.gelu(x, approximate="tanh")
        return F.softmax(F.layer_norm(h, (x.shape[-1],), w, b, 1e-5), dim=-1) * 2

    x = torch.randn(64, 1024, device="cuda", dtype=torch.float32)
    w, b = _affine("weight+bias", 1024, torch.float32, "cuda")
    xk, wk, bk = _leaf(x), _leaf(w), _leaf(b)
    xr, wr, br = _leaf(x), _leaf(w), _leaf(b)
    y = torch.compile(model, fullgraph=True)(xk, wk, bk)
    want = reference(xr, wr, br)
    torch.testing.assert_close(y, want, rtol=1e-5, atol=1e-6)
    g = torch.randn_like(y)
    got = _grads(y, [xk, wk, bk], g)
    ref = _grads(want, [xr, wr, br], g)
    for a, r in zip(got, ref):
        torch.testing.assert_close(a, r, rtol=1e-4, atol=1e-5)


@pytest.mark.gpu
def test_the_three_ops_forward_and_backward_captured_in_a_cuda_graph():
    x = torch.randn(128, 1000, device="cuda", requires_grad=True)
    w, b = _affine("weight+bias", 1000, torch.float32, "cuda")
    g = torch.randn(128, 1000, device="cuda")

    def step():
        y = ops.softmax(ops.layer_norm(ops.gelu(x), w, b, 1e-5))
        return (y, *torch.autograd.grad(y, [x, w, b], g))

    # warm up on a side stream: compiles, loads and tunes outside the capture
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(2):
            step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        captured = step()
    for _ in range(2):
        with torch.no_grad():
            x.copy_(torch.randn_like(x))
        graph.replay()
        torch.cuda.synchronize()
        want = step()  # eager, the same kernels
        for a, r in zip(captured, want):
            torch.testing.assert_close(a, r, rtol=1e-5, atol=1e-6)


def test_attention_gradients_on_the_cpu_against_float64():
    """attention(q, k, v, causal).backward(): the mma.sync forward saving
    the log-sum-exp, then the three backward passes, all in the interpreter,
    against float64 SDPA (one 128-token tile: 2 query tiles of the dk/dv pass
    cross the diagonal)."""
    torch.manual_seed(0)
    q, k, v = (
        torch.randn(1, 1, 128, 64, dtype=torch.bfloat16, requires_grad=True)
        for _ in range(3)
    )
    out = ops.attention(q, k, v, True)
    g = torch.randn_like(out)
    out.backward(g)
    exact = [x.detach().double().requires_grad_() for x in (q, k, v)]
    want = F.scaled_dot_product_attention(*exact, is_causal=True)
    want.backward(g.double())
    for name, got, ref in (("o", out, want), *zip("qkv", (q, k, v), exact)):
        got = got.detach() if name == "o" else got.grad
        ref = ref.detach() if name == "o" else ref.grad
        err = ((got.double() - ref).abs().max() / ref.abs().max()).item()
        assert err < 2.0**-6, f"{name}: relative error {err:.3g}"


def test_layer_norm_with_eps_by_keyword_takes_the_fast_path():
    """``layer_norm(x, w, None, eps=...)`` needing a gradient runs as the fast
    path's autograd node (the keyword is put in its place), with the
    gradients of the positional call."""
    x = torch.randn(4, 64, dtype=torch.float64, requires_grad=True)
    w = torch.randn(64, dtype=torch.float64, requires_grad=True)
    g = torch.randn(4, 64, dtype=torch.float64)
    named = ops.layer_norm(x, w, bias=None, eps=1e-3)
    assert type(named.grad_fn).__name__ == "_DifferentiableBackward"
    got = torch.autograd.grad(named, (x, w), g)
    want = torch.autograd.grad(ops.layer_norm(x, w, None, 1e-3), (x, w), g)
    for a, b in zip(got, want):
        assert torch.equal(a, b)
