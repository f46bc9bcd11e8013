"""kdsl.transpile.core.narrow: decoding, CUDA-exact encoding, and the prelude."""

import math
import pathlib
import sys
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = pathlib.Path(__file__).resolve().parents[2]


from kdsl.transpile.core import narrow

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import narrow_gpu_table as gpu_table  # noqa: E402

NAMES = list(narrow.FORMATS)
NAN = float("nan")
INF = float("inf")


def patterns(name):
    return range(1 << narrow.FORMATS[name].bits)


def sign_bit(name):
    return 1 << (narrow.FORMATS[name].bits - 1)


def bits_of(name, value):
    """Independent oracle: the nearest finite value (ties to the even
    pattern), saturating; E8M0 rounds |value| up.  Exact, via Fraction."""
    fmt = narrow.FORMATS[name]
    finite = sorted(
        (Fraction(narrow.decode(name, b)), b)
        for b in patterns(name)
        if math.isfinite(narrow.decode(name, b))
        and not (b & sign_bit(name) and not fmt.unsigned)
    )
    x = Fraction(abs(value)) if math.isfinite(value) else finite[-1][0]
    if fmt.round_up:
        above = [b for v, b in finite if v >= x]
        return above[0] if above else finite[-1][1]
    best = min(finite, key=lambda vb: (abs(vb[0] - x), vb[1] & 1))[1]
    if math.copysign(1, value) < 0 and (best or fmt.has_negative_zero):
        best |= sign_bit(name)
    return best


# --- formats ---------------------------------------------------------------


@pytest.mark.parametrize(
    "name, shape, flags, max_finite",
    [
        # (bits, exponent, mantissa, bias), (inf, nan, -0, unsigned)
        ("Float8E5M2", (8, 5, 2, 15), (1, 1, 1, 0), 57344.0),
        ("Float8E4M3FN", (8, 4, 3, 7), (0, 1, 1, 0), 448.0),
        ("Float8E4M3FNUZ", (8, 4, 3, 8), (0, 1, 0, 0), 240.0),
        ("Float8E4M3B11FNUZ", (8, 4, 3, 11), (0, 1, 0, 0), 30.0),
        ("Float8E4M3", (8, 4, 3, 7), (1, 1, 1, 0), 240.0),
        ("Float6E2M3FN", (6, 2, 3, 1), (0, 0, 1, 0), 7.5),
        ("Float6E3M2FN", (6, 3, 2, 3), (0, 0, 1, 0), 28.0),
        ("Float8E8M0FNU", (8, 8, 0, 127), (0, 1, 0, 1), 2.0**127),
        ("Float4E2M1FN", (4, 2, 1, 1), (0, 0, 1, 0), 6.0),
    ],
)
def test_format(name, shape, flags, max_finite):
    f = narrow.FORMATS[name]
    assert (f.bits, f.exponent_bits, f.mantissa_bits, f.bias) == shape
    assert (f.has_inf, f.has_nan, f.has_negative_zero, f.unsigned) == flags
    assert f.max_finite == max_finite
    assert f.round_up == (name == "Float8E8M0FNU")


def test_format_table():
    assert len(NAMES) == 9
    for fmt in narrow.FORMATS.values():
        assert fmt.bits == 1 - fmt.unsigned + fmt.exponent_bits + fmt.mantissa_bits
        assert fmt.max_finite == float(ml_dtypes.finfo(fmt.ml_dtype).max)
        assert fmt.c_type == (fmt.cuda_type or "unsigned char")
    assert narrow.FORMATS["Float8E4M3FN"].cuda_type == "__nv_fp8_e4m3"
    assert narrow.FORMATS["Float8E4M3FNUZ"].c_storage_type == "unsigned char"
    assert narrow.FORMATS["Float4E2M1FN"].c_storage_type == "__nv_fp4_storage_t"
    assert [n for n, f in narrow.FORMATS.items() if f.cuda_type is None] == [
        "Float8E4M3FNUZ",
        "Float8E4M3B11FNUZ",
        "Float8E4M3",
    ]


