"""``@kdsl.kernel``: the kernel object, its dtype sets, dispatch and instances."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property

from kdsl.runtime import compile as kcompile
from kdsl.runtime import errors as _registered  # noqa: F401 - the launch errors
from kdsl.transpile.errors import DSLError, error
from kdsl.transpile.sites import DefSite, at_call
from kdsl.transpile.tracebacks import for_the_user, user_facing, warn_user
from kdsl.transpile.frontend.definition import KernelDef, located
from kdsl.transpile.pipeline import Compilation, Lowered, Transpiled
from kdsl.runtime.checks import (
    BLOCK_LIMITS,
    MAX_THREADS,
    check_block,
    check_launch_bounds,
    dim3,
    grid_dims,
)
from kdsl.runtime.interpreter.interpret import interpret
from kdsl.runtime.nvrtc import require_cuda_extra
from kdsl.runtime.launch import (
    constexpr_key,
    INTERCEPT,
    MANY_INSTANCES,
    Launcher,
    LaunchPlan,
    as_cupy_stream,
    check_tied_block,
    current_device,
    dtype_of_argument,
    launch_config,
    no_gpu,
    max_block_dims,
    max_threads_per_block,
    unsupported,
)
from kdsl.transpile.frontend.signature import (
    check_dtypes,
    dtype_combinations,
    instance_name,
    looks_like_dtype,
    resolve_dtype,
    supported_dtypes,
)


@dataclass(eq=False)
class KernelInstance:
    """One compiled specialisation: a kernel at fixed dtypes and constexprs."""

    kernel: "Kernel"
    name: str
    dtypes: tuple
    constexprs: dict
    backward: "KernelInstance | None" = None
    absent: tuple = ()  # the optional pointers passed as None, in order
    _transpiled: Transpiled | None = field(default=None, repr=False)
    _launchers: dict = field(default_factory=dict, repr=False)  # (grid, block) ->
    _compilation: Compilation | None = field(default=None, repr=False)

    @property
    def compilation(self) -> Compilation:
        """This instance's way through the pipeline (each stage on first use)."""
        if self._compilation is None:
            self._compilation = Compilation(
                self.kernel.definition,
                self.name,
                self.dtypes,
                self.constexprs,
                self.absent,
            )
        return self._compilation

    @property
    @user_facing
    def transpiled(self) -> Transpiled:
        """Source and launch requirements (transpiled on first use; no GPU)."""
        if self._transpiled is None:
            self._transpiled = self.compilation.transpiled()
        return self._transpiled

    @property
    def cached(self) -> Transpiled:
        """:attr:`transpiled`, through the disk cache (``runtime.compile``):
        the entry of this instance if there, else transpiled and stored there
        (what launches use: a new process with a warm cache does not
        transpile)."""
        if self._transpiled is None:
            self._transpiled = kcompile.transpiled(self)
        return self._transpiled

    @property
    @user_facing
    def lowered(self) -> Lowered:
        """The verified IR (kernel and device functions) and launch
        requirements, lowered on first use."""
        return self.compilation.lowered

    @property
    @user_facing
    def rewritten(self) -> Lowered:
        """:attr:`lowered` after the compiler's rewrites (``contract``
        included): the IR the GPU runs, and what the interpreter runs."""
        return self.compilation.rewritten

    @property
    @user_facing
    def source(self) -> str:
        """The generated CUDA C++."""
        return self.transpiled.source

    @user_facing
    def render(self, *, line_directives: bool = False) -> str:
        """The CUDA C++, optionally with ``#line`` directives to the Python file."""
        if not line_directives:
            return self.source
        return self.compilation.source(line_directives=True)

    @property
    def interpret(self):
        """``inst.interpret[grid, block](*args)``: run this instance on the CPU."""
        return Interpreted(self.kernel, self)

    @user_facing
    def __call__(self, *args, **kwargs):
        raise error("kernel-called", subject=f"instance {self.name}", how="instance")

    def __getitem__(self, config):
        """``inst[grid, block](*args, stream=None, shared_mem=0)``."""
        try:
            return self._launchers[config]
        except (KeyError, TypeError):
            pass
        try:
            return _launcher(self._launchers, self.kernel, config, self)
        except DSLError as exc:
            raise for_the_user(exc)  # kdsl's frames hidden; KDSL_TRACEBACK=1: all


