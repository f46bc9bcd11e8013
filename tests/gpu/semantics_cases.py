"""Differential cases: the generated C++ of every scalar operation against
``kdsl.transpile.core.values`` folding, bit for bit.

A *case* is one operation on one type: a binary operator (``+ - * / // % **
& | ^ << >>`` and the comparisons), a unary operator (``-``, ``~``, ``abs``),
a ``.to()`` between two scalar types, a ``.bitcast()``, a chained ``a * b +
a`` (no fma contraction), the literals of a type, or a call of a built-in
that folds (``builtin``: the integer intrinsics and the exact ``kdsl.math``
functions added with them, on each of their argument types).  Its
*operands* are the type's edge values (``edge_values``: min, max, -1, 0, 1,
neighbours of powers of two, NaN, +-inf, +-0.0, subnormals, rounding
midpoints) in every pairing, plus a few seeded random values (a built-in's
third argument and ``ldexp``'s exponent come from lists of their own).

``build_differential_source(cases)`` returns one CUDA C++ translation unit
(the kdsl prelude plus one kernel per case, spelled by
``kdsl.transpile.cuda.cexpr``, a built-in by its registry entry's CUDA
rendering).  Kernel ``case_<k>`` reads operand bit patterns from ``uint64_t``
arrays (two words per operand, low word first, so 128-bit values fit),
applies the operation and writes the result's bit pattern::

    case_<k>(const uint64_t* as, const uint64_t* bs, const uint64_t* cs,
             uint64_t* out, long long n)

A built-in's expected value is what the compiler folds: its registry entry's
``lower`` on static arguments.

``run(cases)`` compiles it through NVRTC (the options of
``cexpr.nvrtc_options``), launches every kernel with CuPy and returns the
mismatches against ``values``: floats compare by bits with any NaN equal to
any NaN, integers by their full 64-bit (128-bit) pattern, which also checks
that Int4 values stay sign-extended in their int8_t.  Float ``**`` is not
bit-exact (the GPU's powf is not the host's): those cases (``exact=False``)
allow 2 ulp.

``build_exhaustive_half_source`` / ``run_exhaustive_half`` check ``+ - * /``
of Float16 and BFloat16 on all 2**32 operand pairs against the exactly
rounded result.

Run on a machine with a GPU (CuPy, kdsl importable)::

    python tests/gpu/semantics_cases.py   # summary and mismatches; exit 1 on any

Last run (H200, sm_90, CUDA 13.0 NVRTC): 1007 cases, 2,464,214 operand
tuples, 0 mismatches; exhaustive half and bfloat16 ``+ - * /``: 0 mismatches.
The 57 built-in cases (340,408 tuples) were added after that run; their
source compiles (tests/unit/test_cexpr.py) and the interpreter equals their
folds (tests/unit/test_lanes.py), but they have not run on a GPU yet.

Integer ``//`` and ``%`` by a run-time zero have no folded value (a static
zero divisor is a compile error); the generated code defines ``x // 0 == 0``
and ``x % 0 == x`` (``runtime_zero_division``), and the cases check that too.
"""

from __future__ import annotations

import itertools
import math
import random
import sys
from dataclasses import dataclass

import numpy as np

from kdsl.transpile import builtins, ir
from kdsl.transpile.builtins import integers
from kdsl.transpile.cuda import cexpr
from kdsl.transpile.core import mathfns, values
from kdsl.transpile.core.promotion import COMPARISON
from kdsl.transpile.core.types import (
    FLOAT_TYPES,
    INTEGER_TYPES,
    NARROW_FLOAT_TYPES,
    SCALAR_TYPES,
    UNSIGNED_TYPES,
    BFloat16,
    Boolean,
    Float16,
    Int4,
    Int32,
    Uint32,
)

