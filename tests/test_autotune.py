"""The autotuner's choices, caching and failure handling (timing faked: no GPU)."""

import pytest

import kdsl
from kdsl import Constexpr, Int32, Pointer
from kdsl.runtime import autotune as at

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel
def scale(
    x: Pointer[D], n: Int32, BLOCK: Constexpr[int] = 128, UNROLL: Constexpr[int] = 1
):
    i = kdsl.block_idx.x * BLOCK + kdsl.thread_idx.x
    if i < n:
        x[i] = x[i] + x[i]


class FakeArray:
    dtype = "float32"

    def __init__(self):
        self.restored = 0

    def copy(self):
        return "snapshot"

    def __setitem__(self, key, value):
        assert value == "snapshot"
        self.restored += 1


@pytest.fixture
def tuned(tmp_path, monkeypatch):
    monkeypatch.setenv("KDSL_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(at.AUTOTUNE, "memory", {})
    monkeypatch.setattr(
        at.Autotuned, "_key", lambda self, args: ((args[1],), ("f32",), 0)
    )
    monkeypatch.setattr(at, "_device_name", lambda device: "fake:90")
    launches = []
    monkeypatch.setattr(
        at.Autotuned,
        "_launch_config",
        lambda self, config, grid, block, args, stream, shm: launches.append(
            (config, grid(dict(BLOCK=128, UNROLL=1) | config.constexprs), block)
        ),
    )

    def make(times, **kwargs):
        configs = [kdsl.Config(BLOCK=b) for b in (64, 128, 256, 512)][: len(times)]

        def fake_time(self, config, *rest):
            value = times[self.configs.index(config)]
            if isinstance(value, Exception):
                raise value
            return value

        monkeypatch.setattr(at.Autotuned, "_time_config", fake_time)
        return kdsl.autotune(configs=configs, key=["n"], **kwargs)(scale), launches

    return make


def grid(meta):
    return 1000 // meta["BLOCK"]


def test_the_fastest_config_is_used_and_the_search_runs_once(tuned):
    t, launches = tuned([0.30, 0.10, 0.20])
    x = FakeArray()
    t[grid, 128](x, 1000)
    t[grid, 128](x, 1000)
    assert [c for c, _, _ in launches] == [kdsl.Config(BLOCK=128)] * 2
    assert launches[0][1] == 1000 // 128
    assert "*" in t.table().splitlines()[2]  # the second config is marked


def test_a_tie_goes_to_the_earlier_config(tuned):
    t, launches = tuned([0.2, 0.1, 0.1])
    t[grid, 128](FakeArray(), 1000)
    assert launches[-1][0] == kdsl.Config(BLOCK=128)


def test_failing_configs_are_skipped_and_reported(tuned):
    t, launches = tuned([kdsl.DSLError("no good"), 0.5, 0.4])
    with pytest.warns(kdsl.AutotuneWarning, match="no good"):
        t[grid, 128](FakeArray(), 1000)
    assert launches[-1][0] == kdsl.Config(BLOCK=256)
    assert "failed: no good" in t.table()


def test_every_config_failing_is_an_error(tuned):
    t, _ = tuned([kdsl.DSLError("a"), kdsl.DSLError("b")])
    with (
        pytest.warns(kdsl.AutotuneWarning),
        pytest.raises(kdsl.DSLError, match="every"),
    ):
        t[grid, 128](FakeArray(), 1000)


def test_a_new_process_reads_the_choice_from_disk(tuned, monkeypatch):
    t, _ = tuned([0.3, 0.1])
    t[grid, 128](FakeArray(), 1000)
    at.AUTOTUNE.memory.clear()
    again, launches = tuned([AssertionError("must not time"), AssertionError("again")])
    again[grid, 128](FakeArray(), 1000)
    assert launches[-1][0] == kdsl.Config(BLOCK=128)


def test_a_new_key_searches_again(tuned):
    t, _ = tuned([0.1, 0.3])
    t[grid, 128](FakeArray(), 1000)
    t[grid, 128](FakeArray(), 1000)
    assert len(t.searches) == 1
    t[grid, 128](FakeArray(), 4096)
    assert len(t.searches) == 2


def test_restore_puts_outputs_back_after_the_search(tuned):
    t, _ = tuned([0.2, 0.1], restore=["x"])
    x = FakeArray()
    t[grid, 128](x, 1000)
    assert x.restored == 1


def test_pinning_bypasses_the_search(tuned):
    t, launches = tuned([AssertionError("no search"), AssertionError("no search")])
    t.pin(kdsl.Config(BLOCK=512))
    t[grid, 128](FakeArray(), 1000)
    assert launches[-1][0] == kdsl.Config(BLOCK=512)


def test_configs_are_checked_against_the_kernel():
    with pytest.raises(kdsl.DSLError, match="names no constexpr"):
        kdsl.autotune(configs=[kdsl.Config(WIDTH=4)], key=["n"])(scale)
    with pytest.raises(kdsl.DSLError, match="no argument 'm'"):
        kdsl.autotune(configs=[kdsl.Config(BLOCK=4)], key=["m"])(scale)


def test_without_a_gpu_an_autotuned_kernel_runs_interpreted(monkeypatch):
    import numpy as np

    monkeypatch.setenv("KDSL_INTERPRET", "1")
    configs = [kdsl.Config(BLOCK=64), kdsl.Config(BLOCK=256)]
    tuned = kdsl.autotune(configs=configs, key=["n"])(scale)
    x = np.arange(300, dtype=np.float32)
    # the first config (nothing to time on a CPU), its grid computed from it
    tuned[lambda meta: (300 + meta["BLOCK"] - 1) // meta["BLOCK"], 64](x, 300)
    np.testing.assert_array_equal(x, 2 * np.arange(300, dtype=np.float32))
    tuned.pin(configs[1])
    tuned.interpret[2, 256](x, 300)  # also directly, without the variable
    np.testing.assert_array_equal(x, 4 * np.arange(300, dtype=np.float32))
    assert tuned.searches == {}
