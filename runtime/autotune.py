"""``@kdsl.autotune``: pick the fastest constexpr configuration, once per key.

    @kdsl.autotune(configs=[kdsl.Config(BLOCK=128), kdsl.Config(BLOCK=256)], key=["n"])
    @kdsl.kernel
    def vector_add(x: Pointer[D], ..., n: Int32, BLOCK: Constexpr[int] = 256): ...

    vector_add[lambda m: cdiv(n, m["BLOCK"]), lambda m: m["BLOCK"]](x, y, out, n)

The first launch for a new key (the values of the ``key`` arguments, the
dtypes of the array arguments and the device) searches:

1. ``prune(configs, args)``, if given, drops configurations that cannot suit
   these arguments;
2. every remaining configuration is compiled, NVRTC running in a thread
   pool (it releases the GIL), before anything is timed;
3. the arrays the kernel writes (read off each instance's IR; ``restore=``
   names them instead) are copied on the device, and put back before every
   timed launch and after the search (:class:`benchmark.Bench`), so the
   launch that follows the search computes the result once, from the
   caller's data;
4. each configuration runs ``warmup`` times, then ``reps`` times between
   CUDA events with L2 flushed before each; the median per launch counts.

The fastest wins (a tie goes to the earlier config) and is remembered in
memory and on disk (``$KDSL_CACHE_DIR/autotune``), so the next process does
not search again.  A configuration that fails to compile or launch is
skipped and reported (``AutotuneWarning``).  ``pin(Config(...))`` bypasses
the search.
"""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from kdsl.runtime import cache
from kdsl.runtime import compile as kcompile
from kdsl.runtime.benchmark import Bench
from kdsl.runtime import launch as _launch
from kdsl.runtime.checks import GRID_LIMITS, dim3, grid_dims
from kdsl.runtime.kernel import Kernel
from kdsl.runtime.launch import (
    INTERCEPT,
    as_cupy_stream,
    current_device,
    interpret_requested,
    launch_config,
    no_gpu,
)
from kdsl.runtime import errors as _registered  # noqa: F401 - the launch errors
from kdsl.transpile.errors import DSLError, error
from kdsl.transpile.tracebacks import for_the_user, user_facing, warn_user


class AutotuneWarning(UserWarning):
    """A configuration failed during the search and was skipped."""


class Config:
    """One set of constexpr values to try: ``Config(BLOCK=128, UNROLL=4)``."""

    def __init__(self, **constexprs):
        self.constexprs = dict(constexprs)

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.constexprs.items())
        return f"Config({inner})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Config) and other.constexprs == self.constexprs

    def __hash__(self) -> int:
        return hash(tuple(sorted(self.constexprs.items())))


PRUNED = "pruned"  # a config's entry in a search's times that prune= dropped


@dataclass
class Search:
    """The outcome of one search: every config's time (ms), or why it has
    none (an error, or PRUNED), and the winner."""

    key: tuple
    times: list = field(default_factory=list)  # (config, ms or None, error or None)
    best: int = -1

    def table(self) -> str:
        rows = [f"autotune key {self.key}:"]
        for i, (config, ms, err) in enumerate(self.times):
            mark = "*" if i == self.best else " "
            if ms is not None:
                what = f"{ms * 1e3:10.2f} us"
            else:
                what = "pruned" if err == PRUNED else f"failed: {err}"
            rows.append(f" {mark} {config!r:40s} {what}")
        return "\n".join(rows)


_DTYPE_NAMES: dict = {}  # id(dtype) -> (dtype, its name)


def _dtype_name(dtype) -> str:
    """``str(dtype)``, remembered per dtype object: numpy's ``__str__`` is
    Python code (about 5 us a call), and every tuned launch names the dtype
    of each of its arrays."""
    entry = _DTYPE_NAMES.get(id(dtype))
    if entry is None or entry[0] is not dtype:
        if len(_DTYPE_NAMES) > 1024:  # dtypes made on the fly: forget them
            _DTYPE_NAMES.clear()
        entry = _DTYPE_NAMES[id(dtype)] = (dtype, str(dtype))
    return entry[1]


