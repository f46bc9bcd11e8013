"""GPU cross-check of kdsl.transpile.core.narrow against the real conversions.

``cuda_source_for_exhaustive_check()`` returns one CUDA C++ kernel,
``kdsl_narrow_check``, that converts each input value to all nine narrow
formats (CUDA's constructors for the six CUDA types, the prelude functions for
the other three) and decodes the result back to float.  Running this file
(``python tests/unit/narrow_gpu_table.py`` on a machine with a GPU and CuPy)
feeds it every bfloat16 pattern with assorted low bits (and the other source
types) and compares bit for bit with ``narrow.encode`` / ``narrow.decode``.
"""

from __future__ import annotations

import math
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
PRELUDE = ROOT / "templates" / "prelude" / "narrow_floats.h"

# Output row k of the kernel holds format FORMAT_ORDER[k].
FORMAT_ORDER = (
    ("Float8E5M2", "__nv_fp8_e5m2"),
    ("Float8E4M3FN", "__nv_fp8_e4m3"),
    ("Float8E4M3FNUZ", "kdsl_f8e4m3fnuz"),
    ("Float8E4M3B11FNUZ", "kdsl_f8e4m3b11fnuz"),
    ("Float8E4M3", "kdsl_f8e4m3"),
    ("Float6E2M3FN", "__nv_fp6_e2m3"),
    ("Float6E3M2FN", "__nv_fp6_e3m2"),
    ("Float8E8M0FNU", "__nv_fp8_e8m0"),
    ("Float4E2M1FN", "__nv_fp4_e2m1"),
)

_C_SOURCE_TYPES = {
    "float": "float",
    "double": "double",
    "half": "__half",
    "bfloat16": "__nv_bfloat16",
}


def cuda_source_for_exhaustive_check(source: str = "float") -> str:
    """CUDA C++ for ``kdsl_narrow_check(const T* x, long long n,
    unsigned char* bits, float* back)`` with T the ``source`` type
    ("float" by default, or "double", "half", "bfloat16").

    For value i and format k (``FORMAT_ORDER``), ``bits[k*n + i]`` is the
    encoding and ``back[k*n + i]`` its value decoded to float.  Compile with
    the CUDA include directory on the include path (-I), -std=c++17.
    """
    t = _C_SOURCE_TYPES[source]
    # The prelude has from_float/from_double; half and bfloat16 widen exactly.
    wide = "double" if source == "double" else "float"
    lines = []
    for k, (_, c_name) in enumerate(FORMAT_ORDER):
        if c_name.startswith("__nv_"):
            lines.append(f"    put(n, i, {k}, {c_name}(v).__x, float({c_name}(v)));")
        else:
            lines.append(
                f"    {{ unsigned char b = {c_name}_from_{wide}(({wide})v);\n"
                f"      put(n, i, {k}, b, {c_name}_to_float(b)); }}"
            )
    body = "\n".join(lines)
    return f"""#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_fp6.h>
#include <cuda_fp4.h>
{PRELUDE.read_text()}
#define put(n, i, k, b, f) (bits[(k) * (n) + (i)] = (b), back[(k) * (n) + (i)] = (f))

extern "C" __global__ void kdsl_narrow_check(const {t}* x, long long n,
                                             unsigned char* bits, float* back)
{{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    const {t} v = x[i];
{body}
}}
"""


def _load_narrow():
    from kdsl.transpile.core import narrow

    return narrow


def _inputs(source: str) -> np.ndarray:
    """Every bf16/half pattern; float/double add low bits that break ties."""
    import ml_dtypes

    patterns = np.arange(1 << 16, dtype=np.uint32)
    if source == "half":
        return patterns.astype(np.uint16).view(np.float16)
    if source == "bfloat16":
        return patterns.astype(np.uint16).view(ml_dtypes.bfloat16)
    low = np.array([0, 1, 0x7FFF, 0x8000, 0x8001, 0xFFFF], dtype=np.uint32)
    x = ((patterns[:, None] << 16) | low[None, :]).ravel().view(np.float32)
    if source == "float":
        return x
    d = patterns.view(np.float32).astype(np.float64)
    d = d[np.isfinite(d) & (d != 0)]
    extremes = np.array([1e300, 1e-300, 5e-324, 3.5e38, np.inf, np.nan])
    nans = np.array([0x7FF8000000000000, 0xFFF4000000000001, 0x7FFC000000000000])
    with np.errstate(invalid="ignore"):
        x = x.astype(np.float64)
    return np.concatenate(
        [
            x,
            np.nextafter(d, np.inf),
            np.nextafter(d, -np.inf),
            extremes,
            -extremes,
            nans.astype(np.uint64).view(np.float64),
        ]
    )


def run_check(source: str = "float", limit: int = 20) -> int:
    """Run the kernel on the GPU and compare with narrow; returns #mismatches."""
    import cupy

    narrow = _load_narrow()
    x = _inputs(source)
    n = x.size
    include = _cuda_include_dir()
    module = cupy.RawModule(
        code=cuda_source_for_exhaustive_check(source),
        options=("-std=c++17", f"-I{include}"),
    )
    kernel = module.get_function("kdsl_narrow_check")
    x_gpu = cupy.asarray(x)
    bits = cupy.zeros(len(FORMAT_ORDER) * n, dtype=cupy.uint8)
    back = cupy.zeros(len(FORMAT_ORDER) * n, dtype=cupy.float32)
    kernel(((n + 255) // 256,), (256,), (x_gpu, np.int64(n), bits, back))
    bits = bits.get().reshape(len(FORMAT_ORDER), n)
    back = back.get().reshape(len(FORMAT_ORDER), n)
    bad = 0
    values = [float(v) for v in x]
    for k, (name, _) in enumerate(FORMAT_ORDER):
        table = [narrow.decode(name, b) for b in range(1 << narrow.FORMATS[name].bits)]
        for i, value in enumerate(values):
            want = narrow.encode(name, value, source)
            got_back = float(back[k, i])
            same_back = got_back == table[want] or (
                math.isnan(got_back) and math.isnan(table[want])
            )
            if bits[k, i] != want or not same_back:
                bad += 1
                if bad <= limit:
                    print(
                        f"{source} {name}: x={value!r} ({x[i:i+1].view(np.uint8)}) "
                        f"gpu={bits[k, i]:#x}/{got_back!r} "
                        f"encode={want:#x}/{table[want]!r}"
                    )
    print(f"{source}: {n} values x {len(FORMAT_ORDER)} formats, {bad} mismatches")
    return bad


def _cuda_include_dir() -> str:
    """CUDA headers: the nvidia-cuda-runtime wheel, else CUDA_PATH/include."""
    import os

    try:
        import nvidia.cu13

        return str(pathlib.Path(nvidia.cu13.__path__[0]) / "include")
    except ImportError:
        return os.path.join(os.environ.get("CUDA_PATH", "/usr/local/cuda"), "include")


if __name__ == "__main__":
    sources = sys.argv[1:] or list(_C_SOURCE_TYPES)
    sys.exit(1 if sum(run_check(s) for s in sources) else 0)
