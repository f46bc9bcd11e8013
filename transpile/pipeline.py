"""The pipeline: parse → lower (check + fold) → verify → passes → emit → render.

A :class:`Compilation` is one kernel instance (of a
:class:`~kdsl.transpile.frontend.definition.KernelDef`) on its way through
it.  Each stage is computed once, on first use: the parsed function (shared
by every instance of a kernel definition), the lowered and verified IR with
what launching needs (:class:`Lowered`), the functions through the passes
(:data:`PASSES`, in order: each rewrite verified, then the analyses whose
results the emitter receives) and the CUDA source.  The CPU interpreter takes
the rewritten IR (what the GPU runs, a contracted fma included), the runtime
the source and the alignment (:class:`Transpiled`, which its disk cache
stores), the CLI either; nothing is lowered twice or emitted to be thrown
away.
"""

from __future__ import annotations

import os

import contextlib
import json
from dataclasses import dataclass, replace
from functools import cached_property

from kdsl.transpile import builtins, ir, passes
from kdsl.transpile.cuda.cexpr import literal
from kdsl.transpile.cuda.emit import Emitter, basename
from kdsl.transpile.cuda import structs
from kdsl.transpile.cuda.emit import ctype
from kdsl.transpile.cuda.prelude import helpers, needs
from kdsl.transpile.cuda.render import prelude_part, render_file
from kdsl.transpile.errors import DSLError, error
from kdsl.transpile.frontend.constants import declaration
from kdsl.transpile.frontend.definition import KernelDef, located
from kdsl.transpile.frontend.dynamic_smem import BUFFER
from kdsl.transpile.frontend.lower import Lowerer
from kdsl.transpile.frontend.lower_expr import AbsentPointer
from kdsl.transpile.frontend.names import Symbols, entry_name
from kdsl.transpile.frontend.options import MAX_THREADS
from kdsl.transpile.frontend.state import Context, FunctionState
from kdsl.transpile.passes import Analysis, Facts, Rewrite, contract, pointers, simplify
from kdsl.transpile.passes.ranges import Ranges
from kdsl.transpile.passes.unread import unread
from kdsl.transpile.passes.verify import verify
from kdsl.transpile.source import Span
from kdsl.transpile.version import __version__

# The passes between lowering and emission, in the order they run on each
# function: the rewrites (each followed by the verifier), then the analyses
# (each fills the field of passes.Facts it is named after).
PASSES = passes.schedule(
    Rewrite("simplify", simplify.function),
    Rewrite("contract", contract.function),
    Analysis("readonly", pointers.readonly),
    Analysis("unread", unread),
    Analysis("ranges", lambda f, facts: Ranges(f)),
)


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
    def all(self) -> tuple[ir.Function, ...]:
        """The device functions, then the kernel."""
        return self.functions + (self.kernel,)

    @property
    def by_name(self) -> dict:
        """The device functions by their C++ name."""
        return {f.name: f for f in self.functions}


@dataclass(frozen=True)
class Transpiled:
    """An instance's CUDA C++ and what launching it requires (what the
    runtime keeps in its disk cache: :meth:`to_json`, :meth:`from_json`)."""

    source: str
    alignment: dict  # pointer parameter -> required alignment in bytes
    cooperative: bool = False  # launch cooperatively (every block resident)
    assertions: tuple = ()  # (span, message) of each assertion (Lowered)
    arch: str | None = None  # the architecture it needs ("sm_90a"), or None
    written: tuple = ()  # the pointer and array parameters it may store to

    def to_json(self) -> str:
        return json.dumps(
            {
                "source": self.source,
                "alignment": self.alignment,
                "cooperative": self.cooperative,
                "arch": self.arch,
                "written": list(self.written),
                "assertions": [
                    [s.path, s.line, s.col, s.end_line, s.end_col, message]
                    for s, message in self.assertions
                ],
            }
        )

    @classmethod
    def from_json(cls, text) -> "Transpiled":
        """What :meth:`to_json` wrote, every field checked: anything else
        (another kdsl's entry, a damaged one) raises ``ValueError``."""
        data = json.loads(text)
        source, alignment = data["source"], data["alignment"]
        cooperative, raw = data["cooperative"], data["assertions"]
        arch, written = data["arch"], data["written"]
        _expect(arch is None or isinstance(arch, str), "arch")
        _expect(
            isinstance(written, list) and all(isinstance(w, str) for w in written),
            "written",
        )
        _expect(isinstance(source, str), "source")
        _expect(
            isinstance(alignment, dict)
            and all(type(v) is int for v in alignment.values()),
            "alignment",
        )
        _expect(isinstance(cooperative, bool), "cooperative")
        _expect(isinstance(raw, list), "assertions")
        assertions = []
        for a in raw:
            _expect(
                isinstance(a, list)
                and len(a) == 6
                and isinstance(a[0], str)
                and all(type(v) is int for v in a[1:5])
                and isinstance(a[5], str),
                "assertion",
            )
            assertions.append((Span(*a[:5]), a[5]))
        return cls(
            source, alignment, cooperative, tuple(assertions), arch, tuple(written)
        )


