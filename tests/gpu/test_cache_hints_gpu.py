"""Cache-hinted loads and stores on the GPU: the result bytes equal the
interpreter's, which runs them as plain loads and stores
(tests/cache_hint_kernels.py)."""

import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import cache_hint_kernels as K  # noqa: E402

RNG = np.random.default_rng(720)
# CuPy has no 8-bit float arrays: the fp8 instances are NVRTC-tested only
TYPES = [t for t in K.ALL if not t.startswith("f8")]


@pytest.mark.parametrize("t", TYPES)
@pytest.mark.parametrize("vec", [False, True], ids=["scalar", "vec4"])
def test_every_hint_moves_the_interpreters_bytes(t, vec):
    kernel = K.every_hint_vec if vec else K.every_hint
    inst = kernel.dispatch(t)
    dt = inst.dtypes[0].np_dtype
    n = 1000
    x = RNG.integers(0, 2 if t == "bool" else 120, n).astype(dt)
    count = n // 4 if vec else n
    host = np.zeros(6 * n, dt)
    inst.interpret[8, 128](x, host, count)
    y = cp.zeros(6 * n, dt)
    inst[8, 128](cp.asarray(x), y, count)
    cp.cuda.Device().synchronize()
    assert cp.asnumpy(y).tobytes() == host.tobytes()


def test_streaming_scale_with_a_tail():
    n = 4099
    x = RNG.standard_normal(n).astype(np.float32)
    s = np.float32(0.7)
    host = np.zeros(n, np.float32)
    K.scale_streaming.interpret[5, 256](x, host, n, s)
    y = cp.zeros(n, np.float32)
    K.scale_streaming[5, 256](cp.asarray(x), y, n, s)
    cp.cuda.Device().synchronize()
    assert cp.asnumpy(y).tobytes() == host.tobytes() == (x * s).tobytes()


def test_an_array_element_by_its_index_tuple():
    a = RNG.standard_normal((300, 2)).astype(np.float32)
    host = np.zeros(300, np.float32)
    K.rows_ldg.interpret[3, 128](a, host)
    out = cp.zeros(300, np.float32)
    K.rows_ldg[3, 128](cp.asarray(a), out)
    cp.cuda.Device().synchronize()
    assert cp.asnumpy(out).tobytes() == host.tobytes()
