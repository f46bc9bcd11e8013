"""kdsl-transpile, part 2: transpiling (and checking) instances, in parallel.

Each :class:`~kdsl.transpile.cli.select.Job` is transpiled in a worker
process; results come back in job order whatever order they finish in, so
output never depends on ``-j``.  Workers are forked where the platform
allows (they inherit the imported modules) and import them again otherwise.
"""

from __future__ import annotations

import multiprocessing
import os
import re
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from kdsl.transpile.cli.select import Job, find_kernel, import_module, render_error
from kdsl.transpile.cuda.quote import string_value
from kdsl.transpile.errors import DSLError, error
from kdsl.transpile.source import Span
from kdsl.transpile.ir.printer import format_instance

# Test-only: the Python statement text after whose generated comment --check
# inserts an undeclared identifier, so that tests can see a compile failure
# reported end to end.  Never set outside kdsl's own tests.
TEST_BREAK_ENV = "_KDSL_TRANSPILE_TEST_BREAK_AFTER"
_BROKEN_LINE = "kdsl_test_undeclared_identifier;"


@dataclass(frozen=True)
class Options:
    check: bool = False
    arch: str = "sm_90"
    line_directives: bool = False
    ir: bool = False  # the lowered IR's text instead of CUDA (--ir)
    explain: bool = False  # the wrapped integer operations instead (--explain-arith)


@dataclass(frozen=True)
class Result:
    source: str | None = None  # the .cu, or under --ir the IR (None after an error)
    error: str | None = None  # a rendered DSLError: exit 2
    check_error: str | None = None  # a rendered NVRTC failure: exit 1


def run_job(job: Job, options: Options) -> Result:
    """Transpile one instance (and compile it with NVRTC under --check), or
    under --ir format its lowered IR."""
    try:
        kernel = find_kernel(import_module(job.module.path), job.kernel)
        inst = kernel.dispatch(*job.dtypes, **dict(job.constexprs))
        if options.ir:
            lowered = inst.lowered
            return Result(format_instance(lowered.kernel, lowered.functions))
        if options.explain:
            return Result(inst.compilation.explain_arith())
        source = inst.render(line_directives=options.line_directives)
    except DSLError as exc:
        return Result(error=render_error(exc))
    except Exception as exc:  # an internal error must still read like one
        err = error("internal", what=f"{type(exc).__name__}: {exc}")
        err.instance = job.instance
        return Result(error=render_error(err))
    if not options.check:
        return Result(source)
    try:
        arch = instance_arch(inst, options.arch)
    except DSLError as exc:
        return Result(error=render_error(exc))
    return Result(source, check_error=check_instance(job, inst, source, arch))


def instance_arch(inst, arch: str) -> str:
    """What --check compiles ``inst`` for: ``arch``, or ``sm_90a`` for an
    instance that calls a Hopper built-in (``--arch sm_90``, the default, or
    ``sm_90a``; another --arch cannot run it: E361)."""
    from kdsl.runtime.compile import target_arch

    return target_arch(inst, arch, where="--arch")


def run_jobs(jobs: list[Job], options: Options, workers: int, progress: bool):
    """The results of ``jobs``, in job order."""
    from tqdm import tqdm

    workers = max(1, min(workers, len(jobs)))
    bar = tqdm(
        total=len(jobs),
        desc="checking" if options.check else "transpiling",
        unit="instance",
        file=sys.stderr,
        disable=not progress,
        leave=False,
    )
    with bar:
        if workers == 1:
            results = []
            for job in jobs:
                results.append(run_job(job, options))
                bar.update()
            return results
        chunk = max(1, len(jobs) // (workers * 4))
        with ProcessPoolExecutor(workers, mp_context=_context()) as pool:
            results = []
            for result in pool.map(
                run_job, jobs, [options] * len(jobs), chunksize=chunk
            ):
                results.append(result)
                bar.update()
            return results


def _context():
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else None)


def default_workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


# -- --check ---------------------------------------------------------------------------
def check_arch(arch: str) -> None:
    """Reject an --arch that NVRTC does not know before checking anything."""
    from kdsl.runtime.nvrtc import NVRTCError, compile_to_cubin, require_cuda_extra

    if not re.fullmatch(r"(sm|compute)_\d+[a-z]?", arch):
        raise error("cli-arch-syntax", arch=arch)
    require_cuda_extra("--check (NVRTC)")
    try:
        compile_to_cubin('extern "C" __global__ void probe() {}', "probe", arch=arch)
    except NVRTCError as exc:
        raise error(
            "cli-arch-unsupported", arch=arch, log=_log_of(exc).strip()
        ) from None


