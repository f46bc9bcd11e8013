"""The autotuned launch's fast path (runtime/autotune.py, ``_TunedLaunch``):
a key launched before goes straight to the kernel's generated packer, with
the grid and block of the configuration chosen for it.  No GPU: the device
is stubbed (device -1, so PyTorch CPU tensors pass the packer's device
check) and the loaded function records its calls."""

import numpy as np
import pytest

import kdsl
from kdsl import Constexpr, Int32, Pointer
from kdsl.runtime import autotune as at
from kdsl.runtime import compile as kcompile
from kdsl.runtime import kernel as kmod
from kdsl.runtime import launch as lmod
from kdsl.runtime.autotune import Search

torch = pytest.importorskip("torch")

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel
def twice(
    x: Pointer[D],
    y: Pointer[D],
    n: Int32,
    BLOCK: Constexpr[int] = 128,
    UNROLL: Constexpr[int] = 1,
):
    i = kdsl.block_idx.x * BLOCK + kdsl.thread_idx.x
    if i < n:
        y[i] = x[i] + x[i]


@kdsl.kernel(block="BLOCK")
def twice_tied(x: Pointer[D], y: Pointer[D], n: Int32, BLOCK: Constexpr[int] = 128):
    i = kdsl.block_idx.x * BLOCK + kdsl.thread_idx.x
    if i < n:
        y[i] = x[i] + x[i]


class Recorded:
    """A loaded CUDA function that records its launches."""

    def __init__(self, calls):
        self.calls = calls

    def __call__(self, grid, block, args, shared_mem, stream, **kw):
        self.calls.append((grid, block, len(args), shared_mem))


@pytest.fixture
def gpu(monkeypatch):
    """Device -1, one GPU, every module 'loaded' as a recorder."""
    calls = []
    device = lambda: -1  # noqa: E731
    for module in (lmod, kmod, at):
        monkeypatch.setattr(module, "current_device", device)
    monkeypatch.setattr(lmod, "_get_device", device)
    monkeypatch.setattr(lmod, "_several_gpus", lambda: True)
    monkeypatch.setattr(lmod, "torch_stream", lambda d: None)
    monkeypatch.setitem(lmod._LIMITS, -1, 1024)
    monkeypatch.setitem(lmod._BLOCK_DIMS, -1, (1024, 1024, 64))
    monkeypatch.setattr(kcompile, "load_function", lambda inst, d: Recorded(calls))
    monkeypatch.delenv("KDSL_INTERPRET", raising=False)
    for k in (twice, twice_tied):  # plans made in another test: other recorders
        monkeypatch.setattr(k, "_plans", {})
        monkeypatch.setattr(k, "_launchers", {})
    return calls


def tuned_of(kernel, configs):
    """An autotuned kernel whose search already chose ``configs[-1]`` for
    every key (n and the dtypes as the tests pass them)."""
    t = kdsl.autotune(configs=configs, key=["n"])(kernel)
    for n in (1000, 5000):
        for dt in ("torch.float32", "torch.float64"):
            key = ((n,), (dt, dt), -1)
            t.searches[key] = Search(key, best=len(configs) - 1)
    return t


CONFIGS = [kdsl.Config(BLOCK=64), kdsl.Config(BLOCK=256, UNROLL=2)]


def grid(m):
    return (1000 + m["BLOCK"] * m["UNROLL"] - 1) // (m["BLOCK"] * m["UNROLL"])


def block(m):
    return m["BLOCK"]


def test_a_key_launched_before_takes_the_fast_path(gpu, monkeypatch):
    t = tuned_of(twice, CONFIGS)
    x = torch.ones(1000)
    y = torch.empty_like(x)
    t[grid, block](x, y, 1000)
    assert gpu == [((2,), (256,), 3, 0)]
    assert len(t.chosen) == 1

    def slow(*a):
        raise AssertionError("the slow path")

    monkeypatch.setattr(at.Autotuned, "_launch", slow)
    t[grid, block](x, y, 1000)
    t[lambda m: 7, lambda m: (m["BLOCK"],)](x, y, 1000)  # another grid: still fast
    assert gpu[1:] == [((2,), (256,), 3, 0), ((7,), (256,), 3, 0)]


