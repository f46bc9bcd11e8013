"""The autotuner on the GPU: real timing, a correct result, a cached choice."""

import pytest

import kdsl

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")

from examples_index import example_modules  # noqa: E402

VA = example_modules()["vector_add"]


def test_autotuned_vector_add(tmp_path, monkeypatch):
    monkeypatch.setenv("KDSL_CACHE_DIR", str(tmp_path))
    configs = [kdsl.Config(BLOCK=b) for b in (64, 128, 256, 512, 1024)]
    tuned = kdsl.autotune(configs=configs, key=["n"], reps=5)(VA.vector_add)
    n = 1 << 22
    x = cp.random.random(n, dtype=cp.float32)
    out = cp.zeros(n, dtype=cp.float32)
    tuned[lambda m: (n + m["BLOCK"] - 1) // m["BLOCK"], lambda m: m["BLOCK"]](
        x, x, out, n
    )
    assert bool((out == 2 * x).all())
    assert len(tuned.searches) == 1 and "*" in tuned.table()
    again = kdsl.autotune(configs=configs, key=["n"], reps=5)(VA.vector_add)
    assert again.best_config(x, x, out, n) == tuned.best_config(x, x, out, n)
