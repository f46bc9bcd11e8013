"""Device functions that take memory and return several results give the
interpreter's bits on the GPU."""

import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lowering"))
import test_device_functions as t  # noqa: E402

RNG = np.random.default_rng(23)


def _both(kernel, grid, block, *args):
    host = [np.array(a) if isinstance(a, np.ndarray) else a for a in args]
    dev = [cp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
    kernel.interpret[grid, block](*host)
    kernel[grid, block](*dev)
    return [(h, d.get()) for h, d in zip(host, dev) if isinstance(h, np.ndarray)]


def test_block_reductions_shared_by_two_kernels():
    rows, cols = 4, 3000
    x = RNG.standard_normal((rows, cols)).astype(np.float32)
    w = RNG.standard_normal(cols).astype(np.float32)
    for h, d in _both(t.rms_norm, rows, t.BLOCK, x, w, np.zeros_like(x), cols):
        assert h.tobytes() == d.tobytes()
    (_, _), (h, d) = _both(t.softmax_rows, rows, t.BLOCK, x, np.zeros_like(x), cols)
    np.testing.assert_allclose(d, h, rtol=2e-6, atol=1e-9)  # CUDA's expf


def test_pointers_arrays_and_results():
    x = RNG.standard_normal(64).astype(np.float32)
    for h, d in _both(t.pointers, 1, 64, x, np.ones(64, np.float32), 64):
        assert h.tobytes() == d.tobytes()
    m = RNG.standard_normal((6, 6)).astype(np.float32)
    for h, d in _both(t.arrays, 1, 32, m, np.zeros(32, np.float32)):
        assert h.tobytes() == d.tobytes()
    v, i = np.zeros(1, np.float32), np.zeros(1, np.int32)
    for h, d in _both(t.argmax, 1, 1, x, v, i, 64):
        assert h.tobytes() == d.tobytes()