def test_the_fast_path_runs_the_plain_launchs_packer(gpu):
    t = tuned_of(twice, CONFIGS)
    x = torch.ones(1000)
    y = torch.empty_like(x)
    t[grid, block](x, y, 1000)
    (chosen,) = t.chosen.values()
    plan = twice._plans[
        (twice.instance_for((x, y, 1000), CONFIGS[1].constexprs).name, -1)
    ]
    assert chosen.plan is plan and chosen.meta == {"BLOCK": 256, "UNROLL": 2}


def test_a_new_key_or_dtype_goes_the_slow_way_once(gpu, monkeypatch):
    t = tuned_of(twice, CONFIGS)
    seen = []
    slow = at.Autotuned._launch
    monkeypatch.setattr(
        at.Autotuned, "_launch", lambda self, *a: (seen.append(1), slow(self, *a))
    )
    for _ in range(2):
        for n, dt in (
            (1000, torch.float32),
            (5000, torch.float32),
            (1000, torch.float64),
        ):
            x = torch.ones(n, dtype=dt)
            t[grid, block](x, torch.empty_like(x), n)
    assert len(seen) == 3 and len(t.chosen) == 3 and len(gpu) == 6


def test_a_new_block_value_is_checked_by_the_slow_path(gpu):
    t = tuned_of(twice, CONFIGS)
    x = torch.ones(1000)
    y = torch.empty_like(x)
    t[grid, block](x, y, 1000)
    with pytest.raises(kdsl.DSLError, match="block"):
        t[grid, lambda m: 4096](x, y, 1000)  # over 1024 threads: refused
    with pytest.raises(kdsl.DSLError):
        t[lambda m: 0, block](x, y, 1000)  # an empty grid: refused
    assert len(gpu) == 1


def test_a_tied_block_follows_the_chosen_config(gpu, monkeypatch):
    t = tuned_of(twice_tied, [kdsl.Config(BLOCK=64), kdsl.Config(BLOCK=512)])
    x = torch.ones(1000)
    y = torch.empty_like(x)
    for _ in range(2):
        t[lambda m: 2](x, y, 1000)
    assert gpu == [((2,), (512,), 3, 0)] * 2
    (chosen,) = t.chosen.values()
    assert chosen.fixed == (512,)
    with pytest.raises(kdsl.DSLError, match="BLOCK"):  # disagrees with BLOCK=512
        t[lambda m: 2, lambda m: 256](x, y, 1000)


def test_pinning_forgets_the_fast_choices(gpu):
    t = tuned_of(twice, CONFIGS)
    x = torch.ones(1000)
    y = torch.empty_like(x)
    t[grid, block](x, y, 1000)
    t.pin(CONFIGS[0])
    assert t.chosen == {}
    t[grid, block](x, y, 1000)
    t[grid, block](x, y, 1000)
    assert gpu[1:] == [((16,), (64,), 3, 0)] * 2


def test_kdsl_interpret_set_later_still_interprets(gpu, monkeypatch):
    t = tuned_of(twice, CONFIGS)
    x = torch.ones(1000)
    t[grid, block](x, torch.empty_like(x), 1000)
    monkeypatch.setenv("KDSL_INTERPRET", "1")
    assert lmod.interpret_requested()
    xs = np.ones(1000, dtype=np.float32)
    ys = np.zeros_like(xs)
    t[grid, block](xs, ys, 1000)
    assert len(gpu) == 1 and (ys == 2).all()


def test_wrong_arguments_get_the_slow_paths_error(gpu):
    t = tuned_of(twice, CONFIGS)
    x = torch.ones(1000)
    t[grid, block](x, torch.empty_like(x), 1000)
    with pytest.raises(kdsl.DSLError, match="argument"):
        t[grid, block](x, 1000)
    assert len(gpu) == 1


def test_a_launch_hook_bypasses_the_fast_path(gpu):
    t = tuned_of(twice, CONFIGS)
    x = torch.ones(1000)
    y = torch.empty_like(x)
    t[grid, block](x, y, 1000)
    seen = []
    lmod.INTERCEPT.hook = lambda launcher, args, *rest: seen.append(launcher.block)
    try:
        t[grid, block](x, y, 1000)
    finally:
        lmod.INTERCEPT.hook = None
    assert seen == [(256,)] and len(gpu) == 1
