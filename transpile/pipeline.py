"""The pipeline: parse → lower (check + fold) → verify → emit → render."""

from __future__ import annotations

from dataclasses import dataclass

from kdsl.transpile.cuda import cexpr
from kdsl.transpile import ir
from kdsl.transpile.cuda.emit import Emitter, _basename
from kdsl.transpile.errors import DSLError
from kdsl.transpile.frontend.lower import Context, Lowerer
from kdsl.transpile.cuda.render import prelude_part, render_file
from kdsl.transpile.ir.verify import verify


@dataclass(frozen=True)
class Transpiled:
    """An instance's CUDA C++ and what launching it requires."""

    source: str
    alignment: dict  # pointer parameter -> required alignment in bytes


def transpile_instance(
    kdef, name: str, dtypes: tuple, constexprs: dict, *, line_directives=False
) -> Transpiled:
    """The CUDA C++ source of one instance of the kernel definition ``kdef``."""
    try:
        kernel, readonly, functions, alignment = _lower(kdef, name, dtypes, constexprs)
        for f in functions + [kernel]:
            verify(f)
        source = _render(
            kdef, kernel, readonly, functions, dtypes, constexprs, line_directives
        )
        return Transpiled(source, dict(sorted(alignment.items())))
    except DSLError as exc:
        if exc.instance is None:
            exc.instance = name
        raise


def lower_instance(kdef, name: str, dtypes: tuple, constexprs: dict):
    """The verified IR of one instance: the kernel and its device functions
    by name (what the CPU interpreter runs)."""
    try:
        kernel, _, functions, _ = _lower(kdef, name, dtypes, constexprs)
        for f in functions + [kernel]:
            verify(f)
        return kernel, {f.name: f for f in functions}
    except DSLError as exc:
        if exc.instance is None:
            exc.instance = name
        raise


def _lower(kdef, name, dtypes, constexprs):
    sig = kdef.signature
    dtype_map = {tv.name: t for tv, t in zip(sig.typevars, dtypes)}
    ctx = Context(kdef.fn.__globals__, {**dtype_map, **constexprs}, {}, set(), set())
    lw = Lowerer(kdef.parsed, ctx)
    params = lw.bind_params(sig, dtype_map)
    lw.body(kdef.parsed.node.body.body)
    kernel = ir.Function(name, params, tuple(lw.block))
    readonly = {
        _pointer_of(lw.env[info.name].value).name
        for info in sig.params
        if info.kind in ("pointer", "array") and info.name not in ctx.written
    }
    return kernel, readonly, list(ctx.functions.values()), ctx.alignment


def _pointer_of(value):
    return value.data if hasattr(value, "data") else value.expr


def _render(kdef, kernel, readonly, functions, dtypes, constexprs, line_directives):
    emitter = Emitter(line_directives)
    texts = []
    for f in functions + [kernel]:
        emitter.lines = []
        emitter.function(f, readonly if f is kernel else frozenset())
        texts.append("\n".join(emitter.lines))
    body = "\n".join(texts)
    headers = cexpr.headers(emitter.types)
    parts = cexpr.prelude_parts(emitter.types)
    if any(f"kdsl::{name}(" in body for name in ("min", "max", "lane_id", "in_range")):
        parts.append("intrinsics.h")
    if "vector" in emitter.types:
        parts.append("vector.h")
    sig = kdef.signature
    return render_file(
        version=_version(),
        source=_basename(kdef.parsed.source.path),
        kernel=kdef.name,
        instance=kernel.name,
        dtypes=", ".join(
            f"{tv.name}={t.__name__}" for tv, t in zip(sig.typevars, dtypes)
        ),
        constexprs=", ".join(f"{k}={v!r}" for k, v in constexprs.items()),
        headers=headers,
        prelude="\n".join(prelude_part(p).rstrip("\n") for p in parts),
        functions=texts,
    )


def _version() -> str:
    from kdsl import __version__

    return __version__
