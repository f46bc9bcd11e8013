"""The autotuner's choices, caching, pruning, compiling and what it leaves in
the arrays (no GPU: timing is faked, or the launches run in the interpreter,
and the device copies of ``runtime.benchmark.Bench`` are numpy copies)."""

import threading

import numpy as np
import pytest

import kdsl
from kdsl import Constexpr, Int32, Pointer
from kdsl.runtime import autotune as at, cache

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel
def scale(
    x: Pointer[D], n: Int32, BLOCK: Constexpr[int] = 128, UNROLL: Constexpr[int] = 1
):
    i = kdsl.block_idx.x * BLOCK + kdsl.thread_idx.x
    if i < n:
        x[i] = x[i] + x[i]


@kdsl.kernel
def add_into(x: Pointer[D], out: Pointer[D], n: Int32, BLOCK: Constexpr[int] = 128):
    i = kdsl.block_idx.x * BLOCK + kdsl.thread_idx.x
    if i < n:
        out[i] = out[i] + x[i]


class FakeArray:
    dtype = "float32"

    def __init__(self):
        self.restored = 0

    def copy(self):
        return "snapshot"

    def __setitem__(self, key, value):
        assert value == "snapshot"
        self.restored += 1


class HostBench:
    """``Bench`` on the CPU: saves with ``.copy()``, restores with
    ``[...] =``, runs every launch it is asked to time, and calls each 1 ms."""

    made: list = []

    def __init__(self, kernel, written, stream):
        self.written = written
        self.saved = {name: a.copy() for name, a in written.items()}
        self.closed = False
        HostBench.made.append(self)

    def restore(self):
        for name, array in self.written.items():
            array[...] = self.saved[name]

    def time(self, run, warmup, reps):
        for _ in range(warmup):
            run()
        for _ in range(reps):
            self.restore()
            run()
        return 1.0

    def close(self):
        self.restore()
        self.closed = True


