"""Launch-time checks on the GPU: clear errors naming the parameter, and
nothing launched when an argument is wrong."""

import sys
from pathlib import Path

import numpy as np
import pytest

import kdsl

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from examples_index import example_modules  # noqa: E402

VA = example_modules()["vector_add"]
N = 1024


def arrays(dtype=np.float32, n=N):
    x = cp.arange(n, dtype=dtype)
    return x, x.copy(), cp.full(n, 7, dtype=dtype)


def untouched(out):
    return bool((out == 7).all())


@pytest.mark.parametrize(
    "make_args,message",
    [
        (lambda x, y, o: (np.zeros(N, np.float32), y, o, N), "host"),
        (lambda x, y, o: (x, y.astype(np.float64), o, N), "'y' must hold Float32"),
        (lambda x, y, o: (x, y, o), "takes 4 arguments"),
        (lambda x, y, o: (x, y, o, N, 5), "takes 4 arguments"),
        (lambda x, y, o: (x, y, o, 2**31), "'n' is Int32"),
        (lambda x, y, o: (x, y, o, 1.5), "'n' is Int32"),
        (lambda x, y, o: (x[::2], y[::2], o[::2], N // 2), "contiguous"),
    ],
)
def test_bad_arguments_are_named_and_nothing_is_launched(make_args, message):
    x, y, out = arrays()
    with pytest.raises(kdsl.DSLError, match=message):
        VA.vector_add[4, 256](*make_args(x, y, out))
    cp.cuda.Device().synchronize()
    assert untouched(out)


def test_unsupported_dtype_lists_the_supported_set():
    x, y, out = arrays(np.complex64)
    with pytest.raises(kdsl.DSLError, match="vector_add"):
        VA.vector_add[4, 256](x, y, out, N)
    b = cp.zeros(N, dtype=cp.bool_)
    with pytest.raises(kdsl.UnsupportedDtypeError, match="Float32"):
        VA.vector_add[4, 256](b, b, b, N)


def test_misaligned_vec_pointer():
    x, y, out = arrays(n=N + 4)
    with pytest.raises(kdsl.DSLError, match="16-byte aligned"):
        VA.vector_add_x4[1, 256](x[1:], y[1:], out[1:], N)
    assert untouched(out)


def test_block_over_the_device_limit():
    x, y, out = arrays()
    with pytest.raises(kdsl.DSLError, match="at most 1024"):
        VA.vector_add[1, 2048](x, y, out, N)


def test_missing_constexpr_and_grid_callable():
    @kdsl.kernel(dtypes=[kdsl.Float32])
    def fill(
        out: kdsl.Pointer[VA.D],
        n: kdsl.Int32,
        VALUE: kdsl.Constexpr[float],
        BLOCK: kdsl.Constexpr[int] = 128,
    ):
        i = kdsl.block_idx.x * BLOCK + kdsl.thread_idx.x
        if i < n:
            out[i] = kdsl.Float32(VALUE)

    out = cp.zeros(1000, dtype=np.float32)
    with pytest.raises(kdsl.DSLError, match="VALUE"):
        fill[8, 128](out, 1000)
    fill[lambda meta: (1000 + meta["BLOCK"] - 1) // meta["BLOCK"], 128](
        out, 1000, VALUE=2.5
    )
    assert bool((out == 2.5).all())
    assert [i.name for i in fill.instances()] == ["fill__f32__2p5__128"]


def test_instance_launch_and_dispatch_dtypes():
    inst = VA.vector_add.dispatch(np.float64)
    x, y, out = arrays(np.float64)
    inst[4, 256](x, y, out, N)
    assert bool((out == 2 * x).all())


def test_many_values_of_one_constexpr_warn_once():
    @kdsl.kernel(dtypes=[kdsl.Float32])
    def scaled(out: kdsl.Pointer[VA.D], K: kdsl.Constexpr[int]):
        out[0] = kdsl.Float32(K)

    out = cp.zeros(1, dtype=np.float32)
    with pytest.warns(kdsl.ManyInstancesWarning, match="constexpr 'K'"):
        for k in range(12):
            scaled[1, 1](out, K=k)
    assert float(out[0]) == 11.0