class Kernel:
    """A ``@kdsl.kernel`` function: one CUDA kernel per (dtypes, constexprs)."""

    __kdsl_kernel__ = True

    @user_facing
    def __init__(
        self,
        fn,
        dtypes=None,
        backward=None,
        debug=None,
        launch_bounds=None,
        maxrregcount=None,
        block=None,
        contract=False,
        no_overflow=False,
    ):
        self.definition = KernelDef.of(  # what the compiler reads
            fn,
            debug=debug_build(debug),
            launch_bounds=launch_bounds,
            maxrregcount=maxrregcount,
            contract=contract,
            no_overflow=no_overflow,
        )
        self.__doc__ = fn.__doc__
        with self._at("block"):
            self.block_option = self._block_option(block)
        self._dtypes_option = dtypes
        with self._at("dtypes"):
            self.supported = supported_dtypes(self.name, self.signature, dtypes)
        self.backward = backward
        if backward is not None:
            with self._at("backward"):
                self._check_backward(backward)
        self._instances: dict = {}
        self._plans: dict = {}  # (dtype keys, constexpr items, device) -> LaunchPlan
        self._launchers: dict = {}  # (grid, block) -> Launcher
        self._warned: set = set()
        self._dtype_args = self._dtype_argument_positions()

    def _block_option(self, block):
        """``block=``: None, the name of the Constexpr[int] parameter the
        block follows, or a block shape (a tuple) for grid-only launches."""
        if block is None:
            return None
        ints = [c.name for c in self.signature.constexprs if c.spec.kind is int]
        if isinstance(block, str):
            if block in ints:
                return block
            problem = (
                f"'{block}' is not a Constexpr[int] parameter of '{self.name}'; "
                f"it has: {', '.join(ints) or 'none'}"
            )
        else:
            try:
                shape = dim3(block, "block")
                limits = MAX_THREADS, BLOCK_LIMITS
                check_block(self.name, shape, *limits, "CUDA")
                return shape
            except DSLError:
                pass
            problem = (
                "block= takes the name of the Constexpr[int] parameter the block "
                'follows (block="BLOCK") or a block shape (an int from 1 to '
                f"1024, or a tuple of up to 3 ints), got {block!r}"
            )
        raise error("kernel-block-option", kernel=self.name, problem=problem)

    def _at(self, keyword=None, param=None):
        """Errors raised inside are located at the decorator's ``keyword=``,
        the parameter ``param``, else the ``def`` name."""
        return located(self.site, keyword, param)

    # what the definition says (kdsl.transpile.frontend.definition.KernelDef)
    fn = property(lambda self: self.definition.fn)
    name = property(lambda self: self.definition.name)
    site = property(lambda self: self.definition.site)
    signature = property(lambda self: self.definition.signature)
    options = property(lambda self: self.definition.options)
    debug = property(lambda self: self.definition.debug)
    parsed = property(lambda self: self.definition.parsed)

    @cached_property
    def fingerprint(self) -> str:
        """A hash of the files and module constants its code can come from
        (``runtime.compile.kernel_fingerprint``), computed once."""
        return kcompile.kernel_fingerprint(self)

    @property
    def supported_dtypes(self):
        """The supported dtypes: a tuple for one dtype parameter, ``()`` for
        none (the types are fixed), a dict by parameter name for several
        (``self.supported`` is always that dict)."""
        if len(self.supported) == 1:
            return next(iter(self.supported.values()))
        if not self.supported:
            return ()
        return dict(self.supported)

    def combinations(self) -> list[tuple]:
        return dtype_combinations(self.supported)

    def _check_backward(self, other):
        if isinstance(other, HostBackward):  # its parameters are checked when
            return  # kdsl.torch plans a backward (E533)
        if not isinstance(other, Kernel):
            raise error(
                "backward-not-kernel", kernel=self.name, got=f"a {type(other).__name__}"
            )
        mine = (
            [t.name for t in self.signature.typevars],
            [c.name for c in self.signature.constexprs],
        )
        theirs = (
            [t.name for t in other.signature.typevars],
            [c.name for c in other.signature.constexprs],
        )
        if mine != theirs:
            raise error(
                "backward-mismatch",
                backward=other.name,
                kernel=self.name,
                mine=mine,
                theirs=theirs,
            )

    # -- dispatch ---------------------------------------------------------------------
    @user_facing
    def dispatch(self, *args, **kwargs) -> KernelInstance:
        """``kernel.dispatch(dtype..., *constexprs, **constexprs)``; an
        optional pointer given as ``bias=None`` is absent from the instance.

        An error that no parameter of the kernel explains (an unsupported
        or misspelt dtype) points at the user's ``dispatch(...)`` call; one
        that a parameter does, at the parameter."""
        try:
            return self._dispatch(args, kwargs)
        except DSLError as exc:
            raise self.site.locate(at_call(exc, depth=2)) from None

    def _dispatch(self, args, kwargs) -> KernelInstance:
        n = len(self.signature.typevars)
        self._check_extra_dtype(args[n:])
        if len(args) < n:
            raise error("dispatch-dtypes", kernel=self.name, n=n, got=len(args))
        dtypes = tuple(resolve_dtype(d) for d in args[:n])
        check_dtypes(self.name, self.supported, dtypes)
        absent = []
        for name in self.signature.optional:
            if name in kwargs:
                if kwargs.pop(name) is not None:
                    raise error("dispatch-optional", kernel=self.name, param=name)
                absent.append(name)
        constexprs = self._constexpr_values(args[n:], kwargs)
        return self.instance(dtypes, constexprs, tuple(absent))

    def _check_extra_dtype(self, positional):
        """A dtype where a constexpr goes: more dtypes than dtype parameters."""
        specs = self.signature.constexprs
        for i, value in enumerate(positional):
            if not looks_like_dtype(value):
                continue
            typevars = [tv.name for tv in self.signature.typevars]
            if typevars:
                has = f"{len(typevars)} dtype parameter{'s' * (len(typevars) > 1)}"
                has = f"{has} ({', '.join(typevars)})"
                fix = "pass one dtype for each, then its constexprs"
            else:
                has = "no dtype parameters (its types are fixed)"
                names = ", ".join(f"{c.name}=..." for c in specs)
                fix = f"pass its constexprs only, e.g. {self.name}.dispatch({names})"
            param = specs[i].name if i < len(specs) else None
            err = error(
                "dispatch-extra-dtype",
                kernel=self.name,
                dtype=repr(value) if isinstance(value, str) else str(value),
                goes=f"constexpr '{param}' goes" if param else "nothing more goes",
                has=has,
                fix=fix,
            )
            raise self.site.locate(err, param=param)

    def _constexpr_values(self, positional, named) -> dict:
        specs = self.signature.constexprs
        if len(positional) > len(specs):
            raise error(
                "constexpr-count", kernel=self.name, n=len(specs), got=len(positional)
            )
        values = dict(zip((c.name for c in specs), positional))
        for key, value in named.items():
            if key not in {c.name for c in specs}:
                names = ", ".join(c.name for c in specs) or "none"
                raise error(
                    "unknown-constexpr", kernel=self.name, name=key, names=names
                )
            if key in values:
                raise self.site.locate(error("constexpr-twice", name=key), param=key)
            values[key] = value
        out = {}
        for c in specs:
            if c.name in values:
                value = values[c.name]
            elif c.has_default:
                value = c.default
            else:
                err = error("constexpr-missing", kernel=self.name, name=c.name)
                raise self.site.locate(err, param=c.name)
            with self._at(param=c.name):
                out[c.name] = check_constexpr(self.name, c, value)
        return out

    def instance(
        self, dtypes: tuple, constexprs: dict, absent: tuple = ()
    ) -> KernelInstance:
        # Keyed by the name, which tells apart what == does not (0.0 and
        # -0.0 are two kernels) and makes every NaN one kernel.
        name = instance_name(self.name, dtypes, tuple(constexprs.values()), absent)
        inst = self._instances.get(name)
        if inst is None:
            inst = KernelInstance(self, name, dtypes, constexprs, absent=absent)
            if isinstance(self.backward, Kernel):
                theirs = self.backward.signature.optional
                inst.backward = self.backward.instance(
                    dtypes, constexprs, tuple(a for a in absent if a in theirs)
                )
            self._instances[name] = inst
        return inst

    def instances(self) -> list[KernelInstance]:
        """The instances made so far, in order."""
        return list(self._instances.values())

    # -- the CPU interpreter --------------------------------------------------------------
    @property
    def interpret(self) -> "Interpreted":
        """``kernel.interpret[grid, block](*args, **constexprs)``: run on the CPU."""
        return Interpreted(self)

    @user_facing
    def _interpret(self, grid, block, args, constexprs, instance=None, follows=False):
        shared_mem = constexprs.get("shared_mem", 0)
        constexprs = {
            k: v for k, v in constexprs.items() if k not in ("stream", "shared_mem")
        }
        if instance is None:
            if len(args) != len(self.signature.runtime):
                self._bad_count(args)
            instance = self.instance_for(args, constexprs)
        if callable(grid):
            grid = grid(instance.constexprs)
        if block is None or follows:  # the block follows a constexpr
            block = instance.constexprs[self.block_option]
        if callable(block):
            block = block(instance.constexprs)
        if self.block_option is not None:  # CUDA's limits first, as on the GPU
            shape = dim3(block, "block")
            check_block(self.name, shape, MAX_THREADS, BLOCK_LIMITS, "CUDA")
            check_tied_block(self, shape, instance)
        interpret(self, instance, grid, block, args, shared_mem)

    # -- launching ----------------------------------------------------------------------
    @user_facing
    def __call__(self, *args, **kwargs):
        raise error("kernel-called", subject=f"kernel '{self.name}'", how=self.name)

    def __getitem__(self, config):
        """``kernel[grid, block](*args, stream=None, shared_mem=0, **constexprs)``."""
        try:
            return self._launchers[config]
        except (KeyError, TypeError):
            pass
        try:
            return _launcher(self._launchers, self, config, None)
        except DSLError as exc:
            raise for_the_user(exc)  # kdsl's frames hidden; KDSL_TRACEBACK=1: all

    def absent_of(self, args) -> tuple:
        """The optional pointer parameters these arguments pass as None."""
        at = self.signature.optional_at
        if not at:
            return ()
        return tuple(name for i, name in at if i < len(args) and args[i] is None)

    def instance_for(self, args, constexprs: dict) -> "KernelInstance":
        """The instance a launch with these arguments and constexpr keywords
        runs (dtypes read off the arrays, None optional pointers absent)."""
        return self.instance(
            self._dtypes_of(args),
            self._constexpr_values((), constexprs),
            self.absent_of(args),
        )

    def _dtypes_of(self, args) -> tuple:
        """The dtype parameters' values, read off the arguments that carry them."""

        runtime = self.signature.runtime
        dtypes = []
        for tv, i in zip(self.signature.typevars, self._dtype_args):
            t = dtype_of_argument(args[i])
            if t is None and getattr(args[i], "dtype", None) is None:
                raise error(
                    "launch-dtype-unknown",
                    typevar=tv.name,
                    kernel=self.name,
                    param=runtime[i].name,
                    got=type(args[i]).__name__,
                )
            if t not in self.supported[tv.name]:
                raise unsupported(self, tv.name, t, args[i], runtime[i].name)
            dtypes.append(t)
        missing = [tv.name for tv in self.signature.typevars][len(self._dtype_args) :]
        if missing:
            raise error("launch-dtype-no-carrier", kernel=self.name, typevar=missing[0])
        return tuple(dtypes)

    def _dtype_argument_positions(self) -> tuple:
        """For each dtype parameter, the first runtime argument that carries it."""
        out = []
        runtime = self.signature.runtime
        for tv in self.signature.typevars:
            carriers = [
                i
                for i, info in enumerate(runtime)
                if getattr(info.spec, "elem", info.spec) is tv
            ]
            arrays_first = sorted(
                carriers,  # an optional pointer may be None: last
                key=lambda i: (runtime[i].optional, runtime[i].kind == "scalar"),
            )
            if arrays_first:
                out.append(arrays_first[0])
        return tuple(out)

    @user_facing
    def _launch(self, launcher, args, constexprs, stream, shared_mem):
        """The general launch path: finds or makes the plan, checks the block."""
        try:
            device = current_device()
        except Exception as exc:  # no driver, no GPU, no CuPy
            self._no_device(launcher, args, constexprs, exc)
        # x and y are bounded by the thread count; z (64) is checked apart
        block = launcher.block
        if block is not None and (
            launcher.threads > max_threads_per_block(device) or len(block) == 3
        ):
            self._check_block(block, device)
        inst = launcher.instance
        if inst is not None and constexprs:
            raise error("launch-instance-constexprs", instance=inst.name)
        try:
            if inst is not None:
                key = (inst.name, device)
            else:
                dts = tuple(args[i].dtype for i in self._dtype_args)
                absent = self.absent_of(args)
                key = (dts, constexpr_key(constexprs), absent, device)
            plan = self._plans.get(key)
        except (IndexError, AttributeError, TypeError):
            plan, key = None, None
        if plan is None:
            plan = self._make_plan(launcher, args, constexprs, device)
            if key is not None:
                self._plans[key] = plan
        plan = plan.current()  # PyTorch imported since: a packer that knows it
        if launcher.follows:  # the block is the instance's constexpr
            block = (plan.instance.constexprs[self.block_option],)
            self._check_block(block, device)
        check_tied_block(self, block, plan.instance)
        if block is not None:
            bounds_of = plan.instance.constexprs  # (launch_bounds may name one)
            check_launch_bounds(self.name, block, self.options, bounds_of)
        launcher.remember(plan, args, constexprs, device, block)
        grid = launcher.grid
        if callable(grid):
            grid = grid_dims(grid(plan.instance.constexprs), "grid()")
        if stream is not None:
            stream = as_cupy_stream(stream)
        plan.launch(grid, block, args, stream, shared_mem)

    def _no_device(self, launcher, args, constexprs, exc):
        """Check what can be checked without a GPU, then say there is none."""
        limits = MAX_THREADS, BLOCK_LIMITS
        if launcher.block is not None:
            check_block(self.name, launcher.block, *limits, "CUDA")
        inst = launcher.instance
        if inst is not None:
            if constexprs:
                raise error("launch-instance-constexprs", instance=inst.name)
        else:
            if len(args) != len(self.signature.runtime):
                self._bad_count(args)
            inst = self.instance_for(args, constexprs)
        block = launcher.block
        if launcher.follows:
            block = (inst.constexprs[self.block_option],)
            check_block(self.name, block, *limits, "CUDA")
        check_tied_block(self, block, inst)
        if block is not None:
            check_launch_bounds(self.name, block, self.options, inst.constexprs)
        raise no_gpu(self.name, exc) from None

    def _make_plan(self, launcher, args, constexprs, device):

        if launcher.block is not None:
            self._check_block(launcher.block, device)
        runtime = self.signature.runtime
        if len(args) < len(runtime):
            self._bad_count(args)
        inst = launcher.instance
        if inst is None:
            inst = self.instance_for(args, constexprs)
            self._warn_many(inst)
        # One plan (one loaded module) per instance and device, however the
        # constexprs were spelt.
        plan = self._plans.get((inst.name, device))
        if plan is None:
            plan = self._plans[(inst.name, device)] = LaunchPlan(self, inst, device)
        return plan

    def _check_block(self, block, device):

        limits = max_threads_per_block(device), max_block_dims(device)
        check_block(self.name, block, *limits, f"device {device}")

    def _bad_count(self, args):
        names = ", ".join(p.name for p in self.signature.runtime)
        raise error(
            "launch-arg-count",
            kernel=self.name,
            n=len(self.signature.runtime),
            names=names,
            got=len(args),
        )

    def _warn_many(self, inst):

        instances = list(self._instances.values())  # other threads may add some
        for name in inst.constexprs:
            seen = {i.constexprs[name] for i in instances}
            if len(seen) > MANY_INSTANCES and name not in self._warned:
                self._warned.add(name)
                warn_user(
                    f"kernel '{self.name}' has been compiled for {len(seen)} values of "
                    f"constexpr '{name}': each value is a separate compilation. If it "
                    f"varies with the data (a length, a size), make it a run-time "
                    f"argument instead",
                    ManyInstancesWarning,
                )

    def __repr__(self) -> str:
        return f"<kdsl.kernel {self.name}>"