# --- decode ----------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_decode_matches_ml_dtypes(name):
    fmt = narrow.FORMATS[name]
    expected = np.arange(1 << fmt.bits, dtype=np.uint8).view(fmt.ml_dtype)
    for b, want in zip(patterns(name), expected.astype(np.float64)):
        got = narrow.decode(name, b)
        if math.isnan(want):
            assert math.isnan(got), (name, b)
        else:
            assert got == want and math.copysign(1, got) == math.copysign(1, want)


@pytest.mark.parametrize("name", NAMES)
def test_decode_rejects_wide_patterns(name):
    with pytest.raises(ValueError):
        narrow.decode(name, 1 << narrow.FORMATS[name].bits)


# --- encode: round trip and the oracle --------------------------------------


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("source", ["float", "double", "half", "bfloat16"])
def test_encode_decode_round_trip(name, source):
    for b in patterns(name):
        value = narrow.decode(name, b)
        if not math.isfinite(value):
            continue  # NaN, and inf (which saturates)
        with np.errstate(over="ignore"):
            representable = float(narrow.SOURCES[source](value)) == value
        if not representable:
            continue  # e.g. E8M0's 2**-127 as half
        assert narrow.encode(name, value, source) == b, (name, b, value)


@pytest.mark.parametrize("name", NAMES)
def test_encode_matches_oracle_on_midpoints(name):
    """Every midpoint between neighbours, and just either side of it."""
    values = sorted(
        {v for b in patterns(name) if math.isfinite(v := narrow.decode(name, b))}
    )
    for lo, hi in zip(values, values[1:]):
        mid = (lo + hi) / 2
        for x in (mid, math.nextafter(mid, -INF), math.nextafter(mid, INF)):
            assert narrow.encode(name, x, "double") == bits_of(name, x), (name, x)


@settings(max_examples=400, deadline=None)
@given(
    name=st.sampled_from(NAMES),
    value=st.floats(allow_nan=False, min_value=-1e6, max_value=1e6)
    | st.floats(allow_nan=False, min_value=-1e-3, max_value=1e-3),
)
def test_encode_matches_oracle_on_doubles(name, value):
    assert narrow.encode(name, value, "double") == bits_of(name, value)


def test_double_is_not_rounded_through_float32():
    # a tie in float32 but above the tie in float64; numpy's astype(float8)
    # from float64 gets this wrong, the scalar constructor does not.
    x = 1 + 2**-4 + 2**-40
    assert narrow.encode("Float8E4M3FN", x, "double") == 0x39  # 1.125
    assert narrow.encode("Float8E4M3FNUZ", x, "double") == 0x41


# --- encode: the policy, spelled out ---------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_saturation(name):
    fmt = narrow.FORMATS[name]
    top = narrow.encode(name, fmt.max_finite)
    assert narrow.decode(name, top) == fmt.max_finite
    beyond = [math.nextafter(fmt.max_finite, INF), fmt.max_finite * 1.5, 1e300, INF]
    for x in beyond:
        assert narrow.encode(name, x, "double") == top, (name, x)
        if not fmt.unsigned:
            assert narrow.encode(name, -x, "double") == top | sign_bit(name)
    if fmt.unsigned:  # E8M0 drops the sign
        assert narrow.encode(name, -INF) == top


