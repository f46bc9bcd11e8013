"""``@kdsl.kernel(block="BLOCK")`` on the GPU (issue 15, item 7): a
grid-only launch runs BLOCK threads a block — the default, a BLOCK given at
the launch, a dispatched instance's — on the fast path too, and a launch
with another block is refused before anything runs.  ``block=256`` gives a
grid-only launch a fixed block."""

import numpy as np
import pytest

import kdsl
from kdsl import Constexpr, Int32, Pointer, block_dim, block_idx, thread_idx

pytestmark = pytest.mark.gpu

cp = pytest.importorskip("cupy")


@kdsl.kernel(block="BLOCK")
def who(out: Pointer[Int32], n: Int32, BLOCK: Constexpr[int] = 256):
    i = block_idx.x * BLOCK + thread_idx.x
    if i < n:
        out[i] = block_dim.x  # the block the launch really used


@kdsl.kernel(block=128)
def fixed(out: Pointer[Int32], n: Int32):
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < n:
        out[i] = block_dim.x


def test_a_grid_only_launch_uses_block_threads():
    n = 1000
    out = cp.zeros(n, dtype=cp.int32)
    for _ in range(3):  # the first launch plans, the others take the fast path
        out[:] = 0
        who[(n + 255) // 256](out, n)
        assert (out == 256).all()
    who[(n + 63) // 64](out, n, BLOCK=64)
    assert (out == 64).all()
    who.dispatch(BLOCK=512)[(n + 511) // 512](out, n)
    assert (out == 512).all()
    who[(n + 255) // 256, 256](out, n)  # the same block, spelt out
    assert (out == 256).all()


def test_another_block_is_refused_and_nothing_runs():
    n = 1000
    out = cp.zeros(n, dtype=cp.int32)
    with pytest.raises(kdsl.LaunchError, match="BLOCK = 256 threads"):
        who[(n + 127) // 128, 128](out, n)
    with pytest.raises(kdsl.LaunchError, match="BLOCK = 64 threads"):
        who[(n + 255) // 256, 256](out, n, BLOCK=64)
    cp.cuda.Device().synchronize()
    assert (out == 0).all()


def test_a_fixed_block_for_grid_only_launches():
    n = 1000
    out = cp.zeros(n, dtype=cp.int32)
    fixed[(n + 127) // 128](out, n)
    assert (out == 128).all()
    fixed[(n + 31) // 32, 32](out, n)  # an explicit block is still accepted
    assert (out == 32).all()
    np.testing.assert_array_equal(cp.asnumpy(out), np.full(n, 32, np.int32))


def test_an_autotuned_grid_only_launch_runs_each_configs_block(tmp_path, monkeypatch):
    monkeypatch.setenv("KDSL_CACHE_DIR", str(tmp_path))
    configs = [kdsl.Config(BLOCK=b) for b in (64, 128, 512)]
    tuned = kdsl.autotune(configs=configs, key=["n"], warmup=1, reps=2)(who)
    n = 5000
    out = cp.zeros(n, np.int32)
    tuned[lambda m: (n + m["BLOCK"] - 1) // m["BLOCK"]](out, n)
    best = tuned.best_config(out, n).constexprs["BLOCK"]
    assert (cp.asnumpy(out) == best).all()
    for config in configs:  # each config, pinned, with its own block
        tuned.pin(config)
        tuned[lambda m: (n + m["BLOCK"] - 1) // m["BLOCK"]](out, n)
        assert (cp.asnumpy(out) == config.constexprs["BLOCK"]).all()
