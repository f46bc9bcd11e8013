"""kdsl-transpile, part 1: from PATHs and flags to the list of instances to make.

Modules are imported from their files; their kernels are the module
attributes that are ``@kdsl.kernel`` objects defined there.  ``-k``,
``--dtypes`` and ``-D`` select among them; every problem is a
:class:`~kdsl.transpile.errors.DSLError` in the compiler format, located at
the kernel's parameter where there is one.
"""

from __future__ import annotations

import hashlib
import importlib.util
import itertools
import os
import sys
import traceback
from dataclasses import dataclass, replace
from pathlib import Path

from kdsl.runtime import errors as _registered  # noqa: F401 - E5xx for --check
from kdsl.transpile.cli.files import module_name_rule, shown
from kdsl.transpile.errors import DSLError, did_you_mean, error
from kdsl.transpile.frontend.signature import resolve_dtype
from kdsl.transpile.source import Span


@dataclass(frozen=True)
class Module:
    """A user's Python file, imported."""

    name: str  # the file's stem: OUTDIR/<name>/
    path: str  # as the user named it (relative paths stay relative)
    source: str  # the shown path: relative to the working folder where possible
    sha256: str  # of the file's bytes
    functions: tuple = ()  # the names of the @kdsl.func device functions it defines


@dataclass(frozen=True)
class Job:
    """One instance to transpile, described by picklable values only."""

    module: Module
    kernel: str  # the kernel's name (unique within its module)
    dtypes: tuple  # short names, e.g. ("f32",)
    dtype_names: tuple  # the dtype parameters' names, e.g. ("D",)
    constexprs: tuple  # ((name, value), ...) in declaration order
    instance: str

    @property
    def file(self) -> str:
        return f"{self.module.name}/{self.instance}.cu"


def render_error(exc: DSLError) -> str:
    """``exc`` in the compiler format, its path relative to the working folder."""
    span = exc.span
    if span is not None and os.path.isabs(span.path):
        shown = _shown_path(Path(span.path), keep=span.path)
        exc.span = replace(span, path=shown)
        try:
            return exc.render()
        finally:
            exc.span = span
    return exc.render()


def _shown_path(path: Path, keep: str | None = None) -> str:
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.name if keep is None else keep


def module_files(paths: list[str]) -> list[Path]:
    """The .py files named by PATH arguments (a folder: its *.py, not recursing)."""
    files = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(
                p for p in path.glob("*.py") if p.is_file() and p.name != "__init__.py"
            )
            if not found:
                raise error("cli-empty-folder", path=raw)
            files.extend(found)
        elif path.is_file() and path.suffix == ".py":
            files.append(path)
        elif path.exists():
            raise error("cli-not-python", path=raw)
        else:
            raise error("cli-no-such-path", path=raw)
    for f in files:
        rule = module_name_rule(f.stem)
        if rule is not None:
            raise error("cli-module-name", path=shown(f), name=repr(f.stem), rule=rule)
    unique, seen = [], set()
    for f in files:
        key = f.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(f)
    by_name: dict[str, Path] = {}
    for f in unique:
        if f.stem in by_name:
            raise error(
                "cli-module-clash", first=by_name[f.stem], second=f, stem=f.stem
            )
        by_name[f.stem] = f
    return unique


# -- importing ------------------------------------------------------------------------
_LOADED: dict[str, object] = {}  # path -> module, shared with forked workers


