"""Compiling generated CUDA C++ with NVRTC through CuPy (no GPU needed).

NVRTC and the CUDA headers come from the ``nvidia-cuda-nvrtc`` and
``nvidia-cuda-runtime`` pip packages; ``<cooperative_groups.h>``
(``kdsl.grid_sync``) also needs CCCL's libcu++ headers (``<nv/target>``),
found beside them or else in CuPy's bundled copy.  Options keep kdsl's semantics exact:
``--fmad=false`` (no contraction of a*b+c into an fma, which would round
once instead of twice); no fast-math (``-use_fast_math`` would flush
subnormals and use approximate division, sqrt and transcendentals).
"""

from __future__ import annotations

import os
import threading
from functools import lru_cache

from kdsl.runtime.errors import NVRTCError  # noqa: F401 (re-exported)
from kdsl.transpile.errors import error

EXACT_OPTIONS = ("--fmad=false", "-std=c++17", "--device-int128")

# what kdsl[cuda] installs: (module, the pip package that provides it)
CUDA_EXTRA = (
    ("cupy", "cupy-cuda13x"),
    ("nvidia", "nvidia-cuda-nvrtc and nvidia-cuda-runtime"),
)


def _importable(module: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def missing_cuda_packages() -> list[str]:
    """The pip packages of the ``cuda`` extra that cannot be imported."""
    return [package for module, package in CUDA_EXTRA if not _importable(module)]


def require_cuda_extra(what: str) -> None:
    """Raise E480 naming the ``kdsl[cuda]`` extra if its packages are missing."""
    missing = missing_cuda_packages()
    if missing:
        raise error("cuda-extra-missing", task=what, missing=" and ".join(missing))


@lru_cache(maxsize=None)
def cuda_include_dir() -> str:
    """The CUDA headers of the nvidia-cuda-runtime wheel."""
    import nvidia

    searched = []
    for base in nvidia.__path__:
        for sub in ("cu13/include", "cuda_runtime/include"):
            path = os.path.join(base, sub)
            if os.path.exists(os.path.join(path, "cuda_fp16.h")):
                return path
            searched.append(path)
    raise error("cuda-headers", searched=", ".join(searched) or "nvidia.__path__")


@lru_cache(maxsize=None)
def _builtins_held() -> bool:
    """Load NVRTC's builtins library once and keep it (True if found).

    NVRTC opens libnvrtc-builtins for each compile and closes it after, and
    compiles in parallel threads then fail at random ("failed to open
    libnvrtc-builtins.so"); while this process holds it, NVRTC's open finds
    it loaded and compiles can run side by side (NVRTC releases the GIL)."""
    import ctypes

    import nvidia

    name = f"libnvrtc-builtins.so.{nvrtc_version()}"  # the one NVRTC opens
    for base in nvidia.__path__:
        for sub in ("cu13/lib", "cuda_nvrtc/lib"):
            path = os.path.join(base, sub, name)
            if os.path.exists(path):
                try:
                    _HELD.append(ctypes.CDLL(path))
                    return True
                except OSError:
                    pass
    return False


_HELD: list = []  # the builtins library, never unloaded
_ONE_AT_A_TIME = threading.Lock()  # when it could not be held


@lru_cache(maxsize=None)
def include_options() -> tuple:
    """``-I`` options: the CUDA headers, then CCCL's libcu++ where they are
    not already inside them (a toolkit's include directory has ``nv/``; CUDA
    13 puts CCCL in ``include/cccl``; CuPy bundles a copy, which its own
    NVRTC compiles use).  Only ``<cooperative_groups.h>`` reads them."""
    import cupy

    cuda = cuda_include_dir()
    bundled = os.path.join(os.path.dirname(cupy.__file__), "_core", "include")
    for path in (
        cuda,
        os.path.join(cuda, "cccl"),
        os.path.join(bundled, "cupy", "_cccl", "libcudacxx"),
    ):
        if os.path.exists(os.path.join(path, "nv", "target")):
            return (f"-I{cuda}",) + ((f"-I{path}",) if path != cuda else ())
    return (f"-I{cuda}",)  # <cooperative_groups.h> will say what is missing


def compile_to_cubin(
    source: str, name: str, arch: str = "sm_90", options: tuple = ()
) -> bytes:
    """Compile ``source`` to a cubin for ``arch``, with the kernel's own
    ``options`` (``--maxrregcount=N``) after kdsl's; raise NVRTCError with
    the log.  Threads may call it at once: they compile in parallel when the
    builtins library is held, else one at a time."""
    try:
        held = _builtins_held()
    except ImportError:  # kdsl installed without its cuda extra
        require_cuda_extra("compiling with NVRTC")
        raise
    if held:
        return _compile(source, name, arch, options)
    with _ONE_AT_A_TIME:
        return _compile(source, name, arch, options)


def _compile(source: str, name: str, arch: str, options: tuple) -> bytes:
    from cupy.cuda import nvrtc

    options = [f"-arch={arch}", *include_options(), *EXACT_OPTIONS, *options]
    prog = nvrtc.createProgram(source, f"{name}.cu", [], [])
    try:
        try:
            nvrtc.compileProgram(prog, options)
        except nvrtc.NVRTCError:
            log = nvrtc.getProgramLog(prog)
            err = error(
                "nvrtc-rejected", subject=name, detail=explain(log, source, name)
            )
            err.log = log
            raise err from None
        return nvrtc.getCUBIN(prog)
    finally:
        nvrtc.destroyProgram(prog)


@lru_cache(maxsize=None)
def nvrtc_version() -> str:
    from cupy.cuda import nvrtc

    return "%d.%d" % nvrtc.getVersion()


def explain(log: str, source: str, name: str) -> str:
    """NVRTC's log with, for each error, the generated line and the Python
    statement it came from (the ``// ...`` comment kdsl puts before it)."""
    import re

    lines = source.splitlines()
    out = [log.strip()]
    for match in re.finditer(rf"{re.escape(name)}\.cu\((\d+)\): error", log):
        n = int(match.group(1))
        if not 0 < n <= len(lines):
            continue
        out.append(f"  generated line {n}: {lines[n - 1].strip()}")
        for back in range(n - 1, 0, -1):
            text = lines[back - 1].strip()
            if text.startswith("// ") and not text.startswith("// ----"):
                # a statement written over several lines: its comment's
                # continuation lines are indented ("//     + b"), its first not
                first = back
                while first > 1 and lines[first - 1].strip().startswith("//  "):
                    first -= 1
                echoed = [lines[k - 1].strip()[3:] for k in range(first, back + 1)]
                out.append(f"  from Python: {' '.join(echoed)}")
                break
            if text.startswith("#line "):
                out.append(f"  at {text[6:]}")
    return "\n".join(out)