INT_TYPES = INTEGER_TYPES + UNSIGNED_TYPES
INT_BINARY = ("+", "-", "*", "//", "%", "**", "&", "|", "^", "<<", ">>") + COMPARISON
FLOAT_BINARY = ("+", "-", "*", "/", "//", "%", "**") + COMPARISON
BOOL_BINARY = ("&", "|", "^", "<<", ">>") + COMPARISON
NVRTC_BASE_OPTIONS = ("-arch=sm_90", "-std=c++17", "--fmad=false")


@dataclass(frozen=True)
class Case:
    """One operation: ``kind`` is binary, unary, convert, bitcast, chain
    (``a * b + a`` in one float type: catches contraction into an fma),
    literal (``cexpr.literal`` of each edge value, selected by index) or
    builtin (a call of the registry entry ``op`` on arguments of the types
    ``params``)."""

    kind: str
    op: str
    src: type  # the operand type (a built-in's first argument's)
    dst: type  # the result type
    params: tuple = ()  # a built-in's argument types

    @property
    def exact(self) -> bool:
        return not (self.op == "**" and self.src.kind == "float")

    @property
    def arity(self) -> int:
        if self.kind == "builtin":
            return len(self.params)
        return 2 if self.kind in ("binary", "chain") else 1

    @property
    def operand_types(self) -> tuple:
        return self.params or (self.src,) * self.arity

    def __str__(self) -> str:
        if self.kind == "builtin":
            types = ", ".join(t.__name__ for t in self.params)
            return f"kdsl.{self.op}({types})"
        if self.kind == "binary":
            return f"{self.src.__name__} {self.op} {self.src.__name__}"
        if self.kind == "chain":
            return f"{self.src.__name__} a * b + a"
        if self.kind == "unary":
            return f"{self.op} {self.src.__name__}"
        if self.kind == "literal":
            return f"{self.src.__name__} literals"
        return f"{self.src.__name__}.{self.op}({self.dst.__name__})"


def all_cases() -> list[Case]:
    """Every operator on every type it applies to, every ``.to()`` pair and
    every equal-width ``.bitcast()`` pair."""
    cases = []
    for t in INT_TYPES + FLOAT_TYPES + (Boolean,):
        ops = INT_BINARY if t.kind == "int" else FLOAT_BINARY
        ops = BOOL_BINARY if t is Boolean else ops
        for op in ops:
            cases.append(Case("binary", op, t, Boolean if op in COMPARISON else t))
    for t in FLOAT_TYPES:
        cases.append(Case("chain", "*+", t, t))
    for t in INT_TYPES + FLOAT_TYPES + (Boolean,):
        ops = (
            ("~",)
            if t is Boolean
            else ("-", "abs") + (("~",) if t.kind == "int" else ())
        )
        cases.extend(Case("unary", op, t, t) for op in ops)
    for src in SCALAR_TYPES:
        for dst in SCALAR_TYPES:
            if src is not dst:
                cases.append(Case("convert", "to", src, dst))
    for src in SCALAR_TYPES:
        for dst in SCALAR_TYPES:
            if src is not dst and src.width == dst.width and Boolean not in (src, dst):
                cases.append(Case("bitcast", "bitcast", src, dst))
    cases.extend(Case("literal", "literal", t, t) for t in SCALAR_TYPES)
    return cases + builtin_cases()


# The exact kdsl.math functions checked here, on each float type.
FOLDED_MATH = (
    "round",
    "rint",
    "fmax",
    "fmin",
    "copysign",
    "ldexp",
    "frexp_mantissa",
    "frexp_exponent",
    "isnan",
    "isinf",
    "isfinite",
)


def builtin_cases() -> list[Case]:
    """Every form of every integer intrinsic, and ``FOLDED_MATH`` on every
    float type."""
    cases = [
        Case("builtin", name, form.params[0], form.result, form.params)
        for name, spec in integers.INTRINSICS.items()
        for form in spec.forms
    ]
    for fn in FOLDED_MATH:
        spec = mathfns.spec(fn)
        for t in FLOAT_TYPES:
            params = tuple(Int32 if p in spec.ints else t for p in spec.params)
            cases.append(Case("builtin", f"math.{fn}", t, spec.result or t, params))
    return cases