def _expect(ok: bool, what: str) -> None:
    if not ok:
        raise ValueError(f"a transpiled entry with a malformed {what}")


class Compilation:
    """One instance of the kernel definition ``kdef`` at fixed dtypes and
    constexprs (``absent``: the optional pointers passed as None), through
    the pipeline's stages."""

    def __init__(
        self,
        kdef: KernelDef,
        name: str,
        dtypes: tuple,
        constexprs: dict,
        absent: tuple = (),
    ):
        self.kdef, self.name = kdef, name
        self.dtypes, self.constexprs = dtypes, constexprs
        self.absent = absent
        self._sources: dict[bool, str] = {}

    @cached_property
    def lowered(self) -> Lowered:
        """Lowered and verified IR (errors name this instance)."""
        with _naming(self.name):
            lowered = _lower(
                self.kdef, self.name, self.dtypes, self.constexprs, self.absent
            )
            for f in lowered.all:
                verify(f, "lowering", lowered.by_name)
        return lowered

    @cached_property
    def rewritten(self) -> Lowered:
        """:attr:`lowered` with each function through the rewrites of
        :data:`PASSES` (each verified): the IR the GPU runs, so what the
        interpreter runs (a rewrite that changes values, ``contract``, is
        then the same on both)."""
        lowered = self.lowered
        with _naming(self.name):
            done = [
                passes.rewrite(
                    PASSES, f, lambda g, after: verify(g, after, lowered.by_name)
                )
                for f in lowered.all
            ]
        if all(a is b for a, b in zip(done, lowered.all)):
            return lowered
        return replace(lowered, kernel=done[-1], functions=tuple(done[:-1]))

    @cached_property
    def prepared(self) -> tuple[tuple[ir.Function, Facts], ...]:
        """Each function of :attr:`rewritten` (callees first) through the
        analyses of :data:`PASSES`, with what they found: what the emitter
        takes."""
        rewritten = self.rewritten
        with _naming(self.name):
            return tuple(
                (
                    f,
                    passes.analyse(
                        PASSES,
                        f,
                        Facts(
                            readonly=rewritten.readonly if f.is_kernel else frozenset()
                        ),
                    ),
                )
                for f in rewritten.all
            )

    def explain_arith(self) -> str:
        """Each integer operation the CUDA keeps as a wrapping ``kdsl::``
        helper (``kdsl::add``, ``kdsl::floordiv``, ``kdsl::in_range`` …), a
        line each: where in the Python, the C++, and the range that kept it
        (``kdsl-transpile --explain-arith``)."""
        lines = []
        with _naming(self.name):
            for f, facts in self.prepared:
                for span, text, why in Emitter.explain(f, facts):
                    if len(text) > 72:
                        text = text[:69] + "..."
                    lines.append(f"{_shown(span)}: {text}: {why}")
        return "".join(line + "\n" for line in lines)

    def source(self, *, line_directives: bool = False) -> str:
        """The CUDA C++ (optionally with ``#line`` directives to the Python)."""
        if line_directives not in self._sources:
            with _naming(self.name):
                self._sources[line_directives] = _render(self, line_directives)
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


