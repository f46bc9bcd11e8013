"""kdsl kernels as PyTorch operators: ``torch.compile``, autograd and CUDA
graphs from one decorator (docs/pytorch.md).

    import kdsl.torch

    @kdsl.torch.op("mylib::gelu")
    def gelu(x: torch.Tensor) -> torch.Tensor:
        y = torch.empty_like(x)
        gelu_kernel[blocks(x.numel(), 256), 256](x, y, x.numel())
        return y

The function allocates its outputs and launches kdsl kernels; ``op`` makes it
a ``torch.library.custom_op``:

* its fake (meta) implementation is the same function run with every kdsl
  launch skipped: the outputs it allocates give PyTorch their shapes and
  dtypes, so ``torch.compile(fullgraph=True)`` keeps it in one graph;
* its backward comes from the kernel's pairing (``@kdsl.kernel(backward=k)``):
  each parameter of the backward kernel is a parameter of the forward kernel
  (the same argument, saved for backward) or ``grad_<name>`` — the incoming
  gradient when ``<name>`` received an output of the op, the gradient to
  compute (zero-filled, then written by the kernel; in the parameter's own
  dtype when it has one, ``Pointer[Float64]`` for a sum over rows, and
  rounded to the input's dtype after) when it received an input (``None`` when ``<name>`` received ``None``: an optional pointer
  left out).  A launch argument counts as an input or output when it is one
  or a contiguous view of all of its elements (``x.view(-1, cols)``).
  The backward kernel is launched with the forward launch's grid,
  block and constexprs, as an operator of its own (``<name>_backward``), so
  compiled graphs keep it too.  A host backward
  (``backward=kdsl.host_backward(fn)``) is called instead, its parameters
  matched the same way (and the forward instance's constexprs by name), for
  gradients that take launches of their own grids; a ``kdsl.TensorMap``
  argument stands for the tensor it was built on;
* on CPU tensors every launch runs in kdsl's interpreter (on views of the
  tensors' memory), so the operator, its gradient and ``gradcheck`` work
  without a GPU.

Launches on CUDA tensors go to PyTorch's current stream unless ``stream=`` is
given (kdsl.runtime.launch), so they can be captured in ``torch.cuda.graph``
once a first call outside the capture has compiled and loaded the kernels.

An eager call that nothing traces, fakes or records (``_direct``) skips the
dispatcher: it runs the function itself, or, when a gradient is needed, one
``torch.autograd.Function`` (``_Differentiable``) whose backward plan is kept
per input signature (its backward, on one GPU, a function generated for the
plan: _fast_backward); the dispatcher's autograd-key kernels do the same for
plain tensors (_short_cut).  Below autograd, the operator's CUDA and CPU
kernels are the function itself; a graph Inductor compiles calls the
function without the dispatcher (_inductor_call).  With ``replay=True`` each
of those runs a signature's recorded launches instead of the function, once
two recorded calls agree (Op._call, _replay_function), on the GPU compiled
where the host can build runtime/native.c (_native_replay).
docs/pytorch.md, "What a call costs".
"""

from __future__ import annotations

import functools
import importlib
import inspect
import json
import struct
import sys
import threading
from contextlib import contextmanager
from dataclasses import dataclass

import torch
from torch.autograd.function import once_differentiable

from kdsl.runtime import launch as _launch
from kdsl.runtime.kernel import HostBackward
from kdsl.runtime.tensormap import TensorMapArg
from kdsl.runtime.checks import grid_dims
from kdsl.runtime import errors as _errors  # noqa: F401 - registers the entries
from kdsl.transpile.errors import error

__all__ = ["op", "Op", "blocks"]