@pytest.mark.parametrize(
    "name, value, bits",
    [
        # max finite + half an ulp is a tie that would round away: saturates
        ("Float8E4M3FN", 464.0, 0x7E),
        ("Float8E4M3FN", 480.0, 0x7E),
        ("Float8E5M2", 61440.0, 0x7B),
        ("Float8E4M3FNUZ", 248.0, 0x7F),
        ("Float8E4M3B11FNUZ", 31.0, 0x7F),
        ("Float8E4M3", 248.0, 0x77),
        ("Float6E2M3FN", 7.75, 0x1F),
        ("Float6E3M2FN", 30.0, 0x1F),
        ("Float4E2M1FN", 7.0, 0x7),
        # ties to even
        ("Float8E4M3FN", 1.0625, 0x38),  # 1 | 1.125  -> 1
        ("Float8E4M3FN", 1.1875, 0x3A),  # 1.125 | 1.25 -> 1.25
        ("Float8E5M2", 1.125, 0x3C),
        ("Float8E5M2", 1.375, 0x3E),
        ("Float4E2M1FN", 5.0, 0x6),  # 4 | 6 -> 4
        ("Float4E2M1FN", 2.5, 0x4),  # 2 | 3 -> 2
        ("Float4E2M1FN", 0.75, 0x2),  # 0.5 | 1 -> 1
        ("Float6E2M3FN", 1.0625, 0x8),
        ("Float6E3M2FN", 1.125, 0xC),
        # subnormals: min, half of min (tie with 0 -> 0), a bit above half
        ("Float8E4M3FN", 2.0**-9, 0x01),
        ("Float8E4M3FN", 2.0**-10, 0x00),
        ("Float8E4M3FN", 2.0**-10 + 2.0**-20, 0x01),
        ("Float8E4M3FN", 3 * 2.0**-10, 0x02),  # 1.5 * min: tie -> 2 * min
        ("Float8E5M2", 2.0**-16, 0x01),
        ("Float8E5M2", -(2.0**-17), 0x80),
        ("Float8E4M3FNUZ", 2.0**-10, 0x01),
        ("Float8E4M3FNUZ", -(2.0**-11), 0x00),  # no negative zero
        ("Float8E4M3FNUZ", -(2.0**-11) - 2.0**-20, 0x81),
        ("Float8E4M3B11FNUZ", 2.0**-13, 0x01),
        ("Float8E4M3B11FNUZ", -(2.0**-14), 0x00),
        ("Float8E4M3", 2.0**-9, 0x01),
        ("Float8E4M3", -(2.0**-10), 0x80),
        ("Float6E2M3FN", 0.125, 0x01),
        ("Float6E2M3FN", -0.0625, 0x20),
        ("Float6E3M2FN", 0.0625, 0x01),
        ("Float4E2M1FN", 0.25, 0x0),
        ("Float4E2M1FN", -0.25, 0x8),
        # zeros
        ("Float8E4M3FN", -0.0, 0x80),
        ("Float8E5M2", -0.0, 0x80),
        ("Float8E4M3FNUZ", -0.0, 0x00),
        ("Float8E4M3B11FNUZ", -0.0, 0x00),
        ("Float8E4M3", -0.0, 0x80),
        ("Float6E2M3FN", -0.0, 0x20),
        ("Float6E3M2FN", -0.0, 0x20),
        ("Float4E2M1FN", -0.0, 0x8),
        # infinities saturate, even where the format has an inf
        ("Float8E5M2", INF, 0x7B),
        ("Float8E4M3", -INF, 0xF7),
        ("Float6E3M2FN", -INF, 0x3F),
        ("Float4E2M1FN", INF, 0x7),
        # E8M0: |x| rounded UP to a power of two, clamped to [2**-127, 2**127]
        ("Float8E8M0FNU", 1.0, 0x7F),
        ("Float8E8M0FNU", 1.0000001, 0x80),
        ("Float8E8M0FNU", 3.0, 0x81),
        ("Float8E8M0FNU", -3.0, 0x81),
        ("Float8E8M0FNU", 0.75, 0x7F),
        ("Float8E8M0FNU", 0.0, 0x00),
        ("Float8E8M0FNU", -0.0, 0x00),
        ("Float8E8M0FNU", 2.0**-127, 0x00),
        ("Float8E8M0FNU", 2.0**-127 + 2.0**-140, 0x01),
        ("Float8E8M0FNU", 2.0**-140, 0x00),
        ("Float8E8M0FNU", 2.0**127, 0xFE),
        ("Float8E8M0FNU", 1.5 * 2.0**127, 0xFE),
        ("Float8E8M0FNU", INF, 0xFE),
    ],
)
def test_encode_cases(name, value, bits):
    assert narrow.encode(name, value, "double") == bits
    if float(np.float32(value)) == value:
        assert narrow.encode(name, value, "float") == bits


NEG_NAN = -NAN
QNAN_ALL_ONES = float(np.array([0x7FFFFFFFFFFFFFFF], np.uint64).view(np.float64)[0])


