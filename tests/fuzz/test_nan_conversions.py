"""Issue 23 item 11: a NaN converted between float types has the GPU's
encoding, in the interpreter and in folding alike, seen through ``.bitcast``.

``gpu_nan`` below is a model of what the generated conversions produce on
sm_90, written from CUDA 13's headers and kdsl's GPU measurements (not from
kdsl's code; docs/types.md, "NaN payloads", gives the sources):

* to Float16 / BFloat16 (``__float2half_rn``, ``__float2bfloat16_rn``:
  ``cvt.rn.f16/bf16``): the canonical NaN 0x7FFF, whatever the input's sign
  and payload; from Float64 (``cvt.rn.f16.f64``, measured on the H200 in
  session 8) the sign and the payload's top bits, quieted;
* to Float32: from Float16 (``cvt.f32.f16``) and from the narrow formats
  (through half, or narrow_floats.h) 0x7FFFFFFF, but from Float8E8M0FNU
  0x7FFF0000 (through bfloat16's canonical NaN); from BFloat16 the bits
  shifted (the conversion is a move); from Float64 as into Float16;
* to Float64 (``cvt.f64.f32`` widens the payload, measured on an H200):
  the Float32 NaN the source becomes first, widened;
* to Float8E4M3FN / Float8E5M2: 0x7F from a float, half or bfloat16
  (``cvt.rn.satfinite.e4m3x2/e5m2x2``); from a double (software
  ``__nv_cvt_double_to_fp8``) the sign kept, and for E5M2 ``0x7E`` with the
  top two payload bits;
* to the byte formats and E8M0: the format's one NaN (0x80 FNUZ, 0x7F
  Float8E4M3, 0xFF E8M0).
"""

import struct
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
import gen  # noqa: E402

SOURCES = {  # type -> NaN patterns of it (signs, payloads, a signalling one)
    "Float16": [0x7E00, 0xFE00, 0x7C01, 0x7FFF, 0xFD55],
    "BFloat16": [0x7FC0, 0xFFC0, 0x7F81, 0x7FFF, 0xFFA5],
    "Float32": [0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FFFFFFF, 0xFFA0F00D],
    "Float64": [
        0x7FF8000000000000,
        0xFFF8000000000000,
        0x7FF0000000000001,
        0x7FFFFFFFFFFFFFFF,
        0x7FF4000000000123,
        0xFFFC000000000000,
    ],
    "Float8E5M2": [0x7D, 0x7E, 0x7F, 0xFD, 0xFF],
    "Float8E4M3FN": [0x7F, 0xFF],
    "Float8E4M3FNUZ": [0x80],
    "Float8E4M3B11FNUZ": [0x80],
    "Float8E4M3": [0x79, 0x7C, 0x7F, 0xFF],
    "Float8E8M0FNU": [0xFF],
}
TARGETS = list(SOURCES)
WIDTH = {
    "Float16": 16,
    "BFloat16": 16,
    "Float32": 32,
    "Float64": 64,
}
FORMAT_NAN = {  # the one NaN a conversion into these gives
    "Float8E4M3FNUZ": 0x80,
    "Float8E4M3B11FNUZ": 0x80,
    "Float8E4M3": 0x7F,
    "Float8E8M0FNU": 0xFF,
}


def _width(t):
    return WIDTH.get(t, 8)


def _f32_nan(src: str, bits: int) -> int:
    """The Float32 NaN the GPU makes of a ``src`` NaN on its way to float."""
    if src == "Float32":
        return bits
    if src == "BFloat16":
        return bits << 16
    if src == "Float8E8M0FNU":  # cuda_fp8.hpp: 0xFF -> bfloat16 0x7FFF -> float
        return 0x7FFF0000
    return 0x7FFFFFFF


# (exponent bits, mantissa bits)
_IEEE = {"Float16": (5, 10), "BFloat16": (8, 7), "Float32": (8, 23)}


