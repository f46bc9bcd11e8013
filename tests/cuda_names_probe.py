"""Regenerate ``transpile/frontend/cuda_names.py``'s list (run by hand after
a CUDA update; it takes a minute):

    python tests/cuda_names_probe.py > /tmp/names.txt

Every identifier of the CUDA headers that NVRTC sees when it compiles kdsl's
code is a candidate: from ``$CUDA_HOME/include`` (default /usr/local/cuda)
and the nvidia-cuda-runtime package's include folder (which lacks ``crt/``,
where the math library is declared: use a CUDA toolkit's);
it is kept if NVRTC, with those headers included, accepts
``namespace p { using ::NAME; }`` (declared at file scope) or ``#ifdef NAME``
(a macro).  Names starting with ``_`` are left to names.py's rules.
"""

from __future__ import annotations

import keyword
import os
import re
from pathlib import Path

import nvidia.cu13

from kdsl.runtime.nvrtc import NVRTCError, compile_to_cubin

HEADERS = """crt/math_functions.h crt/math_functions.hpp crt/device_functions.h
crt/device_functions.hpp crt/device_double_functions.h crt/common_functions.h
crt/cudacc_ext.h crt/device_fp128_functions.h crt/sm_70_rt.h crt/sm_70_rt.hpp
crt/sm_80_rt.h crt/sm_80_rt.hpp crt/sm_90_rt.h crt/sm_90_rt.hpp crt/sm_100_rt.h
crt/sm_100_rt.hpp device_atomic_functions.h sm_20_atomic_functions.h
sm_32_atomic_functions.h sm_35_atomic_functions.h sm_60_atomic_functions.h
sm_20_intrinsics.h sm_20_intrinsics.hpp sm_30_intrinsics.h sm_30_intrinsics.hpp
sm_32_intrinsics.h sm_32_intrinsics.hpp sm_61_intrinsics.h sm_61_intrinsics.hpp
vector_types.h vector_functions.h cuda_fp16.h cuda_fp16.hpp cuda_bf16.h
cuda_bf16.hpp cuda_fp8.h cuda_fp8.hpp cuda_fp6.h cuda_fp6.hpp cuda_fp4.h
cuda_fp4.hpp cooperative_groups.h texture_indirect_functions.h
surface_indirect_functions.h driver_types.h surface_types.h texture_types.h
device_types.h cuda_device_runtime_api.h builtin_types.h library_types.h
math_constants.h cuda_stdint.h device_launch_parameters.h""".split()
EXTRA = """NULL INFINITY NAN HUGE_VAL HUGE_VALF printf malloc free memcpy memset
offsetof clock clock64 threadIdx blockIdx blockDim gridDim warpSize INT_MAX
INT_MIN UINT_MAX LLONG_MAX CHAR_BIT FLT_MAX DBL_MAX""".split()
INCLUDES = "".join(
    f"#include <{h}>\n"
    for h in "cuda_fp16.h cuda_bf16.h cuda_fp8.h cuda_fp6.h cuda_fp4.h "
    "cooperative_groups.h".split()
)


def candidates() -> list[str]:
    folders = [
        Path(os.environ.get("CUDA_HOME", "/usr/local/cuda")) / "include",
        Path(next(iter(nvidia.cu13.__path__))) / "include",
    ]
    found = set(EXTRA)
    for header in HEADERS:
        path = next((f / header for f in folders if (f / header).exists()), None)
        if path is None:
            continue
        text = path.read_text(errors="replace")
        text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
        text = re.sub(r"//[^\n]*", " ", text)
        found |= set(re.findall(r"\b([A-Za-z][A-Za-z0-9_]*)\b", text))
    return sorted(n for n in found if not keyword.iskeyword(n))


def declared(names: list[str], chunk: int = 60) -> list[str]:
    """The names NVRTC knows at file scope (NVRTC stops after 100 errors:
    a chunk has fewer names than that)."""
    kept = []
    first = INCLUDES.count("\n") + 1  # the line of the first #ifdef
    for start in range(0, len(names), chunk):
        part = names[start : start + chunk]
        probe = "".join(
            f"#ifdef {n}\n__device__ int macro_{i} = 0;\n#else\n"
            f"namespace p{i} {{ using ::{n}; }}\n#endif\n"
            for i, n in enumerate(part)
        )
        try:
            compile_to_cubin(INCLUDES + probe, "probe")
            log = ""
        except NVRTCError as exc:
            log = str(exc)
        failed = {int(m) for m in re.findall(r"probe\.cu\((\d+)\)", log)}
        kept += [n for i, n in enumerate(part) if first + 5 * i + 3 not in failed]
    return kept


if __name__ == "__main__":
    print("\n".join(declared(candidates())))
