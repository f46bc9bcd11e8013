"""examples/pytorch/ops.py: the examples as PyTorch operators, against
PyTorch's own functions (the interpreter on the CPU; the GPU below)."""

import importlib.util
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location(
    "kdsl_example_ops", ROOT / "examples" / "pytorch" / "ops.py"
)
ops = importlib.util.module_from_spec(spec)
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