def blocks(n: int, per_block: int) -> int:
    """The number of blocks of ``per_block`` that cover ``n`` (at least 1)."""
    return max(1, (n + per_block - 1) // per_block)


# -- launches taken by a hook ---------------------------------------------------------
@dataclass
class Launch:
    """One kdsl launch seen while a hook was set."""

    launcher: object  # kdsl.runtime.launch.Launcher: kernel, grid, block, instance
    args: tuple
    shared_mem: int
    constexprs: dict
    stream: object = None


@contextmanager
def _intercepting(hook):
    previous = _launch.INTERCEPT.hook
    _launch.INTERCEPT.hook = hook
    try:
        yield
    finally:
        _launch.INTERCEPT.hook = previous


def _recorded(fn, args, kwargs=None) -> tuple:
    """Run ``fn(*args, **kwargs)`` launching nothing: ``(its outputs as a
    tuple, the launches it made)``."""
    seen = []

    def record(launcher, largs, stream, shared_mem, constexprs):
        seen.append(Launch(launcher, largs, shared_mem, constexprs))

    with torch.no_grad(), _intercepting(record):
        out = fn(*args, **(kwargs or {}))
    return (out if isinstance(out, tuple) else (out,)), seen


def _host_view(value):
    """A numpy view of a CPU tensor's memory (the interpreter writes through
    it); anything else as it is."""
    if not isinstance(value, torch.Tensor):
        return value
    if value.device.type != "cpu":
        raise error("torch-mixed-devices", device=str(value.device))
    value = value.detach()
    if value.dtype == torch.bfloat16:
        import ml_dtypes

        return value.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return value.numpy()


def _interpret(launcher, args, stream, shared_mem, constexprs):
    """A hook: the launch runs in the interpreter, on the tensors' memory."""
    if shared_mem:
        constexprs = {**constexprs, "shared_mem": shared_mem}
    host = [_host_view(a) for a in args]
    launcher.kernel._interpret(
        launcher.grid,
        launcher.block,
        host,
        constexprs,
        launcher.instance,
        launcher.follows,
    )


def _on_host(args) -> bool:
    for a in args:
        if isinstance(a, torch.Tensor):
            return a.device.type == "cpu"
        if isinstance(a, (list, tuple)):
            for t in a:
                if isinstance(t, torch.Tensor):
                    return t.device.type == "cpu"
    return False


def _run(fn, *args, **kwargs):
    """``fn(*args, **kwargs)``: its launches run on the GPU, or in the
    interpreter when the tensors are on the CPU."""
    if _on_host((*args, *kwargs.values())):
        with _intercepting(_interpret):
            return fn(*args, **kwargs)
    return fn(*args, **kwargs)


# -- the backward plan -----------------------------------------------------------------
@dataclass(frozen=True)
class Plan:
    """How the backward kernel is launched, from one forward launch.

    ``sources`` gives each backward argument: ``("saved", i)``,
    ``("grad", j)`` (the j-th incoming gradient used), ``("new", k)`` (the
    k-th gradient computed), ``("none", 0)`` (``None``: a forward argument
    left out, or the gradient of one), ``("const", value)`` (a host
    backward's parameter named like a constexpr of the forward instance),
    ``("int", k)`` / ``("float", k)`` (scalars: the
    backward operator is given them, after the grid, as arguments rather than
    constants of the plan, so one plan serves every size);
    ``new_like`` the saved tensor each computed gradient copies the shape of,
    ``new_input`` the operator input it is the gradient of, ``new_dtype``
    the dtype it is computed in (a ``torch`` dtype name: the backward
    parameter's own dtype, ``Pointer[Float64]``, when it is not a dtype
    parameter; ``None``: the input's) and rounded from, ``new_empty``
    whether the kernel writes it whole (the operator's ``overwrites``: no
    zero fill); ``grad_output``
    which operator outputs the used incoming gradients belong to;
    ``forward`` the paired forward kernel (whose ``backward`` ``kernel``
    is: the plan's name starts with its module and qualified name)."""

    kernel: object
    forward: object
    block: tuple
    constexprs: tuple
    shared_mem: int
    sources: tuple
    new_like: tuple
    new_input: tuple
    new_dtype: tuple
    new_empty: tuple
    grad_output: tuple

    @functools.cached_property
    def coded(self) -> tuple:
        """``sources`` with each pool by its position in _backward_launch."""
        return tuple((_POOLS.get(kind, _CONST), k) for kind, k in self.sources)

    @functools.cached_property
    def keywords(self) -> dict:
        return dict(self.constexprs)


# A plan's name is the backward operator's argument, which a compiled graph
# holds and Inductor's cache hands to later processes: it is the plan itself,
# written out (the forward kernel by module and qualified name, the rest as
# JSON), so that any process can rebuild the plan it names.
_PLANS: dict = {}  # name -> Plan
_KEYS: dict = {}  # Plan -> name
_NAMING = threading.Lock()  # two threads' new plans get two names


def _name(plan: Plan) -> str:
    """The name of ``plan`` (made and kept the first time it is asked)."""
    name = _KEYS.get(plan)
    if name is not None:
        return name
    with _NAMING:
        name = _KEYS.get(plan)
        if name is None:
            fn = plan.forward.definition.fn
            fields = [getattr(plan, f) for f in _PLAN_FIELDS]
            # (a value JSON has no form for is written as its repr: such a
            # plan is rebuilt in no other process, E537)
            name = base = f"{fn.__module__}:{fn.__qualname__} " + json.dumps(
                fields, separators=(",", ":"), default=repr
            )
            n = 1
            while name in _PLANS:  # another kernel of that name (made in a function):
                n += 1  # a name of this process only
                name = f"{base} #{n}"
            _PLANS[name] = plan
            _KEYS[plan] = name
        return name


_PLAN_FIELDS = (
    "block",
    "constexprs",
    "shared_mem",
    "sources",
    "new_like",
    "new_input",
    "new_dtype",
    "new_empty",
    "grad_output",
)


def _named(name: str) -> Plan:
    """The plan ``name`` names: this process's, or rebuilt from the name (a
    compiled graph from Inductor's cache, made by another process)."""
    plan = _PLANS.get(name)
    if plan is not None:
        return plan
    ref, _, text = name.partition(" ")
    module, _, qualname = ref.partition(":")
    try:
        forward = sys.modules.get(module) or importlib.import_module(module)
        for part in qualname.split("."):
            forward = getattr(forward, part)
        values = _tuples(json.loads(text))
        plan = Plan(forward.backward, forward, **dict(zip(_PLAN_FIELDS, values)))
        if plan.kernel is None or _name(plan) != name:
            raise ValueError("the kernel found there makes another plan")
    except Exception as exc:  # noqa: BLE001 - said in the error
        raise error(
            "torch-plan-unknown",
            kernel=ref,
            why=f"{type(exc).__name__}: {exc}",
        ) from None
    return plan


def _tuples(value):
    """JSON's lists as tuples, all the way down."""
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    return value


def _same(tensor, arg) -> bool:
    """Whether a launch argument is ``tensor``: the tensor itself, or a
    contiguous view of the same elements in the same order
    (``x.view(-1, cols)`` of a contiguous ``x``), which a kernel taking a
    pointer cannot tell apart from it."""
    if not isinstance(tensor, torch.Tensor):
        return False
    if arg is tensor:
        return True
    base = tensor._base if tensor._base is not None else tensor
    return (
        arg._base is base
        and arg.storage_offset() == tensor.storage_offset()
        and arg.numel() == tensor.numel()
        and arg.dtype == tensor.dtype
        and arg.is_contiguous()
        and tensor.is_contiguous()
    )


def _plan(op_name, inputs, outputs, launches, real_outputs=None, overwrites=()):
    """``(Plan, saved tensors, ints, floats)`` for the one forward launch
    whose kernel has a backward kernel; ``outputs`` are those the launches
    saw, ``real_outputs`` (default: the same) those saved for backward;
    ``overwrites`` the backward's gradient parameters allocated without
    their zero fill."""
    real_outputs = outputs if real_outputs is None else real_outputs
    paired = [r for r in launches if r.launcher.kernel.backward is not None]
    if not paired:
        kernels = ", ".join(sorted({r.launcher.kernel.name for r in launches}))
        raise error("torch-no-backward", op=op_name, kernels=kernels or "no kernel")
    if len(paired) > 1:
        raise error(
            "torch-several-backward",
            op=op_name,
            kernels=", ".join(r.launcher.kernel.name for r in paired),
        )
    (fwd,) = paired
    kernel, backward = fwd.launcher.kernel, fwd.launcher.kernel.backward
    names = [p.name for p in kernel.signature.runtime]
    role = {}  # forward parameter -> ("input", i) / ("output", j) / ("value", v)
    for name, arg in zip(names, fwd.args):
        if isinstance(arg, TensorMapArg):  # a TMA map stands for its tensor
            arg = arg.array
        if isinstance(arg, torch.Tensor):
            where = [("input", i) for i, t in enumerate(inputs) if _same(t, arg)]
            where += [("output", j) for j, t in enumerate(outputs) if _same(t, arg)]
            if not where:
                raise error(
                    "torch-intermediate", op=op_name, kernel=kernel.name, param=name
                )
            role[name] = where[0]
        else:
            role[name] = ("value", arg)
    saved, saved_at, ints, floats = [], {}, [], []
    grads, news, new_input, new_dtype, new_empty = [], [], [], [], []
    sources = []

    def save(t):
        if id(t) not in saved_at:
            saved_at[id(t)] = len(saved)
            saved.append(t)
        return saved_at[id(t)]

    host = isinstance(backward, HostBackward)
    if host:  # a function's parameters: by name; constexprs of the instance too
        params = [_Named(n) for n in backward.params]
        launcher = fwd.launcher
        inst = launcher.instance or kernel.instance_for(fwd.args, fwd.constexprs)
        constexprs = dict(inst.constexprs)
    else:
        params, constexprs = backward.signature.runtime, {}
    for p in params:
        name = p.name
        of = role.get(name[5:], ("",))
        if name in constexprs and name not in role:
            sources.append(("const", constexprs[name]))
        elif name.startswith("grad_") and of[0] == "value" and of[1] is None:
            sources.append(("none", 0))  # an absent tensor (None) has none
        elif name.startswith("grad_") and role.get(name[5:], ("",))[0] in (
            "input",
            "output",
        ):
            kind, k = role[name[5:]]
            if kind == "output":
                grads.append(k)
                sources.append(("grad", len(grads) - 1))
            else:
                news.append(save(inputs[k]))
                new_input.append(k)
                new_dtype.append(_fixed_dtype(p))
                new_empty.append(name in overwrites)
                sources.append(("new", len(news) - 1))
        elif name in role:
            kind, v = role[name]
            if kind == "input":
                sources.append(("saved", save(inputs[v])))
            elif kind == "output":
                sources.append(("saved", save(real_outputs[v])))
            elif v is None:  # an optional pointer left out: None again
                sources.append(("none", 0))
            elif isinstance(v, bool) or not isinstance(v, (int, float, torch.SymInt)):
                raise error(
                    "torch-backward-argument",
                    op=op_name,
                    kernel=kernel.name,
                    param=name,
                    got=type(v).__name__,
                )
            elif isinstance(v, float):
                floats.append(v)
                sources.append(("float", len(floats) - 1))
            else:
                ints.append(v)
                sources.append(("int", len(ints) - 1))
        else:
            raise error(
                "torch-backward-unmatched",
                backward=backward.name,
                param=name,
                kernel=kernel.name,
                params=", ".join(names),
            )
    computed = {p.name for p, (kind, _) in zip(params, sources) if kind == "new"}
    if not computed.issuperset(overwrites):
        raise error(
            "torch-overwrites-unknown",
            op=op_name,
            names=", ".join(sorted(set(overwrites) - computed)),
            backward=backward.name,
            computed=", ".join(sorted(computed)) or "none",
        )
    launcher = fwd.launcher
    grid, block = launcher.grid, launcher.block
    if callable(grid) or launcher.follows:  # from this launch's constexprs
        inst = launcher.instance or kernel.instance_for(fwd.args, fwd.constexprs)
        if callable(grid):
            grid = grid_dims(grid(inst.constexprs), "grid()")
        if launcher.follows:  # block="BLOCK"
            block = (inst.constexprs[kernel.block_option],)
    plan = Plan(
        kernel=backward,
        forward=kernel,
        block=tuple(block),
        constexprs=tuple(sorted(fwd.constexprs.items())),
        shared_mem=fwd.shared_mem,
        sources=tuple(sources),
        new_like=tuple(news),
        new_input=tuple(new_input),
        new_dtype=tuple(new_dtype),
        new_empty=tuple(new_empty),
        grad_output=tuple(grads),
    )
    return plan, saved, [len(grid), *grid, *ints], floats


def _planned_backward(planned, plan, saved, grads):
    """_backward_launch for a plan the fast path keeps: its launcher (the
    grid is the signature's) looked up once."""
    news = [
        _gradient(saved[i], d, empty)
        for i, d, empty in zip(plan.new_like, planned.new_dtypes, plan.new_empty)
    ]
    pools = (saved, grads, news, planned.scalars, planned.floats, _NONE)
    args = _arguments(plan, pools)
    if isinstance(plan.kernel, HostBackward):  # it launches what it needs
        plan.kernel(*args)
        return [n.to(saved[i].dtype) for n, i in zip(news, plan.new_like)]
    packer = planned.__dict__.get("packer")
    if packer is not None and _launch.INTERCEPT.hook is None:
        launch, grid, block = packer
        launch(grid, block, args, None, plan.shared_mem)
    else:
        launcher = planned.launcher
        launcher(*args, shared_mem=plan.shared_mem, **plan.keywords)
        if _launch.INTERCEPT.hook is None:  # launched on the GPU: its packer
            planned.__dict__["packer"] = _packer(launcher, args, plan.keywords)
    dtypes = [saved[i].dtype for i in plan.new_like]
    return [n if n.dtype == d else n.to(d) for n, d in zip(news, dtypes)]


def _fast_backward(planned, plan, saved, grads, packer, n_inputs):
    """The backward of a kept plan on the GPU as one generated function of
    the saved tensors and the incoming gradients: the gradients allocated,
    the kernel launched through the packer its first launch used (or both
    compiled: _native_backward), the gradients rounded to their inputs'
    dtypes (all fixed by the input signature), returned in the inputs'
    places.  ``saved``, ``grads``: a first backward's."""
    launch, grid, block = packer
    env = {
        "_launch": launch,
        "_grid": grid,
        "_block": block,
        "_empty_like": torch.empty_like,
        "_zeros_like": torch.zeros_like,
    }
    lines = ["def backward(saved, grad_outputs):"]
    if saved:
        names = ", ".join(f"s{i}" for i in range(len(saved)))
        lines.append(f"    {names}{',' if len(saved) == 1 else ''} = saved")
    for k, j in enumerate(plan.grad_output):
        lines.append(f"    g{k} = grad_outputs[{j}].contiguous()")
    news = [f"n{k}" for k in range(len(plan.new_like))]
    native = _native_backward(planned, plan, saved, grads, packer)
    indent = "    "
    if native is not None:
        env["_native"] = native
        inputs = [f"s{i}" for i in range(len(saved))]
        inputs += [f"g{k}" for k in range(len(plan.grad_output))]
        lines += [
            f"    made = _native(({', '.join(inputs)},))",
            "    if made is not None:",
            f"        {', '.join(news)}, = made",
            "    else:  # (an address not aligned as the kernel needs: it says so)",
        ]
        indent = "        "
    for k, (i, dtype, empty) in enumerate(
        zip(plan.new_like, planned.new_dtypes, plan.new_empty)
    ):
        make = "_empty_like" if empty else "_zeros_like"
        if dtype is None:
            lines.append(f"{indent}n{k} = {make}(s{i})")
        else:
            env[f"_dtype{k}"] = dtype
            lines.append(f"{indent}n{k} = {make}(s{i}, dtype=_dtype{k})")
    pools = ("s", "g", "n")
    values = (None, None, None, planned.scalars, planned.floats, _NONE)
    args = []
    for m, (kind, k) in enumerate(plan.coded):
        if 0 <= kind < len(pools):
            args.append(f"{pools[kind]}{k}")
        else:
            env[f"_c{m}"] = k if kind == _CONST else values[kind][k]
            args.append(f"_c{m}")
    lines.append(
        f"{indent}_launch(_grid, _block, ({', '.join(args)},), None,"
        f" {plan.shared_mem})"
    )
    out = ["None"] * n_inputs
    for k, i in enumerate(plan.new_input):
        want = saved[plan.new_like[k]].dtype
        if planned.new_dtypes[k] in (None, want):
            out[i] = f"n{k}"
        else:  # (a sum kept in Float64, rounded to the input's dtype)
            env[f"_input_dtype{k}"] = want
            out[i] = f"n{k}.to(_input_dtype{k})"
    lines.append(f"    return [{', '.join(out)}]")
    name = f"<kdsl backward {plan.kernel.name}>"
    return _launch.generated(lines, name, env, "backward")


def _native_backward(planned, plan, saved, grads, packer):
    """The compiled replay (runtime/native.c) of a kept plan's backward: of
    the saved tensors and the incoming gradients (made contiguous), the
    gradients allocated as _fast_backward allocates them and the kernel
    launched; None where there is none (see _native_replay)."""
    driver = getattr(packer[0], "driver", None)
    module = _native_module() if driver is not None else None
    if module is None:
        return None
    tensors = [*saved, *grads]
    inputs = [
        ("tensor", t.dtype, t.shape, t.stride(), t.is_cuda, t.requires_grad)
        for t in tensors
    ]
    outputs = []
    for i, dtype, empty in zip(plan.new_like, planned.new_dtypes, plan.new_empty):
        make = torch.empty_like if empty else torch.zeros_like
        outputs.append((i, make, (), {} if dtype is None else {"dtype": dtype}))
    values = (None, None, None, planned.scalars, planned.floats, _NONE)
    # saved tensors and gradients are the replay's inputs, new ones its outputs
    places = {0: (0, 0), 1: (0, len(saved)), 2: (1, 0)}
    roles = []
    for kind, k in plan.coded:
        if kind in places:
            role, first = places[kind]
            roles.append((role, first + k))
        else:
            roles.append((_CONST, k if kind == _CONST else values[kind][k]))
    spec = _native_launch(driver, roles, packer[1], packer[2])
    if spec is None:
        return None
    launch = (*spec[:3], plan.shared_mem, *spec[3:])
    device = tensors[0].device.index if tensors else 0
    return module.Replay(
        tuple(inputs), tuple(outputs), (launch,), True, device or 0, None
    )


def _gradient(like, dtype, written):
    """A gradient buffer shaped like ``like``: zero-filled, or, when the
    backward kernel writes every element (``written``), uninitialised on the
    GPU and NaN on the CPU (where the interpreter runs the kernel, so that
    an element it skips shows)."""
    if not written:
        return torch.zeros_like(like, dtype=dtype)
    if like.is_cuda:
        return torch.empty_like(like, dtype=dtype)
    return torch.full_like(like, float("nan"), dtype=dtype)


def _packer(launcher, args, constexprs):
    """``(the generated launch function, grid, block)`` that ``launcher``
    used for these arguments (kdsl.runtime.launch keeps them per dtype,
    device and keywords), or None."""
    i = launcher.dt_index
    if i is None or callable(launcher.grid):
        return None
    try:
        dt = args[i].dtype if i >= 0 else None
        device = _launch._get_device()
        if constexprs or launcher.optional_at:
            key = launcher._keyed(dt, device, args, constexprs)
            launch, block = launcher.plans[key]
        else:
            launch = launcher.plans[(getattr(dt, "num", dt), device)]
            block = launcher.block
    except Exception:  # noqa: BLE001 - not kept: the launcher each time
        return None
    return launch, launcher.grid, block


def _backward_launch(saved, grads, plan, ints, floats):
    """The backward operator's body: the gradients it computes (``plan``: the
    plan's name)."""
    plan = _named(plan)
    news = [
        _gradient(saved[i], None if d is None else getattr(torch, d), empty)
        for i, d, empty in zip(plan.new_like, plan.new_dtype, plan.new_empty)
    ]
    pools = (saved, grads, news, ints[1 + ints[0] :], floats, _NONE)
    args = _arguments(plan, pools)
    if isinstance(plan.kernel, HostBackward):  # it launches what it needs
        plan.kernel(*args)
        return [n.to(saved[i].dtype) for n, i in zip(news, plan.new_like)]
    grid = tuple(int(g) for g in ints[1 : 1 + ints[0]])
    plan.kernel[grid, plan.block](*args, shared_mem=plan.shared_mem, **plan.keywords)
    dtypes = [saved[i].dtype for i in plan.new_like]
    return [n if n.dtype == d else n.to(d) for n, d in zip(news, dtypes)]


_POOLS = {"saved": 0, "grad": 1, "new": 2, "int": 3, "float": 4, "none": 5}
_CONST = -1  # ("const", value): the value itself
_NONE = (None,)
_NO_DEFAULT = object()  # a parameter without a default (Op.positional)


def _arguments(plan, pools) -> list:
    """The backward's arguments: each ``plan.coded`` source from its pool
    (saved, grad, new, int, float, none), a constant as it is."""
    return [k if kind == _CONST else pools[kind][k] for kind, k in plan.coded]


@dataclass(frozen=True)
class _Named:
    """A host backward's parameter: only its name matters."""

    name: str


_TORCH_DTYPES = {
    "Float16": "float16",
    "BFloat16": "bfloat16",
    "Float32": "float32",
    "Float64": "float64",
}


def _fixed_dtype(param):
    """The ``torch`` dtype name of a backward pointer parameter with a dtype
    of its own (``grad_weight: Pointer[Float64]``: a sum kept wider than
    the input), or None (a dtype parameter: the input's dtype)."""
    elem = getattr(getattr(param, "spec", None), "elem", None)
    return _TORCH_DTYPES.get(getattr(elem, "__name__", None))


# -- the decorator ---------------------------------------------------------------------
class Op:
    """A PyTorch operator made of a function that launches kdsl kernels.
    Call it like the function; ``.op`` is the ``torch.library`` operator."""

    def __init__(self, name: str, fn, mutates_args=(), replay=False, overwrites=()):
        self.name, self.fn = name, fn
        functools.update_wrapper(self, fn)
        # replay=True: each input signature's launches, once two recorded
        # calls agree, are replayed without the function (_call)
        self.replay = bool(replay) and not mutates_args
        self.replays: dict = {}  # input signature -> replay function / record state
        # the compiled GPU replays of positional signatures, which a call
        # tests itself (runtime/native.c: _native_replay, Op.__call__)
        self.native: list = []
        # backward parameters the backward kernel writes whole: not zero-filled
        self.overwrites = frozenset(
            [overwrites] if isinstance(overwrites, str) else overwrites
        )
        # the eager fast path (_direct): functional operators only, whose
        # keyword arguments are the function's keyword-only parameters
        self.direct = not mutates_args
        params = inspect.signature(fn).parameters.values()
        self.keyword_only = frozenset(
            p.name for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY
        )
        # the others a caller may name: (name, default or _NO_DEFAULT) in order
        self.positional = tuple(
            (p.name, _NO_DEFAULT if p.default is p.empty else p.default)
            for p in params
            if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
        )
        self.plans: dict = {}  # input signature -> _Planned (the fast path's)

        @functools.wraps(fn)
        def forward(*args, **kwargs):  # kwargs: the keyword-only parameters
            return _run(fn, *args, **kwargs)

        self.op = torch.library.custom_op(name, mutates_args=mutates_args)(forward)
        # (what a traced call holds: the overload itself, fewer guards than
        # custom_op's wrapper around it)
        self.overload = self.op._opoverload

        self.op.register_fake(self._fake)
        self.backward_op = torch.library.custom_op(f"{name}_backward", mutates_args=())(
            _backward_op_body
        )
        self.backward_op.register_fake(_backward_op_fake)
        if not mutates_args:  # PyTorch differentiates functional operators only
            self.op.register_autograd(self._backward, setup_context=self._setup)
        # What the dispatcher calls below autograd (a compiled graph's call
        # of the operator, too): the function itself, without custom_op's
        # generic wrapper around it (a dynamo-disabled frame and an aliasing
        # check, most of its cost); one registration a device type.
        namespace, opname = name.split("::")
        self.lib = torch.library.Library(namespace, "FRAGMENT")
        on_cuda, on_cpu = fn, _interpreted(fn)
        if self.replay:  # the same, replayed where they can be
            on_cuda, on_cpu = self._replaying("cuda"), self._replaying("cpu")
        for key, call in (("CUDA", on_cuda), ("CPU", on_cpu)):
            self.lib.impl(opname, call, key)
        for key, call in (
            ("CUDA", _backward_launch),
            ("CPU", _interpreted(_backward_launch)),
        ):
            self.lib.impl(f"{opname}_backward", call, key)
        # Above them, custom_op's autograd layer (Python, on the Autograd key)
        # redispatches even when no gradient is needed, as in a compiled
        # graph; for plain tensors that need none, the kernels below call
        # the function at once, and give everything else to that layer.
        layer = _autograd_layer(self.op)
        if layer is not None and not mutates_args:
            for key, call in (("AutogradCUDA", on_cuda), ("AutogradCPU", on_cpu)):
                self.lib.impl(
                    opname, _short_cut(layer, call, self), key, with_keyset=True
                )
        # Under torch.compile, Inductor's generated code calls these same
        # functions itself, not the operator (_inductor_call)
        if not mutates_args:
            _direct_calls(self.op._opoverload, fn, on_cuda if self.replay else None)
        _direct_calls(self.backward_op._opoverload, _backward_launch)

    def _fake(self, *args, **kwargs):
        if _INDUCTOR_PENDING:  # (tracing: Inductor may lower the operator next)
            _inductor_register()
        outs, _ = _recorded(self.fn, args, kwargs)
        return outs if len(outs) > 1 else outs[0]

    def _setup(self, ctx, inputs, output, keyword_only_inputs=None):
        # (PyTorch passes keyword_only_inputs when the function has any)
        found = _inspect(inputs, keyword_only_inputs or {})  # plain tensors: a key
        real = output if isinstance(output, tuple) else (output,)
        key = found[2] if found is not None else None
        planned = self._planned(key, inputs, keyword_only_inputs, real)
        pools = (inputs, real)
        ctx.save_for_backward(*[pools[kind][i] for kind, i in planned.saved])
        ctx.kdsl = (planned.plan, planned.ints, planned.floats, len(inputs))

    def _backward(self, ctx, *grad_outputs):
        plan, ints, floats, n_inputs = ctx.kdsl
        grads = [grad_outputs[j].contiguous() for j in plan.grad_output]
        saved = list(ctx.saved_tensors)
        news = self.backward_op(saved, grads, _name(plan), ints, floats)
        out = [None] * n_inputs
        for k, i in enumerate(plan.new_input):
            out[i] = news[k]
        return tuple(out)

    def __call__(self, *args, **kwargs):
        if _compiling():  # a constant under dynamo: the graph holds the operator
            return self.overload(*args, **kwargs)
        if self.native and not kwargs:  # a compiled replay's signature: run it
            out = _NATIVE_CALL(self.native, args)
            if type(out) is _NATIVE_REPLAY:  # (a gradient needed: autograd's)
                return _apply(self, ("cuda", out.tag, out), kwargs, *args)
            if out is not None:
                return out
        found = _inspect(args, kwargs) if self.direct else None
        if found is None:  # traced, faked, in a mode: the operator
            return self.op(*args, **kwargs)
        device, grad, key = found
        if grad and torch.is_grad_enabled():
            if not self.keyword_only.issuperset(kwargs):  # inputs by keyword:
                placed = self._placed(args, kwargs)  # in their places
                found = None if placed is None else _inspect(*placed)
                if found is None:
                    return self.op(*args, **kwargs)
                (args, kwargs), key = placed, found[2]
            return _apply(self, (device, key, None), kwargs, *args)
        if self.replay:
            return self._call(device, args, kwargs, key)
        return self._plainly(device, args, kwargs)

    def _plainly(self, device, args, kwargs):
        """The function run on ``device``: on the GPU, or its launches in the
        interpreter (CPU tensors)."""
        if device == "cuda":
            return self.fn(*args, **kwargs)
        with _intercepting(_interpret):
            return self.fn(*args, **kwargs)

    def _placed(self, args, kwargs):
        """``(args, kwargs)`` with the arguments given by the name of a
        parameter that is not keyword-only moved to their positions (the
        defaults of those before them filled in), as the autograd node takes
        its inputs; None when some cannot be (a name the function does not
        have, a parameter without a default left out)."""
        args, kwargs = list(args), dict(kwargs)
        for name, default in self.positional[len(args) :]:
            if self.keyword_only.issuperset(kwargs):
                break
            if name in kwargs:
                args.append(kwargs.pop(name))
            elif default is not _NO_DEFAULT:
                args.append(default)
            else:
                return None
        if not self.keyword_only.issuperset(kwargs):
            return None
        return tuple(args), kwargs

    # -- replay=True ----------------------------------------------------------------
    def _call(self, device, args, kwargs, key):
        """The function's outputs for a call on ``device`` whose input
        signature is ``key`` (None: not replayed): the signature's replay
        where there is one, else the function (which records, while a
        signature is being learnt)."""
        try:
            entry = self.replays.get(key, _NEW) if key is not None else _NEVER
        except TypeError:  # an unhashable argument (a list): not replayed
            entry = _NEVER
        if _launch.INTERCEPT.hook is not None:  # inside a call being recorded,
            return self.fn(*args, **kwargs)  # faked or interpreted: its launches
        if type(entry) is _FunctionType:
            return entry((*args, *kwargs.values()) if kwargs else args)
        if entry is _NEVER or entry is _NEW or _launch.interpret_requested():
            if entry is _NEW and key is not None:
                self._keep(key, (None, 0))  # (after a first call: its searches run)
            return self._plainly(device, args, kwargs)
        return self._learn(device, key, entry, args, kwargs)

    def _learn(self, device, key, entry, args, kwargs):
        """Call the function, its launches recorded as they run; keep the
        signature's replay once two recorded calls agree (``_Recorded.same``),
        or _NEVER when a call cannot be replayed or _RECORDS calls disagree."""
        seen = []

        def record(launcher, largs, stream, shared_mem, constexprs):
            seen.append(Launch(launcher, largs, shared_mem, constexprs, stream))
            if device == "cpu":
                return _interpret(launcher, largs, stream, shared_mem, constexprs)
            with _intercepting(None):
                return launcher(
                    *largs, stream=stream, shared_mem=shared_mem, **constexprs
                )

        with _intercepting(record):
            out = self.fn(*args, **kwargs)
        inputs = (*args, *kwargs.values())
        previous, tries = entry
        recorded = _recorded_call(inputs, out, seen)
        if recorded is None:
            self._keep(key, _NEVER)
        elif previous is not None and previous.same == recorded.same:
            launches = [
                _replayed_launch(launcher, s.args, shared_mem, constexprs, device)
                for s, (launcher, _, shared_mem, constexprs) in zip(
                    seen, recorded.launches
                )
            ]
            native = (
                _native_replay(recorded, launches, key) if device == "cuda" else None
            )
            replay = _replay_function(
                self.name, recorded, launches, len(inputs), native
            )
            self._keep(key, replay)
            if native is not None and len(self.native) < _MAX_NATIVE:
                if all(e[0] == i for i, e in enumerate(key)):  # (positional)
                    self.native.append(native)  # (tested by the call itself)
        else:
            self._keep(key, (recorded, tries + 1) if tries + 1 < _RECORDS else _NEVER)
        return out

    def _keep(self, key, value) -> None:
        if key not in self.replays and len(self.replays) >= _MAX_PLANS:
            self.forget()
        self.replays[key] = value

    def forget(self) -> None:
        """Drop the replays learnt so far (Python and compiled): the next
        calls of each signature learn it again."""
        self.replays.clear()
        self.native.clear()

    def _replaying(self, device):
        """The function, replayed where it can be (the operator's CUDA or CPU
        kernel: the tensors are plain, of ``device``)."""

        @functools.wraps(self.fn)
        def run(*args, **kwargs):
            if self.native and not kwargs and device == "cuda":
                out = _NATIVE_CALL(self.native, args)
                if type(out) is _NATIVE_REPLAY:  # (below autograd: run it)
                    out = out(args)
                if out is not None:
                    return out
            found = _inspect(args, kwargs)  # (None: in a mode, or not plain)
            key = found[2] if found is not None and found[0] == device else None
            return self._call(device, args, kwargs, key)

        return run

    # -- the eager fast path's autograd (_Differentiable) ---------------------------
    def _forward_saving(self, ctx, where, args, kwargs):
        """The forward, run on ``where``'s device: its outputs, with what the
        backward needs saved on ``ctx``.  The plan is made from a recorded
        run of the function the first time an input signature (``where``'s
        key) is seen, then reused (a plan depends on what the signature
        fixes: shapes, strides, dtypes, devices, the values of the other
        arguments).  ``where``: ``(device, key, the compiled replay that
        matched the call, or None)``."""
        device, key, native = where
        out = native(args) if native is not None else None
        if out is None and self.replay:
            out = self._call(device, args, kwargs, key)
        elif out is None:
            out = self._plainly(device, args, kwargs)
        real = out if isinstance(out, tuple) else (out,)
        planned = self._planned(key, args, kwargs, real)
        pools = (args, real)
        ctx.save_for_backward(*[pools[kind][i] for kind, i in planned.saved])
        ctx.kdsl = (planned, len(args), device)
        return out

    def _planned(self, key, args, kwargs, real) -> "_Planned":
        """The backward plan of a call whose input signature is ``key`` (None:
        made for this call alone) and whose outputs are ``real``: made from a
        recorded run of the function (the roles come from it; what is saved
        is the real output, the recorded run's were never written) the first
        time the signature is seen, then kept."""
        planned = self.plans.get(key) if key is not None else None
        if planned is None:
            outs, launches = _recorded(self.fn, args, kwargs)
            plan, saved, ints, floats = _plan(
                self.name, args, outs, launches, real, self.overwrites
            )
            planned = _Planned(plan, _roles(saved, args, real), ints, floats)
            if key is not None:
                if len(self.plans) >= _MAX_PLANS:
                    self.plans.clear()
                self.plans[key] = planned
        return planned

    @staticmethod
    def _gradients(ctx, grad_outputs) -> list:
        planned, n_inputs, device = ctx.kdsl
        fast = planned.__dict__.get("fast")
        if fast is not None and _launch.INTERCEPT.hook is None:  # (on the GPU)
            return fast(ctx.saved_tensors, grad_outputs)
        plan = planned.plan
        grads = [grad_outputs[j].contiguous() for j in plan.grad_output]
        saved = list(ctx.saved_tensors)
        if device == "cuda":
            news = _planned_backward(planned, plan, saved, grads)
            packer = planned.__dict__.get("packer")
            if packer is not None and _one_gpu():  # the next ones: one function
                planned.__dict__["fast"] = _fast_backward(
                    planned, plan, saved, grads, packer, n_inputs
                )
        else:
            with _intercepting(_interpret):
                news = _planned_backward(planned, plan, saved, grads)
        out = [None] * n_inputs
        for k, i in enumerate(plan.new_input):
            out[i] = news[k]
        return out

    def __repr__(self) -> str:
        return f"<kdsl.torch.op {self.name}>"


# -- the eager fast path -----------------------------------------------------------
_SCALARS = frozenset({int, float, bool, str, type(None)})
_C = torch._C
_wrapped = getattr(_C._functorch, "is_functorch_wrapped_tensor", lambda t: False)
_functional = getattr(torch, "_is_functional_tensor", lambda t: False)


def _direct(args, kwargs):
    """``(device, grad, key)`` when a call may skip PyTorch's dispatcher and
    run the function itself (``device`` ``"cuda"``: on the GPU, ``"cpu"``:
    its launches in the interpreter), else None; ``grad``: whether an
    argument requires grad; ``key``: the input signature (_inspect).

    It may when nothing would see the operator: not compiling or tracing
    (``torch.compile``'s dynamo, ``torch.jit.trace``), no torch function or
    dispatch mode (fake tensors, functionalization, ``make_fx``, a device
    context, FLOP counters), no functorch transform (``vmap``, ``grad``),
    no profiler (which records operators); and every argument is a plain
    tensor (``torch.Tensor`` or ``nn.Parameter``, not a subclass: no
    FakeTensor, DTensor or functional tensor) or a plain scalar, the tensors
    all on CUDA or all on the CPU.  ``torch.compiler.is_compiling()`` comes
    first: under dynamo it is a constant, and the rest is not traced."""
    if _compiling():
        return None
    return _inspect(args, kwargs)


_compiling = torch.compiler.is_compiling
_modes = (
    _C._is_torch_function_mode_enabled,
    _C._len_torch_dispatch_stack,
    _C._are_functorch_transforms_active,
    _C._autograd._profiler_enabled,
)
_tracing = _C._get_tracing_state


def _inspect(args, kwargs):
    """_direct less its ``is_compiling()`` (which Op.__call__ asks first), in
    one pass over the arguments.  The input signature (the key of backward
    plans and replays) is each tensor's shape, strides, dtype, device and
    whether it requires grad, each scalar's type and value (a float's bits:
    -0.0 is not 0.0), keyword arguments by name too; it is None when two
    tensor arguments share their first element (which one a launch argument
    is cannot be told from the signature: such calls are planned each
    time)."""
    mode, stack, functorch, profiler = _modes
    if mode() or stack() or functorch() or profiler() or _tracing() is not None:
        return None
    cuda = cpu = grad = False
    key, ptrs = [], []
    for name, a in (*enumerate(args), *kwargs.items()) if kwargs else enumerate(args):
        t = type(a)
        if t is torch.Tensor or t is torch.nn.Parameter:
            if _wrapped(a) or _functional(a):  # wrappers (functorch's,
                return None  # functionalization's) of a plain type
            if a.is_cuda:
                cuda = True
            elif a.is_cpu:
                cpu = True
            else:  # meta, another device: the operator says what it makes of it
                return None
            needs = a.requires_grad
            grad = grad or needs
            ptrs.append(a.data_ptr())
            key.append((name, a.shape, a.stride(), a.dtype, a.device, needs))
        elif t is float:
            key.append((name, t, a.hex()))
        elif t in _SCALARS:
            key.append((name, t, a))
        else:  # lists, SymInts, anything else
            return None
    if cuda is cpu:  # both, or no tensor at all
        return None
    if len(ptrs) > 1 and len(set(ptrs)) < len(ptrs):
        return ("cuda" if cuda else "cpu"), grad, None
    return ("cuda" if cuda else "cpu"), grad, tuple(key)


class _Differentiable(torch.autograd.Function):
    """The eager fast path when a gradient is needed: the operator's forward
    and backward kernels without the dispatcher, as one autograd node."""

    @staticmethod
    def forward(ctx, op, where, kwargs, *args):
        return op._forward_saving(ctx, where, args, kwargs)

    @staticmethod
    def backward(ctx, *grad_outputs):
        if torch.is_grad_enabled():  # create_graph=True: no second derivative
            return _once(ctx, *grad_outputs)
        return (None, None, None, *Op._gradients(ctx, grad_outputs))


@once_differentiable
def _once(ctx, *grad_outputs):
    return (None, None, None, *Op._gradients(ctx, grad_outputs))


# autograd.Function.apply less its Python prologue (setup_context binding,
# which _Differentiable has none of, and functorch's unwrapping, which
# _direct made needless): the C++ apply itself
_APPLY = torch._C._FunctionBase.__dict__.get("apply")
_apply = (
    _APPLY.__get__(None, _Differentiable)
    if hasattr(_APPLY, "__get__")
    else _Differentiable.apply
)


@dataclass(frozen=True)
class _Planned:
    """A backward plan kept for an input signature: the plan, where each
    saved tensor comes from (``(0, i)``: input i, ``(1, j)``: output j), and
    the backward operator's scalars."""

    plan: Plan
    saved: tuple
    ints: list
    floats: list

    @functools.cached_property
    def launcher(self):
        """The backward kernel's ``kernel[grid, block]``."""
        plan = self.plan
        grid = tuple(int(g) for g in self.ints[1 : 1 + self.ints[0]])
        return plan.kernel[grid, plan.block]

    @functools.cached_property
    def scalars(self) -> list:
        return self.ints[1 + self.ints[0] :]

    @functools.cached_property
    def new_dtypes(self) -> list:
        return [None if d is None else getattr(torch, d) for d in self.plan.new_dtype]


_MAX_PLANS = 1024  # input signatures kept per operator


# -- replay=True: an input signature's launches, without the function -----------------
# what Op.replays holds for a signature besides its replay function and the
# record (the last recorded call, how many disagreed) of one being learnt:
_NEVER = "never"  # its launches cannot be replayed: the function each time
_NEW = "new"  # not seen before
_FunctionType = type(lambda: None)
_RECORDS = 3  # recorded calls of one signature that may disagree before _NEVER


@dataclass(frozen=True)
class _Recorded:
    """What one call of the function did, in terms a replay can repeat: its
    outputs' ``(shape, strides, dtype, device)``, whether it returned a
    tuple, and its launches, each ``(launcher, [(role, k)] of its arguments,
    shared_mem, constexprs)`` with a role ``0`` (input k), ``1`` (output k)
    or ``_CONST`` (the value k itself: an int, float, bool or None); and
    for each output, an input of its shape, row-major strides, dtype and
    device (which ``torch.empty_like`` copies), or None."""

    outputs: tuple
    tupled: bool
    launches: tuple
    like: tuple

    @functools.cached_property
    def same(self) -> tuple:
        """What two calls of one signature must share to be replayed."""
        return (
            self.outputs,
            self.tupled,
            tuple(
                (
                    launcher.kernel,
                    launcher.grid,
                    launcher.block,
                    launcher.instance,
                    tuple(
                        (r, (type(k), k.hex() if type(k) is float else k))
                        for r, k in roles
                    ),
                    shared_mem,
                    tuple(sorted(constexprs.items())),
                )
                for launcher, roles, shared_mem, constexprs in self.launches
            ),
        )


_REPLAYABLE = frozenset({int, float, bool, type(None)})


def _recorded_call(inputs, out, seen):
    """The _Recorded of a call that returned ``out`` and made the launches
    ``seen``, or None when a replay could not repeat it: an output that is
    not a fresh tensor of its own (a view, an input, another output), a
    launch on a stream
    given explicitly, an argument that is neither an input, an output nor a
    plain scalar (a temporary buffer, a tensor map)."""
    tupled = isinstance(out, tuple)
    outs = out if tupled else (out,)
    specs = []
    for j, o in enumerate(outs):
        if (
            type(o) is not torch.Tensor
            or o._base is not None
            or o.storage_offset() != 0
            or any(o is t for t in (*inputs, *outs[:j]))
            or o.untyped_storage().nbytes() != _extent(o) * o.element_size()
        ):
            return None
        specs.append((tuple(o.shape), o.stride(), o.dtype, o.device))
    like = []
    for shape, stride, dtype, device in specs:
        same = [
            i
            for i, t in enumerate(inputs)
            if type(t) in (torch.Tensor, torch.nn.Parameter)
            and stride == _row_major(shape)
            and (tuple(t.shape), t.stride(), t.dtype, t.device)
            == (shape, stride, dtype, device)
        ]
        like.append(same[0] if same else None)
    launches = []
    for s in seen:
        params = s.launcher.kernel.signature.runtime
        if s.stream is not None or len(s.args) != len(params):
            return None
        roles = []
        for p, a in zip(params, s.args):
            if type(a) in _REPLAYABLE:
                roles.append((_CONST, a))
                continue
            where = [(0, i) for i, t in enumerate(inputs) if a is t]
            where += [(1, j) for j, o in enumerate(outs) if a is o]
            if not where and p.kind == "pointer":  # a contiguous view: its address
                where = [(0, i) for i, t in enumerate(inputs) if _same(t, a)]
                where += [(1, j) for j, o in enumerate(outs) if _same(o, a)]
            if not where:
                return None
            roles.append(where[0])
        launches.append((s.launcher, tuple(roles), s.shared_mem, s.constexprs))
    return _Recorded(tuple(specs), tupled, tuple(launches), tuple(like))


def _row_major(shape) -> tuple:
    """The strides ``torch.empty(shape)`` gives."""
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def _extent(t) -> int:
    """The elements a tensor's strides span (0 for an empty tensor)."""
    if t.numel() == 0:
        return 0
    return 1 + sum((n - 1) * s for n, s in zip(t.shape, t.stride()))


def _replay_function(name, recorded, launches, n_inputs, native=None):
    """A function of the inputs (positional, then keyword values) that
    allocates the recorded outputs and makes the recorded launches
    (``launches``: each one's ``_replayed_launch``); ``native``: the same
    compiled (_native_replay), which it calls first."""
    env = {"_empty_like": torch.empty_like, "_empty_strided": torch.empty_strided}
    inputs = [f"a{i}" for i in range(n_inputs)]
    lines = ["def replay(inputs):"]
    if native is not None:  # (None: an address not aligned as a launch needs)
        env["_native"] = native
        lines += [
            "    out = _native(inputs)",
            "    if out is not None:",
            "        return out",
        ]
    if inputs:
        lines.append(f"    {', '.join(inputs)}{',' if n_inputs == 1 else ''} = inputs")
    for j, (shape, stride, dtype, dev) in enumerate(recorded.outputs):
        like = recorded.like[j]
        if like is not None:  # (the cheapest allocation PyTorch has)
            lines.append(f"    o{j} = _empty_like(a{like})")
            continue
        env[f"_shape{j}"], env[f"_stride{j}"] = shape, stride
        env[f"_dtype{j}"], env[f"_device{j}"] = dtype, dev
        lines.append(
            f"    o{j} = _empty_strided(_shape{j}, _stride{j}, dtype=_dtype{j},"
            f" device=_device{j})"
        )
    names = ("a", "o")
    for k, (launcher, roles, shared_mem, constexprs) in enumerate(recorded.launches):
        args = []
        for m, (role, i) in enumerate(roles):
            if role == _CONST:
                env[f"_c{k}_{m}"] = i
                args.append(f"_c{k}_{m}")
            else:
                args.append(f"{names[role]}{i}")
        env[f"_launch{k}"], env[f"_grid{k}"], env[f"_block{k}"] = launches[k]
        lines.append(
            f"    _launch{k}(_grid{k}, _block{k}, ({', '.join(args)},), None,"
            f" {shared_mem})"
        )
    outs = [f"o{j}" for j in range(len(recorded.outputs))]
    if recorded.tupled:
        lines.append(f"    return ({', '.join(outs)}{',' if len(outs) == 1 else ''})")
    else:
        lines.append(f"    return {outs[0]}")
    return _launch.generated(lines, f"<kdsl replay {name}>", env, "replay")


def _one_gpu() -> bool:
    """Whether the process sees one GPU: a recorded launch may then keep the
    plan of the device it was made on."""
    return not _launch._several_gpus()


def _replayed_launch(launcher, args, shared_mem, constexprs, device) -> tuple:
    """``(launch(grid, block, args, stream, shared_mem), grid, block)`` for
    one recorded launch (made with ``args``): on one GPU the generated
    packer the launcher keeps for these arguments and constexprs (what the
    launcher itself would call), else the launcher (with several GPUs it
    picks the current device's plan at each call), and on the CPU the
    interpreter."""
    if device == "cpu":
        return (
            lambda grid, block, a, stream, smem: _interpret(
                launcher, a, None, smem, constexprs
            ),
            None,
            None,
        )
    if isinstance(launcher, _launch.Launcher) and _one_gpu():
        packer = _packer(launcher, args, constexprs)
        if packer is not None:
            return packer
    return (
        lambda grid, block, a, stream, smem: launcher(
            *a, shared_mem=smem, **constexprs
        ),
        None,
        None,
    )


# -- the compiled replay (runtime/native.c) ------------------------------------------
_MAX_NATIVE = 8  # compiled replays an operator tests a call against, in order
_NATIVE: dict = {}  # "module": runtime/native.py's module, configured, or None


def _native_replay(recorded, launches, key):
    """The compiled replay (runtime/native.c) of the signature ``key`` whose
    recorded call made ``recorded`` (``launches``: each launch's
    ``_replayed_launch``), or None where there is none: a launch that does
    not go through the driver (array, struct, tensor map or half scalar
    parameters, several GPUs, an assertion record, a cooperative launch),
    no C compiler."""
    inputs, device = [], None
    for entry in key:
        if len(entry) == 6:
            _, shape, stride, dtype, dev, needs = entry
            device = dev.index if device is None else device
            cuda = dev.type == "cuda"
            inputs.append(("tensor", dtype, shape, stride, cuda, needs))
        elif entry[1] is float:
            bits = struct.unpack("<Q", struct.pack("<d", float.fromhex(entry[2])))
            inputs.append(("float", bits[0]))
        else:
            inputs.append(("value", entry[1], entry[2]))
    outputs = []
    for like, (shape, stride, dtype, dev) in zip(recorded.like, recorded.outputs):
        if like is not None:
            outputs.append((like, None, (), {}))
        else:
            where = {"dtype": dtype, "device": dev}
            outputs.append((-1, torch.empty_strided, (shape, stride), where))
    specs = []
    for (launch, grid, block), (_, roles, shared_mem, _) in zip(
        launches, recorded.launches
    ):
        driver = getattr(launch, "driver", None)
        spec = None if driver is None else _native_launch(driver, roles, grid, block)
        if spec is None:
            return None
        specs.append((*spec[:3], shared_mem, *spec[3:]))
    module = _native_module()
    if module is None:
        return None
    return module.Replay(
        tuple(inputs), tuple(outputs), tuple(specs), recorded.tupled, device or 0, key
    )


def _native_launch(driver, roles, grid, block):
    """``(function, grid, block, parameter buffer, offsets, pointers)`` of
    one launch for native.c's Replay: the buffer the recorded constants are
    written in (laid out by the launch's parameter_struct), each
    parameter's offset in it, and ``(role, index, offset, alignment)`` of
    each address an input or output gives; None when a pointer is given no
    tensor or a scalar no constant."""
    Arguments, offsets = _launch.parameter_struct([t for _, t, _ in driver.params])
    values, pointers = Arguments(), []
    for m, ((i, _, align), offset) in enumerate(zip(driver.params, offsets)):
        role, k = roles[i]
        if align and role != _CONST:  # a pointer: a tensor's address
            pointers.append((role, k, offset, align))
        elif not align and role == _CONST and k is not None:
            setattr(values, f"a{m}", k)
        else:
            return None
    if grid is None or block is None:
        return None
    dims = (tuple((*grid, 1, 1)[:3]), tuple((*block, 1, 1)[:3]))
    return (driver.function, *dims, bytes(values), tuple(offsets), tuple(pointers))


def _native_module():
    """runtime/native.py's module configured for PyTorch's GPU (once), or
    None (no compiler, no driver)."""
    if "module" not in _NATIVE:
        import ctypes

        try:
            libcuda = ctypes.CDLL("libcuda.so.1")
            launch_kernel = ctypes.cast(libcuda.cuLaunchKernel, ctypes.c_void_p)
        except (OSError, AttributeError):
            _NATIVE["module"] = None
        else:
            stream = _launch.raw_stream_query(torch)
            _native_configure(launch_kernel.value, stream)
    return _NATIVE["module"]


def _native_configure(launch_kernel: int, current_stream):
    """Configure the compiled module (None where it cannot be built) with
    ``launch_kernel`` (``cuLaunchKernel``'s address) and
    ``current_stream(device)`` (the ``CUstream`` to launch on), and what it
    tests: _inspect's modes and the launch hook."""
    from kdsl.runtime import native

    global _NATIVE_CALL, _NATIVE_REPLAY
    module = native.module()
    if module is not None:
        module.configure(
            launch_kernel,
            (*_modes, _tracing),
            (_wrapped, _functional),
            _launch.INTERCEPT,
            (torch.Tensor, torch.nn.Parameter),
            current_stream,
            torch.empty_like,
            _native_error,
            torch.is_grad_enabled,
        )
        _NATIVE_CALL, _NATIVE_REPLAY = module.call, module.Replay
    _NATIVE["module"] = module
    return module


def _native_error(status: int, first: bool, device: int) -> bool:
    """A compiled replay's failed ``cuLaunchKernel``: True (launch again)
    when it was a thread's first and the thread had no CUDA context (now
    made, as the Python launch does), else CuPy's ``CUDADriverError``."""
    from cupy.cuda import driver, runtime

    exc = driver.CUDADriverError(status)
    if not first:
        raise exc
    _launch._with_context(device, runtime)(exc)
    return True


def _NATIVE_CALL(replays, args):  # (runtime/native.c's call, once configured)
    return None


class _NATIVE_REPLAY:  # (its Replay, once configured)
    pass


def _roles(saved, inputs, outputs) -> tuple:
    """Where each saved tensor is: ``(0, i)`` input i, ``(1, j)`` output j."""
    roles = []
    for t in saved:
        where = [(0, i) for i, a in enumerate(inputs) if a is t]
        where += [(1, j) for j, o in enumerate(outputs) if o is t]
        roles.append(where[0])
    return tuple(roles)


def _autograd_layer(custom_op):
    """custom_op's own Autograd-key kernel for ``custom_op`` (made as
    torch.library makes it), or None where this PyTorch has no such
    function: the short cut is then not registered."""
    try:
        from torch._library.autograd import make_autograd_impl

        return make_autograd_impl(custom_op._opoverload, custom_op)
    except (ImportError, AttributeError, TypeError):
        return None


def _short_cut(layer, call, op):
    """An Autograd-key kernel that does what an eager call of ``op`` does
    when the fast path's test holds (plain tensors, no mode, nothing
    tracing): ``call`` itself when no gradient is needed, the fast path's
    autograd node (_Differentiable) when one is, the operator's compiled
    replays first (which test the same); and gives anything else to
    custom_op's ``layer``."""
    native = op.native

    def kernel(keyset, *args, **kwargs):
        if native and not kwargs:
            out = _NATIVE_CALL(native, args)
            if type(out) is _NATIVE_REPLAY:  # (a gradient needed)
                return _apply(op, ("cuda", out.tag, out), kwargs, *args)
            if out is not None:
                return out
        found = _direct(args, kwargs)
        if found is None:
            return layer(keyset, *args, **kwargs)
        device, grad, key = found
        if grad and torch.is_grad_enabled():
            return _apply(op, (device, key, None), kwargs, *args)
        return call(*args, **kwargs)

    return kernel


def _interpreted(fn):
    """``fn`` with its launches run in the interpreter (CPU tensors)."""

    @functools.wraps(fn)
    def run(*args, **kwargs):
        with _intercepting(_interpret):
            return fn(*args, **kwargs)

    return run


def _backward_op_body(
    saved: list[torch.Tensor],
    grads: list[torch.Tensor],
    plan: str,
    ints: list[int],
    floats: list[float],
) -> list[torch.Tensor]:
    return _run(_backward_launch, saved, grads, plan, ints, floats)


def _backward_op_fake(saved, grads, plan, ints, floats):
    if _INDUCTOR_PENDING:
        _inductor_register()
    return [torch.empty_like(saved[i]) for i in _named(plan).new_like]


# -- torch.compile: Inductor calls the function, not the operator ----------------------
# Inductor calls an operator it has no lowering for through PyTorch's
# dispatcher (``torch.ops.ns.name.default(buf)``: a Python kernel reached from
# C++, its arguments boxed and unboxed, then this module's Autograd-key test).
# A kdsl operator's overload carries the functions its kernels are
# (``_kdsl_cuda``: the function; ``_kdsl_cpu``: the function with its
# launches interpreted), and Inductor's wrapper code generation is given a
# line for it that calls the one of the node's device directly.  What a
# compiled graph holds is unchanged (the operator, its fake implementation,
# its backward operator); a graph compiled before, or a PyTorch without this
# hook, calls the operator as before.
_INDUCTOR_PENDING: list = []  # overloads' Inductor names not yet registered
_INDUCTOR_CODEGEN = "torch._inductor.codegen.custom_extern_kernel_codegen"


def _kernel_name(overload) -> str:
    """The name Inductor's generated code calls ``overload`` by."""
    return f"{overload.__module__.replace('._ops.', '.ops.')}.{overload.__name__}"


def _dtype_defaults(overload, fn) -> dict:
    """``{name: (number, dtype)}`` for the dtype arguments of ``overload``
    that have a default: the schema holds it as its ScalarType number, which
    Inductor writes into its call (``out_dtype=15``) where the caller left
    the default (the dispatcher takes either; the function needs the
    dtype)."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return {}
    found = {}
    for arg in overload._schema.arguments:
        param = params.get(arg.name)
        default = None if param is None else param.default
        number = arg.default_value if arg.has_default_value() else None
        if isinstance(default, torch.dtype) and type(number) is int:
            found[arg.name] = (number, default)
    return found


def _with_dtypes(fn, defaults: dict):
    """``fn`` taking a dtype default's number (see ``_dtype_defaults``) as
    the dtype, by keyword or by position."""
    if not defaults:
        return fn
    names = list(inspect.signature(fn).parameters)
    at = {names.index(n): n for n in defaults if n in names}

    @functools.wraps(fn)
    def run(*args, **kwargs):
        args = list(args)
        for i, name in at.items():
            number, dtype = defaults[name]
            if i < len(args) and type(args[i]) is int and args[i] == number:
                args[i] = dtype
        for name, (number, dtype) in defaults.items():
            value = kwargs.get(name)
            if type(value) is int and value == number:
                kwargs[name] = dtype
        return fn(*args, **kwargs)

    return run


def _direct_calls(overload, fn, on_cuda=None) -> None:
    """Give ``overload`` the functions a compiled graph calls for it (kept on
    the overload: code Inductor generated and cached in an earlier process
    finds them once the operator is defined again): ``on_cuda`` (default:
    the function) on the GPU, the function interpreted on the CPU."""
    defaults = _dtype_defaults(overload, fn)
    overload._kdsl_cuda = _with_dtypes(on_cuda or fn, defaults)
    overload._kdsl_cpu = _with_dtypes(_interpreted(fn), defaults)
    _INDUCTOR_PENDING.append(_kernel_name(overload))
    _inductor_register()


def _inductor_register() -> None:
    """Register the pending operators' call lines with Inductor, once its
    code generation is imported (importing it here would cost seconds to
    programs that never compile; tracing for it runs the fake
    implementations, which call this)."""
    module = sys.modules.get(_INDUCTOR_CODEGEN)
    registry = getattr(module, "CUSTOM_EXTERN_KERNEL_CODEGEN", None)
    if registry is None:
        return
    while True:
        try:  # (another thread's fake implementation may register them too)
            name = _INDUCTOR_PENDING.pop()
        except IndexError:
            return
        registry.setdefault(name, module.CustomCodegen(python=_inductor_call))


_DEVICE_CALLS = {"cuda": "_kdsl_cuda", "cpu": "_kdsl_cpu"}


def _inductor_call(node, writeline) -> None:
    """Inductor's wrapper line for a kdsl operator's node: its device's
    function called with the arguments the operator would get (Python
    wrapper code; a C++ or FX wrapper gets Inductor's own line)."""
    from torch._inductor.virtualized import V

    graph = V.graph
    if getattr(graph, "cpp_wrapper", False) or getattr(graph, "fx_wrapper", False):
        from torch._inductor.codegen.wrapper import ExternKernelAllocLine

        writeline(ExternKernelAllocLine(graph.wrapper_code, node))
        return
    device = node.get_device()
    attr = _DEVICE_CALLS.get(getattr(device, "type", None))
    args = ", ".join(_call_arguments(node, graph.wrapper_code.val_to_arg_str))
    target = (
        node.python_kernel_name
        if attr is None
        else (f"{node.python_kernel_name}.{attr}")
    )
    call = f"{target}({args})"
    if type(node.layout).__name__ == "NoneLayout":  # nothing returned
        writeline(call)
    else:
        writeline(f"{node.get_name()} = {call}")


def _call_arguments(node, written) -> list:
    """The arguments of Inductor's call line for ``node``, the ones it holds
    by keyword that the schema lets come by position (``eps=1e-05``, a
    default Inductor names) moved to their places while no earlier one is
    missing: a compiled replay tests positional calls only (runtime/
    native.c), and a call with keywords would take the Python replay."""
    args = list(node.codegen_args())  # (first: it moves keywords into kwargs)
    kwargs = dict(node.kwargs)
    schema = getattr(getattr(node, "op_overload", None), "_schema", None)
    for arg in schema.arguments[len(args) :] if schema is not None else ():
        if arg.kwarg_only or arg.name not in kwargs:
            break
        args.append(written(kwargs.pop(arg.name)))
    return [*args, *(f"{k}={written(v)}" for k, v in kwargs.items())]


def op(name: str, *, mutates_args=(), replay=False, overwrites=()):
    """Decorator: ``@kdsl.torch.op("namespace::name")`` on a function of
    annotated tensors that allocates its outputs and launches kdsl kernels
    (see the module's docstring).

    ``replay=True`` promises that the function's launches and outputs depend
    only on its arguments' shapes, strides, dtypes, devices and scalar
    values: once two recorded calls of one such signature agree, later
    calls allocate the outputs and make the launches without running the
    function (docs/pytorch.md, "Replayed calls").  ``overwrites`` names the
    backward kernel's gradient parameters (``"grad_x"``) that it writes
    every element of: they are allocated without the zero fill."""

    def decorate(fn):
        return Op(name, fn, mutates_args, replay, overwrites)

    return decorate