_MAX_LAUNCHERS = 256


class Interpreted:
    """``kernel.interpret`` (or ``inst.interpret``): launches on the CPU."""

    def __init__(self, kernel, instance=None):
        self.kernel, self.instance = kernel, instance

    @user_facing
    def __call__(self, *args, **kwargs):
        if self.instance is None:
            subject, how = f"kernel '{self.kernel.name}'", self.kernel.name
        else:
            subject, how = f"instance {self.instance.name}", "instance"
        raise error("kernel-called", subject=subject, how=f"{how}.interpret")

    @user_facing
    def __getitem__(self, config):
        inst = self.instance
        how = f"{inst.name if inst is not None else self.kernel.name}.interpret"
        grid, block, follows = launch_config(self.kernel, config, inst, how)

        @user_facing
        def launch(*args, **constexprs):
            self.kernel._interpret(grid, block, args, constexprs, inst, follows)

        return launch


def _launcher(cache: dict, kernel, config, instance):
    """``kernel[grid, block]``: the same Launcher (and its plans) for the
    same configuration; callable grids are not cached."""
    if os.environ.get("KDSL_INTERPRET") == "1":  # run on the CPU (SPEC section 9)
        return _interpreted_launch(kernel, config, instance)
    launcher = Launcher(kernel, config, instance)
    if not callable(launcher.grid):
        if len(cache) >= _MAX_LAUNCHERS:
            cache.clear()
        try:
            cache[config] = launcher
        except TypeError:
            pass
    return launcher


