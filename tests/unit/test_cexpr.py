"""The C++ spelling of every scalar operation (``kdsl.transpile.cuda.cexpr``).

Every operation, conversion, bitcast and edge-value literal is compiled by
NVRTC for sm_90 (no GPU needed), each with only the headers and prelude parts
that ``cexpr`` says its types need, and a ``static_assert`` that the spelled
expression has exactly the C++ type of its kdsl type.  The GPU run that
compares the results with ``values`` bit for bit is
``tests/gpu/semantics_cases.py``; here its source is only compiled.
"""

from __future__ import annotations

import importlib.util
import math
import pathlib
import sys
from functools import lru_cache

import numpy as np
import pytest

from kdsl.transpile import builtins
from kdsl.transpile.cuda import cexpr
from kdsl.transpile.cuda.cexpr import CExpr, Prec
from kdsl.transpile.core import values
from kdsl.transpile.core.types import (
    SCALAR_TYPES,
    BFloat16,
    Boolean,
    Float8E4M3FN,
    Float8E4M3FNUZ,
    Float8E5M2,
    Float16,
    Float32,
    Float64,
    Int4,
    Int8,
    Int16,
    Int32,
    Int64,
    Int128,
    Uint8,
    Uint16,
    Uint32,
    Uint64,
    Uint128,
)

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _load_semantics_cases():
    path = ROOT / "tests" / "gpu" / "semantics_cases.py"
    spec = importlib.util.spec_from_file_location("kdsl_semantics_cases", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


sc = _load_semantics_cases()
CASES = sc.all_cases()
OPERATIONS = [c for c in CASES if c.kind != "literal"]  # literals: _literal_kernel


# -- NVRTC ----------------------------------------------------------------------
def _include_dir() -> str:
    from kdsl.runtime.nvrtc import cuda_include_dir

    return cuda_include_dir()


def nvrtc_compile(source: str, options: list[str]) -> tuple[bool, str]:
    pytest.importorskip("cupy")
    from cupy.cuda import nvrtc

    program = nvrtc.createProgram(source, "kdsl_test.cu", [], [])
    try:
        nvrtc.compileProgram(program, options)
        ok = True
    except Exception:
        ok = False
    return ok, nvrtc.getProgramLog(program)


def _options(types) -> list[str]:
    return (
        list(sc.NVRTC_BASE_OPTIONS)
        + cexpr.nvrtc_options(types)
        + [f"-I{_include_dir()}"]
    )


_SAME_TYPE = """
namespace kdsl_test {
template <typename A> struct strip { typedef A type; };
template <typename A> struct strip<A&> { typedef A type; };
template <typename A, typename B> struct same { static const bool value = false; };
template <typename A> struct same<A, A> { static const bool value = true; };
}
#define KDSL_TYPE_IS(expr, T) \\
    static_assert(kdsl_test::same<kdsl_test::strip<decltype(expr)>::type, T>::value, #expr)
"""


# -- kernels grouped by what they include ----------------------------------------
def _key(types, builtin_parts=()) -> tuple:
    return (
        tuple(cexpr.headers(types)),
        tuple(cexpr.prelude_parts(types)) + tuple(builtin_parts),
        tuple(cexpr.nvrtc_options(types)),
    )


def _operation_kernel(k: int, case) -> str:
    args = ", ".join(f"{t.c_name} {n}" for t, n in zip(case.operand_types, "abc"))
    expr = sc.spell(case)
    return (
        f"// {case}\n"
        f'extern "C" __global__ void op_{k}({args}, {case.dst.c_name}* out)\n'
        "{\n"
        f"    KDSL_TYPE_IS({expr}, {case.dst.c_name});\n"
        f"    *out = {expr};\n"
        "}\n"
    )


def _literal_kernel(t) -> str:
    lines = [f'extern "C" __global__ void lit_{t.short}({t.c_name}* out)', "{"]
    for i, value in enumerate(sc.edge_values(t)):
        spelled = str(cexpr.literal(t, value))
        lines.append(f"    KDSL_TYPE_IS({spelled}, {t.c_name});")
        lines.append(f"    out[{i}] = {spelled};")
    return "\n".join(lines + ["}\n"])


@lru_cache(maxsize=None)
def _groups() -> dict:
    """Header key -> (types, kernel sources) for every case and literal."""
    groups: dict = {}

    def add(types, text, builtin_parts=()):
        entry = groups.setdefault(_key(types, builtin_parts), (set(), []))
        entry[0].update(types)
        entry[1].append(text)

    for k, case in enumerate(OPERATIONS):
        parts = builtins.get(case.op).prelude if case.kind == "builtin" else ()
        add(sc.case_types([case]), _operation_kernel(k, case), parts)
    for t in SCALAR_TYPES:
        add({t}, _literal_kernel(t))
    return groups


def _group_source(types, kernels, builtin_parts=()) -> str:
    extra = "".join(cexpr.prelude_file(p) for p in builtin_parts)
    return "\n".join([cexpr.prelude(types) + extra, _SAME_TYPE, *kernels])


@lru_cache(maxsize=None)
def _compiled(key) -> tuple[bool, str]:
    """Compile one group: ``(ok, log)``."""
    types, kernels = _groups()[key]
    builtin_parts = [p for p in key[1] if p not in cexpr.prelude_parts(types)]
    return nvrtc_compile(_group_source(types, kernels, builtin_parts), _options(types))


def _key_id(key) -> str:
    headers, parts, options = key
    names = [h.removeprefix("cuda_").removesuffix(".h") for h in headers]
    names += [p.removesuffix(".h") for p in parts if p != "core.h"]
    return "+".join(names + [o.strip("-") for o in options]) or "core"


GROUP_KEYS = sorted(_groups(), key=_key_id)


@pytest.mark.parametrize("key", GROUP_KEYS, ids=[_key_id(k) for k in GROUP_KEYS])
def test_every_spelling_compiles_with_only_its_headers(key):
    ok, log = _compiled(key)
    assert ok, log[:4000]


def test_differential_source_compiles():
    source = sc.build_differential_source(CASES)
    ok, log = nvrtc_compile(source, sc.nvrtc_options(CASES, _include_dir()))
    assert ok, log[:4000]


def test_exhaustive_half_source_compiles():
    source = sc.build_exhaustive_half_source()
    ok, log = nvrtc_compile(source, _options({Float16, BFloat16}))
    assert ok, log[:4000]


def test_every_case_has_a_folded_value():
    for case in CASES:
        for args in sc.operands(case):
            sc.expected(case, args)  # values folds it (or the zero-division rule)


def test_cases_cover_every_operation():
    kinds = {(c.kind, c.op, c.src) for c in CASES}
    for t in (Int4, Int8, Uint16, Int32, Uint64, Int128, Uint128):
        for op in sc.INT_BINARY:
            assert ("binary", op, t) in kinds
    for t in (Float16, BFloat16, Float32, Float64):
        for op in sc.FLOAT_BINARY:
            assert ("binary", op, t) in kinds
    conversions = {(c.src, c.dst) for c in CASES if c.kind == "convert"}
    assert len(conversions) == len(SCALAR_TYPES) * (len(SCALAR_TYPES) - 1)


def test_every_spelling_is_an_atom():
    x_plus_1 = CExpr("name", ("x + 1",), Prec.ADDITIVE)
    for case in OPERATIONS:
        spelled = sc.spell(case, x_plus_1, "y")
        assert spelled.prec == Prec.ATOM, (str(case), spelled)
        assert "x + 1" in spelled.text, (str(case), spelled)


# -- readable spellings ----------------------------------------------------------
@pytest.mark.parametrize(
    "op, t, spelled",
    [
        ("+", Float32, "(a + b)"),
        ("*", Float64, "(a * b)"),
        ("/", Float32, "(a / b)"),
        ("-", Float16, "(a - b)"),
        ("*", BFloat16, "(a * b)"),
        ("/", Float16, "(a / b)"),
        ("/", BFloat16, "(a / b)"),
        ("//", Float16, "kdsl::floordiv(a, b)"),
        ("+", Uint32, "(a + b)"),
        ("*", Uint64, "(a * b)"),
        ("-", Uint128, "(a - b)"),
        ("+", Int32, "kdsl::add(a, b)"),
        ("*", Int64, "kdsl::mul(a, b)"),
        ("+", Int8, "int8_t(a + b)"),
        ("*", Uint8, "uint8_t(a * b)"),
        ("*", Uint16, "kdsl::mul(a, b)"),
        ("+", Int4, "kdsl::i4(a + b)"),
        ("&", Int32, "(a & b)"),
        ("^", Int16, "int16_t(a ^ b)"),
        ("//", Int32, "kdsl::floordiv(a, b)"),
        ("%", Float32, "kdsl::mod(a, b)"),
        ("**", Float32, "powf(a, b)"),
        ("**", Int32, "kdsl::pow(a, b)"),
        ("<<", Uint32, "kdsl::shl(a, b)"),
        (">>", Int4, "kdsl::shr_i4(a, b)"),
        ("<", Int32, "(a < b)"),
        ("!=", Float16, "(a != b)"),
        ("&", Boolean, "bool(a & b)"),
        ("^", Boolean, "(a != b)"),
    ],
)
def test_binary_spelling(op, t, spelled):
    result = Boolean if op in ("<", "!=") else t
    assert str(cexpr.binary(op, t, result, "a", "b")) == spelled


X_TIMES_Y = CExpr("name", ("x * y",), Prec.MULTIPLICATIVE)


def test_operands_are_parenthesised_only_when_needed():
    assert str(cexpr.binary("+", Float32, Float32, X_TIMES_Y, "z")) == "(x * y + z)"
    z_plus = cexpr.binary("+", Float32, Float32, "z", X_TIMES_Y)
    assert str(z_plus) == "(z + x * y)"
    assert str(cexpr.binary("*", Float32, Float32, z_plus, "w")) == "((z + x * y) * w)"
    assert str(cexpr.binary("-", Float32, Float32, "w", z_plus)) == "(w - (z + x * y))"
    bits = cexpr.binary("&", Int32, Int32, "a", "b")
    assert str(cexpr.binary("==", Int32, Boolean, bits, "c")) == "((a & b) == c)"
    minus_one = cexpr.literal(Float32, -1.0)
    assert str(minus_one) == "-1.0f" and minus_one.prec == Prec.UNARY
    f = CExpr("name", ("f(x, y)",))
    assert (
        str(cexpr.binary("+", Float32, Float32, f, minus_one)) == "(f(x, y) + (-1.0f))"
    )
    call = CExpr("name", ("kdsl::f<int>(b)",))
    a_plus_b = cexpr.binary("+", Float32, Float32, "a", "b")
    assert (
        str(cexpr.binary("-", Float32, Float32, a_plus_b, call))
        == "(a + b - kdsl::f<int>(b))"
    )
    minus_one = cexpr.literal(Int32, -1)
    assert str(cexpr.binary("+", Int32, Int32, X_TIMES_Y, minus_one)) == (
        "kdsl::add(x * y, -1)"
    )
    assert (
        str(cexpr.unary("-", Float32, CExpr("name", ("-x",), Prec.UNARY))) == "(-(-x))"
    )
    assert str(cexpr.unary("-", Int32, "x")) == "kdsl::neg(x)"
    assert str(cexpr.unary("~", Boolean, "p")) == "(!p)"
    assert str(cexpr.unary("abs", Float32, "x")) == "fabsf(x)"
    assert str(cexpr.unary("abs", Uint32, "x")) == "x"
    assert str(cexpr.unary("abs", Uint32, X_TIMES_Y)) == "(x * y)"


@pytest.mark.parametrize(
    "t, value, spelled",
    [
        (Float32, 0.1, "0.1f"),
        (Float32, 1.0, "1.0f"),
        (Float32, -2.5, "-2.5f"),
        (Float32, -0.0, "-0.0f"),
        (Float32, math.inf, "INFINITY"),
        (Float32, -math.inf, "-INFINITY"),
        (Float32, math.nan, "__int_as_float(0x7fc00000)"),
        (Float64, math.inf, "double(INFINITY)"),
        (Float64, -math.inf, "-double(INFINITY)"),
        (Float16, -math.inf, "__ushort_as_half(0xfc00)"),
        (Float64, 0.1, "0.1"),
        (Float64, 1e300, "1e+300"),
        (Float16, 0.0999755859375, "__float2half_rn(0.1f)"),
        (BFloat16, 0.10009765625, "__float2bfloat16_rn(0.1f)"),
        (Int32, 5, "5"),
        (Int32, -3, "-3"),
        (Int32, -(2**31), "(-2147483647 - 1)"),
        (Uint32, 5, "5u"),
        (Int64, 7, "7ll"),
        (Int64, -(2**63), "(-9223372036854775807ll - 1)"),
        (Uint64, 2**64 - 1, "18446744073709551615ull"),
        (Int8, -128, "int8_t(-128)"),
        (Int4, -8, "int8_t(-8)"),
        (Int128, -5, "__int128(-5ll)"),
        (Int128, 2**100, "kdsl::int128(0x1000000000ull, 0x0ull)"),
        (Boolean, True, "true"),
        (Float8E4M3FN, 1.5, "__nv_fp8_e4m3(1.5f)"),
        (Float8E5M2, math.inf, "kdsl::bitcast<__nv_fp8_e5m2>(uint8_t(0x7c))"),
        (Float8E4M3FNUZ, -2.0, "kdsl_f8e4m3fnuz_from_float(-2.0f)"),
    ],
)
def test_literal_spelling(t, value, spelled):
    assert str(cexpr.literal(t, value)) == spelled


@pytest.mark.parametrize("t", [Float32, Float16, BFloat16, Float64])
def test_float_literals_read_back_exactly(t):
    for value in sc.edge_values(t):
        if not math.isfinite(value):
            continue
        text = str(cexpr.literal(t, value))
        body = text.split("(")[-1].rstrip(")").removesuffix("f")
        parsed = float(np.float32(body)) if t is not Float64 else float(body)
        assert values.round_float(parsed, t) == value, text
        assert math.copysign(1, parsed) == math.copysign(1, value), text


@pytest.mark.parametrize(
    "src, dst, spelled",
    [
        (Int64, Float16, "__ll2half_rn(a)"),
        (Uint32, BFloat16, "__double2bfloat16(double(a))"),  # ptxas: see cexpr
        (Int16, Float16, "__float2half_rn(float(a))"),
        (Float64, BFloat16, "__double2bfloat16(a)"),
        (Float64, Float16, "__double2half(a)"),
        (Float32, Int32, "kdsl::to_i32(a)"),
        (Float16, Uint8, "kdsl::to_u8(__half2float(a))"),
        (Int32, Float32, "float(a)"),
        (Int64, Int8, "int8_t(a)"),
        (Int32, Int4, "kdsl::i4(a)"),
        (Int128, Float32, "kdsl::to_f32(a)"),
        (Float32, Boolean, "(a != 0.0f)"),
        (Int16, Boolean, "(a != 0)"),
        (Float32, Float8E4M3FN, "__nv_fp8_e4m3(a)"),
        (Int32, Float8E5M2, "__nv_fp8_e5m2(float(a))"),
        (Int64, Float8E4M3FNUZ, "kdsl_f8e4m3fnuz_from_double(double(a))"),
        (Float8E4M3FN, Float32, "float(a)"),
        (Float8E4M3FNUZ, Float64, "double(kdsl_f8e4m3fnuz_to_float(a))"),
    ],
)
def test_convert_spelling(src, dst, spelled):
    assert str(cexpr.convert(src, dst, "a")) == spelled


@pytest.mark.parametrize(
    "src, dst, spelled",
    [
        (Float32, Int32, "__float_as_int(a)"),
        (Uint32, Float32, "__uint_as_float(a)"),
        (Float64, Int64, "__double_as_longlong(a)"),
        (Float16, Uint16, "__half_as_ushort(a)"),
        (Int32, Uint32, "uint32_t(a)"),
        (Uint8, Float8E4M3FNUZ, "a"),
        (Float64, Uint64, "kdsl::bitcast<uint64_t>(a)"),
    ],
)
def test_bitcast_spelling(src, dst, spelled):
    assert str(cexpr.bitcast(src, dst, "a")) == spelled


def test_bitcast_needs_equal_widths():
    with pytest.raises(ValueError):
        cexpr.bitcast(Int32, Int64, "a")


# -- headers and prelude parts ---------------------------------------------------
def test_float_and_int_kernels_need_no_half_header():
    assert cexpr.headers({Float32, Int32}) == []
    assert cexpr.prelude_parts({Float32, Int32}) == ["core.h"]
    assert cexpr.nvrtc_options({Float32, Int32}) == []
    assert "cuda_fp16" not in cexpr.prelude({Float32, Int32, Float64, Uint8, Boolean})


def test_headers_follow_the_types():
    assert cexpr.headers({Float16}) == ["cuda_fp16.h"]
    assert cexpr.headers({BFloat16, Float32}) == ["cuda_bf16.h"]
    assert cexpr.headers({Float8E4M3FN}) == ["cuda_fp8.h"]
    assert cexpr.headers({Float8E4M3FNUZ}) == []
    assert cexpr.prelude_parts({Float8E4M3FNUZ, Float16}) == [
        "core.h",
        "half.h",
        "narrow_floats.h",
    ]
    assert cexpr.prelude_parts({Int128, BFloat16}) == [
        "core.h",
        "bfloat16.h",
        "int128.h",
    ]
    assert cexpr.nvrtc_options({Uint128}) == ["--device-int128"]


# -- parentheses from precedence ----------------------------------------------------
@pytest.mark.parametrize(
    "t, value, prec, bare",
    [
        (Float32, 1.5, Prec.ATOM, "1.5f"),
        (Float32, -1.5, Prec.UNARY, "-1.5f"),
        (Float64, -0.0, Prec.UNARY, "-0.0"),
        (Int32, -3, Prec.UNARY, "-3"),
        (Uint32, 3, Prec.ATOM, "3u"),
        (Int32, -(2**31), Prec.ATOM, "-2147483647 - 1"),
        (Int64, -(2**63), Prec.ATOM, "-9223372036854775807ll - 1"),
        (Uint128, 5, Prec.ATOM, "(unsigned __int128)5ull"),
        (Int128, -(2**63), Prec.ATOM, "__int128((-9223372036854775807ll - 1))"),
        (Float16, 0.5, Prec.ATOM, "__float2half_rn(0.5f)"),
        (Boolean, False, Prec.ATOM, "false"),
    ],
)
def test_literals_know_their_precedence(t, value, prec, bare):
    spelled = cexpr.literal(t, value)
    assert spelled.prec == prec
    assert cexpr.bare(spelled).text == bare


def test_an_atom_operand_is_not_parenthesised():
    for operand in (
        CExpr("name", ("x[i]",)),
        CExpr("name", ("a.v[0]",)),
        CExpr("name", ("f(x)",)),
        CExpr("name", ("n",)),
    ):
        assert cexpr.atom(operand) is operand
    assert (
        str(cexpr.binary("+", Float32, Float32, CExpr("name", ("x[i]",)), "y"))
        == "(x[i] + y)"
    )
    assert str(
        cexpr.binary("*", Float32, Float32, CExpr("name", ("a.v[0]",)), "b")
    ) == ("(a.v[0] * b)")
    assert (
        str(cexpr.binary("+", Int8, Int8, CExpr("name", ("x[i]",)), "y"))
        == "int8_t(x[i] + y)"
    )


def test_a_compound_operand_is_parenthesised_unless_arithmetic_reads_plainly():
    # a * b - c as C++ groups it; a negation or a conditional keeps its pair
    for prec in (Prec.UNARY, Prec.MULTIPLICATIVE, Prec.CONDITIONAL):
        operand = CExpr("name", ("p",), prec)
        plain = prec == Prec.MULTIPLICATIVE
        spelled = "(p - c)" if plain else "((p) - c)"
        assert str(cexpr.binary("-", Float64, Float64, operand, "c")) == spelled
        assert str(cexpr.convert(Float32, Boolean, operand)) == "((p) != 0.0f)"


def test_spellings_give_their_precedence_to_the_group():
    spelled = cexpr.binary("<<", Uint32, Uint32, "a", "b")
    assert spelled.prec == Prec.ATOM and spelled.inner is None  # a call
    for op, prec in [("*", Prec.MULTIPLICATIVE), ("<", Prec.RELATIONAL)]:
        result = Boolean if op == "<" else Float32
        spelled = cexpr.binary(op, Float32, result, "a", "b")
        assert spelled.prec == Prec.ATOM and spelled.inner.prec == prec
    assert cexpr.unary("-", Float32, "a").inner.prec == Prec.UNARY
    assert cexpr.binary("^", Boolean, Boolean, "p", "q").inner.prec == Prec.EQUALITY
    assert cexpr.convert(Int32, Boolean, "a").inner.prec == Prec.EQUALITY


def test_bare_drops_exactly_one_pair():
    a_plus_b = cexpr.binary("+", Float32, Float32, "a", "b")
    assert str(a_plus_b) == "(a + b)" and cexpr.bare(a_plus_b).text == "a + b"
    negated = cexpr.unary("-", Float32, a_plus_b)
    assert str(negated) == "(-(a + b))" and cexpr.bare(negated).text == "-(a + b)"
    assert cexpr.bare(CExpr("name", ("f(a)",))).text == "f(a)"
    # "(a) * (b)" starts and ends with a bracket, yet is no group
    product = cexpr.binary("*", Float32, Float32, a_plus_b, a_plus_b)
    assert cexpr.bare(product).text == "(a + b) * (a + b)"


def test_call_arguments_drop_their_outer_parentheses():
    a_times_b = cexpr.binary("*", Float32, Float32, "a", "b")
    assert str(cexpr.convert(Float32, Int32, a_times_b)) == "kdsl::to_i32(a * b)"
    a_div_b = cexpr.binary("/", Float32, Float32, "a", "b")
    assert str(cexpr.convert(Float32, Float16, a_div_b)) == "__float2half_rn(a / b)"
    a_and_b = cexpr.binary("&", Int32, Int32, "a", "b")
    assert str(cexpr.binary("+", Int32, Int32, a_and_b, "c")) == "kdsl::add(a & b, c)"
    a_minus_b = cexpr.binary("-", Float32, Float32, "a", "b")
    assert str(cexpr.unary("abs", Float32, a_minus_b)) == "fabsf(a - b)"
    nested = cexpr.binary("*", Float32, Float32, a_minus_b, "c")
    assert str(cexpr.convert(Float32, Int32, nested)) == "kdsl::to_i32((a - b) * c)"
