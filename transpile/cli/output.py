"""kdsl-transpile, part 3: writing OUTDIR and its manifest, and golden folders.

Everything written is a function of the inputs alone: sorted keys, no
timestamps, no absolute paths, ``\\n`` line ends.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import math
from pathlib import Path

from kdsl.transpile.cli.select import Job

MANIFEST = "manifest.json"
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
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


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


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and path.read_bytes() == text.encode("utf-8"):
        return  # leave mtimes alone, so that make-style builds see no change
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def write_outdir(outdir: Path, jobs, sources, version: str) -> None:
    """``OUTDIR/<module>/<instance>.cu`` for every job, and the manifest.

    Files that the previous run's manifest lists and this run does not make
    are removed, so OUTDIR always holds exactly the last run's output (files
    that kdsl did not write are left alone).
    """
    for job, source in zip(jobs, sources):
        _write(outdir / job.file, source)
    made = {job.file for job in jobs}
    for file in sorted(_previous_files(outdir) - made):
        path = outdir / file
        if path.is_file():
            path.unlink()
        if (
            path.parent != outdir
            and path.parent.is_dir()
            and not any(path.parent.iterdir())
        ):
            path.parent.rmdir()
    _write(outdir / MANIFEST, manifest_text(jobs, sources, version))


def _previous_files(outdir: Path) -> set[str]:
    try:
        old = json.loads((outdir / MANIFEST).read_text(encoding="utf-8"))
        files = {e["file"] for e in old["instances"]}
    except (OSError, ValueError, KeyError, TypeError):
        return set()
    # only plain <module>/<instance>.cu names: never follow '..' or absolute paths
    return {
        f
        for f in files
        if isinstance(f, str)
        and f.endswith(".cu")
        and len(Path(f).parts) == 2
        and ".." not in Path(f).parts
        and not Path(f).is_absolute()
    }


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
def _owned_files(golden: Path, jobs, kernels: set | None) -> set[str]:
    """The golden .cu files this run speaks for: under its modules' folders,
    and when ``-k`` chose kernels, only those kernels' files."""
    owned = set()
    for module in sorted({job.module.name for job in jobs}):
        for p in sorted((golden / module).glob("*.cu")):
            stem = p.stem
            if kernels is None or any(
                stem == k or stem.startswith(k + "__") for k in kernels
            ):
                owned.add(f"{module}/{p.name}")
    return owned


def golden_changes(golden: Path, jobs, sources, kernels: set | None, stale: bool):
    """``[(file, golden text or None, generated text or None)]`` that differ.

    Golden files of this run's modules that it did not generate count as
    removed when ``stale`` (no --dtypes / -D filter narrowed the run).
    """
    generated = {job.file: source for job, source in zip(jobs, sources)}
    files = set(generated)
    if stale:
        files |= _owned_files(golden, jobs, kernels)
    changes = []
    for file in sorted(files):
        path = golden / file
        old = path.read_text(encoding="utf-8") if path.is_file() else None
        new = generated.get(file)
        if old != new:
            changes.append((file, old, new))
    return changes


def diff_text(golden: Path, changes) -> str:
    return "".join(
        unified_diff(old, new, f"{golden.as_posix()}/{file}", f"generated/{file}")
        for file, old, new in changes
    )


def update_golden(golden: Path, changes) -> None:
    for file, _old, new in changes:
        path = golden / file
        if new is None:
            path.unlink()
        else:
            _write(path, new)


def summary(changes) -> str:
    counts = {"changed": 0, "added": 0, "removed": 0}
    for _file, old, new in changes:
        counts["added" if old is None else "removed" if new is None else "changed"] += 1
    return ", ".join(f"{n} {what}" for what, n in counts.items() if n)
