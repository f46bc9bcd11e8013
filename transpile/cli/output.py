"""kdsl-transpile, part 3: writing OUTDIR and its manifest, and golden folders.

Everything written is a function of the inputs alone: sorted keys, no
timestamps, no absolute paths, ``\\n`` line ends.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path

from kdsl.transpile.cli.files import MANIFEST, Root, module_name_rule, shown
from kdsl.transpile.cli.select import Job
from kdsl.transpile.errors import DSLError, error

MANIFEST_FORMAT = 1


def unified_diff(expected: str | None, actual: str | None, old: str, new: str) -> str:
    """A unified diff from ``expected`` to ``actual`` (None: the file is absent).

    Like ``difflib.unified_diff`` but without its "junk" heuristic, which in
    a long file ignores frequent lines such as ``}`` and so shows them as
    changed.
    """
    a = (expected or "").splitlines(keepends=True)
    b = (actual or "").splitlines(keepends=True)
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    out = []
    for group in matcher.get_grouped_opcodes(3):
        if not out:
            out.append(f"--- {old if expected is not None else '/dev/null'}\n")
            out.append(f"+++ {new if actual is not None else '/dev/null'}\n")
        first, last = group[0], group[-1]
        out.append(f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [" " + _eol(line) for line in a[i1:i2]]
                continue
            out += ["-" + _eol(line) for line in a[i1:i2]]
            out += ["+" + _eol(line) for line in b[j1:j2]]
    return "".join(out)


def _range(start: int, stop: int) -> str:
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def _eol(line: str) -> str:
    return line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"


def _sha256(text: str) -> str:
    return _sha256_bytes(text.encode("utf-8"))


def _sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _json_value(value):
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)  # JSON has no nan / inf
    return value


def manifest_text(jobs: list[Job], sources: list[str], version: str) -> str:
    entries = []
    for job, source in zip(jobs, sources):
        entries.append(
            {
                "module": job.module.name,
                "kernel": job.kernel,
                "instance": job.instance,
                "dtypes": dict(zip(job.dtype_names, job.dtypes)),
                "constexprs": {k: _json_value(v) for k, v in job.constexprs},
                "file": job.file,
                "cu_sha256": _sha256(source),
                "python_source": job.module.source,
                "python_sha256": job.module.sha256,
            }
        )
    entries.sort(key=lambda e: e["file"])
    manifest = {"format": MANIFEST_FORMAT, "kdsl": version, "instances": entries}
    return json.dumps(manifest, indent=2, sort_keys=True) + "\n"


@dataclass(frozen=True)
class OutdirPlan:
    """What ``-o OUTDIR`` will write and delete, every path checked."""

    root: Root
    files: dict  # <module>/<instance>.cu -> its source
    stale: list  # files of the previous manifest that this run does not make
    manifest: str
    warnings: list  # why some files of the previous manifest stay


def plan_outdir(outdir: Path, jobs, sources, version: str) -> OutdirPlan:
    """Check OUTDIR before anything is written.

    A file of the previous run's manifest that this run does not make is
    stale; it is deleted only if it is still what kdsl wrote there: a plain
    ``<module>/<instance>.cu`` inside OUTDIR, reached through no link, whose
    bytes have the manifest's ``cu_sha256``.  Others are kept, with a warning.
    """
    root = Root(outdir, "-o")
    root.check()
    files = {job.file: source for job, source in zip(jobs, sources)}
    for file in files:
        root.locate(file)
    root.locate(MANIFEST)
    stale, warnings = [], []
    for file, sha in _previous_entries(root, warnings):
        if file in files:
            continue
        if not (isinstance(file, str) and _instance_file(file)):
            warnings.append(
                f"warning: {shown(root.path / MANIFEST)}: ignored the entry "
                f"{file!r}: not a <module>/<instance>.cu path inside -o "
                f"{shown(root.path)}"
            )
            continue
        try:
            data = root.read(file)
        except DSLError as exc:
            warnings.append(
                f"warning: {shown(root.path / file)}: not deleted: {exc.message}"
            )
            continue
        if data is None:
            continue
        if sha != _sha256_bytes(data):
            warnings.append(
                f"warning: kept {shown(root.path / file)}: it changed since kdsl "
                "wrote it (delete it if it is not wanted)"
            )
            continue
        stale.append(file)
    manifest = manifest_text(jobs, sources, version)
    return OutdirPlan(root, files, stale, manifest, warnings)


def write_outdir(plan: OutdirPlan) -> list[str]:
    """``OUTDIR/<module>/<instance>.cu`` for every job, stale files deleted,
    and the manifest last; the warnings of the plan."""
    for file, source in plan.files.items():
        plan.root.write(file, source)
    for file in plan.stale:
        plan.root.remove(file)
    plan.root.write(MANIFEST, plan.manifest)
    return plan.warnings


def _instance_file(file: str) -> bool:
    parts = file.split("/")
    return (
        len(parts) == 2
        and module_name_rule(parts[0]) is None
        and parts[1].endswith(".cu")
        and module_name_rule(parts[1]) is None
    )


def _previous_entries(root: Root, warnings: list) -> list[tuple]:
    """``[(file, cu_sha256)]`` of OUTDIR's manifest (none if there is none)."""
    data = root.read(MANIFEST)
    if data is None:
        return []
    try:
        old = json.loads(data.decode("utf-8"))
        entries = [(e["file"], e["cu_sha256"]) for e in old["instances"]]
    except (ValueError, KeyError, TypeError):
        warnings.append(
            f"warning: {shown(root.path / MANIFEST)} is not a kdsl manifest: no "
            "stale file is deleted"
        )
        return []
    return sorted(entries, key=repr)