def gpu_nan(src: str, bits: int, dst: str) -> int:
    if src == dst:
        return bits
    if src == "Float64" and dst in _IEEE:
        e, m = _IEEE[dst]
        top = (bits >> (52 - m)) & ((1 << m) - 1)
        return (bits >> 63) << (e + m) | ((1 << e) - 1) << m | top | 1 << (m - 1)
    if dst in ("Float16", "BFloat16"):
        return 0x7FFF
    if dst == "Float32":
        return _f32_nan(src, bits)
    if dst == "Float64":
        if src == "Float64":
            return bits
        f = _f32_nan(src, bits)
        return (f >> 31) << 63 | 0x7FF << 52 | 1 << 51 | (f & 0x7FFFFF) << 29
    if dst in FORMAT_NAN:
        return FORMAT_NAN[dst]
    if src != "Float64":
        return 0x7F
    sign = (bits >> 63) << 7
    if dst == "Float8E4M3FN":
        return sign | 0x7F
    return sign | 0x7E | (bits >> 50) & 3


def test_the_model_agrees_with_measured_points():
    # docs/types.md: a Float64 converted from the canonical Float32 NaN
    assert gpu_nan("Float32", 0x7FFFFFFF, "Float64") == 0x7FFFFFFFE0000000
    # the H200's, session 8 (tests/gpu/test_nan_payloads.py)
    for dst, want in (
        ("Float32", 0x7FE00000),
        ("Float16", 0x7F00),
        ("BFloat16", 0x7FE0),
    ):
        assert gpu_nan("Float64", 0x7FF4000000000123, dst) == want
    assert gpu_nan("Float64", 0xFFF8000000000000, "Float32") == 0xFFC00000
    assert gpu_nan("Float64", 0x7FF0000000000001, "Float16") == 0x7E00
    # numpy's NaN as a double becomes E5M2's 0x7E (cuda_fp8.hpp, the double path)
    (numpy_nan,) = struct.unpack("<Q", struct.pack("<d", float(np.nan)))
    assert gpu_nan("Float64", numpy_nan, "Float8E5M2") == 0x7E


def _kernel(tmp_path, src: str, static_bits):
    """out[j * n + i] = the bits of x[i] (a src NaN) converted to TARGETS[j];
    with ``static_bits``, the inputs are those compile-time constants."""
    w = _width(src)
    lines = [
        "import kdsl",
        "from kdsl import Int32, Pointer, Uint8, Uint16, Uint32, Uint64",
        "",
        "",
        "@kdsl.kernel",
        f"def k(x: Pointer[Uint{w}], out: Pointer[Uint64], n: Int32):",
    ]
    rows = range(len(SOURCES[src]))
    for i in rows:
        if static_bits is None:
            lines.append(f"    v{i} = x[{i}].bitcast(kdsl.{src})")
        else:
            lines.append(f"    v{i} = Uint{w}({static_bits[i]:#x}).bitcast(kdsl.{src})")
    for j, dst in enumerate(TARGETS):
        for i in rows:
            value = f"v{i}.to(kdsl.{dst}).bitcast(Uint{_width(dst)}).to(Uint64)"
            lines.append(f"    out[{j} * n + {i}] = {value}")
    return gen.load(tmp_path, "\n".join(lines) + "\n", "nanconv")[0].k


@pytest.mark.parametrize("src", list(SOURCES))
def test_a_converted_nan_has_the_gpus_bits_in_the_interpreter_and_folding(
    tmp_path, src
):
    inputs = SOURCES[src]
    n = len(inputs)
    x = np.array(inputs, f"u{_width(src) // 8}")
    want = [gpu_nan(src, b, dst) for dst in TARGETS for b in inputs]
    got = {}
    for how, static in (("interpreter", None), ("folding", inputs)):
        out = np.zeros(n * len(TARGETS), np.uint64)
        _kernel(tmp_path, src, static).interpret[1, 1](x, out, n)
        got[how] = [int(v) for v in out]
    for how, bits in got.items():
        bad = [
            f"{src} {inputs[k % n]:#x} -> {TARGETS[k // n]}: {how} {g:#x}, GPU {w:#x}"
            for k, (g, w) in enumerate(zip(bits, want))
            if g != w
        ]
        assert not bad, "\n".join(bad)


