"""Every example, every supported dtype, on the GPU against a float64 reference.

Inputs are random, outputs are poisoned (NaN or a sentinel) before the launch,
so an element the kernel forgot to write fails the comparison.
"""

import math
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

cp = pytest.importorskip("cupy")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from examples_index import example_modules  # noqa: E402

EX = example_modules()
RNG = np.random.default_rng(1234)
TOL = {"f16": 2e-3, "bf16": 1.6e-2, "f32": 2e-6, "f64": 1e-13}


def _np(t):
    return t.np_dtype


def _random(shape, t, lo=-4.0, hi=4.0):
    if t.kind == "int":
        info = np.iinfo(t.np_dtype)
        return RNG.integers(max(info.min, -100), min(info.max, 100), shape).astype(
            t.np_dtype
        )
    return RNG.uniform(lo, hi, shape).astype(t.np_dtype)


def _poison(shape, t):
    if t.kind == "int":
        return cp.full(shape, 77, dtype=t.np_dtype)
    return cp.full(shape, np.nan, dtype=t.np_dtype)


def _close(got, want, t, scale=None):
    got = cp.asnumpy(got).astype(np.float64)
    if t.kind == "int":
        np.testing.assert_array_equal(got, want)
        return
    scale = np.abs(want).max() if scale is None else scale
    err = np.abs(got - want).max() / max(scale, 1e-30)
    assert not np.isnan(got).any()
    assert err <= TOL[t.short] * 4, f"{t.__name__}: relative error {err:.3g}"


def _grid(n, block):
    return (n + block - 1) // block


@pytest.mark.parametrize("t", EX["vector_add"].vector_add.supported_dtypes, ids=str)
def test_vector_add(t):
    n = 1_000_003
    x, y = _random(n, t), _random(n, t)
    out = _poison(n, t)
    EX["vector_add"].vector_add[_grid(n, 256), 256](
        cp.asarray(x), cp.asarray(y), out, n
    )
    want = (x + y) if t.kind == "int" else x.astype(np.float64) + y
    if t.kind == "int":
        want = (x + y).astype(t.np_dtype)  # wraps like kdsl
    _close(out, want.astype(np.float64), t)


def test_vector_add_x4_is_one_128_bit_load_per_operand():
    mod = EX["vector_add"]
    n = 1 << 20
    x, y = _random(n, mod.kdsl.Float32), _random(n, mod.kdsl.Float32)
    out = _poison(n, mod.kdsl.Float32)
    mod.vector_add_x4[_grid(n // 4, 256), 256](cp.asarray(x), cp.asarray(y), out, n)
    _close(out, x.astype(np.float64) + y, mod.kdsl.Float32)


@pytest.mark.parametrize("t", EX["saxpy"].saxpy.supported_dtypes, ids=str)
def test_saxpy(t):
    n = 300_001
    x, y = _random(n, t), _random(n, t)
    a = 1.5
    dy = cp.asarray(y)
    EX["saxpy"].saxpy[37, 128](a, cp.asarray(x), dy, n)  # grid-stride
    want = a * x.astype(np.float64) + y.astype(np.float64)
    _close(dy, want, t)


def _gelu(v):
    c = math.sqrt(2 / math.pi)
    return 0.5 * v * (1 + np.tanh(c * (v + 0.044715 * v**3)))


@pytest.mark.parametrize("t", EX["gelu"].gelu.supported_dtypes, ids=str)
def test_gelu_and_backward(t):
    g = EX["gelu"]
    n = 100_000
    x = _random(n, t)
    y = _poison(n, t)
    g.gelu[_grid(n, 256), 256](cp.asarray(x), y, n)
    xv = x.astype(np.float64)
    computed = t if t.short != "f64" else g.kdsl.Float32  # Float32 inside
    _close(y, _gelu(xv), computed)
    go = _random(n, t)
    gi = _poison(n, t)
    g.gelu_backward[_grid(n, 256), 256](cp.asarray(x), cp.asarray(go), gi, n)
    h = 1e-6
    deriv = (_gelu(xv + h) - _gelu(xv - h)) / (2 * h)
    want = go.astype(np.float64) * deriv
    _close(gi, want, computed, scale=np.abs(want).max())


@pytest.mark.parametrize("t", EX["softmax"].softmax.supported_dtypes, ids=str)
def test_softmax(t):
    rows, cols = 64, 1000
    x = _random((rows, cols), t)
    y = _poison((rows, cols), t)
    EX["softmax"].softmax[rows, 256](cp.asarray(x), y, cols)
    xv = x.astype(np.float64)
    e = np.exp(xv - xv.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)
    tol_t = t if t.short in ("f16", "bf16") else EX["softmax"].kdsl.Float32
    _close(y, want, tol_t)


@pytest.mark.parametrize("t", EX["reduce_sum"].reduce_sum.supported_dtypes, ids=str)
def test_reduce_sum(t):
    n = 1_234_567
    x = _random(n, t)
    out = cp.zeros(1, dtype=t.np_dtype)
    EX["reduce_sum"].reduce_sum[_grid(n, 256), 256](cp.asarray(x), out, n)
    want = np.array([x.astype(np.float64).sum()])
    _close(out, want, t, scale=np.abs(x).astype(np.float64).sum() * 1e-2)


@pytest.mark.parametrize("t", EX["histogram"].histogram.supported_dtypes, ids=str)
def test_histogram(t):
    n = 200_000
    x = _random(n, t, -1.0, 1.0)
    counts = cp.zeros(64, dtype=np.int32)
    lo, hi = -0.75, 0.75
    EX["histogram"].histogram[_grid(n, 256), 256](cp.asarray(x), counts, n, lo, hi)
    v = x.astype(np.float32)
    f32 = np.float32
    inside = (v >= f32(lo)) & (v < f32(hi))
    b = (((v[inside] - f32(lo)) / (f32(hi) - f32(lo))) * f32(64)).astype(np.int32)
    want = np.bincount(np.minimum(b, 63), minlength=64)
    np.testing.assert_array_equal(cp.asnumpy(counts), want)


@pytest.mark.parametrize("t", EX["transpose"].transpose.supported_dtypes, ids=str)
def test_transpose(t):
    rows, cols = 1000, 777
    a = _random((rows, cols), t)
    out = _poison((cols, rows), t)
    EX["transpose"].transpose[(_grid(cols, 32), _grid(rows, 32)), (32, 32)](
        cp.asarray(a), out
    )
    np.testing.assert_array_equal(cp.asnumpy(out), a.T)


@pytest.mark.parametrize("t", EX["matmul"].matmul.supported_dtypes, ids=str)
def test_matmul(t):
    M, N, K = 200, 300, 150
    a, b = _random((M, K), t, -1, 1), _random((K, N), t, -1, 1)
    c = _poison((M, N), t)
    EX["matmul"].matmul[(_grid(N, 16), _grid(M, 16)), (16, 16)](
        cp.asarray(a), cp.asarray(b), c, M, N, K
    )
    want = a.astype(np.float64) @ b.astype(np.float64)
    tol_t = t if t.short != "f64" else t
    _close(c, want, tol_t, scale=np.abs(a).astype(np.float64).sum(1).max())


def test_pytorch_tensors_and_stream():
    torch = pytest.importorskip("torch")
    mod = EX["vector_add"]
    n = 10_000
    x = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    y = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    out = torch.full((n,), float("nan"), device="cuda", dtype=torch.bfloat16)
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        mod.vector_add[_grid(n, 256), 256](x, y, out, n, stream=stream)
    stream.synchronize()
    assert torch.equal(out, x + y)
