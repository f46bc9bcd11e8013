"""The pipeline: parse → lower (check + fold) → verify → emit → render.

A :class:`Compilation` is one kernel instance on its way through it.  Each
stage is computed once, on first use: the parsed function (shared by every
instance of a kernel definition), the lowered and verified IR with what
launching needs (:class:`Lowered`), and the CUDA source.  The CPU
interpreter takes the IR, the runtime the source and the alignment, the CLI
either; nothing is lowered twice or emitted to be thrown away.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from functools import cached_property

from kdsl.transpile import builtins, ir
from kdsl.transpile.cuda import structs
from kdsl.transpile.cuda.emit import Emitter, _basename, ctype
from kdsl.transpile.cuda.prelude import needs
from kdsl.transpile.cuda.render import prelude_part, render_file
from kdsl.transpile.errors import DSLError
from kdsl.transpile.cuda.cexpr import literal
from kdsl.transpile.frontend.constants import declaration
from kdsl.transpile.frontend.dynamic_smem import BUFFER
from kdsl.transpile.frontend.lower import Lowerer
from kdsl.transpile.frontend.lower_expr import AbsentPointer
from kdsl.transpile.frontend.names import Symbols, entry_name
from kdsl.transpile.frontend.state import Context, FunctionState
from kdsl.transpile.ir.verify import verify
from kdsl.transpile.version import __version__


@dataclass(frozen=True)
class Lowered:
    """An instance's verified IR and what its launch requires."""

    kernel: ir.Function
    functions: tuple[ir.Function, ...]  # device functions, callees first
    readonly: frozenset  # pointer parameters the kernel never stores to
    alignment: dict  # pointer parameter -> the alignment its .vec(N) needs
    written: tuple[str, ...]  # the other pointer and array parameters, by
    # their Python name, in signature order (what a launch may change)
    cooperative: bool  # it calls a grid-wide built-in (kdsl.grid_sync)
    # A debug build's assertions: (span, message) of number k at k - 1.  An
    # instance with any takes the assertion record as its last parameter.
    assertions: tuple = ()
    # the constant tables it reads (constants.ConstantTable), in first use
    constants: tuple = ()
    # the architecture it must be compiled for ("sm_90a": it calls a Hopper
    # architecture-specific built-in such as kdsl.wgmma_mma_async), or None
    arch: str | None = None

    @property
    def by_name(self) -> dict:
        """The device functions by their C++ name."""
        return {f.name: f for f in self.functions}


@dataclass(frozen=True)
class Transpiled:
    """An instance's CUDA C++ and what launching it requires (what the
    runtime keeps in its disk cache)."""

    source: str
    alignment: dict  # pointer parameter -> required alignment in bytes
    cooperative: bool = False  # launch cooperatively (every block resident)
    assertions: tuple = ()  # (span, message) of each assertion (Lowered)
    arch: str | None = None  # the architecture it needs ("sm_90a"), or None
    written: tuple = ()  # the pointer and array parameters it may store to


class Compilation:
    """One instance of the kernel definition ``kdef`` (a ``kdsl.kernel``:
    its ``parsed`` function, ``signature`` and ``name``) at fixed dtypes and
    constexprs, through the pipeline's stages."""

    def __init__(
        self, kdef, name: str, dtypes: tuple, constexprs: dict, absent: tuple = ()
    ):
        self.kdef, self.name = kdef, name
        self.dtypes, self.constexprs = dtypes, constexprs
        self.absent = absent  # optional pointers passed as None
        self._sources: dict[bool, str] = {}

    @cached_property
    def lowered(self) -> Lowered:
        """Lowered and verified IR (errors name this instance)."""
        with _naming(self.name):
            kernel, readonly, written, functions, alignment, assertions, tables = (
                _lower(self.kdef, self.name, self.dtypes, self.constexprs, self.absent)
            )
            for f in functions + [kernel]:
                verify(f)
        return Lowered(
            kernel,
            tuple(functions),
            frozenset(readonly),
            dict(sorted(alignment.items())),
            written,
            _grid_wide(functions + [kernel]),
            tuple(assertions),
            tuple(tables),
            _arch(functions + [kernel]),
        )

    def source(self, *, line_directives: bool = False) -> str:
        """The CUDA C++ (optionally with ``#line`` directives to the Python)."""
        if line_directives not in self._sources:
            lowered = self.lowered
            with _naming(self.name):
                self._sources[line_directives] = _render(self, lowered, line_directives)
        return self._sources[line_directives]

    def transpiled(self) -> Transpiled:
        lowered = self.lowered
        return Transpiled(
            self.source(),
            lowered.alignment,
            lowered.cooperative,
            lowered.assertions,
            lowered.arch,
            lowered.written,
        )