@pytest.mark.parametrize(
    "name, float_bits, double_bits, neg_double_bits",
    [
        # the hardware (float/half/bf16) path gives 0x7F; the double path
        # keeps the sign, and E5M2 the top two payload bits
        ("Float8E4M3FN", 0x7F, 0x7F, 0xFF),
        ("Float8E5M2", 0x7F, 0x7E, 0xFE),
        ("Float8E4M3FNUZ", 0x80, 0x80, 0x80),
        ("Float8E4M3B11FNUZ", 0x80, 0x80, 0x80),
        ("Float8E4M3", 0x7F, 0x7F, 0x7F),
        ("Float8E8M0FNU", 0xFF, 0xFF, 0xFF),
        # no NaN: +max finite
        ("Float6E2M3FN", 0x1F, 0x1F, 0x1F),
        ("Float6E3M2FN", 0x1F, 0x1F, 0x1F),
        ("Float4E2M1FN", 0x7, 0x7, 0x7),
    ],
)
def test_encode_nan(name, float_bits, double_bits, neg_double_bits):
    for source in ("float", "half", "bfloat16"):
        assert narrow.encode(name, NAN, source) == float_bits
        assert narrow.encode(name, NEG_NAN, source) == float_bits
    assert narrow.encode(name, NAN, "double") == double_bits
    assert narrow.encode(name, NEG_NAN, "double") == neg_double_bits
    if name == "Float8E5M2":
        assert narrow.encode(name, QNAN_ALL_ONES, "double") == 0x7F


def test_encode_checks_the_source():
    with pytest.raises(ValueError):
        narrow.encode("Float8E4M3FN", 0.1, "float")
    with pytest.raises(ValueError):
        narrow.encode("Float8E4M3FN", 1.0 + 2.0**-9, "bfloat16")
    with pytest.raises(ValueError):
        narrow.encode("Float8E4M3FN", 1.0, "int")
    assert narrow.encode("Float8E4M3FN", 0.1, "double") == 0x1D


# --- the CUDA side: compile (CPU only) and, given a GPU, run -------------------


def _nvrtc():
    try:
        from cupy.cuda import nvrtc

        nvrtc.getVersion()
    except Exception as exc:  # no cupy, or no libnvrtc
        pytest.skip(f"NVRTC unavailable: {exc}")
    return nvrtc


def _compile(source, options=()):
    nvrtc = _nvrtc()
    program = nvrtc.createProgram(source, "narrow.cu", [], [])
    try:
        nvrtc.compileProgram(program, ["-arch=sm_90", "-std=c++17", *options])
    except nvrtc.NVRTCError:
        pytest.fail(nvrtc.getProgramLog(program))
    return nvrtc.getCUBIN(program)


def test_prelude_compiles_with_nvrtc():
    prelude = (ROOT / "templates" / "prelude" / "narrow_floats.h").read_text()
    calls = []
    for f in ("f8e4m3fnuz", "f8e4m3b11fnuz", "f8e4m3"):
        calls.append(f"out[i] += kdsl_{f}_to_float(kdsl_{f}_from_float(x[i]));")
        calls.append(f"out[i] += kdsl_{f}_to_float(kdsl_{f}_from_double(y[i]));")
    kernel = (
        'extern "C" __global__ void k(const float* x, const double* y, '
        "float* out) {\n    int i = threadIdx.x;\n    " + "\n    ".join(calls) + "\n}\n"
    )
    assert _compile(prelude + kernel)


def _cuda_include_dir():
    include = pathlib.Path(gpu_table._cuda_include_dir())
    if not (include / "cuda_fp4.h").exists():
        pytest.skip("CUDA headers not found")
    return include


@pytest.mark.parametrize("source", ["float", "double", "half", "bfloat16"])
def test_gpu_table_kernel_compiles(source):
    code = gpu_table.cuda_source_for_exhaustive_check(source)
    assert _compile(code, [f"-I{_cuda_include_dir()}"])


@pytest.mark.gpu
def test_gpu_matches_encode():
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount() == 0:
            raise RuntimeError("no device")
    except Exception as exc:
        pytest.skip(f"no GPU: {exc}")
    assert gpu_table.run_check("float") == 0
    assert gpu_table.run_check("double") == 0