def check_instance(job: Job, inst, source: str, arch: str) -> str | None:
    """None if NVRTC compiles ``source``; else the failure, mapped to Python."""
    from kdsl.runtime.nvrtc import NVRTCError, compile_to_cubin

    broken_after = os.environ.get(TEST_BREAK_ENV)
    if broken_after:
        source = _break(source, broken_after)
    try:
        options = inst.kernel.options.nvrtc_options()
        compile_to_cubin(source, inst.name, arch=arch, options=options)
        return None
    except NVRTCError as exc:
        log = _log_of(exc)
    directed = inst.render(line_directives=True)
    if broken_after:
        directed = _break(directed, broken_after)
    return nvrtc_report(job, inst.name, source, directed, log, arch)


def _log_of(exc) -> str:
    """NVRTC's log: ``exc.log`` where NVRTCError keeps it, else its message
    without the "NVRTC rejected NAME: " before it."""
    log = getattr(exc, "log", None)
    if isinstance(log, str):
        return log
    return exc.message.split(": ", 1)[-1]


def _break(source: str, statement: str) -> str:
    lines = source.split("\n")
    for i, line in enumerate(lines):
        if line.strip() == f"// {statement}":
            at = i + 1
            if at < len(lines) and lines[at].startswith("#line"):
                at += 1
            indent = line[: len(line) - len(line.lstrip())]
            lines.insert(at, indent + _BROKEN_LINE)
            return "\n".join(lines)
    return source


_LOG_LINE = re.compile(r"^(?P<file>[^\s()]+)\((?P<line>\d+)\): (?P<what>.*)$")


def python_lines(directed: str) -> list[tuple[str, int] | None]:
    """For each line of the plain source, the ``(file, line)`` it came from.

    ``directed`` is the same source rendered with ``#line`` directives: apart
    from those, its lines are the plain source's, one for one.  A directive
    holds until the next one or until a line at column 0 (a function's
    signature or closing brace), which belongs to no Python statement.
    """
    out, current = [], None
    for line in directed.split("\n"):
        m = re.match(r'#line (\d+) ("(?:[^"\\]|\\.)*")$', line)
        if m:
            current = (string_value(m.group(2)), int(m.group(1)))
            continue
        if line and not line[0].isspace():
            current = None
        out.append(current)
    return out


def nvrtc_report(job: Job, name: str, source, directed, log: str, arch: str) -> str:
    """The NVRTC failure as a compiler error at the Python line it came from.

    NVRTC names a line of ``<name>.cu``, mapped back through ``directed``;
    or, when ``source`` itself has ``#line`` directives, the Python file.
    """
    lines = source.split("\n")
    origin = python_lines(directed)
    first = None
    for entry in log.splitlines():
        m = _LOG_LINE.match(entry.strip())
        if m and "error" in m.group("what"):
            first = (m.group("file"), int(m.group("line")), m.group("what"))
            break
    what = re.sub(r"^error:\s*", "", first[2]) if first else "compilation failed"
    exc = error("nvrtc-rejected", subject=f"the generated code for {arch}", detail=what)
    exc.instance = name
    extra = []
    if first is not None and first[0] == f"{name}.cu" and 0 < first[1] <= len(lines):
        number = first[1]
        if number <= len(origin) and origin[number - 1] is not None:
            _locate(exc, job, *origin[number - 1])
        extra += [f"generated line {job.file}:{number}:", "    " + lines[number - 1]]
    elif first is not None and first[0].endswith(".py"):
        _locate(exc, job, first[0], first[1])
    extra.append("NVRTC log:")
    extra += ["    " + l for l in log.rstrip("\n").splitlines()]
    return "\n".join([render_error(exc), *extra])


def _locate(exc: DSLError, job: Job, basename: str, line: int) -> None:
    path = job.module.path
    if Path(path).name != basename:
        path = basename
    try:
        text = Path(path).read_text(encoding="utf-8").splitlines()[line - 1]
    except (OSError, IndexError):
        text = None
    if text is None:
        exc.locate(Span(path, line, 1, line, 1))
        return
    col = len(text) - len(text.lstrip()) + 1
    exc.locate(Span(path, line, col, line, len(text.rstrip()) + 1), text.rstrip())