def import_module(path: str):
    """Import the user's file once per process (its folder goes on sys.path)."""
    module = _LOADED.get(path)
    if module is not None:
        return module
    stem = Path(path).stem
    folder = str(Path(path).resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(f"kdsl_transpile_{stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        _execute(spec, module, path)
    except BaseException:
        sys.modules.pop(spec.name, None)
        raise
    _LOADED[path] = module
    return module


def _execute(spec, module, path: str) -> None:
    try:
        spec.loader.exec_module(module)
    except DSLError:
        raise
    except SyntaxError as exc:
        span = Span(path, exc.lineno or 1, exc.offset or 1, exc.lineno or 1, 0)
        raise error("cli-syntax-error", detail=exc.msg, span=span).locate(
            span, (exc.text or "").rstrip("\n")
        ) from None
    except BaseException as exc:  # the user's module code failed
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise _import_error(path, exc) from None


def _import_error(path: str, exc: BaseException) -> DSLError:
    frames = [
        f
        for f in traceback.extract_tb(exc.__traceback__)
        if os.path.abspath(f.filename) == os.path.abspath(path)
    ]
    what = {"path": path, "exc_type": type(exc).__name__, "detail": exc}
    if not frames:
        return error("cli-import", **what)
    f = frames[-1]
    line = f.line or ""
    col = len(line) - len(line.lstrip()) + 1
    span = Span(path, f.lineno, col, f.lineno, len(line.rstrip()) + 1)
    return error("cli-import", **what, span=span).locate(span, line.rstrip())


def kernels_of(module) -> list:
    """The ``@kdsl.kernel`` objects a module defines, sorted by name."""
    from kdsl.runtime.kernel import Kernel

    found = {}
    for value in vars(module).values():
        if isinstance(value, Kernel) and value.fn.__module__ == module.__name__:
            found.setdefault(id(value), value)
    return sorted(found.values(), key=lambda k: k.name)


def functions_of(module) -> tuple:
    """The names of the ``@kdsl.func`` device functions a module defines."""
    from kdsl.transpile.frontend.lang import DeviceFunction

    return tuple(
        sorted(
            value.name
            for value in vars(module).values()
            if isinstance(value, DeviceFunction)
            and value.fn.__module__ == module.__name__
        )
    )


def find_kernel(module, name: str):
    return next(k for k in kernels_of(module) if k.name == name)


def load_modules(files: list[Path]) -> list[tuple[Module, list]]:
    out = []
    for f in files:
        path = os.path.normpath(str(f))
        module = import_module(path)
        digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
        info = Module(f.stem, path, _shown_path(f), digest, functions_of(module))
        out.append((info, kernels_of(module)))
    return out


# -- selection ------------------------------------------------------------------------
def split_values(values: list[str] | None) -> list[str]:
    return [v.strip() for raw in values or () for v in raw.split(",") if v.strip()]


def parse_dtypes(values: list[str] | None) -> dict:
    """``--dtypes f32,bf16`` (every dtype parameter) or ``--dtypes D=f32``.

    The result maps a dtype parameter's name (or ``None`` for all) to the set
    of allowed kdsl types.
    """
    out: dict = {}
    for raw in values or ():
        name, sep, listed = raw.partition("=")
        key = name.strip() if sep else None
        items = listed if sep else raw
        types = {resolve_dtype(d) for d in split_values([items])}
        if not types:
            raise error("cli-dtypes-empty", raw=raw)
        out.setdefault(key, set()).update(types)
    return out


def parse_defines(values: list[str] | None) -> dict[str, list[str]]:
    """``-D NAME=V[,V...]`` (repeatable) as ``{NAME: [raw values]}``."""
    out: dict[str, list[str]] = {}
    for raw in values or ():
        name, sep, listed = raw.partition("=")
        name = name.strip()
        items = split_values([listed])
        if not sep or not name.isidentifier() or not items:
            raise error("cli-define-syntax", raw=raw)
        for item in items:
            if item not in out.setdefault(name, []):
                out[name].append(item)
    return out


def _param_location(kernel, name: str):
    """The span and source line of a kernel's parameter, if it can be read."""
    try:
        p = kernel.parsed
        params = p.node.params
        for node in (*params.params, *params.kwonly_params):
            if node.name.value == name:
                span = p.span(node)
                return span, p.source.line_text(span.line)
    except DSLError:
        pass
    return None, None


def _located(exc: DSLError, kernel, name: str) -> DSLError:
    span, line = _param_location(kernel, name)
    if span is not None:
        exc.locate(span, line)
    return exc


_TRUE, _FALSE = ("true", "1"), ("false", "0")


def constexpr_value(kernel, spec, raw: str):
    """A ``-D`` string read as the constexpr's declared type, then checked."""
    from kdsl.runtime.kernel import check_constexpr

    kind = spec.spec.kind
    value = None
    try:
        if kind is bool:
            if raw.lower() in _TRUE + _FALSE:
                value = raw.lower() in _TRUE
        elif kind is int:
            value = int(raw, 0)
        elif kind is float:
            value = float(raw)
    except ValueError:
        value = None
    if value is None:
        raise _located(
            error(
                "cli-define-value",
                name=spec.name,
                raw=raw,
                kernel=kernel.name,
                kind=kind.__name__,
            ),
            kernel,
            spec.name,
        )
    try:
        return check_constexpr(kernel.name, spec, value)
    except DSLError as exc:
        raise _located(exc, kernel, spec.name) from None


def _constexpr_choices(kernel, defines: dict) -> list[tuple]:
    per_param = []
    for spec in kernel.signature.constexprs:
        if spec.name in defines:
            values = [constexpr_value(kernel, spec, raw) for raw in defines[spec.name]]
        elif spec.has_default:
            values = [spec.default]
        else:
            raise _located(
                error(
                    "cli-constexpr-missing",
                    name=spec.name,
                    kernel=kernel.name,
                    kind=spec.spec.kind.__name__,
                ),
                kernel,
                spec.name,
            )
        per_param.append([(spec.name, v) for v in values])
    return list(itertools.product(*per_param))


def _dtype_choices(kernel, dtypes: dict) -> list[tuple]:
    names = [tv.name for tv in kernel.signature.typevars]
    out = []
    for combo in kernel.combinations():
        allowed = (dtypes.get(n, dtypes.get(None)) for n in names)
        if all(a is None or t in a for a, t in zip(allowed, combo)):
            out.append(combo)
    return out


def select_jobs(modules, kernels=None, dtypes=None, defines=None) -> list[Job]:
    """Every instance the flags ask for, in a fixed order, without duplicates."""
    wanted = set(split_values(kernels))
    dtypes = parse_dtypes(dtypes)
    defines = parse_defines(defines)
    chosen = [
        (module, k)
        for module, module_kernels in modules
        for k in module_kernels
        if not wanted or k.name in wanted
    ]
    _check_names(modules, chosen, wanted, dtypes, defines)
    jobs, seen = [], set()
    for module, k in chosen:
        for job in _kernel_jobs(module, k, dtypes, defines, named=bool(wanted)):
            if (module.name, job.instance) not in seen:
                seen.add((module.name, job.instance))
                jobs.append(job)
    if not jobs:
        raise error("cli-nothing-selected", found=len(chosen))
    return jobs


def _kernel_jobs(module: Module, k, dtypes: dict, defines: dict, named: bool):
    combos = _dtype_choices(k, dtypes)
    if not combos:
        if named and dtypes:
            listed = "; ".join(
                f"{n}: {', '.join(t.short for t in ts)}"
                for n, ts in k.supported.items()
            )
            raise error("cli-unsupported-dtypes", kernel=k.name, supported=listed)
        return []
    names = tuple(tv.name for tv in k.signature.typevars)
    jobs = []
    for consts in _constexpr_choices(k, defines):
        for combo in combos:
            inst = k.dispatch(*combo, **dict(consts))
            shorts = tuple(t.short for t in combo)
            jobs.append(Job(module, k.name, shorts, names, tuple(consts), inst.name))
    return jobs


def _check_names(modules, chosen, wanted: set, dtypes: dict, defines: dict) -> None:
    """Every name in -k, --dtypes NAME= and -D must exist among the kernels."""
    missing = sorted(wanted - {k.name for _, k in chosen})
    if missing:
        every = [k.name for _, module_kernels in modules for k in module_kernels]
        functions = {f for module, _ in modules for f in module.functions}
        funcs = [m for m in missing if m in functions]
        if funcs:
            hint = (
                f"; {', '.join(repr(f) for f in funcs)} "
                f"{'is a @kdsl.func device function' if len(funcs) == 1 else 'are @kdsl.func device functions'}"
                ", not a kernel: device functions have no instances of their own, "
                "they are compiled into the kernels that call them (name a kernel "
                "that calls it)"
            )
        else:
            hint = did_you_mean(missing, every, quote=True)
        raise error(
            "cli-unknown-kernel",
            names=", ".join(repr(m) for m in missing),
            hint=hint,
        )
    constexprs = {c.name for _, k in chosen for c in k.signature.constexprs}
    unused = sorted(set(defines) - constexprs)
    if unused:
        hint = did_you_mean(unused, constexprs)
        raise error("cli-unknown-define", names=", ".join(unused), hint=hint)
    typevars = {tv.name for _, k in chosen for tv in k.signature.typevars}
    unknown = sorted(n for n in dtypes if n is not None and n not in typevars)
    if unknown:
        hint = did_you_mean(unknown, typevars)
        raise error("cli-unknown-dtype-param", names=", ".join(unknown), hint=hint)
