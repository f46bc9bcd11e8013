"""Every example, every supported dtype, on the GPU against a float64
reference (the checks are shared with the interpreter's: example_checks)."""

import sys
from pathlib import Path

import numpy as np
import pytest

import kdsl

pytestmark = pytest.mark.gpu

cp = pytest.importorskip("cupy")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import example_checks  # noqa: E402

EX = example_checks.EX
GPU = example_checks.gpu_backend(cp)


@pytest.mark.parametrize("case", example_checks.cases(), ids=example_checks.case_id)
def test_example_on_the_gpu(case):
    check, t = case
    check(GPU, t, np.random.default_rng(1234))


def test_pytorch_tensors_and_stream():
    torch = pytest.importorskip("torch")
    mod = EX["vector_add"]
    n = 10_000
    x = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    y = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    out = torch.full((n,), float("nan"), device="cuda", dtype=torch.bfloat16)
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        mod.vector_add[(n + 255) // 256, 256](x, y, out, n, stream=stream)
    stream.synchronize()
    assert torch.equal(out, x + y)


def _softmax_rtol(x, y, rtol):
    """y against a float64 softmax of x, relative to each element (the
    values of a 128256-wide row are ~1e-5: an absolute bound would not see
    a wrong sum), and every row summing to 1."""
    xv = cp.asnumpy(x).astype(np.float64)
    e = np.exp(xv - xv.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)
    got = cp.asnumpy(y).astype(np.float64)
    assert np.all(np.abs(got - want) <= rtol * want + 1e-30)
    assert np.abs(got.sum(axis=1) - 1).max() <= rtol * 10


# (rows, cols, dtype, the kernel softmax.plan picks on the H200's 132 SMs):
# vocabulary rows, a few (split over the SMs: 18 chunks of 1782 vectors; 4
# chunks of 128 KB of shared memory a block; 2 chunks of 256 KB, read again
# after the barrier; 50257 odd: scalar accesses) and many (a block a row,
# cached in shared memory up to 200 KB, else read twice; Float32 rows up to
# 32768 in registers, 16 vectors a thread)
WIDE_ROWS = [
    (7, 128256, "f32", "split"),
    (33, 128256, "f32", "split"),
    (64, 128256, "f32", "split"),
    (1, 50257, "bf16", "split"),
    (7, 32000, "f32", "split"),
    (300, 32000, "f32", "rows"),
    (300, 50000, "f32", "online"),
    (300, 50257, "f32", "online"),
    (100, 128256, "f32", "online"),
    (200, 50257, "bf16", "online"),
]


@pytest.mark.parametrize("rows,cols,dtype,path", WIDE_ROWS)
def test_softmax_wide_rows(rows, cols, dtype, path):
    mod = EX["softmax"]
    rng = np.random.default_rng(3)
    x = rng.standard_normal((rows, cols), dtype=np.float32) * 4
    x[0, :] = -30.0  # the maximum in the row's last chunk: the pairs rescale
    x[0, -1] = 6.0
    t = {"f32": kdsl.Float32, "bf16": kdsl.BFloat16}[dtype]
    x = cp.asarray(x.astype(t.np_dtype))
    y = cp.asarray(np.full((rows, cols), np.nan, t.np_dtype))
    sms = EX["block_reduce"].multiprocessors()
    assert mod.plan(rows, cols, x.itemsize, sms)[0] == path
    mod.softmax(x, y)
    _softmax_rtol(x, y, 1e-5 if dtype == "f32" else 8e-3)


ODD_SHAPES = [(4097, 31), (31, 4097), (4097, 4097)]
TILED = [
    (t, s) for t in (np.float32, np.float16, np.uint8, np.float64) for s in ODD_SHAPES
]


@pytest.mark.parametrize(
    "dtype,shape",
    TILED
    + [
        (np.float32, (12289, 5003)),
        (np.float32, (50257, 768)),
        (np.int32, (3001, 4098)),
        (np.float16, (12289, 5003)),
        (np.float16, (50257, 768)),
    ],
)
def test_transpose_odd_shapes(dtype, shape):
    """Odd sizes through ``launch_transpose``: ``transpose_odd`` and
    ``transpose_odd4`` (16-byte accesses at any offset) for 2- and 4-byte
    types, ``transpose_tiled`` for the others, thin matrices and when a is
    one element off 16-byte alignment; every element checked against
    numpy's transpose."""
    mod = EX["transpose"]
    a = np.random.default_rng(4).integers(0, 250, shape).astype(dtype)
    da = cp.asarray(a)
    out = cp.full(shape[::-1], 7, dtype)
    side = {2: mod.ODD_SIDE, 4: mod.ODD4_SIDE}.get(a.itemsize)
    wide = side is not None and min(shape) >= 4 * side
    assert mod.odd_path(da, out) is wide and not mod.vector_path(da, out)
    mod.launch_transpose(da, out)
    np.testing.assert_array_equal(cp.asnumpy(out), a.T)
    if shape == (4097, 4097):
        shifted = cp.zeros(a.size + 1, dtype)[1:].reshape(shape)
        shifted[...] = da
        out[...] = 7
        assert not mod.odd_path(shifted, out) and mod.tiled_path(shifted, out)
        mod.launch_transpose(shifted, out)
        np.testing.assert_array_equal(cp.asnumpy(out), a.T)