class _SeenLaunch:
    """What a launch hook reads of a Launcher, for a launch that
    KDSL_INTERPRET sends to the interpreter."""

    __slots__ = ("kernel", "grid", "block", "follows", "instance")

    def __init__(self, kernel, config, instance):
        how = instance.name if instance is not None else kernel.name
        grid, block, self.follows = launch_config(kernel, config, instance, how)
        self.kernel, self.instance = kernel, instance
        self.grid = grid if callable(grid) else grid_dims(grid)
        self.block = dim3(block, "block") if block is not None else None


def _interpreted_launch(kernel, config, instance):
    """``kernel[grid, block]`` under KDSL_INTERPRET: the interpreter runs it,
    unless a launch hook (kdsl.torch recording or skipping launches) is set
    when it is called."""
    interpreted = Interpreted(kernel, instance)[config]

    @user_facing
    def launch(*args, **constexprs):
        if INTERCEPT.hook is not None:
            stream = constexprs.pop("stream", None)
            shared_mem = constexprs.pop("shared_mem", 0)
            seen = _SeenLaunch(kernel, config, instance)
            return INTERCEPT.hook(seen, args, stream, shared_mem, constexprs)
        return interpreted(*args, **constexprs)

    return launch


class ManyInstancesWarning(UserWarning):
    """One constexpr has taken many values: many compilations."""


