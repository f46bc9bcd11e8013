"""Running kdsl-transpile as a subprocess, the way users and CI run it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
GOOD_FILES = {
    "kernels/fill__7__false.cu",
    "kernels/scale__f32__2p0__128.cu",
    "kernels/scale__f64__2p0__128.cu",
    "other/copy__bf16.cu",
    "other/copy__i8.cu",
}


def run_cli(*args, cwd=FIXTURES, env=None) -> subprocess.CompletedProcess:
    """``kdsl-transpile ARGS`` in ``cwd`` (the fixtures folder by default)."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "kdsl.transpile.cli", *map(str, args)],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` by its relative path, with its bytes."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def load(path: Path, name: str):
    """Import a fixture module in this process (to compare with dispatch())."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
