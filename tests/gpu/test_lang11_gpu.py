"""Optional pointers, byte views and constant tables on the GPU: the GPU's
result bytes equal the interpreter's (tests/lang11_kernels.py)."""

import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import lang11_kernels as K  # noqa: E402

RNG = np.random.default_rng(11)


@pytest.mark.parametrize("has_bias", [True, False])
def test_layer_norm_with_and_without_bias(has_bias):
    rows, cols = 100, 33
    x = RNG.standard_normal((rows, cols)).astype(np.float32)
    weight = RNG.standard_normal(cols).astype(np.float32)
    bias = RNG.standard_normal(cols).astype(np.float32) if has_bias else None
    eps = np.float32(1e-5)
    host = np.zeros_like(x)
    K.layer_norm.interpret[4, 32](x, weight, bias, host, rows, cols, eps)
    out = cp.zeros((rows, cols), np.float32)
    dev_bias = None if bias is None else cp.asarray(bias)
    K.layer_norm[4, 32](
        cp.asarray(x), cp.asarray(weight), dev_bias, out, rows, cols, eps
    )
    cp.cuda.Device().synchronize()
    assert cp.asnumpy(out).tobytes() == host.tobytes()
    name = "layer_norm" if has_bias else "layer_norm__nobias"
    assert name in [i.name for i in K.layer_norm.instances()]


def test_a_byte_view_gives_the_interpreters_bytes():
    n = 1000
    x = RNG.standard_normal(n).astype(np.float32)
    x[:4] = [np.inf, -0.0, 1e-45, np.float32(3.4e38)]
    raw = x.view(np.uint8)
    host_out, host_bits = np.zeros(n, np.float32), np.zeros(n, np.uint32)
    K.floats_of_bytes.interpret[4, 256](raw, host_out, host_bits, n)
    out, bits = cp.zeros(n, np.float32), cp.zeros(n, np.uint32)
    K.floats_of_bytes[4, 256](cp.asarray(raw), out, bits, n)
    cp.cuda.Device().synchronize()
    assert cp.asnumpy(out).tobytes() == host_out.tobytes()
    assert cp.asnumpy(bits).tobytes() == host_bits.tobytes()


def test_a_byte_view_read_as_vectors_gives_the_interpreters_bytes():
    n = 256
    x = RNG.standard_normal(4 * n).astype(np.float32)
    host = np.zeros(n, np.float32)
    K.quads_of_bytes.interpret[1, 256](x.view(np.uint8), host, n)
    out = cp.zeros(n, np.float32)
    K.quads_of_bytes[1, 256](cp.asarray(x.view(np.uint8)), out, n)
    cp.cuda.Device().synchronize()
    assert cp.asnumpy(out).tobytes() == host.tobytes()


def test_a_constant_table_lookup_gives_the_interpreters_bytes():
    n = 500
    idx = RNG.integers(0, 40, n).astype(np.int32)
    host = np.zeros(n, np.float32)
    K.table_lookup.interpret[2, 256](idx, host, n)
    out = cp.zeros(n, np.float32)
    K.table_lookup[2, 256](cp.asarray(idx), out, n)
    cp.cuda.Device().synchronize()
    assert cp.asnumpy(out).tobytes() == host.tobytes()


def test_optional_pointer_in_an_expression_on_the_gpu():
    x = RNG.standard_normal(64).astype(np.float32)
    for arg in (x, None):
        host = np.zeros(64, np.float32)
        K.maybe_scaled.interpret[1, 64](arg, host, 64)
        out = cp.zeros(64, np.float32)
        K.maybe_scaled[1, 64](None if arg is None else cp.asarray(arg), out, 64)
        cp.cuda.Device().synchronize()
        assert cp.asnumpy(out).tobytes() == host.tobytes()
