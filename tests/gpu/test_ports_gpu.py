"""The ports of real kernels (tests/ports/) on the GPU: each gives the numpy
reference of tests/ports/test_ports.py, and the interpreter's bytes where the
result is exact (all but the softmax, whose expf is the GPU's, and the
filter, whose order is the atomics')."""

import sys
from pathlib import Path

import numpy as np
import pytest

import kdsl

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ports"))
import laplace  # noqa: E402
import online_softmax  # noqa: E402
import philox_dropout  # noqa: E402
import reduce7  # noqa: E402
import shfl_scan  # noqa: E402
import simple_assert  # noqa: E402
import test_ports as P  # noqa: E402
import warp_aggregated_filter  # noqa: E402


@pytest.mark.parametrize("n", [37, 1000, 4099, 256 * 256])
def test_shfl_scan(n):
    x = P.rng(n).integers(-(2**31), 2**31, n, dtype=np.int32)
    blocks = -(-n // 256)
    data, partial = cp.asarray(x), cp.zeros(256, np.int32)
    unused = cp.zeros(1, np.int32)
    shfl_scan.shfl_scan_test[blocks, 256](data, n, partial, BLOCK=256)
    shfl_scan.shfl_scan_test[1, 256](partial, blocks, unused, BLOCK=256)
    if blocks > 1:
        shfl_scan.uniform_add[blocks - 1, 256](data, partial, n)
    got = data.get().tobytes()
    assert got == np.cumsum(x, dtype=np.int32).tobytes() == P.scan(x).tobytes()


@pytest.mark.parametrize("integer", [True, False], ids=["int32", "float32"])
@pytest.mark.parametrize(
    "n, block, blocks",
    [(1000, 256, 3), (4096, 128, 4), (77, 64, 2), (1 << 18, 256, 32)],
)
def test_reduce7(integer, n, block, blocks):
    t = np.int32 if integer else np.float32
    r = P.rng(n)
    x = r.integers(-(2**31), 2**31, n, np.int32) if integer else r.standard_normal(n)
    x = x.astype(t)
    want = np.zeros(blocks, t)
    args = dict(BLOCK=block, N_IS_POW2=n & (n - 1) == 0, INTEGER=integer)
    reduce7.reduce7.interpret[blocks, block](x, want, n, **args)
    out = cp.zeros(blocks, t)
    reduce7.reduce7[blocks, block](cp.asarray(x), out, n, **args)
    assert out.get().tobytes() == want.tobytes()
    if integer:
        assert want.sum(dtype=np.int32) == x.sum(dtype=np.int32)


@pytest.mark.parametrize("n", [37, 1000, 1 << 20])
@pytest.mark.parametrize("p, seed", [(0.5, 123456789012), (0.1, 7)])
def test_philox_dropout(n, p, seed):
    x = P.rng(n).standard_normal(n).astype(np.float32)
    out = cp.full(n, np.nan, np.float32)
    philox_dropout.seeded_dropout[-(-n // 256), 256](cp.asarray(x), out, n, p, seed)
    assert out.get().tobytes() == P.dropout_reference(x, p, seed).tobytes()


@pytest.mark.parametrize("size", [1001, 700])
def test_laplace(size):
    buf_0, buf_1 = P.rod(size)
    want = P.heat_reference(buf_0, buf_1, 1000, 0.25)
    d_0, d_1 = cp.asarray(buf_0), cp.asarray(buf_1)
    laplace.solve_heat_equation[-(-size // 256), 256](d_0, d_1, 1000, 0.25)
    assert d_0.get().tobytes() == want[0].tobytes()
    assert d_1.get().tobytes() == want[1].tobytes()


@pytest.mark.parametrize("n", [37, 1000, 1 << 20])
def test_warp_aggregated_filter(n):
    src = P.rng(n).integers(-5, 5, n, dtype=np.int32)
    dst = cp.zeros(n, np.int32)
    nres = cp.zeros(1, np.int32)
    warp_aggregated_filter.filter_k[-(-n // 128), 128](dst, nres, cp.asarray(src), n)
    kept = src[src > 0]
    count = int(nres.get()[0])
    assert count == kept.size
    assert np.sort(dst.get()[:count]).tolist() == np.sort(kept).tolist()


@pytest.mark.parametrize("rows, C", [(7, 100), (13, 257), (1000, 1024)])
def test_online_softmax(rows, C):
    x = (3 * P.rng(C).standard_normal((rows, C))).astype(np.float32)
    out = cp.zeros_like(cp.asarray(x))
    kernel = online_softmax.softmax_forward_online_kernel2
    kernel[-(-rows // 4), 128](out, cp.asarray(x), rows, C)
    np.testing.assert_allclose(out.get(), P.softmax_reference(x), rtol=1e-5, atol=1e-9)


def test_simple_assert():
    simple_assert.test_kernel[2, 32](64)  # every index below N
    with pytest.raises(kdsl.DeviceAssertionError) as info:
        simple_assert.test_kernel[2, 32](60)
    err = info.value
    assert err.code == "E460" and err.block == (1, 0, 0)
    assert err.thread[0] in (28, 29, 30, 31)  # the GPU names one failing thread
    assert "gtid < N" in str(err)
    simple_assert.test_kernel[2, 32](64)  # the context is still usable
    cp.cuda.Device().synchronize()