def check_constexpr(kernel_name, spec, value):
    """A constexpr value checked against its declared kind (int, bool, float)."""
    kind = spec.spec.kind
    ok = isinstance(value, kind) and (kind is bool or not isinstance(value, bool))
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        try:
            value, ok = float(value), True
        except OverflowError:  # an int beyond every float: refused below
            pass
    if not ok:
        raise error(
            "constexpr-value",
            name=spec.name,
            kernel=kernel_name,
            kind=kind.__name__,
            value=repr(value),
        )
    return value


class HostBackward:
    """A backward given as a host function (``kdsl.host_backward(fn)``):
    a Python function that launches kernels, for a gradient that one
    launch with the forward's grid cannot compute (several passes, other
    grids).  ``kdsl.torch`` calls it with its parameters matched by name as
    a backward kernel's are (docs/pytorch.md), plus the forward instance's
    constexprs that it names."""

    __slots__ = ("fn", "name", "params")

    def __init__(self, fn):
        import inspect

        self.fn = fn
        self.name = getattr(fn, "__name__", repr(fn))
        self.params = tuple(inspect.signature(fn).parameters)

    def __call__(self, *args):
        return self.fn(*args)

    def __repr__(self) -> str:
        return f"<kdsl.host_backward {self.name}>"


def host_backward(fn) -> HostBackward:
    """Mark ``fn`` as a host backward for ``@kdsl.kernel(backward=...)``."""
    if not callable(fn) or isinstance(fn, Kernel):
        raise error("host-backward-not-function", got=f"a {type(fn).__name__}")
    return HostBackward(fn)