def autotune(
    configs, key=(), *, prune=None, warmup: int = 3, reps: int = 20, restore=None
):
    """Decorator over a ``@kdsl.kernel``; see the module documentation."""

    @user_facing
    def wrap(kernel):
        return Autotuned(
            kernel,
            configs,
            key,
            prune=prune,
            warmup=warmup,
            reps=reps,
            restore=restore,
        )

    return wrap


class Autotuned:
    """A ``@kdsl.autotune`` kernel: ``tuned[grid, block](...)`` times its
    configurations on the first launch for a new key and keeps the fastest."""

    @user_facing
    def __init__(
        self, kernel, configs, key, *, prune=None, warmup=3, reps=20, restore=None
    ):

        if not isinstance(kernel, Kernel):
            raise error("autotune-order", got=f"a {type(kernel).__name__}")
        configs = list(configs)
        runtime = [p.name for p in kernel.signature.runtime]
        with kernel._at("configs"):  # located at @kdsl.autotune's keyword
            if not configs or not all(isinstance(c, Config) for c in configs):
                raise error("autotune-configs", kernel=kernel.name)
            names = {c.name for c in kernel.signature.constexprs}
            for c in configs:
                unknown = set(c.constexprs) - names
                if unknown:
                    raise error(
                        "autotune-config-name",
                        config=repr(c),
                        kernel=kernel.name,
                        names=sorted(unknown),
                    )
        for keyword, names in (("key", key), ("restore", restore or ())):
            with kernel._at(keyword):
                for name in names:
                    if name not in runtime:
                        raise error(
                            "autotune-key",
                            kernel=kernel.name,
                            name=name,
                            params=", ".join(runtime),
                        )
        with kernel._at("reps" if _count(warmup) else "warmup"):
            if not (_count(warmup) and _count(reps) and reps >= 1):
                raise error(
                    "autotune-counts", kernel=kernel.name, warmup=warmup, reps=reps
                )
        with kernel._at("prune"):
            if prune is not None and not callable(prune):
                raise error(
                    "autotune-prune", kernel=kernel.name, got=type(prune).__name__
                )
        self.kernel = kernel
        self.name = kernel.name
        self.configs = configs
        self.key_positions = [runtime.index(k) for k in key]
        # None: the arrays each configuration's instance writes
        self.restore = None if restore is None else list(restore)
        self.prune = prune
        self.warmup, self.reps = warmup, reps
        self.searches: dict = {}  # key -> Search
        self.pinned: Config | None = None
        self._default_values: dict | None = None  # the constexprs' defaults
        # the launches' fast path: fast key -> _Chosen (see _TunedLaunch)
        self.chosen: dict = {}
        self._fast_key = _key_function(kernel, self.key_positions)

    # -- public -----------------------------------------------------------------
    def __getitem__(self, config):
        """``tuned[grid, block](*args, stream=None, shared_mem=0)`` (grid,
        block and shared_mem each a value or a function of the config's
        constexpr values), or ``tuned[grid]`` for a kernel declared with
        ``block=``: each config's block is then the kernel's (its ``BLOCK``
        for ``block="BLOCK"``)."""
        if type(config) is tuple and len(config) == 2:
            return _TunedLaunch(self, config[0], config[1])
        try:
            grid, block = self._grid_block(config, self.name)
        except DSLError as exc:
            raise for_the_user(exc)  # kdsl's frames hidden; KDSL_TRACEBACK=1: all
        return _TunedLaunch(self, grid, block)

    @user_facing
    def __call__(self, *args, **kwargs):
        raise self._called(self.name)

    def _called(self, how: str) -> DSLError:
        tied = ""
        if self.kernel.block_option is not None:
            follows = self.kernel.block_option
            which = f"each config's {follows}" if isinstance(follows, str) else "fixed"
            tied = f", or {how}[grid](...): the block is {which}"
        return error("autotune-called", kernel=self.name, how=how, tied=tied)

    def _grid_block(self, config, how: str) -> tuple:
        """``(grid, block)`` of ``tuned[config]``; block None for a grid-only
        launch, which the kernel's ``block=`` must allow."""
        grid, block, _ = launch_config(self.kernel, config, None, how)
        if isinstance(config, tuple) and len(config) == 2:
            return grid, block
        return grid, None  # each config's block: the kernel's

    @property
    def interpret(self):
        """``tuned.interpret[grid, block](*args)``: on the CPU, with the pinned
        configuration, else the first that ``prune`` keeps (there is nothing
        to time)."""
        return _Interpreted(self)

    def pin(self, config: Config | None) -> None:
        """Use ``config`` from now on without searching (None: search again)."""
        self.pinned = config
        self.chosen = {}  # the fast path's configurations were the search's

    @user_facing
    def best_config(self, *args) -> Config:
        """The configuration the search chose for these arguments (searching if needed)."""
        return self.configs[self._search_for(None, None, args, None, 0).best]

    @user_facing
    def timings(self, *args) -> list:
        """Each configuration's median milliseconds in the search for these
        arguments (searched before, else E446), as (config, ms) pairs; ms is
        None for one that was pruned or failed."""
        search = self._search_for(None, None, args, None, 0)
        return [(config, ms) for config, ms, _ in search.times]

    def table(self) -> str:
        """The timing tables of every search so far."""
        return "\n".join(s.table() for s in self.searches.values())

    # -- the search ---------------------------------------------------------------
    def _key(self, args) -> tuple:
        try:
            device = current_device()
        except Exception as exc:  # no driver, no GPU, no CuPy: E503
            raise no_gpu(self.name, exc) from None
        dtypes = tuple(_dtype_name(a.dtype) for a in args if hasattr(a, "dtype"))
        values = tuple(args[i] for i in self.key_positions)
        return (values, dtypes, device)

    def _launch(self, grid, block, args, stream, shared_mem):
        if interpret_requested() and INTERCEPT.hook is None:
            return self._interpret(grid, block, args, shared_mem)
        if self.pinned is not None:
            config = self.pinned
        elif INTERCEPT.hook is not None:
            config = self._untimed(args)
        else:
            search = self._search_for(grid, block, args, stream, shared_mem)
            config = self.configs[search.best]
        self._launch_config(config, grid, block, args, stream, shared_mem)
        if INTERCEPT.hook is None:  # launched on the GPU: the next one is fast
            self._remember(config, grid, block, args, shared_mem)

    def _remember(self, config, grid, block, args, shared_mem) -> None:
        """Keep what the launch that just ran chose for its fast key: the
        configuration's constexpr values, the kernel's launch plan (its
        generated packer) and the block, now checked against the instance."""
        try:
            key = self._fast_key(args)
        except Exception:  # noqa: BLE001 - no fast key for these: the slow path
            return
        inst = self.kernel.instance_for(args, config.constexprs)
        plan = self.kernel._plans.get((inst.name, key[0]))
        if plan is None:  # the launch went elsewhere (replaced in a test)
            return
        chosen = self.chosen.get(key)
        if chosen is None or chosen.plan is not plan:
            if len(self.chosen) >= _MAX_CHOSEN:
                self.chosen = {}
            meta = {**self._defaults(), **config.constexprs}
            fixed = None
            if block is None:  # the kernel's block, or its BLOCK constexpr's
                _, fixed, _ = launch_config(self.kernel, 1, inst, self.name)
                fixed = dim3(fixed, "block")
            chosen = self.chosen[key] = _Chosen(meta, plan.current(), fixed)
        if block is not None:
            raw = block(chosen.meta) if callable(block) else block
            dims = dim3(raw, "block")
            chosen.blocks[dims] = dims  # 256 and (256,) alike
            try:
                chosen.blocks[raw] = dims
            except TypeError:  # unhashable: this block takes the slow path
                pass

    def _untimed(self, args) -> Config:
        """The configuration of a launch that ``kdsl.torch`` records, skips
        or interprets (nothing runs on the GPU, so nothing can be timed): the
        one a search chose for these arguments if there was one, else the
        first that ``prune`` keeps.  Nothing is stored."""
        try:
            key = self._key(args)
            search = self.searches.get(key) or self._load(key)
        except Exception:  # noqa: BLE001 - no GPU, or arguments PyTorch fakes
            search = None
        if search is not None:
            return self.configs[search.best]
        return self.configs[self._kept(args)[0]]

    def _search_for(self, grid, block, args, stream, shared_mem) -> Search:
        if len(args) != len(self.kernel.signature.runtime):
            self.kernel._bad_count(args)
        key = self._key(args)
        search = self.searches.get(key)
        if search is None:
            search = self._load(key)
        if search is None:
            if grid is None:
                raise error("autotune-untuned", kernel=self.name)
            search = self._search(key, grid, block, args, stream, shared_mem)
            self._store(search)
        self.searches[key] = search
        return search

    def _search(self, key, grid, block, args, stream, shared_mem) -> Search:
        kept = self._kept(args)
        ready, failed = self._compile(kept, args)
        search = Search(key)
        bench = None  # nothing to save or flush when nothing will run
        if ready:
            bench = Bench(self.name, self._written(ready.values(), args), stream)
        try:
            for i, config in enumerate(self.configs):
                if i not in kept:
                    search.times.append((config, None, PRUNED))
                elif i in failed:
                    self._skip(search, config, failed[i])
                else:
                    try:
                        ms = self._time_config(
                            config, grid, block, args, stream, shared_mem, bench
                        )
                        search.times.append((config, ms, None))
                    except DSLError as exc:
                        self._skip(search, config, exc)
        finally:
            if bench is not None:
                bench.close()
        timed = [(ms, i) for i, (_, ms, _) in enumerate(search.times) if ms is not None]
        if not timed:
            raise error("autotune-failed", kernel=self.name, table=search.table())
        search.best = min(timed)[1]  # the fastest; a tie goes to the earlier config
        return search

    def _skip(self, search: Search, config: Config, exc: DSLError) -> None:
        """Record and report a configuration that failed to compile or launch."""
        reason = exc.message.splitlines()[0]
        search.times.append((config, None, reason))
        warn_user(  # at the launch that searches
            f"autotune of '{self.name}': {config!r} failed and is skipped: {reason}",
            AutotuneWarning,
        )

    def _kept(self, args) -> list[int]:
        """The positions of the configurations ``prune`` keeps for ``args``."""
        if self.prune is None:
            return list(range(len(self.configs)))
        names = [p.name for p in self.kernel.signature.runtime]
        chosen = list(self.prune(list(self.configs), dict(zip(names, args))))
        kept = set()
        for config in chosen:
            if not isinstance(config, Config) or config not in self.configs:
                raise error(
                    "autotune-prune-result",
                    kernel=self.name,
                    got=repr(config),
                    configs=", ".join(map(repr, self.configs)),
                )
            kept.add(self.configs.index(config))
        if not kept:
            raise error("autotune-pruned-all", kernel=self.name)
        return sorted(kept)

    def _compile(self, kept, args) -> tuple[dict, dict]:
        """Each kept configuration's instance, lowered here and compiled by
        NVRTC in a thread pool (it releases the GIL), before anything is
        timed; and the errors of those that fail (position -> DSLError)."""
        dtypes = self.kernel._dtypes_of(args)
        absent = self.kernel.absent_of(args)  # optional pointers passed None
        ready, failed = {}, {}
        for i in kept:
            constexprs = self.configs[i].constexprs
            try:
                inst = self.kernel.instance(
                    dtypes, self.kernel._constexpr_values((), constexprs), absent
                )
                inst.cached
                inst.lowered  # what it writes: read before any launch
            except DSLError as exc:
                failed[i] = exc
                continue
            ready[i] = inst
        if not ready:
            return ready, failed
        arch = _device_arch()
        workers = min(len(ready), os.cpu_count() or 1)
        with ThreadPoolExecutor(workers, thread_name_prefix="kdsl-nvrtc") as pool:
            jobs = {
                i: pool.submit(kcompile.cubin_for, inst, arch)
                for i, inst in ready.items()
            }
        for i, job in jobs.items():
            exc = job.exception()
            if isinstance(exc, DSLError):
                failed[i] = exc
                del ready[i]
            elif exc is not None:
                raise exc
        return ready, failed

    def _written(self, instances, args) -> dict:
        """The arrays to save and put back (parameter name -> argument):
        ``restore=`` if given, else every array some instance writes."""
        names = [p.name for p in self.kernel.signature.runtime]
        if self.restore is not None:
            chosen = set(self.restore)
        else:
            chosen = {name for inst in instances for name in inst.lowered.written}
        return {name: args[i] for i, name in enumerate(names) if name in chosen}

    def _time_config(self, config, grid, block, args, stream, shared_mem, bench):
        """Median milliseconds per launch of ``config``."""
        return bench.time(
            lambda: self._launch_config(config, grid, block, args, stream, shared_mem),
            self.warmup,
            self.reps,
        )

    def _launch_config(self, config, grid, block, args, stream, shared_mem):
        g, b, smem = self._shape(config, grid, block, shared_mem)
        launch = self.kernel[g] if b is None else self.kernel[g, b]
        launch(*args, stream=stream, shared_mem=smem, **config.constexprs)

    def _interpret(self, grid, block, args, shared_mem=0):
        if self.pinned is not None:
            config = self.pinned
        else:
            config = self.configs[self._kept(args)[0]]
        g, b, smem = self._shape(config, grid, block, shared_mem)
        launch = self.kernel.interpret[g] if b is None else self.kernel.interpret[g, b]
        launch(*args, shared_mem=smem, **config.constexprs)

    def _shape(self, config, grid, block, shared_mem=0) -> tuple:
        """The launch grid, block and dynamic shared memory of ``config``
        (each may be a function of the constexpr values; a block None stays
        None: the kernel's)."""
        meta = {**self._defaults(), **config.constexprs}
        g = grid(meta) if callable(grid) else grid
        b = block(meta) if callable(block) else block
        smem = shared_mem(meta) if callable(shared_mem) else shared_mem
        return g, b, smem

    def _defaults(self) -> dict:
        if self._default_values is None:  # made once: every launch reads it
            self._default_values = {
                c.name: c.default
                for c in self.kernel.signature.constexprs
                if c.has_default
            }
        return self._default_values

    # -- the disk cache -------------------------------------------------------------------
    def _disk_key(self, key) -> str:

        return cache.digest(
            "autotune",
            self.kernel.fingerprint,
            self.kernel.fn.__qualname__,
            repr(self.configs),
            repr(key[:2]),
            _device_name(key[2]),
        )

    def _load(self, key) -> Search | None:
        data = AUTOTUNE.get(self._disk_key(key), self._decode)
        if data is None:
            return None
        search = Search(key, best=data["best"])
        for config, (ms, err) in zip(self.configs, data["times"]):
            search.times.append((config, ms, err))
        return search

    def _decode(self, payload: bytes) -> dict:
        """A stored search, checked (a malformed entry is measured again)."""
        data = json.loads(payload)
        best, times = data["best"], data["times"]
        cache.expect(type(best) is int and 0 <= best < len(self.configs), "best")
        cache.expect(
            isinstance(times, list)
            and len(times) == len(self.configs)
            and all(isinstance(t, list) and len(t) == 2 for t in times),
            "times",
        )
        return data

    def _store(self, search: Search) -> None:
        data = {
            "best": search.best,
            "times": [[ms, err] for _, ms, err in search.times],
        }
        AUTOTUNE.put(self._disk_key(search.key), json.dumps(data).encode())

    def __repr__(self) -> str:
        return f"<kdsl.autotune {self.name} over {len(self.configs)} configs>"


