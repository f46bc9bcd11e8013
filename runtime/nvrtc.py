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

from kdsl.transpile.errors import DSLError

EXACT_OPTIONS = ("--fmad=false", "-std=c++17", "--device-int128")


@lru_cache(maxsize=None)
def cuda_include_dir() -> str:
    """The CUDA headers of the nvidia-cuda-runtime wheel."""
    import nvidia

    for base in nvidia.__path__:
        for sub in ("cu13/include", "cuda_runtime/include"):
            path = os.path.join(base, sub)
            if os.path.exists(os.path.join(path, "cuda_fp16.h")):
                return path
    raise DSLError(
        "CUDA headers not found: pip install nvidia-cuda-runtime (kdsl's dependency)",
        code="E501",
    )


class NVRTCError(DSLError):
    code = "E502"


def compile_to_cubin(source: str, name: str, arch: str = "sm_90") -> bytes:
    """Compile ``source`` to a cubin for ``arch``; raise NVRTCError with the log."""
    from cupy.cuda import nvrtc

    options = [f"-arch={arch}", f"-I{cuda_include_dir()}", *EXACT_OPTIONS]
    prog = nvrtc.createProgram(source, f"{name}.cu", [], [])
    try:
        try:
            nvrtc.compileProgram(prog, options)
        except nvrtc.NVRTCError:
            log = nvrtc.getProgramLog(prog)
            raise NVRTCError(f"NVRTC rejected {name}:\n{log}") from None
        return nvrtc.getCUBIN(prog)
    finally:
        nvrtc.destroyProgram(prog)