def _lower(kdef: KernelDef, name, dtypes, constexprs, absent=()) -> Lowered:
    sig = kdef.signature
    dtype_map = {tv.name: t for tv, t in zip(sig.typevars, dtypes)}
    nones = {p: AbsentPointer(p) for p in absent}
    statics = {**dtype_map, **constexprs, **nones}
    ctx = Context(kdef.fn.__globals__, statics, {}, set(), set())
    ctx.symbols = Symbols(entry_name(name))  # no device function takes its name
    ctx.optional = set(sig.optional)
    ctx.debug = kdef.debug
    ctx.contract = kdef.options.contract
    ctx.no_overflow = kdef.options.no_overflow
    state = FunctionState.start(kdef.parsed, ctx)
    lw = Lowerer(state)
    params = lw.bind_params(sig, dtype_map)
    # each memory parameter's C++ name, before the body may rebind the name
    # (``x += k``: a new pointer variable)
    cnames = {
        info.name: _pointer_of(state.env[info.name].value).name
        for info in sig.params
        if info.kind in ("pointer", "array") and info.name not in absent
    }
    lw.suite(kdef.parsed.node.body)
    params += lw.record_params()
    body = tuple(state.block)
    if ctx.dynamic is not None:  # the buffer its views cut, declared first
        unused = ctx.dynamic.unused  # the end of the last view, if no view needs it
        body = (ir.DynamicSharedDecl(BUFFER, ctx.dynamic.align),) + tuple(
            s for s in body if s is not unused
        )
    bounds = kdef.options.bounds(constexprs)  # a named threads parameter's value
    if bounds is not None and not 1 <= bounds[0] <= MAX_THREADS:
        with located(kdef.site, "launch_bounds"):
            raise error(
                "kernel-option",
                option="launch_bounds",
                kernel=kdef.name,
                accepted=f"threads from 1 to {MAX_THREADS}",
                got=f"{kdef.options.launch_bounds[0]} = {bounds[0]}",
            )
    kernel = ir.Function(
        ctx.symbols.entry,
        params,
        body,
        launch_bounds=bounds,
        contract=kdef.options.contract,
        no_overflow=kdef.options.no_overflow,
    )
    memory = [
        info.name
        for info in sig.params
        if info.kind in ("pointer", "array") and info.name not in absent
    ]
    readonly = {cnames[name] for name in memory if name not in ctx.written}
    written = tuple(name for name in memory if name in ctx.written)
    functions = tuple(ctx.functions.values())
    return Lowered(
        kernel,
        functions,
        frozenset(readonly),
        dict(sorted(ctx.alignment.items())),
        written,
        cooperative=_grid_wide(functions + (kernel,)),
        assertions=tuple(ctx.assertions),
        constants=tuple(ctx.constants.values()),
        arch=_arch(functions + (kernel,)),
    )


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


def _shown(span) -> str:
    """``path:line:col`` with the path relative to the working directory
    when the file is under it."""
    if span is None:
        return "?"
    path = span.path
    rel = os.path.relpath(path) if os.path.isabs(path) else path
    if not rel.startswith(".."):
        path = rel
    return f"{path}:{span.line}:{span.col}"


def _render(c: Compilation, line_directives: bool) -> str:
    """The file: each prepared function emitted, in the template."""
    lowered, prepared = c.lowered, c.prepared
    texts = [Emitter.function(f, facts, line_directives) for f, facts in prepared]
    headers, parts = needs(tuple(f for f, _ in prepared))
    generated = helpers(tuple(f for f, _ in prepared))
    prelude = [prelude_part(p).rstrip("\n") for p in parts]
    sig = c.kdef.signature
    return render_file(
        version=__version__,
        source=basename(c.kdef.parsed.source.path),
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
        prelude="\n".join(prelude + ([generated] if generated else [])),
        structs=[
            structs.declaration(t, ctype)
            for t in structs.used_structs(lowered.functions + (lowered.kernel,))
        ],
        constants=[declaration(t, literal) for t in lowered.constants],
        functions=texts,
        assertions=len(lowered.assertions),
    )