AUTOTUNE = cache.DiskCache("autotune", ".json")


def _device_name(device: int) -> str:
    import cupy

    props = cupy.cuda.runtime.getDeviceProperties(device)
    return f"{props['name']}:{props['major']}{props['minor']}"


def _count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _device_arch() -> str:
    import cupy

    return kcompile.device_arch(cupy.cuda.runtime.getDevice())


class _Interpreted:
    """``tuned.interpret``: launches on the CPU."""

    def __init__(self, tuned: Autotuned):
        self.tuned = tuned

    @user_facing
    def __getitem__(self, config):
        how = f"{self.tuned.name}.interpret"
        grid, block = self.tuned._grid_block(config, how)
        return user_facing(
            lambda *args, shared_mem=0: self.tuned._interpret(
                grid, block, args, shared_mem
            )
        )

    @user_facing
    def __call__(self, *args, **kwargs):
        raise self.tuned._called(f"{self.tuned.name}.interpret")


_ENVIRON = _launch._ENVIRON_BYTES  # interpret_requested(), inlined in the fast path
_MAX_CHOSEN = 1024  # fast keys kept per tuned kernel (sizes in a key: many)
_MAX_X = GRID_LIMITS[0]


def _key_function(kernel, key_positions):
    """A generated ``key(args)``: the current device, the ``key`` arguments,
    each array argument's dtype (None for a None pointer) and each scalar's
    type (a numpy scalar's names its dtype), read with plain attribute reads:
    the launch's fast key.  It raises for
    arguments it cannot key (too few, no GPU); the slow path says why."""
    n = len(kernel.signature.runtime)
    names = [f"a{i}" for i in range(n)]
    parts = ["_launch._get_device()"] + [names[i] for i in key_positions]
    for a, info in zip(names, kernel.signature.runtime):
        if info.kind == "scalar":  # its type: a numpy scalar's names its dtype
            parts.append(f"type({a})")
        else:
            parts.append(f"getattr({a}, 'dtype', None)")
    unpack = ", ".join(names) + ("," if n == 1 else "")
    code = "def key(args):\n"
    code += f"    {unpack} = args\n" if n else "    if args: raise ValueError\n"
    code += f"    return ({', '.join(parts)},)\n"
    env = {"_launch": _launch}  # _get_device None (no CuPy yet): a TypeError
    exec(compile(code, f"<kdsl autotune key {kernel.name}>", "exec"), env)  # noqa: S102
    return env["key"]