# -- operand values --------------------------------------------------------------
def _int_edges(t) -> list[int]:
    lo, hi = t.min(), t.max()
    picks = {lo, lo + 1, hi - 1, hi, -2, -1, 0, 1, 2, 3, 5, 7}
    for k in sorted({2, 3, 4, 7, 8, 11, 12, 15, 16, 24, 31, 32, 53, 63, 64, 100, 127}):
        for base in (1 << k, -(1 << k)):
            picks.update({base - 1, base, base + 1})
    # float rounding: ties to even and just above, for half, bfloat16, float
    # and double, and a sticky bit far below (Int128 -> double)
    for p in (8, 11, 24, 53):
        for k in (p + 1, p + 3, 64, 100):
            tie = (1 << k) + (1 << (k - p))
            picks.update({tie, tie + 1, tie + (1 << (k - p + 1)), -tie})
    picks.update({65504, 65519, 65520, 2**128 - 2**103, 2**128 - 2**104})
    return sorted(v for v in picks if lo <= v <= hi)


def _float_edges(t) -> list[float]:
    limit = values.finite_limit(t)
    tiny = math.ldexp(1.0, t.min_exponent)  # smallest normal
    sub = math.ldexp(1.0, t.min_exponent - t.mantissa)  # smallest subnormal
    picks = [0.0, 1.0, 2.0, 3.0, 0.5, 1.5, 2.5, 0.1, 1 / 3, 7.0, 100.0, 255.5]
    picks += [limit, tiny, sub, tiny - sub, 2 * sub, 1 + math.ldexp(1, -t.mantissa)]
    picks += [math.inf, math.nan]
    for k in (7, 8, 15, 16, 31, 32, 63, 64, 127):  # integer conversion bounds
        picks += [
            2.0**k,
            2.0**k + 2.0 ** (k - t.mantissa),
            2.0**k - 2.0 ** (k - t.mantissa - 1),
        ]
    for p in (2, 3, 4, 8, 11, 24):  # midpoints of narrower types near 1
        picks += [1 + 2.0**-p, 1 + 3 * 2.0 ** -(p + 1), 1 + 2.0**-p + 2.0**-40]
    picks += [65504.0, 65520.0, 57344.0, 61440.0, 448.0, 464.0, 240.0, 248.0, 6.0, 7.5]
    out, seen = [], set()
    for v in picks + [-v for v in picks]:
        with np.errstate(all="ignore"):
            r = values.round_float(v, t) if math.isfinite(v) else v
        key = values.to_bits(r, t)
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


def edge_values(t) -> list:
    """Edge values of scalar type ``t`` (Python values, as ``values`` holds
    them): min, max, -1, 0, 1, neighbours of powers of two, rounding ties,
    NaN, +-inf, +-0.0 and subnormals where the type has them."""
    if t is Boolean:
        return [False, True]
    if t.kind == "int":
        return _int_edges(t)
    if t.kind == "narrow":
        n = 1 << t.width  # every bit pattern, each value once
        decoded = [values.from_bits(bits, t) for bits in range(n)]
        out, seen = [], set()
        for v in decoded:
            key = "nan" if math.isnan(v) else (v, math.copysign(1, v))
            if key not in seen:
                seen.add(key)
                out.append(v)
        return out
    return _float_edges(t)


def _random_values(t, count: int, rng: random.Random) -> list:
    if t.kind == "int":
        return [rng.randint(t.min(), t.max()) for _ in range(count)]
    if t.kind == "float":
        out = []
        for _ in range(count):
            x = rng.uniform(1, 2) * 2.0 ** rng.randint(-20, 20) * rng.choice((1, -1))
            out.append(values.round_float(x, t))
        return out
    return []