@user_facing
def kernel(
    fn=None,
    *,
    dtypes=None,
    backward=None,
    debug=None,
    launch_bounds=None,
    maxrregcount=None,
    block=None,
    contract=False,
    no_overflow=False,
    **unknown,
):
    """Decorator: ``@kdsl.kernel`` or ``@kdsl.kernel(dtypes=[...], backward=k,
    debug=True, launch_bounds=(threads, min_blocks), maxrregcount=n,
    block="BLOCK", contract=True, no_overflow=True)``.  ``block=`` names the Constexpr[int] parameter a block's
    thread count follows (``k[grid](...)`` launches with BLOCK threads and
    any other block is refused), or gives the block of ``k[grid](...)``;
    ``contract=True`` fuses ``a * b + c`` into fma by kdsl's rule
    (docs/language.md, "Contraction"); ``no_overflow=True`` states that
    its signed ``+ - *`` never overflow, as C's int arithmetic may not
    (docs/language.md, "Facts"; checked by the interpreter)."""
    options = dict(
        dtypes=dtypes,
        backward=backward,
        debug=debug,
        launch_bounds=launch_bounds,
        maxrregcount=maxrregcount,
        block=block,
        contract=contract,
        no_overflow=no_overflow,
    )
    if unknown:
        return _refuse_option(fn, next(iter(unknown)), list(options))
    if fn is None:
        return user_facing(lambda f: Kernel(f, **options))
    return Kernel(fn, **options)


def _refuse_option(fn, option: str, accepted: list):
    """A misspelt ``@kdsl.kernel(option=...)``: E475 at the keyword, with the
    nearest option's name (located once the decorated function is known)."""
    import difflib

    close = difflib.get_close_matches(option, accepted, n=1)
    hint = f"; did you mean {close[0]}=?" if close else ""

    def refuse(f):
        err = error(
            "kernel-unknown-option",
            kernel=getattr(f, "__name__", repr(f)),
            option=option,
            hint=hint,
            accepted=", ".join(accepted),
        )
        if callable(f) and hasattr(f, "__code__"):
            raise DefSite(f).locate(err, keyword=option) from None
        raise err

    return refuse if fn is None else refuse(fn)


def debug_build(debug) -> bool:
    """Whether a kernel compiles its assert statements: ``debug=`` if given,
    else whether ``KDSL_DEBUG=1`` is set when the kernel is defined."""
    if debug is None:
        return os.environ.get("KDSL_DEBUG") == "1"
    return bool(debug)