class _Chosen:
    """What one fast key launches: the configuration's constexpr values
    (``meta``, what grid and block functions receive), the kernel's launch
    plan for its instance, and the blocks known good for it (the value a
    block function returned -> its dims), or the one ``fixed`` block of a
    ``tuned[grid]`` launch."""

    __slots__ = ("meta", "plan", "fixed", "blocks")

    def __init__(self, meta, plan, fixed):
        self.meta, self.plan, self.fixed, self.blocks = meta, plan, fixed, {}


class _TunedLaunch:
    """``tuned[grid, block]``: call it with the kernel's arguments.

    A launch whose fast key (device, ``key`` arguments, dtypes) was launched
    before costs one dict lookup more than a plain ``kernel[grid, block]``
    launch: the grid and block functions of the chosen configuration, then
    the kernel's generated packer.  Everything else (a new key, a search,
    ``kdsl.torch``'s hooks, ``KDSL_INTERPRET``, an unusual block) takes
    :meth:`Autotuned._launch`."""

    __slots__ = ("tuned", "grid", "block")

    def __init__(self, tuned, grid, block):
        self.tuned, self.grid, self.block = tuned, grid, block

    def __call__(self, *args, stream=None, shared_mem=0):
        tuned = self.tuned
        try:
            if INTERCEPT.hook is None and tuned.chosen:
                try:
                    chosen = tuned.chosen.get(tuned._fast_key(args))
                except Exception:  # noqa: BLE001 - the slow path says what is wrong
                    chosen = None
                if chosen is not None and not (
                    _ENVIRON.get(b"KDSL_INTERPRET") == b"1"
                    if _ENVIRON is not None
                    else interpret_requested()
                ):
                    meta, grid, block = chosen.meta, self.grid, self.block
                    if callable(grid):
                        grid = grid(meta)
                    if type(grid) is int and 0 < grid <= _MAX_X:
                        grid = (grid,)
                    else:
                        grid = grid_dims(grid)
                    if block is None:
                        block = chosen.fixed
                    else:
                        if callable(block):
                            block = block(meta)
                        try:
                            block = chosen.blocks.get(block)
                        except TypeError:  # unhashable: the slow path
                            block = None
                    if block is not None:
                        if callable(shared_mem):
                            shared_mem = shared_mem(meta)
                        if stream is not None:
                            stream = as_cupy_stream(stream)
                        return chosen.plan.launch(grid, block, args, stream, shared_mem)
            return tuned._launch(self.grid, self.block, args, stream, shared_mem)
        except DSLError as exc:
            raise for_the_user(exc)  # kdsl's frames hidden; KDSL_TRACEBACK=1: all
