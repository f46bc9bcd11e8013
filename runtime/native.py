"""kdsl's compiled replay: native.c, built once per host with its C compiler.

kdsl.torch replays an operator's recorded launches (``replay=True``) in a
generated Python function; on the GPU, where the host has a C compiler and
Python's headers (as Triton needs for its launchers), the same replay runs
in C (``call``): the signature test, the output allocation, the parameter
buffers and ``cuLaunchKernel``, without the interpreter.  The module is
compiled on first use into kdsl's cache folder (``$KDSL_CACHE_DIR/native``,
one file per source, Python and compiler) and loaded from there after.

``KDSL_NATIVE=0`` turns it off; where it cannot be built (no compiler, no
headers), ``module()`` is None, ``why()`` says why, and kdsl replays in
Python.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import shlex
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from kdsl.runtime.cache import cache_dir, digest

_SOURCE = Path(__file__).with_name("native.c")
_NAME = "kdsl_native"
_state: dict = {}  # "module": the module or None, "why": why it is None


def compiler() -> list:
    """The C compiler's command: ``$CC``, else the one Python was built with,
    else ``cc``."""
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    return shlex.split(cc)


def module():
    """The compiled module, built the first time it is asked for, or None
    (``why()``)."""
    if "module" not in _state:
        try:
            _state["module"] = _load()
        except _Unavailable as exc:
            _state["module"], _state["why"] = None, str(exc)
    return _state["module"]


def why() -> str | None:
    """Why ``module()`` is None (None when it is not)."""
    module()
    return _state.get("why")


class _Unavailable(Exception):
    pass


def _load():
    if os.environ.get("KDSL_NATIVE") == "0":
        raise _Unavailable("KDSL_NATIVE=0")
    cc, include, path = target()
    if not path.exists():
        _build(cc, include, path)
    try:
        return _imported(path)
    except ImportError:  # a broken file (truncated, another Python's): anew
        _build(cc, include, path)
    try:
        return _imported(path)
    except ImportError as exc:
        raise _Unavailable(f"{path}: {exc}") from None


def target() -> tuple:
    """``(compiler command, Python's include folder, the module's file)``:
    the file is named by the source, Python, the platform and the
    compiler."""
    cc = compiler()
    include = sysconfig.get_paths()["include"]
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    source = _SOURCE.read_bytes()
    key = digest(source, sys.version, sys.platform, " ".join(cc), include)[:24]
    return cc, include, cache_dir() / "native" / f"{_NAME}-{key}{suffix}"


def _imported(path: Path):
    loader = importlib.machinery.ExtensionFileLoader(_NAME, str(path))
    spec = importlib.util.spec_from_file_location(_NAME, path, loader=loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def _build(cc: list, include: str, path: Path) -> None:
    """Compile native.c into ``path`` (written whole, then renamed: other
    processes may build it at the same time)."""
    if not Path(include, "Python.h").exists():
        raise _Unavailable(f"no Python.h in {include}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=path.suffix)
    except OSError as exc:
        raise _Unavailable(f"cannot write {path.parent}: {exc}") from None
    os.close(fd)
    command = [
        *cc,
        "-O2",
        "-std=gnu11",
        "-shared",
        "-fPIC",
        f"-I{include}",
        str(_SOURCE),
        "-o",
        tmp,
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        os.unlink(tmp)
        raise _Unavailable(f"{cc[0]}: {exc}") from None
    if done.returncode != 0:
        os.unlink(tmp)
        raise _Unavailable(f"{' '.join(command)}: {done.stderr.strip()[:2000]}")
    os.replace(tmp, path)