# Float32/Float16/BFloat16 arithmetic that makes or meets a NaN gives the
# canonical NaN on an H200 (measured: tests/gpu/test_nan_payloads.py); a
# Float32/Float64 negation or abs only changes the sign bit (PTX leaves
# that NaN unspecified: docs/types.md), a Float16/BFloat16 one gives the
# canonical NaN (cuda_fp16.hpp's and cuda_bf16.hpp's own emulation of
# __hneg/__habs).  Float64 arithmetic and kdsl.math are left open (the
# host's payload), but folding and the interpreter agree on them.
ARITHMETIC = ["a / b", "c - c", "b * c", "d - a", "d * a", "b % b", "c // c"]
ARITHMETIC += ["kdsl.math.sqrt(-c)", "kdsl.math.fmin(d, a / b)", "kdsl.math.exp(d)"]
SIGN_BIT = ["-d", "abs(d)", "kdsl.math.fabs(d)"]
CANONICAL = {"Float16": 0x7FFF, "BFloat16": 0x7FFF, "Float32": 0x7FFFFFFF}
PAYLOAD = {"Float16": 0xFD55, "BFloat16": 0xFFA5, "Float32": 0xFFA0F00D}
PAYLOAD["Float64"] = 0xFFF4000000000123


def _arith_kernel(tmp_path, t, static):
    u = f"Uint{WIDTH[t]}"
    if static:
        leaves = [
            f"a = kdsl.{t}(0.0)",
            f"b = kdsl.{t}(0.0)",
            f'c = kdsl.{t}(float("inf"))',
            f"d = {u}({PAYLOAD[t]:#x}).bitcast(kdsl.{t})",
        ]
    else:
        leaves = [
            f"a, b, c = x[0].bitcast(kdsl.{t}), x[1].bitcast(kdsl.{t}), x[2].bitcast(kdsl.{t})"
        ]
        leaves.append(f"d = x[3].bitcast(kdsl.{t})")
    ops = ARITHMETIC + SIGN_BIT
    body = leaves + [f"out[{k}] = ({op}).bitcast({u})" for k, op in enumerate(ops)]
    head = ["import kdsl", f"from kdsl import Pointer, {u}", "", "", "@kdsl.kernel"]
    head.append(f"def k(x: Pointer[{u}], out: Pointer[{u}]):")
    text = "\n".join(head + ["    " + line for line in body]) + "\n"
    return gen.load(tmp_path, text, "nanarith")[0].k


@pytest.mark.parametrize("t", ["Float16", "BFloat16", "Float32", "Float64"])
def test_arithmetic_nans_are_the_gpus_in_the_interpreter_and_folding(tmp_path, t):
    w = WIDTH[t]
    ut = np.dtype(f"u{w // 8}")
    inf = {16: 0x7C00, 32: 0x7F800000, 64: 0x7FF0000000000000}[w]
    inf = 0x7F80 if t == "BFloat16" else inf
    x = np.array([0, 0, inf, PAYLOAD[t]], ut)
    got = {}
    for how, static in (("interpreter", False), ("folding", True)):
        out = np.zeros(len(ARITHMETIC) + len(SIGN_BIT), ut)
        _arith_kernel(tmp_path, t, static).interpret[1, 1](x, out)
        got[how] = [int(v) for v in out]
    assert got["interpreter"] == got["folding"], t
    sign = 1 << (w - 1)
    want_sign = [PAYLOAD[t] ^ sign, PAYLOAD[t] & ~sign, PAYLOAD[t] & ~sign]
    if t in ("Float16", "BFloat16"):  # __hneg, __habs, fabs through float
        want_sign = [0x7FFF] * 3
    assert got["folding"][len(ARITHMETIC) :] == want_sign
    if t in CANONICAL:
        assert got["folding"][: len(ARITHMETIC)] == [CANONICAL[t]] * len(ARITHMETIC)
