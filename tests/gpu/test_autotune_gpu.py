"""The autotuner on the GPU: real timing, a cached choice, and arrays left
exactly as one launch leaves them (in place, accumulating, strided views,
PyTorch tensors, a stream)."""

import numpy as np
import pytest

import kdsl
from kdsl import Array, Constexpr, Int32, Pointer, block_idx, thread_idx
from kdsl.runtime import autotune as at

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")

from examples_index import example_modules  # noqa: E402

VA = example_modules()["vector_add"]
HISTOGRAM = example_modules()["histogram"]

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel
def scale(x: Pointer[D], n: Int32, BLOCK: Constexpr[int] = 256):
    """docs/autotune.md's example: doubles x in place."""
    i = block_idx.x * BLOCK + thread_idx.x
    if i < n:
        x[i] = (x[i].to(kdsl.Float32) + x[i].to(kdsl.Float32)).to(D)


@kdsl.kernel
def double_columns(a: Array[D, 2], BLOCK: Constexpr[int] = 128):
    j = block_idx.x * BLOCK + thread_idx.x
    if j < a.shape[1]:
        for r in range(a.shape[0]):
            a[r, j] = a[r, j] + a[r, j]


CONFIGS = [kdsl.Config(BLOCK=b) for b in (128, 256, 512, 1024)]


def shape(n):
    """Grid and block of a one-dimensional launch of ``n`` threads."""
    return lambda m: (n + m["BLOCK"] - 1) // m["BLOCK"], lambda m: m["BLOCK"]


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """No search remembered from another test."""
    monkeypatch.setenv("KDSL_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(at.AUTOTUNE, "memory", {})


def test_autotuned_vector_add(fresh):
    configs = [kdsl.Config(BLOCK=b) for b in (64, 128, 256, 512, 1024)]
    tuned = kdsl.autotune(configs=configs, key=["n"], reps=5)(VA.vector_add)
    n = 1 << 22
    x = cp.random.random(n, dtype=cp.float32)
    out = cp.zeros(n, dtype=cp.float32)
    tuned[shape(n)](x, x, out, n)
    assert bool((out == 2 * x).all())
    assert len(tuned.searches) == 1 and "*" in tuned.table()
    again = kdsl.autotune(configs=configs, key=["n"], reps=5)(VA.vector_add)
    assert again.best_config(x, x, out, n) == tuned.best_config(x, x, out, n)


def test_the_in_place_example_gives_the_single_launch_result(fresh):
    tuned = kdsl.autotune(configs=CONFIGS, key=["n"])(scale)
    n = (1 << 20) + 3
    host = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    x = cp.asarray(host)
    tuned[shape(n)](x, n)  # 4 configs x 23 launches searched, then one
    assert "failed" not in tuned.table() and "*" in tuned.table()
    scale.interpret[(n + 255) // 256, 256](host, n)
    assert x.get().tobytes() == host.tobytes()


def test_an_accumulating_kernel_counts_once(fresh):
    configs = [kdsl.Config(BLOCK=b) for b in (64, 256, 1024)]
    tuned = kdsl.autotune(configs=configs, key=["n"])(HISTOGRAM.histogram)
    n = 1 << 18
    x = cp.random.random(n, dtype=cp.float32)
    counts = cp.full(256, 7, dtype=cp.int32)  # BINS = 256
    tuned[shape(n)](x, counts, n, 0.0, 1.0)
    once = cp.full(256, 7, dtype=cp.int32)
    HISTOGRAM.histogram[(n + 255) // 256, 256](x, once, n, 0.0, 1.0)
    assert counts.get().tobytes() == once.get().tobytes()
    assert int(counts.sum()) == 256 * 7 + n


def test_a_strided_view_is_restored_and_its_gaps_kept(fresh):
    tuned = kdsl.autotune(configs=CONFIGS[:3], key=[])(double_columns)
    host = np.arange(8 * 1000, dtype=np.float32).reshape(8, 1000)
    base = cp.asarray(host)
    view = base[::-2, ::3]  # a negative row stride, gaps between the columns
    cols = view.shape[1]
    tuned[shape(cols)](view)
    host[::-2, ::3] += host[::-2, ::3]
    assert base.get().tobytes() == host.tobytes()


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_pytorch_tensors_are_restored(fresh, dtype):
    torch = pytest.importorskip("torch")
    tuned = kdsl.autotune(configs=CONFIGS, key=["n"])(scale)
    n = 100_003
    x0 = torch.randn(n, device="cuda").to(getattr(torch, dtype))
    x = x0.clone()
    tuned[shape(n)](x, n)
    torch.cuda.synchronize()
    assert torch.equal(x, (x0.float() + x0.float()).to(x0.dtype))


def test_a_search_on_a_stream(fresh):
    stream = cp.cuda.Stream(non_blocking=True)
    n = 1 << 20
    tuned = kdsl.autotune(configs=CONFIGS, key=["n"], reps=5)(scale)
    with stream:
        x = cp.arange(n, dtype=cp.float32)
    tuned[shape(n)](x, n, stream=stream)
    stream.synchronize()
    assert bool((x == 2 * cp.arange(n, dtype=cp.float32)).all())


def test_no_memory_for_the_search_is_an_error_and_changes_nothing(fresh):
    pool = cp.get_default_memory_pool()
    n = 1 << 22
    x = cp.ones(n, dtype=cp.float32)
    tuned = kdsl.autotune(configs=CONFIGS, key=["n"])(scale)
    before = pool.get_limit()
    pool.free_all_blocks()
    pool.set_limit(size=pool.total_bytes() + x.nbytes // 2)
    try:
        with pytest.raises(kdsl.DSLError, match="E468"):
            tuned[shape(n)](x, n)
    finally:
        pool.set_limit(size=before)
    assert bool((x == 1).all()) and tuned.searches == {}