def _shift_counts(t) -> list[int]:
    w = t.width
    return [
        c
        for c in (-1, 0, 1, 2, w // 2, w - 1, w, w + 1, t.min(), t.max())
        if t.min() <= c <= t.max()
    ]


def _exponents(t) -> list[int]:
    return [
        e
        for e in (-3, -2, -1, 0, 1, 2, 3, 5, t.width - 1, t.width, t.max())
        if t.min() <= e <= t.max()
    ]


# byte_perm selectors (bits 3, 7, 11, 15 and the high half are ignored),
# funnel shift counts (wrapped mod 32 or clamped to 32) and ldexp exponents
# (float and double overflow, underflow to subnormals and to zero)
_SELECTORS = (0, 0x3210, 0x7654, 0x0123, 0x4567, 0x7777, 0x8888, 0xFFFF, 0x5140)
_SELECTORS += (0x89AB, 0xCDEF, 0x11113210, 0xFFFF0000, 0xFFFFFFFF, 0x80000000)
_SHIFTS = (0, 1, 2, 7, 8, 16, 31, 32, 33, 63, 64, 65, 0x7FFFFFFF, 0x80000000)
_SHIFTS += (0xFFFFFFE0, 0xFFFFFFFF)
LDEXP_EXPONENTS = (-(2**31), -1100, -1075, -1074, -1060, -1023, -1022, -300)
LDEXP_EXPONENTS += (-278, -217, -200, -160, -150, -149, -140, -127, -126, -125)
LDEXP_EXPONENTS += (-101, -100, -30, -24, -15, -1, 0, 1, 2, 15, 24, 100, 101)
LDEXP_EXPONENTS += (127, 128, 129, 200, 217, 278, 300, 1023, 1024, 1100, 2**31 - 1)


def _builtin_operands(case: Case, rng: random.Random) -> list[tuple]:
    pools = [edge_values(t) + _random_values(t, 8, rng) for t in case.params]
    if case.op == "math.ldexp":
        return [(x, n) for x in pools[0] for n in LDEXP_EXPONENTS]
    if case.arity < 3:
        return list(itertools.product(*pools))
    if case.op == "byte_perm":
        thirds = _SELECTORS
    elif case.op.startswith("funnelshift"):
        thirds = _SHIFTS
    else:
        thirds = tuple(pools[2])
    thirds += tuple(_random_values(Uint32, 4, rng))
    xs, ys = pools[0], pools[1]
    # every (x, y) pair with one third argument, and every third argument
    # with a spread of pairs
    cycled = [
        (x, y, thirds[(i + j) % len(thirds)])
        for i, x in enumerate(xs)
        for j, y in enumerate(ys)
    ]
    spread = [(x, y, z) for z in thirds for x, y in zip(xs[::2], ys[1::2])]
    return cycled + spread


def operands(case: Case) -> list[tuple]:
    """The operand tuples a case is tested on."""
    rng = random.Random(f"{case}")
    if case.kind == "literal":
        return [(x,) for x in edge_values(case.src)]
    if case.kind == "builtin":
        return _builtin_operands(case, rng)
    pool = edge_values(case.src) + _random_values(case.src, 8, rng)
    if case.arity == 1:
        return [(x,) for x in pool]
    if case.src.kind == "int" and case.op in ("<<", ">>"):
        return [(x, c) for x in pool for c in _shift_counts(case.src)]
    if case.src.kind == "int" and case.op == "**":
        return [(x, e) for x in pool for e in _exponents(case.src)]
    pairs = [(x, y) for x in pool for y in pool]
    if case.kind == "chain":
        pairs += [tuple(_random_values(case.src, 2, rng)) for _ in range(2000)]
    return pairs


def runtime_zero_division(op: str, a: int) -> int:
    """The generated code's integer ``a // 0`` and ``a % 0`` (no trap)."""
    return 0 if op == "//" else a


def expected(case: Case, args: tuple):
    """What ``values`` folds for the case on these operands (a built-in:
    what its registry entry folds static arguments to)."""
    if case.kind == "builtin":
        entry = builtins.get(case.op)
        static = [t._static(x) for t, x in zip(case.params, args)]
        return builtins.lower_call(None, entry, static, {}).value
    if case.kind == "binary":
        try:
            return values.binary(case.op, args[0], args[1], case.src)
        except ZeroDivisionError:
            return runtime_zero_division(case.op, args[0])
    if case.kind == "chain":
        product = values.binary("*", args[0], args[1], case.src)
        return values.binary("+", product, args[0], case.src)
    if case.kind == "unary":
        return values.unary(case.op, args[0], case.src)
    if case.kind == "literal":
        return args[0]
    if case.kind == "convert":
        return values.convert(args[0], case.src, case.dst)
    return values.from_bits(bits_of(args[0], case.src), case.dst)


# -- C++ -------------------------------------------------------------------------
def _load(t, words: str, i: str) -> str:
    """C++ for the value of type ``t`` whose bits are ``words[2*i], words[2*i+1]``."""
    lo, hi = f"{words}[2 * {i}]", f"{words}[2 * {i} + 1]"
    if t is Boolean:
        return f"({lo} != 0)"
    if t is Int4:
        return f"kdsl::i4({lo})"
    if t.kind == "int" and t.width == 128:
        return f"kdsl::{'int128' if t.signed else 'uint128'}({hi}, {lo})"
    if t.kind == "int":
        return f"{t.c_name}({lo})"
    spelled = {
        "float": f"__uint_as_float(uint32_t({lo}))",
        "double": f"kdsl::bitcast<double>({lo})",
        "__half": f"__ushort_as_half(uint16_t({lo}))",
        "__nv_bfloat16": f"__ushort_as_bfloat16(uint16_t({lo}))",
        "uint8_t": f"uint8_t({lo})",
    }
    return spelled.get(t.c_name, f"kdsl::bitcast<{t.c_name}>(uint8_t({lo}))")


def _store(t, r: str) -> tuple[str, str]:
    """C++ for the (low, high) words of the bits of ``r``, of type ``t``."""
    if t.kind in ("int", "bool"):
        if t.width == 128:
            return f"uint64_t({r})", f"uint64_t((unsigned __int128){r} >> 64)"
        return f"uint64_t({r})", "0"
    spelled = {
        "float": f"__float_as_uint({r})",
        "double": f"kdsl::bitcast<uint64_t>({r})",
        "__half": f"__half_as_ushort({r})",
        "__nv_bfloat16": f"__bfloat16_as_ushort({r})",
        "uint8_t": r,
    }
    return spelled.get(t.c_name, f"kdsl::bitcast<uint8_t>({r})"), "0"


class _Renderer:
    """What a built-in's CUDA rendering may use of the emitter
    (``registry.CudaRenderer``), as ``cuda/emit.py`` does it."""

    def convert(self, src, dst, value):
        return cexpr.convert(src, dst, value)


def builtin_call(case: Case) -> ir.BuiltinCall:
    """The IR of the case's call, on variables ``a``, ``b``, ``c``."""
    args = tuple(ir.Var(t, name) for t, name in zip(case.params, "abc"))
    return ir.BuiltinCall(case.dst, case.op, args)


def spell(case: Case, a="a", b="b", c="c") -> cexpr.CExpr:
    """The C++ expression ``cexpr`` (a built-in: its rendering) spells for
    the case."""
    if case.kind == "builtin":
        args = [cexpr.bare(x) for x in (a, b, c)[: case.arity]]
        return builtins.get(case.op).cuda(_Renderer(), builtin_call(case), args)
    if case.kind == "binary":
        return cexpr.binary(case.op, case.src, case.dst, a, b)
    if case.kind == "chain":
        product = cexpr.binary("*", case.src, case.src, a, b)
        return cexpr.binary("+", case.src, case.src, product, a)
    if case.kind == "unary":
        return cexpr.unary(case.op, case.src, a)
    if case.kind == "convert":
        return cexpr.convert(case.src, case.dst, a)
    if case.kind == "bitcast":
        return cexpr.bitcast(case.src, case.dst, a)
    raise ValueError(f"{case} is not one expression")


def _literal_body(t) -> str:
    """``r`` = the i-th edge value of ``t``, spelled by ``cexpr.literal``."""
    lines = [f"    {t.c_name} r;", "    switch (i) {"]
    for j, value in enumerate(edge_values(t)):
        lines.append(
            f"    case {j}:\n        r = {cexpr.literal(t, value)};\n        break;"
        )
    lines.append("    default:\n        return;\n    }")
    return "\n".join(lines) + "\n"


def case_types(cases) -> set:
    return {t for c in cases for t in (c.src, c.dst, *c.params)}


def builtin_prelude(cases) -> str:
    """The prelude parts the built-ins of ``cases`` need beyond their types'."""
    have = set(cexpr.prelude_parts(case_types(cases)))
    parts = {
        p for c in cases if c.kind == "builtin" for p in builtins.get(c.op).prelude
    }
    return "".join(cexpr.prelude_file(p) for p in sorted(parts - have))


def build_differential_source(cases) -> str:
    """One CUDA C++ translation unit with kernel ``case_<k>`` for ``cases[k]``."""
    parts = [
        "// kdsl differential semantics kernels (tests/gpu/semantics_cases.py)",
        cexpr.prelude(case_types(cases)) + builtin_prelude(cases),
    ]
    for k, case in enumerate(cases):
        lo, hi = _store(case.dst, "r")
        if case.kind == "literal":
            body = _literal_body(case.src)
        else:
            loads = "".join(
                f"    {t.c_name} {name} = {_load(t, words, 'i')};\n"
                for t, name, words in zip(case.operand_types, "abc", ("as", "bs", "cs"))
            )
            body = f"{loads}    {case.dst.c_name} r = {spell(case)};\n"
        parts.append(
            f"// {case}\n"
            f'extern "C" __global__ void case_{k}(const uint64_t* as, const uint64_t* bs, '
            "const uint64_t* cs, uint64_t* out, long long n)\n"
            "{\n"
            "    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
            "    if (i >= n) {\n        return;\n    }\n"
            f"{body}"
            f"    out[2 * i] = {lo};\n"
            f"    out[2 * i + 1] = {hi};\n"
            "}\n"
        )
    return "\n".join(parts)


def nvrtc_options(cases, include_dir: str | None = None) -> list[str]:
    options = list(NVRTC_BASE_OPTIONS) + cexpr.nvrtc_options(case_types(cases))
    return options + ([f"-I{include_dir}"] if include_dir else [])


# -- comparison ------------------------------------------------------------------
def _words(value, t, cache: dict) -> tuple[int, int]:
    """The two words of the bits of ``value`` in ``t`` (cached: -0.0 and 0.0
    are different keys, every NaN is the one NaN of ``edge_values``)."""
    if isinstance(value, float):
        sign = math.copysign(1, value)
        key = (t, "nan", sign) if math.isnan(value) else (t, value, sign)
    else:
        key = (t, value)
    if key not in cache:
        bits = bits_of(value, t)
        cache[key] = (bits & (2**64 - 1), bits >> 64)
    return cache[key]


def bits_of(value, t) -> int:
    """``values.to_bits``, except that a narrow infinity keeps its own bits
    (``values.to_bits`` encodes it saturated, as ``.to()`` would)."""
    if t.kind == "narrow" and isinstance(value, float) and math.isinf(value):
        return int(np.array(value, dtype=t.np_dtype).view(np.uint8))
    return values.to_bits(value, t)


def _ulp(value: float, t) -> float:
    if value == 0 or not math.isfinite(value):
        return math.ldexp(1.0, t.min_exponent - t.mantissa)
    _, e = math.frexp(value)
    return math.ldexp(1.0, max(e - 1, t.min_exponent) - t.mantissa)


def matches(case: Case, want, lo: int, hi: int) -> bool:
    """Whether the GPU's result words ``(lo, hi)`` are the folded ``want``."""
    t = case.dst
    if t.kind in ("int", "bool"):
        got = lo | (hi << 64)
        mask = 2**128 - 1 if t.width == 128 else 2**64 - 1
        return got == (int(want) & mask)
    got = values.from_bits(lo & ((1 << t.width) - 1), t) if lo >> t.width == 0 else None
    if got is None:  # stray bits above the type's width
        return False
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    if t.kind == "narrow":  # (narrow values keep no NaN payload or inf bits)
        return got == want and math.copysign(1, got) == math.copysign(1, want)
    if not case.exact:
        return got == want or abs(got - want) <= 2 * _ulp(want, t)
    return lo == bits_of(want, t)


def run(cases=None, include_dir: str | None = None, block: int = 256):
    """Compile and run ``cases`` (default: all) on the GPU; return the
    mismatches as ``(case, operands, want, (lo, hi))`` tuples."""
    import cupy as cp
    from cupy.cuda import nvrtc

    cases = all_cases() if cases is None else list(cases)
    source = build_differential_source(cases)
    program = nvrtc.createProgram(source, "kdsl_semantics.cu", [], [])
    try:
        nvrtc.compileProgram(program, nvrtc_options(cases, include_dir))
    except Exception:
        print(nvrtc.getProgramLog(program), file=sys.stderr)
        raise
    module = cp.cuda.Module()
    module.load(nvrtc.getCUBIN(program))
    mismatches, cache = [], {}
    for k, case in enumerate(cases):
        tuples = operands(case)
        words = np.zeros((case.arity, len(tuples), 2), np.uint64)
        for j, args in enumerate(tuples):
            for m, (x, t) in enumerate(zip(args, case.operand_types)):
                words[m, j] = _words(x, t, cache)
        a, b, c = (cp.asarray(words[min(m, case.arity - 1)].ravel()) for m in range(3))
        out = cp.zeros(2 * len(tuples), cp.uint64)
        n = len(tuples)
        kernel = module.get_function(f"case_{k}")
        kernel(((n + block - 1) // block,), (block,), (a, b, c, out, np.int64(n)))
        result = out.get().reshape(-1, 2)
        for args, (lo, hi) in zip(tuples, result):
            want = expected(case, args)
            if not matches(case, want, int(lo), int(hi)):
                mismatches.append((case, args, want, (int(lo), int(hi))))
    return mismatches


# -- exhaustive half and bfloat16 arithmetic ---------------------------------------
_EXHAUSTIVE = r"""
namespace kdsl_check {
__device__ __half from_bits(unsigned short u, __half) { return __ushort_as_half(u); }
__device__ __nv_bfloat16 from_bits(unsigned short u, __nv_bfloat16) { return __ushort_as_bfloat16(u); }
__device__ unsigned short bits(__half h) { return __half_as_ushort(h); }
__device__ unsigned short bits(__nv_bfloat16 h) { return __bfloat16_as_ushort(h); }
__device__ __half round(double d, __half) { return __double2half(d); }
__device__ __nv_bfloat16 round(double d, __nv_bfloat16) { return __double2bfloat16(d); }
__device__ double wide(__half h) { return (double)__half2float(h); }
__device__ double wide(__nv_bfloat16 h) { return (double)__bfloat162float(h); }

// Operand pair `index` (all 2**32), each of + - * / against the double
// result rounded once (double holds more than twice the bits: exact).
template <typename H>
__device__ void check(unsigned long long* counts, unsigned int* examples, unsigned short inf)
{
    unsigned long long index = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    H a = from_bits((unsigned short)(index >> 16), H());
    H b = from_bits((unsigned short)index, H());
    double x = wide(a), y = wide(b);
    unsigned short got[4] = {bits(%(add)s), bits(%(sub)s), bits(%(mul)s), bits(%(div)s)};
    unsigned short want[4] = {
        bits(round(x + y, a)), bits(round(x - y, a)), bits(round(x * y, a)), bits(round(x / y, a))};
    for (int k = 0; k < 4; ++k) {
        bool both_nan = (got[k] & 0x7fff) > inf && (want[k] & 0x7fff) > inf;
        if (!both_nan && got[k] != want[k]) {
            atomicAdd(&counts[k], 1ull);
            examples[k] = (unsigned int)index;
        }
    }
}
}  // namespace kdsl_check

extern "C" __global__ void check_f16(unsigned long long* counts, unsigned int* examples)
{
    kdsl_check::check<__half>(counts, examples, 0x7c00);
}

extern "C" __global__ void check_bf16(unsigned long long* counts, unsigned int* examples)
{
    kdsl_check::check<__nv_bfloat16>(counts, examples, 0x7f80);
}
"""


def build_exhaustive_half_source() -> str:
    """Kernels ``check_f16`` and ``check_bf16``: ``cexpr``'s ``+ - * /`` on
    every pair of half (bfloat16) operands against the exact result."""
    ops = (("add", "+"), ("sub", "-"), ("mul", "*"), ("div", "/"))
    spelled = {name: cexpr.binary(op, Float16, Float16, "a", "b") for name, op in ops}
    for name, op in ops:  # one template serves both: the spellings must agree
        assert cexpr.binary(op, BFloat16, BFloat16, "a", "b") == spelled[name]
    return cexpr.prelude({Float16, BFloat16}) + _EXHAUSTIVE % spelled


def run_exhaustive_half(include_dir: str | None = None) -> dict:
    """Mismatch counts of ``+ - * /`` over all 2**32 operand pairs, by type."""
    import cupy as cp
    from cupy.cuda import nvrtc

    program = nvrtc.createProgram(build_exhaustive_half_source(), "check.cu", [], [])
    options = list(NVRTC_BASE_OPTIONS) + ([f"-I{include_dir}"] if include_dir else [])
    nvrtc.compileProgram(program, options)
    module = cp.cuda.Module()
    module.load(nvrtc.getCUBIN(program))
    result = {}
    for name in ("check_f16", "check_bf16"):
        counts, examples = cp.zeros(4, cp.uint64), cp.zeros(4, cp.uint32)
        module.get_function(name)(((1 << 32) // 256,), (256,), (counts, examples))
        result[name] = {
            op: (int(n), int(e))
            for op, n, e in zip("+-*/", counts.get(), examples.get())
        }
    return result


def main(include_dir: str | None = None) -> int:
    cases = all_cases()
    mismatches = run(cases, include_dir)
    by_case: dict = {}
    for case, args, want, got in mismatches:
        by_case.setdefault(str(case), []).append((args, want, got))
    total = sum(len(operands(c)) for c in cases)
    print(f"{len(cases)} cases, {total} operand tuples, {len(mismatches)} mismatches")
    for name, rows in by_case.items():
        print(f"{name}: {len(rows)} mismatches, e.g.")
        for args, want, got in rows[:4]:
            print(f"    {args!r}: want {want!r}, got words {got[0]:#x} {got[1]:#x}")
    exhaustive = run_exhaustive_half(include_dir)
    bad = 0
    for name, by_op in exhaustive.items():
        for op, (count, example) in by_op.items():
            print(
                f"{name} {op}: {count} mismatches of 2**32"
                + (f", e.g. {example:#010x}" if count else "")
            )
            bad += count
    return 1 if mismatches or bad else 0


if __name__ == "__main__":
    sys.exit(main())
