"""``kdsl-transpile``: generated CUDA C++ as files, for review, CI and C++ builds.

::

    kdsl-transpile PATH... [-k KERNEL] [--dtypes f32,bf16] [-D NAME=V[,V...]]
                   [-o OUTDIR | --stdout | --ir | --explain-arith]
                   [--check] [--arch sm_90]
                   [--diff GOLDEN_DIR | --update GOLDEN_DIR] [--line-directives]
                   [-j N]

Exit status: 0 ok; 1 a golden folder differs or NVRTC rejected an instance;
2 a user error (printed as ``path.py:LINE:COL: error[CODE]: ...``).  See
docs/cli.md.  The work is split in three modules: ``cli_select`` (PATHs and
flags to instances), ``cli_work`` (transpiling and checking, in parallel) and
``cli_output`` (OUTDIR, manifest, golden folders).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kdsl.transpile.cli.files import Root
from kdsl.transpile.cli.output import (
    diff_text,
    golden_changes,
    ir_text,
    plan_outdir,
    stdout_text,
    summary,
    update_golden,
    write_outdir,
)
from kdsl.transpile.cli.select import (
    load_modules,
    module_files,
    render_error,
    select_jobs,
    split_values,
)
from kdsl.transpile.cli.work import Options, check_arch, default_workers, run_jobs
from kdsl.transpile.errors import DSLError
from kdsl.transpile.version import __version__

OK, DIFFERS, USER_ERROR = 0, 1, 2
# flags that --ir and --explain-arith exclude besides -o / --stdout (their
# argparse group): their dests
_IR_CLASHES = {"--check": "check", "--diff": "diff", "--update": "update"}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="kdsl-transpile",
        description="Write the CUDA C++ of kdsl kernels: one .cu per instance "
        "(kernel x dtypes x constexprs).",
        epilog="exit status: 0 ok, 1 golden differs or NVRTC failed, 2 user error",
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    p.add_argument("paths", nargs="+", metavar="PATH", help=".py file or folder")
    p.add_argument(
        "-k",
        "--kernel",
        action="append",
        metavar="KERNEL",
        help="only these kernels (repeatable, or comma-separated)",
    )
    p.add_argument(
        "--dtypes",
        action="append",
        metavar="[NAME=]DT,...",
        help="only these dtypes, e.g. f32,bf16 (all dtype parameters) or D=f32; "
        "default: every supported dtype",
    )
    p.add_argument(
        "-D",
        action="append",
        dest="defines",
        metavar="NAME=V[,V...]",
        help="constexpr values (one instance per value); default: its default",
    )
    out = p.add_mutually_exclusive_group()
    out.add_argument(
        "-o", "--outdir", type=Path, help="write OUTDIR/<module>/<instance>.cu"
    )
    out.add_argument("--stdout", action="store_true", help="print the sources")
    out.add_argument(
        "--ir",
        action="store_true",
        help="print each instance's lowered IR instead of CUDA (for debugging kdsl)",
    )
    out.add_argument(
        "--explain-arith",
        action="store_true",
        help="print, instead of CUDA, each integer operation left to a wrapping "
        "kdsl:: helper (kdsl::add, kdsl::floordiv, kdsl::in_range ...): its "
        "Python line and the range that kept it",
    )
    p.add_argument(
        "--check", action="store_true", help="compile every instance with NVRTC"
    )
    p.add_argument("--arch", default="sm_90", help="--check's target (sm_90)")
    golden = p.add_mutually_exclusive_group()
    golden.add_argument(
        "--diff",
        type=Path,
        metavar="GOLDEN_DIR",
        help="exit 1 with a unified diff if the output differs from GOLDEN_DIR",
    )
    golden.add_argument(
        "--update",
        type=Path,
        metavar="GOLDEN_DIR",
        help="rewrite GOLDEN_DIR's .cu files (removing stale ones)",
    )
    p.add_argument(
        "--line-directives",
        action="store_true",
        help='emit #line N "file.py" before each statement',
    )
    p.add_argument(
        "-j",
        "--jobs",
        type=_positive,
        default=None,
        metavar="N",
        help="worker processes (default: the number of cores)",
    )
    return p


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return n


def _version() -> str:
    return __version__


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    clash = [flag for flag, dest in _IR_CLASHES.items() if getattr(args, dest)]
    for flag, given in (("--ir", args.ir), ("--explain-arith", args.explain_arith)):
        if given and clash:
            parser.error(f"argument {flag}: not allowed with argument {clash[0]}")
    try:
        return _run(args)
    except DSLError as exc:
        print(render_error(exc), file=sys.stderr)
        return USER_ERROR
    except KeyboardInterrupt:
        return 130


def _run(args) -> int:
    interactive = sys.stdout.isatty() and sys.stderr.isatty()
    interactive = interactive and not (args.stdout or args.ir or args.explain_arith)
    modules = load_modules(module_files(args.paths))
    jobs = select_jobs(modules, args.kernel, args.dtypes, args.defines)
    if args.check:
        check_arch(args.arch)
    options = Options(
        args.check, args.arch, args.line_directives, args.ir, args.explain_arith
    )
    workers = args.jobs or default_workers()
    results = run_jobs(jobs, options, workers, progress=interactive)

    errors = [r.error for r in results if r.error is not None]
    if errors:
        print("\n\n".join(errors), file=sys.stderr)
        print(f"{len(errors)} error(s); nothing written", file=sys.stderr)
        return USER_ERROR
    sources = [r.source for r in results]
    status = OK

    if args.ir or args.explain_arith:
        sys.stdout.write(ir_text(jobs, sources))
        return OK

    # every path is checked (and golden files read) before anything is written
    plan = None
    if args.outdir is not None:
        plan = plan_outdir(args.outdir, jobs, sources, _version())
    golden = args.diff or args.update
    if golden is not None:
        kernels = set(split_values(args.kernel)) or None
        narrowed = bool(args.dtypes or args.defines)
        root = Root(golden, "--update" if args.update else "--diff")
        golden_warnings = []
        changes = golden_changes(
            root, jobs, sources, kernels, not narrowed, golden_warnings
        )
        for warning in golden_warnings:
            print(warning, file=sys.stderr)
    if plan is not None:
        for warning in write_outdir(plan):
            print(warning, file=sys.stderr)
    if args.stdout or not (args.outdir or args.check or args.diff or args.update):
        sys.stdout.write(stdout_text(jobs, sources))

    failures = [r.check_error for r in results if r.check_error is not None]
    if failures:
        print("\n\n".join(failures), file=sys.stderr)
        print(
            f"{len(failures)} of {len(jobs)} instance(s) failed to compile "
            f"for {args.arch}",
            file=sys.stderr,
        )
        status = DIFFERS

    if golden is not None:
        if args.update:
            update_golden(root, changes)
            if changes:
                print(f"{golden}: {summary(changes)}", file=sys.stderr)
        elif changes:
            sys.stdout.write(diff_text(golden, changes))
            print(
                f"{golden} differs: {summary(changes)} "
                f"(run with --update {golden} to accept)",
                file=sys.stderr,
            )
            status = DIFFERS

    # one line on success whether or not the output is a terminal (a CI log
    # or a pipe shows that the job ran); --stdout and --ir print the product
    if not (args.stdout or args.ir) and (status == OK or interactive):
        kernels_done = len({(j.module.name, j.kernel) for j in jobs})
        done = f"{len(jobs)} instance(s) of {kernels_done} kernel(s)"
        if args.check and not failures:
            done += f", all compile for {args.arch}"
        if args.outdir is not None:
            done += f"; written to {args.outdir}"
        if args.diff is not None and status == OK:
            done += f"; {args.diff} matches"
        print(done, file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
