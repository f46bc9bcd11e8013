"""The interpreter and the GPU compute the same bits (kernels without
transcendental math or order-dependent atomics)."""

import numpy as np
import pytest

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")

from examples_index import example_modules  # noqa: E402

EX = example_modules()
RNG = np.random.default_rng(11)


def _random(shape, t):
    if t.kind == "int":  # every bit pattern, extremes included
        size = int(np.prod(shape)) * t.np_dtype.itemsize
        raw = RNG.integers(0, 256, size, dtype=np.uint8)
        return raw.view(t.np_dtype).reshape(shape)
    return (RNG.standard_normal(shape) * 100).astype(t.np_dtype)


def _same_bits(a, b):
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    assert a.dtype == b.dtype
    assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("t", EX["vector_add"].vector_add.supported_dtypes, ids=str)
def test_vector_add_interpreted_equals_gpu(t):
    n = 2000
    x, y = _random(n, t), _random(n, t)
    host = np.zeros(n, t.np_dtype)
    EX["vector_add"].vector_add.interpret[8, 256](x, y, host, n)
    dev = cp.zeros(n, t.np_dtype)
    EX["vector_add"].vector_add[8, 256](cp.asarray(x), cp.asarray(y), dev, n)
    _same_bits(host, dev.get())


@pytest.mark.parametrize("t", EX["matmul"].matmul.supported_dtypes, ids=str)
def test_matmul_interpreted_equals_gpu(t):
    M, N, K = 20, 24, 40
    a, b = _random((M, K), t), _random((K, N), t)
    host = np.zeros((M, N), t.np_dtype)
    grid = ((N + 15) // 16, (M + 15) // 16)
    EX["matmul"].matmul.interpret[grid, (16, 16)](a, b, host, M, N, K)
    dev = cp.zeros((M, N), t.np_dtype)
    EX["matmul"].matmul[grid, (16, 16)](cp.asarray(a), cp.asarray(b), dev, M, N, K)
    _same_bits(host, dev.get())


def test_histogram_and_saxpy_interpreted_equal_gpu():
    n = 3000
    x = RNG.random(n).astype(np.float16)
    host = np.zeros(64, np.int32)
    EX["histogram"].histogram.interpret[12, 256](x, host, n, 0.1, 0.9)
    dev = cp.zeros(64, np.int32)
    EX["histogram"].histogram[12, 256](cp.asarray(x), dev, n, 0.1, 0.9)
    _same_bits(host, dev.get())
    y = RNG.standard_normal(n).astype(np.float32)
    hy = y.copy()
    EX["saxpy"].saxpy.interpret[3, 128](np.float32(1.25), x.astype(np.float32), hy, n)
    dy = cp.asarray(y)
    EX["saxpy"].saxpy[3, 128](np.float32(1.25), cp.asarray(x.astype(np.float32)), dy, n)
    _same_bits(hy, dy.get())