@contextlib.contextmanager
def _naming(instance: str):
    """A :class:`DSLError` raised inside names ``instance``."""
    try:
        yield
    except DSLError as exc:
        if exc.instance is None:
            exc.instance = instance
        raise


def _lower(kdef, name, dtypes, constexprs, absent=()):
    sig = kdef.signature
    dtype_map = {tv.name: t for tv, t in zip(sig.typevars, dtypes)}
    nones = {p: AbsentPointer(p) for p in absent}
    statics = {**dtype_map, **constexprs, **nones}
    ctx = Context(kdef.fn.__globals__, statics, {}, set(), set())
    ctx.symbols = Symbols(entry_name(name))  # no device function takes its name
    ctx.optional = set(sig.optional)
    ctx.debug = getattr(kdef, "debug", False)
    state = FunctionState.start(kdef.parsed, ctx)
    lw = Lowerer(state)
    params = lw.bind_params(sig, dtype_map)
    lw.suite(kdef.parsed.node.body)
    params += lw.record_params()
    body = tuple(state.block)
    if ctx.dynamic is not None:  # the buffer its views cut, declared first
        unused = ctx.dynamic.unused  # the end of the last view, if no view needs it
        body = (ir.DynamicSharedDecl(BUFFER, ctx.dynamic.align),) + tuple(
            s for s in body if s is not unused
        )
    bounds = kdef.options.launch_bounds
    kernel = ir.Function(ctx.symbols.entry, params, body, launch_bounds=bounds)
    memory = [
        info.name
        for info in sig.params
        if info.kind in ("pointer", "array") and info.name not in absent
    ]
    readonly = {
        _pointer_of(state.env[name].value).name
        for name in memory
        if name not in ctx.written
    }
    written = tuple(name for name in memory if name in ctx.written)
    functions = list(ctx.functions.values())
    tables = ctx.constants.values()
    return kernel, readonly, written, functions, ctx.alignment, ctx.assertions, tables


def _grid_wide(functions) -> bool:
    """Whether any of these IR functions calls a grid-wide collective built-in
    (the launch must then be cooperative)."""
    return any(
        isinstance(e, ir.BuiltinCall) and builtins.get(e.builtin).collective == "grid"
        for f in functions
        for e in ir.expressions(f.body)
    )


def _arch(functions) -> str | None:
    """The architecture these IR functions need: the one their built-ins
    ask for (``Builtin.arch``, only ever ``"sm_90a"`` today), or None."""
    wanted = sorted(
        {
            builtins.get(e.builtin).arch
            for f in functions
            for e in ir.expressions(f.body)
            if isinstance(e, ir.BuiltinCall)
        }
        - {None}
    )
    return wanted[0] if wanted else None


def _pointer_of(value):
    return value.data if hasattr(value, "data") else value.expr


def _render(c: Compilation, lowered: Lowered, line_directives: bool) -> str:
    emitter = Emitter(line_directives)
    texts = []
    for f in lowered.functions + (lowered.kernel,):
        emitter.lines = []
        emitter.function(f, lowered.readonly if f.is_kernel else frozenset())
        texts.append("\n".join(emitter.lines))
    headers, parts = needs(lowered.functions + (lowered.kernel,))
    sig = c.kdef.signature
    return render_file(
        version=__version__,
        source=_basename(c.kdef.parsed.source.path),
        kernel=c.kdef.name,
        instance=c.name,
        dtypes=", ".join(
            f"{tv.name}={t.__name__}" for tv, t in zip(sig.typevars, c.dtypes)
        ),
        constexprs=", ".join(f"{k}={v!r}" for k, v in c.constexprs.items()),
        cooperative=lowered.cooperative,
        maxrregcount=c.kdef.options.maxrregcount,
        arch=lowered.arch,
        headers=headers,
        prelude="\n".join(prelude_part(p).rstrip("\n") for p in parts),
        structs=[
            structs.declaration(t, ctype)
            for t in structs.used_structs(lowered.functions + (lowered.kernel,))
        ],
        constants=[declaration(t, literal) for t in lowered.constants],
        functions=texts,
        assertions=len(lowered.assertions),
    )