@pytest.fixture
def on_cpu(tmp_path, monkeypatch):
    """The autotuner's device queries answered on the CPU (the configs still
    compile with NVRTC, for sm_90)."""
    monkeypatch.setenv("KDSL_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(at.AUTOTUNE, "memory", {})
    monkeypatch.setattr(
        at.Autotuned, "_key", lambda self, args: ((args[-1],), ("f32",), 0)
    )
    monkeypatch.setattr(at, "_device_name", lambda device: "fake:90")
    monkeypatch.setattr(at, "_device_arch", lambda: "sm_90")
    monkeypatch.setattr(at, "Bench", HostBench)
    HostBench.made = []


@pytest.fixture
def tuned(on_cpu, monkeypatch):
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
            launches.append(("timed", config))
            value = times[self.configs.index(config)]
            if isinstance(value, Exception):
                raise value
            return value

        monkeypatch.setattr(at.Autotuned, "_time_config", fake_time)
        return kdsl.autotune(configs=configs, key=["n"], **kwargs)(scale), launches

    return make


def grid(meta):
    return 1000 // meta["BLOCK"]


def launched(launches):
    return [entry for entry in launches if entry[0] != "timed"]


def test_the_fastest_config_is_used_and_the_search_runs_once(tuned):
    t, launches = tuned([0.30, 0.10, 0.20])
    x = FakeArray()
    t[grid, 128](x, 1000)
    t[grid, 128](x, 1000)
    assert [c for c, _, _ in launched(launches)] == [kdsl.Config(BLOCK=128)] * 2
    assert launched(launches)[0][1] == 1000 // 128
    assert "*" in t.table().splitlines()[2]  # the second config is marked


def test_a_tie_goes_to_the_earlier_config(tuned):
    t, launches = tuned([0.2, 0.1, 0.1])
    t[grid, 128](FakeArray(), 1000)
    assert launches[-1][0] == kdsl.Config(BLOCK=128)


def test_failing_configs_are_skipped_and_reported(tuned):
    t, launches = tuned([kdsl.DSLError("no good"), 0.5, 0.4])
    with pytest.warns(kdsl.AutotuneWarning, match="no good") as record:
        t[grid, 128](FakeArray(), 1000)
    assert launches[-1][0] == kdsl.Config(BLOCK=256)
    assert "failed: no good" in t.table()
    assert record[0].filename == __file__  # reported at the launch


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


@pytest.mark.parametrize(
    "payload", [b"{}", b'{"best": 7, "times": []}', b'{"best": 0, "times": 3}']
)
def test_a_malformed_disk_entry_is_measured_again(tuned, on_cpu, tmp_path, payload):
    t, _ = tuned([0.3, 0.1])
    t[grid, 128](FakeArray(), 1000)
    (entry,) = tmp_path.glob("autotune/*.json")
    entry.write_bytes(cache._wrap(payload))  # intact checksum, wrong content
    at.AUTOTUNE.memory.clear()
    again, launches = tuned([0.1, 0.3])
    again[grid, 128](FakeArray(), 1000)
    assert launches[-1][0] == kdsl.Config(BLOCK=64)  # measured: not read from disk
    assert b'"best": 0' in cache._unwrap(entry.read_bytes())  # rewritten


def test_a_new_key_searches_again(tuned):
    t, _ = tuned([0.1, 0.3])
    t[grid, 128](FakeArray(), 1000)
    t[grid, 128](FakeArray(), 1000)
    assert len(t.searches) == 1
    t[grid, 128](FakeArray(), 4096)
    assert len(t.searches) == 2


def test_the_arrays_the_kernel_writes_are_saved_and_put_back(tuned):
    t, _ = tuned([0.2, 0.1])
    x = FakeArray()
    t[grid, 128](x, 1000)
    (bench,) = HostBench.made
    assert bench.written == {"x": x} and bench.closed
    assert x.restored == 1


def test_restore_names_the_arrays_instead(tuned):
    t, _ = tuned([0.2, 0.1], restore=[])
    t[grid, 128](FakeArray(), 1000)
    assert HostBench.made[-1].written == {}


def test_pinning_bypasses_the_search(tuned):
    t, launches = tuned([AssertionError("no search"), AssertionError("no search")])
    t.pin(kdsl.Config(BLOCK=512))
    t[grid, 128](FakeArray(), 1000)
    assert launches[-1][0] == kdsl.Config(BLOCK=512)
    assert HostBench.made == []


def test_every_config_is_compiled_in_the_pool_before_anything_is_timed(
    tuned, monkeypatch
):
    t, launches = tuned([0.3, 0.2, 0.1])
    compile_one = at.kcompile.cubin_for

    def logged(inst, arch):
        launches.append(("compiled", inst.name, threading.current_thread().name))
        return compile_one(inst, arch)

    monkeypatch.setattr(at.kcompile, "cubin_for", logged)
    t[grid, 128](FakeArray(), 1000)
    kinds = [entry[0] for entry in launches]
    assert kinds == ["compiled"] * 3 + ["timed"] * 3 + [kdsl.Config(BLOCK=256)]
    assert {entry[1] for entry in launches[:3]} == {
        f"scale__f32__{b}__1" for b in (64, 128, 256)
    }
    assert all(entry[2].startswith("kdsl-nvrtc") for entry in launches[:3])


def test_a_config_that_cannot_be_instantiated_is_skipped_untimed(on_cpu, monkeypatch):
    timed = []
    monkeypatch.setattr(
        at.Autotuned,
        "_time_config",
        lambda self, config, *rest: timed.append(config) or 0.1,
    )
    monkeypatch.setattr(at.Autotuned, "_launch_config", lambda self, *rest: None)
    configs = [kdsl.Config(UNROLL=True), kdsl.Config(UNROLL=2)]
    t = kdsl.autotune(configs=configs, key=["n"])(scale)
    with pytest.warns(kdsl.AutotuneWarning, match="constexpr 'UNROLL'"):
        t[grid, 128](FakeArray(), 1000)
    assert timed == [configs[1]]


def test_when_no_config_compiles_nothing_is_saved(on_cpu):
    configs = [kdsl.Config(UNROLL=True), kdsl.Config(BLOCK=2.5)]
    t = kdsl.autotune(configs=configs, key=["n"])(scale)
    with (
        pytest.warns(kdsl.AutotuneWarning),
        pytest.raises(kdsl.DSLError, match="every configuration failed"),
    ):
        t[grid, 128](FakeArray(), 1000)
    assert HostBench.made == []


def test_a_launch_with_the_wrong_arguments_fails_before_the_search(tuned):
    t, launches = tuned([0.1, 0.2])
    with pytest.raises(kdsl.DSLError, match="takes 2 arguments"):
        t[grid, 128](FakeArray())
    assert launches == [] and HostBench.made == []


def fits(configs, args):
    return [c for c in configs if c.constexprs["BLOCK"] <= args["n"]]


def test_prune_drops_configs_before_they_are_compiled_or_timed(tuned, monkeypatch):
    t, launches = tuned([0.1, 0.2, 0.3, 0.4], prune=fits)
    compiled = []
    compile_one = at.kcompile.cubin_for
    monkeypatch.setattr(
        at.kcompile,
        "cubin_for",
        lambda inst, arch: compiled.append(inst.name) or compile_one(inst, arch),
    )
    t[grid, 128](FakeArray(), 200)
    assert sorted(compiled) == ["scale__f32__128__1", "scale__f32__64__1"]
    assert [e[1] for e in launches if e[0] == "timed"] == [
        kdsl.Config(BLOCK=64),
        kdsl.Config(BLOCK=128),
    ]
    table = t.table().splitlines()
    assert table[3].endswith("pruned") and table[4].endswith("pruned")


def test_timings_gives_each_configs_time_and_none_where_pruned_or_failed(tuned):
    t, _ = tuned([0.3, kdsl.DSLError("no"), 0.2, 0.4], prune=lambda c, a: c[:3])
    x = FakeArray()
    with pytest.raises(kdsl.DSLError, match="not been tuned"):
        t.timings(x, 1000)  # nothing searched yet: E446, as best_config
    with pytest.warns(kdsl.AutotuneWarning):
        t[grid, 128](x, 1000)
    assert t.timings(x, 1000) == [
        (kdsl.Config(BLOCK=64), 0.3),
        (kdsl.Config(BLOCK=128), None),  # failed
        (kdsl.Config(BLOCK=256), 0.2),
        (kdsl.Config(BLOCK=512), None),  # pruned
    ]


def test_prune_must_return_some_of_the_configs(tuned):
    t, _ = tuned([0.1, 0.2], prune=lambda configs, args: [kdsl.Config(BLOCK=7)])
    with pytest.raises(kdsl.DSLError, match=r"E466.*Config\(BLOCK=7\)"):
        t[grid, 128](FakeArray(), 1000)
    t, _ = tuned([0.1, 0.2], prune=lambda configs, args: [])
    with pytest.raises(kdsl.DSLError, match="E467"):
        t[grid, 128](FakeArray(), 1000)
    with pytest.raises(kdsl.DSLError, match="E465.*got a list"):
        tuned([0.1], prune=[kdsl.Config(BLOCK=64)])


def test_configs_are_checked_against_the_kernel():
    with pytest.raises(kdsl.DSLError, match="names no constexpr"):
        kdsl.autotune(configs=[kdsl.Config(WIDTH=4)], key=["n"])(scale)
    with pytest.raises(kdsl.DSLError, match="no argument 'm'"):
        kdsl.autotune(configs=[kdsl.Config(BLOCK=4)], key=["m"])(scale)
    with pytest.raises(kdsl.DSLError, match="no argument 'y'"):
        kdsl.autotune(configs=[kdsl.Config(BLOCK=4)], restore=["y"])(scale)
    for counts in (dict(reps=0), dict(warmup=-1), dict(reps=2.5)):
        with pytest.raises(kdsl.DSLError, match="E469"):
            kdsl.autotune(configs=[kdsl.Config(BLOCK=4)], **counts)(scale)


# -- what a search leaves in the arrays: every launch really runs (interpreted)
CONFIGS = [kdsl.Config(BLOCK=b) for b in (32, 64, 128, 256)]


def size(n):
    return lambda meta: (n + meta["BLOCK"] - 1) // meta["BLOCK"]


@pytest.fixture
def interpreted_launches(on_cpu, monkeypatch):
    """Each launch of the search, and the one after it, runs in the interpreter."""

    launched = []

    def launch(self, config, grid, block, args, stream, shared_mem):
        g, b, smem = self._shape(config, grid, block, shared_mem)
        launched.append((config.constexprs, smem))
        launch = self.kernel.interpret[g] if b is None else self.kernel.interpret[g, b]
        launch(*args, shared_mem=smem, **config.constexprs)

    monkeypatch.setattr(at.Autotuned, "_launch_config", launch)
    return launched


@kdsl.kernel
def stage_through_shared(x: Pointer[D], n: Int32, BLOCK: Constexpr[int] = 128):
    """Each block copies its BLOCK elements through a dynamic shared view of
    exactly BLOCK elements: a launch with less shared memory is an error."""
    tile = kdsl.dynamic_shared_array(D, BLOCK)
    t = kdsl.thread_idx.x
    i = kdsl.block_idx.x * BLOCK + t
    tile[t] = x[i] if i < n else D(0)
    kdsl.syncthreads()
    if i < n:
        x[i] = tile[BLOCK - 1 - t] + tile[BLOCK - 1 - t]


def test_each_config_gets_its_own_shared_mem(interpreted_launches):
    """shared_mem= may be a function of the config, like grid and block:
    each configuration launches with its own dynamic shared memory."""
    tuned = kdsl.autotune(configs=CONFIGS[:3], key=["n"], warmup=0, reps=1)(
        stage_through_shared
    )
    x0 = np.arange(128, dtype=np.float32)
    x = x0.copy()
    tuned[size(128), lambda m: m["BLOCK"]](x, 128, shared_mem=lambda m: 4 * m["BLOCK"])
    assert sorted(set((c["BLOCK"], s) for c, s in interpreted_launches)) == [
        (32, 128),
        (64, 256),
        (128, 512),
    ]
    best = tuned.best_config(x, 128).constexprs["BLOCK"]
    want = 2 * x0.reshape(-1, best)[:, ::-1].reshape(-1)
    assert x.tobytes() == want.tobytes()


def test_a_fixed_shared_mem_still_serves_every_config(interpreted_launches):
    tuned = kdsl.autotune(configs=CONFIGS[:2], key=["n"], warmup=0, reps=1)(
        stage_through_shared
    )
    x = np.ones(64, dtype=np.float32)
    tuned[size(64), lambda m: m["BLOCK"]](x, 64, shared_mem=256)
    assert {s for _, s in interpreted_launches} == {256}


def test_an_in_place_kernel_leaves_what_one_launch_would(interpreted_launches):
    tuned = kdsl.autotune(configs=CONFIGS, key=["n"], warmup=1, reps=2)(scale)
    x0 = np.linspace(-3, 3, 300, dtype=np.float32)
    x = x0.copy()
    tuned[size(300), lambda meta: meta["BLOCK"]](x, 300)
    assert x.tobytes() == (x0 + x0).tobytes()  # 12 launches timed, one counted
    assert "pruned" not in tuned.table() and "failed" not in tuned.table()


def test_only_the_written_arrays_are_saved(interpreted_launches):
    tuned = kdsl.autotune(configs=CONFIGS, key=["n"], warmup=1, reps=2)(add_into)
    x = np.arange(100, dtype=np.float32)
    out = np.ones(100, dtype=np.float32)
    tuned[size(100), lambda meta: meta["BLOCK"]](x, out, 100)
    assert list(HostBench.made[-1].written) == ["out"]
    assert out.tobytes() == (1 + np.arange(100, dtype=np.float32)).tobytes()


def test_restore_nothing_leaves_every_timed_launch_in_the_result(
    interpreted_launches,
):
    tuned = kdsl.autotune(configs=CONFIGS[:2], key=["n"], warmup=1, reps=2, restore=[])(
        scale
    )
    x = np.ones(64, dtype=np.float32)
    tuned[size(64), lambda meta: meta["BLOCK"]](x, 64)
    assert (x == 2.0 ** (2 * 3 + 1)).all()  # 2 configs x 3 launches, then one


def test_without_a_gpu_an_autotuned_kernel_runs_interpreted(monkeypatch):
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


def test_interpreted_runs_the_first_config_prune_keeps():
    def big_only(configs, args):
        return [c for c in configs if c.constexprs["BLOCK"] >= 128]

    tuned = kdsl.autotune(configs=CONFIGS, key=["n"], prune=big_only)(scale)
    x = np.ones(300, dtype=np.float32)
    ran = []
    tuned.interpret[size(300), lambda meta: ran.append(meta["BLOCK"]) or 128](x, 300)
    assert ran == [128] and (x == 2).all()


# -- the bytes a Bench saves: what an array argument spans ------------------------
@pytest.fixture
def as_if_on_device(monkeypatch):
    """numpy arrays described as device arrays (``Bench`` saves device memory)."""
    from dataclasses import replace

    from kdsl.runtime import arrays, benchmark

    real = arrays.describe

    def describe(array):
        info = real(array)
        return None if info is None else replace(info, device=0)

    monkeypatch.setattr(benchmark.arrays, "describe", describe)
    return benchmark._span


def test_a_contiguous_array_spans_its_bytes(as_if_on_device):
    a = np.zeros((3, 5), dtype=np.float64)
    assert as_if_on_device(a) == (a.ctypes.data, 3 * 5 * 8)
    assert as_if_on_device(a[:0]) == (a.ctypes.data, 0)


def test_a_strided_view_spans_from_its_lowest_to_its_highest_element(
    as_if_on_device,
):
    base = np.zeros((8, 1000), dtype=np.float32)
    view = base[::-2, ::3]  # rows 7, 5, 3, 1; every third column
    start, size = as_if_on_device(view)
    assert start == base[1:].ctypes.data  # row 1, column 0
    assert size == (6 * 1000 + 999 + 1) * 4  # to row 7, column 999


def test_what_is_not_a_device_array_is_not_saved(monkeypatch):
    from kdsl.runtime import benchmark

    assert benchmark._span(np.zeros(4, dtype=np.float32)) is None  # host memory
    assert benchmark._span(object()) is None
    assert benchmark._span(np.zeros(4, dtype=np.complex64)) is None  # no kdsl dtype


# -- Bench itself, on host memory: CuPy's calls done by numpy and memmove -----
class FakeEvent:
    log: list = []

    def record(self, stream):
        FakeEvent.log.append("event")

    def synchronize(self):
        pass


class FakeHold:
    """CuPy's RawKernel for Bench's hold kernel: logs the nanoseconds it is
    launched with and the stream it goes to."""

    def __init__(self, source, name):
        assert "%globaltimer" in source and name == "kdsl_bench_hold"

    def __call__(self, grid, block, args):
        assert grid == (1,) and block == (1,)
        FakeEvent.log.append(("hold", int(args[0]), FakeStream.current))


class FakeStream:
    """A stream that knows when it is CuPy's current one (``with stream:``)."""

    current = None

    def __init__(self):
        self.ptr = 0

    def synchronize(self):
        pass

    def __enter__(self):
        FakeStream.current = self
        return self

    def __exit__(self, *exc):
        FakeStream.current = None


@pytest.fixture
def host_cupy(as_if_on_device, monkeypatch):
    """What Bench calls of CuPy, on host memory; logs the flushes and events."""
    import ctypes
    import sys
    from types import SimpleNamespace

    class OutOfMemoryError(Exception):
        pass

    class ndarray:
        """No argument here is a CuPy array."""

    def empty(size, dtype):
        if size > 1 << 20:
            raise OutOfMemoryError
        array = np.zeros(size, dtype=dtype)

        def memset(value, n, stream):
            FakeEvent.log.append(("flush", n))

        array_data = SimpleNamespace(ptr=array.ctypes.data, memset_async=memset)
        return SimpleNamespace(data=array_data, nbytes=size, keep=array)

    runtime = SimpleNamespace(
        memcpyDeviceToDevice=3,
        memcpyAsync=lambda dst, src, size, kind, stream: ctypes.memmove(dst, src, size),
        cudaDevAttrL2CacheSize=89,
        deviceGetAttribute=lambda attribute, device: 4096,
        getDevice=lambda: 0,
    )
    stream = FakeStream()
    cuda = SimpleNamespace(
        runtime=runtime,
        memory=SimpleNamespace(OutOfMemoryError=OutOfMemoryError),
        Event=FakeEvent,
        get_current_stream=lambda: stream,
        get_elapsed_time=lambda start, stop: 0.5,
    )
    fake = SimpleNamespace(
        cuda=cuda, empty=empty, uint8=np.uint8, ndarray=ndarray, RawKernel=FakeHold
    )
    # NVRTC's library and headers are found through CuPy the first time:
    # a search compiles, so that first time must not meet the fake (the
    # test that searches failed whenever it was its worker's first compile)
    from kdsl.runtime import nvrtc

    nvrtc.nvrtc_version(), nvrtc.include_options()
    monkeypatch.setitem(sys.modules, "cupy", fake)
    FakeEvent.log = []
    from kdsl.runtime import benchmark

    return benchmark.Bench


def test_bench_restores_before_each_timed_launch_and_at_the_end(host_cupy):
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    original = base.copy()
    view = base[::-2, 1::2]  # a strided view: only its elements change
    bench = host_cupy("k", {"a": view, "b": view}, None)  # the same memory once
    assert len(bench.saved) == 1

    def run():
        FakeEvent.log.append(view.sum())
        view[...] = view * 3

    assert bench.time(run, 1, 2) == 0.5
    # each timed run starts from the original data, after an L2 flush (2 x L2)
    # and a hold of the stream (below)
    first_sum = original[::-2, 1::2].sum()
    log = [
        e if type(e) is not tuple or e[0] != "hold" else "hold" for e in FakeEvent.log
    ]
    timed = [("flush", 8192), "hold", "event", first_sum, "event"]
    assert log == [first_sum] + timed * 2
    assert not np.array_equal(base, original)
    bench.close()
    assert base.tobytes() == original.tobytes()


def test_the_stream_is_held_while_the_host_queues_a_timed_launch(
    host_cupy, monkeypatch
):
    # Events time the stream, not the kernel: a launch whose host side takes
    # longer than the GPU's queued work (the flush) leaves the GPU idle after
    # the start event, and that idle time was counted (the autotuner timed
    # 20 us GEMMs at 66-127 us on the H200).  Before each start event a
    # one-thread kernel spins on the GPU's clock for twice the longest host
    # time of a launch seen (20 us more; 200 us before any was seen, at most
    # 2 ms), on the launches' stream.
    from kdsl.runtime import benchmark

    clock = iter([0.0, 30e-6, 1.0, 1.0 + 50e-6, 2.0, 2.0 + 10e-6])
    monkeypatch.setattr(benchmark.time, "perf_counter", lambda: next(clock))
    bench = host_cupy("k", {}, None)
    bench.time(lambda: None, 1, 2)
    holds = [e for e in FakeEvent.log if type(e) is tuple and e[0] == "hold"]
    assert [ns for _, ns, _ in holds] == [80_000, 120_000]
    assert all(s is bench.stream for _, _, s in holds)
    # no warmup: the first hold is the default
    FakeEvent.log = []
    clock = iter([0.0, 5e-3, 1.0, 1.0])
    bench.time(lambda: None, 0, 2)
    holds = [e[1] for e in FakeEvent.log if type(e) is tuple and e[0] == "hold"]
    assert holds == [200_000, 2_000_000]  # the second capped


def test_no_memory_for_the_copies_is_an_error(host_cupy):
    big = np.zeros(1 << 19, dtype=np.float32)  # 2 MiB: over the fake's 1 MiB
    with pytest.raises(kdsl.DSLError, match=r"E468.*\(big\)"):
        host_cupy("k", {"big": big}, None)


def test_a_search_through_bench_leaves_one_launch_in_the_array(
    host_cupy, interpreted_launches, monkeypatch
):
    monkeypatch.setattr(at, "Bench", host_cupy)
    tuned = kdsl.autotune(configs=CONFIGS, key=["n"], warmup=1, reps=2)(scale)
    x0 = np.linspace(-1, 1, 100, dtype=np.float32)
    x = x0.copy()
    tuned[size(100), lambda meta: meta["BLOCK"]](x, 100)
    assert x.tobytes() == (x0 + x0).tobytes()
    assert FakeEvent.log.count("event") == 2 * 2 * len(CONFIGS)


@kdsl.kernel
def shift_into(
    x: Pointer[D],
    bias: Pointer[D] | None,
    out: Pointer[D],
    n: Int32,
    BLOCK: Constexpr[int] = 128,
):
    i = kdsl.block_idx.x * BLOCK + kdsl.thread_idx.x
    if i < n:
        v = x[i]
        if bias is not None:
            v = v + bias[i]
        out[i] = v


def test_a_none_optional_pointer_compiles_and_saves_its_own_instance(
    on_cpu, monkeypatch
):
    # the search compiles the instances the launch runs (`__nobias` when bias
    # is None), and the arrays to save are those that instance writes
    compiled, written = [], []
    compile_one = at.kcompile.cubin_for

    def logged(inst, arch):
        compiled.append(inst.name)
        return compile_one(inst, arch)

    monkeypatch.setattr(at.kcompile, "cubin_for", logged)
    monkeypatch.setattr(at.Autotuned, "_time_config", lambda self, config, *rest: 0.1)
    monkeypatch.setattr(at.Autotuned, "_launch_config", lambda self, *rest: None)
    real = at.Autotuned._written

    def spy(self, instances, args):
        chosen = real(self, instances, args)
        written.append(sorted(chosen))
        return chosen

    monkeypatch.setattr(at.Autotuned, "_written", spy)
    configs = [kdsl.Config(BLOCK=b) for b in (64, 128)]
    t = kdsl.autotune(configs=configs, key=["n"])(shift_into)
    t[grid, 128](FakeArray(), None, FakeArray(), 1000)
    assert sorted(compiled) == [f"shift_into__f32__{b}__nobias" for b in (128, 64)]
    assert written == [["out"]]


# -- grid-only launches and calls ---------------------------------------------------
@kdsl.kernel(block="BLOCK")
def block_widths(out: Pointer[Int32], n: Int32, BLOCK: Constexpr[int] = 128):
    i = kdsl.block_idx.x * BLOCK + kdsl.thread_idx.x
    if i < n:
        out[i] = kdsl.block_dim.x


def test_a_grid_only_launch_takes_each_configs_block(interpreted_launches):
    tuned = kdsl.autotune(configs=CONFIGS, key=["n"], warmup=1, reps=1)(block_widths)
    out = np.zeros(300, np.int32)
    tuned[size(300)](out, 300)  # searched: every config ran with its own block
    assert out[0] in [c.constexprs["BLOCK"] for c in CONFIGS] and (out == out[0]).all()
    tuned.pin(kdsl.Config(BLOCK=64))
    tuned[size(300)](out, 300)
    assert (out == 64).all()
    tuned.interpret[(size(300),)](out, 300)  # a 1-tuple: the grid alone
    assert (out == 64).all()


def test_a_grid_only_launch_runs_interpreted_without_a_gpu(monkeypatch):
    monkeypatch.setenv("KDSL_INTERPRET", "1")
    configs = [kdsl.Config(BLOCK=32), kdsl.Config(BLOCK=256)]
    tuned = kdsl.autotune(configs=configs, key=["n"])(block_widths)
    out = np.zeros(100, np.int32)
    tuned[lambda m: (100 + m["BLOCK"] - 1) // m["BLOCK"]](out, 100)
    assert (out == 32).all()  # the first config, its block its BLOCK


def test_a_grid_only_launch_needs_a_declared_block():
    tuned = kdsl.autotune(configs=CONFIGS, key=["n"])(scale)
    with pytest.raises(kdsl.DSLError, match=r"E507.*kernel 'scale' declares no"):
        tuned[4]
    with pytest.raises(kdsl.DSLError, match=r"E507"):
        tuned.interpret[4]


def test_calling_a_tuned_kernel_says_how_to_launch_it():
    tuned = kdsl.autotune(configs=CONFIGS, key=["n"])(scale)
    with pytest.raises(kdsl.DSLError, match=r"E721.*autotuned kernel 'scale' is "):
        tuned(np.zeros(4, np.float32), 4)
    with pytest.raises(kdsl.DSLError, match=r"E721.*scale\.interpret\[grid, block\]"):
        tuned.interpret(np.zeros(4, np.float32), 4)
    tied = kdsl.autotune(configs=CONFIGS, key=["n"])(block_widths)
    with pytest.raises(kdsl.DSLError, match=r"block_widths\[grid\]\(\.\.\.\)"):
        tied(np.zeros(4, np.int32), 4)
