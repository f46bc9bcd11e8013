"""Compiling generated CUDA C++ with NVRTC through CuPy (no GPU needed).

NVRTC and the CUDA headers come from the ``nvidia-cuda-nvrtc`` and
``nvidia-cuda-runtime`` pip packages.  Options keep kdsl's semantics exact:
``--fmad=false`` (no contraction of a*b+c into an fma, which would round
once instead of twice); no fast-math (``-use_fast_math`` would flush
subnormals and use approximate division, sqrt and transcendentals).
"""

from __future__ import annotations

import os
from functools import lru_cache

from kdsl.runtime.errors import NVRTCError  # noqa: F401 (re-exported)
from kdsl.transpile.errors import error

EXACT_OPTIONS = ("--fmad=false", "-std=c++17", "--device-int128")


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


def compile_to_cubin(
    source: str, name: str, arch: str = "sm_90", options: tuple = ()
) -> bytes:
    """Compile ``source`` to a cubin for ``arch``, with the kernel's own
    ``options`` (``--maxrregcount=N``) after kdsl's; raise NVRTCError with
    the log."""
    from cupy.cuda import nvrtc

    options = [f"-arch={arch}", f"-I{cuda_include_dir()}", *EXACT_OPTIONS, *options]
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
                out.append(f"  from Python: {text[3:]}")
                break
            if text.startswith("#line "):
                out.append(f"  at {text[6:]}")
    return "\n".join(out)