def stdout_text(jobs, sources) -> str:
    if len(jobs) == 1:
        return sources[0]
    parts = [f"// ==> {job.file} <==\n{source}" for job, source in zip(jobs, sources)]
    return "\n".join(parts)


def ir_text(jobs, texts) -> str:
    """--ir: each instance's IR under a ``# ==> <module>/<instance> <==`` line."""
    parts = [
        f"# ==> {j.module.name}/{j.instance} <==\n{t}" for j, t in zip(jobs, texts)
    ]
    return "\n".join(parts)


# -- golden folders --------------------------------------------------------------------
def _owned_files(root: Root, jobs, kernels: set | None) -> set[str]:
    """The golden .cu files this run speaks for: under its modules' folders,
    and when ``-k`` chose kernels, only those kernels' files."""
    owned = set()
    for module in sorted({job.module.name for job in jobs}):
        for file in root.cu_files(module):
            stem = file[len(module) + 1 : -len(".cu")]
            if kernels is None or any(
                stem == k or stem.startswith(k + "__") for k in kernels
            ):
                owned.add(file)
    return owned


def _golden_text(root: Root, file: str) -> str | None:
    data = root.read(file)
    if data is None:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(
            "cli-golden-not-utf8", path=shown(root.path / file), offset=exc.start
        ) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")  # as text mode reads it


def golden_changes(root: Root, jobs, sources, kernels: set | None, stale: bool):
    """``[(file, golden text or None, generated text or None)]`` that differ.

    Golden files of this run's modules that it did not generate count as
    removed when ``stale`` (no --dtypes / -D filter narrowed the run).  Every
    file is checked (and read) here, before --update writes anything.
    """
    root.check()
    generated = {job.file: source for job, source in zip(jobs, sources)}
    files = set(generated)
    if stale:
        files |= _owned_files(root, jobs, kernels)
    changes = []
    for file in sorted(files):
        old = _golden_text(root, file)
        new = generated.get(file)
        if old != new:
            changes.append((file, old, new))
    return changes


def diff_text(golden: Path, changes) -> str:
    return "".join(
        unified_diff(old, new, f"{golden.as_posix()}/{file}", f"generated/{file}")
        for file, old, new in changes
    )


def update_golden(root: Root, changes) -> None:
    for file, _old, new in changes:
        if new is None:
            root.remove(file)
        else:
            root.write(file, new)


def summary(changes) -> str:
    counts = {"changed": 0, "added": 0, "removed": 0}
    for _file, old, new in changes:
        counts["added" if old is None else "removed" if new is None else "changed"] += 1
    return ", ".join(f"{n} {what}" for what, n in counts.items() if n)
