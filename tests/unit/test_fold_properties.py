"""Folding agrees with an independent computation, for every operator and type.

The references are numpy (integer types with a numpy dtype, Float16, Float32,
Float64), ml_dtypes (BFloat16) and plain Python modular arithmetic written
here (Int4, Int128, Uint128).  Float results are compared bit for bit, except
that any NaN equals any NaN.

Inputs where numpy itself departs from kdsl's documented semantics are left
out of a property and covered in ``test_value_edges.py`` instead:

* integer ``//`` and ``%`` by zero (numpy returns 0; kdsl: compile error);
* integer ``**`` with a negative exponent (numpy raises);
* shift counts outside ``[0, width)`` (platform-defined in numpy);
* float -> integer conversion is compared with a clip-and-trunc written
  here, never with numpy's cast (undefined for NaN and out-of-range values);
* integer -> float and Float64 -> BFloat16 conversions are compared with an
  exact rounding written here: numpy and ml_dtypes round some of these twice;
* float ``**`` is numpy's power on one-element arrays, which is C's pow: on
  0-d operands numpy takes ``sqrt`` for an exponent of 0.5, which differs
  from pow at -0.0 and -inf.
"""

import math
import operator
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kdsl
from kdsl import (
    BFloat16,
    Boolean,
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

PROPERTY = settings(
    max_examples=200,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

INTS = [Int4, Int8, Int16, Int32, Int64, Int128, Uint8, Uint16, Uint32, Uint64, Uint128]
FLOATS = [Float16, BFloat16, Float32, Float64]
ALL = INTS + FLOATS + [Boolean]

NP_INT = {
    Int8: np.int8,
    Int16: np.int16,
    Int32: np.int32,
    Int64: np.int64,
    Uint8: np.uint8,
    Uint16: np.uint16,
    Uint32: np.uint32,
    Uint64: np.uint64,
}
NP_FLOAT = {
    Float16: np.float16,
    BFloat16: ml_dtypes.bfloat16,
    Float32: np.float32,
    Float64: np.float64,
}
NP_BITS = {16: np.uint16, 32: np.uint32, 64: np.uint64}

UFUNC = {
    "+": np.add,
    "-": np.subtract,
    "*": np.multiply,
    "/": np.true_divide,
    "//": np.floor_divide,
    "%": np.remainder,
    "**": np.power,
    "&": np.bitwise_and,
    "|": np.bitwise_or,
    "^": np.bitwise_xor,
    "<<": np.left_shift,
    ">>": np.right_shift,
    "<": np.less,
    "<=": np.less_equal,
    ">": np.greater,
    ">=": np.greater_equal,
    "==": np.equal,
    "!=": np.not_equal,
}
KDSL_OP = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "**": operator.pow,
    "&": operator.and_,
    "|": operator.or_,
    "^": operator.xor,
    "<<": operator.lshift,
    ">>": operator.rshift,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}
COMPARISONS = ["<", "<=", ">", ">=", "==", "!="]
INT_OPS = ["+", "-", "*", "//", "%", "**", "&", "|", "^", "<<", ">>"]
FLOAT_OPS = ["+", "-", "*", "/", "//", "%", "**"]


def assert_same(actual, expected, what):
    """Bit-for-bit equality; any NaN equals any NaN; ints and bools exactly."""
    if isinstance(expected, float):
        assert isinstance(actual, float), what
        if math.isnan(expected):
            assert math.isnan(actual), f"{what}: {actual!r}, expected NaN"
        else:
            assert actual == expected and math.copysign(1.0, actual) == math.copysign(
                1.0, expected
            ), f"{what}: {actual!r} != {expected!r}"
    elif isinstance(expected, bool):
        assert actual is expected, f"{what}: {actual!r} != {expected!r}"
    else:
        assert type(actual) is int and actual == expected, f"{what}: {actual!r}"


# -- independent references ---------------------------------------------------------
def py_wrap(value: int, t) -> int:
    """``value`` modulo 2**width, in the signed or unsigned range of ``t``."""
    value %= 2**t.width
    if t.signed and value >= 2 ** (t.width - 1):
        value -= 2**t.width
    return value


def py_int_binary(op, a, b, t):
    """Integer operations for types numpy lacks (Int4, Int128, Uint128)."""
    if op == "**":
        return py_wrap(pow(a, b, 2**t.width), t)
    if op in COMPARISONS:
        return KDSL_OP[op](a, b)
    fn = {"//": operator.floordiv, "%": operator.mod}.get(op, KDSL_OP[op])
    return py_wrap(fn(a, b), t)


def np_int_binary(op, a, b, t):
    x, y = np.array(a, NP_INT[t]), np.array(b, NP_INT[t])
    with np.errstate(all="ignore"):
        r = UFUNC[op](x, y)
    assert r.dtype == (np.bool_ if op in COMPARISONS else NP_INT[t])
    return bool(r) if op in COMPARISONS else int(r)


def float_value(bits: int, t) -> float:
    """The float of type ``t`` whose bit pattern is ``bits``."""
    return float(np.array(bits, NP_BITS[t.width]).view(NP_FLOAT[t]))


def exact_round(q: Fraction, t) -> float:
    """The nonzero rational ``q`` rounded to nearest even in float type ``t``.

    Found by a binary search over the bit patterns of ``t`` (positive floats
    are ordered like their bits), so it shares nothing with kdsl's rounding.
    """
    if q == 0:
        return 0.0
    sign, q = (-1.0 if q < 0 else 1.0), abs(q)
    inf_bits = int(np.array(np.inf, NP_FLOAT[t]).view(NP_BITS[t.width]))
    lo, hi = 0, inf_bits  # value(lo) <= q < value(hi), value(inf) taken as inf
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if Fraction(float_value(mid, t)) <= q:
            lo = mid
        else:
            hi = mid
    low = Fraction(float_value(lo, t))
    if low == q:
        return sign * float(low)
    if hi == inf_bits:  # beyond the largest finite value: the next "value"
        high = low + (low - Fraction(float_value(lo - 1, t)))
    else:
        high = Fraction(float_value(hi, t))
    if q - low < high - q or (q - low == high - q and lo % 2 == 0):
        return sign * float(low)
    return sign * float_value(hi, t)


def ref_int_to_float(a: int, src, dst) -> float:
    if src in NP_INT and dst in (Float16, Float32, Float64):
        with np.errstate(over="ignore"):
            return float(np.array(a, NP_INT[src]).astype(NP_FLOAT[dst]))
    return exact_round(Fraction(a), dst)


def ref_float_to_int(x: float, dst) -> int:
    """Clip and truncate toward zero; NaN is 0."""
    if math.isnan(x):
        return 0
    lo, hi = dst.min(), dst.max()
    if math.isinf(x):
        return hi if x > 0 else lo
    return max(lo, min(hi, int(np.trunc(np.float64(x)))))


def ref_convert(value, src, dst):
    """``src(value).to(dst)`` computed without kdsl."""
    if dst is Boolean:
        return bool(value != 0)
    if src is Boolean:
        value, src = int(value), Int32
    if dst.kind == "int":
        if isinstance(value, float):
            return ref_float_to_int(value, dst)
        if src in NP_INT and dst in NP_INT:
            return int(np.array(value, NP_INT[src]).astype(NP_INT[dst]))
        return py_wrap(value, dst)
    if isinstance(value, int):
        return ref_int_to_float(value, src, dst)
    if value and math.isfinite(value) and (src, dst) == (Float64, BFloat16):
        return exact_round(Fraction(value), dst)  # ml_dtypes rounds via float32
    with np.errstate(all="ignore"):
        return float(np.array(value, NP_FLOAT[src]).astype(NP_FLOAT[dst]))


# -- strategies -----------------------------------------------------------------
def int_values(t):
    edges = [t.min(), t.min() + 1, t.max(), t.max() - 1, 0, 1, py_wrap(-1, t)]
    return st.one_of(
        st.integers(t.min(), t.max()),
        st.sampled_from(edges),
        st.integers(-20, 20).map(lambda v: py_wrap(v, t)),
    )


def float_values(t):
    fmax = float(ml_dtypes.finfo(NP_FLOAT[t]).max)
    tiny = float(ml_dtypes.finfo(NP_FLOAT[t]).smallest_subnormal)
    to_t = lambda v: float(np.array(v, np.float64).astype(NP_FLOAT[t]))  # noqa: E731
    specials = [0.0, -0.0, 1.0, -1.0, 0.5, fmax, -fmax, tiny, -tiny]
    specials += [math.inf, -math.inf, math.nan]
    if t is BFloat16:
        floats = st.floats(width=32).map(to_t)
    else:
        floats = st.floats(width=t.width)
    return st.one_of(
        st.integers(0, 2**t.width - 1).map(lambda b: float_value(b, t)),
        floats,
        st.integers(-400, 400).map(lambda i: to_t(i / 8)),
        st.sampled_from(specials),
    )


def values_of(t):
    if t is Boolean:
        return st.booleans()
    return int_values(t) if t.kind == "int" else float_values(t)


# -- integers --------------------------------------------------------------------
def int_excluded(op, b, t) -> bool:
    if op in ("//", "%"):
        return b == 0
    if op == "**":
        return b < 0
    if op in ("<<", ">>"):
        return not 0 <= b < t.width
    return False


@pytest.mark.parametrize("t", INTS, ids=repr)
def test_int_binary(t):
    """Every binary operator, on every example: wrap-around, floor division
    and modulo, powers, bitwise operations and in-range shifts."""

    @PROPERTY
    @given(a=int_values(t), b=int_values(t))
    def check(a, b):
        for op in INT_OPS + COMPARISONS:
            if int_excluded(op, b, t):
                continue
            result = KDSL_OP[op](t(a), t(b))
            assert result.dtype is (Boolean if op in COMPARISONS else t)
            assert result.is_static()
            if t in NP_INT:
                expected = np_int_binary(op, a, b, t)
            else:
                expected = py_int_binary(op, a, b, t)
            assert_same(result.value, expected, f"{t}({a}) {op} {t}({b})")

    check()


@pytest.mark.parametrize("t", INTS, ids=repr)
def test_int_true_division(t):
    ft = Float64 if t.width > 32 else Float32

    @PROPERTY
    @given(a=int_values(t), b=int_values(t))
    def check(a, b):
        result = t(a) / t(b)
        assert result.dtype is ft
        x, y = ref_int_to_float(a, t, ft), ref_int_to_float(b, t, ft)
        with np.errstate(all="ignore"):
            expected = float(NP_FLOAT[ft](x) / NP_FLOAT[ft](y))
        assert_same(result.value, expected, f"{t}({a}) / {t}({b})")

    check()


@pytest.mark.parametrize("t", INTS, ids=repr)
def test_int_unary(t):
    @PROPERTY
    @given(a=int_values(t))
    def check(a):
        if t in NP_INT:
            x = np.array(a, NP_INT[t])
            with np.errstate(all="ignore"):
                expected = [int(np.negative(x)), int(np.invert(x)), int(np.abs(x))]
        else:
            expected = [py_wrap(-a, t), py_wrap(~a, t), py_wrap(abs(a), t)]
        actual = [-t(a), ~t(a), abs(t(a))]
        for what, got, want in zip(("-", "~", "abs"), actual, expected):
            assert got.dtype is t
            assert_same(got.value, want, f"{what} {t}({a})")
        assert_same((+t(a)).value, a, f"+ {t}({a})")

    check()


# -- floats ----------------------------------------------------------------------
def np_float_binary(op, a, b, t):
    dt = NP_FLOAT[t]
    with np.errstate(all="ignore"):
        if op == "**":  # C's pow (a 0-d power takes sqrt for b == 0.5)
            # Half types: powf in float, rounded once, as the GPU computes it
            # (numpy's own half power gives NaN for 1 ** NaN; C's pow gives 1).
            wide = np.float32 if np.dtype(dt).itemsize == 2 else dt
            r = np.power(np.array([a], wide), np.array([b], wide))[0].astype(dt)
        else:
            r = UFUNC[op](np.array(a, dt), np.array(b, dt))
    if op in COMPARISONS:
        return bool(r)
    assert r.dtype == dt
    return float(r)


@pytest.mark.parametrize("t", FLOATS, ids=repr)
def test_float_binary(t):
    """Every operator, rounded to ``t`` after the operation, on every example."""

    @PROPERTY
    @given(a=float_values(t), b=float_values(t))
    def check(a, b):
        for op in FLOAT_OPS + COMPARISONS:
            result = KDSL_OP[op](t(a), t(b))
            assert result.dtype is (Boolean if op in COMPARISONS else t)
            assert result.is_static()
            expected = np_float_binary(op, a, b, t)
            assert_same(result.value, expected, f"{t}({a!r}) {op} {t}({b!r})")

    check()


@pytest.mark.parametrize("t", FLOATS, ids=repr)
def test_float_unary(t):
    dt = NP_FLOAT[t]

    @PROPERTY
    @given(a=float_values(t))
    def check(a):
        x = np.array(a, dt)
        assert_same((-t(a)).value, float(np.negative(x)), f"-{t}({a!r})")
        assert_same(abs(t(a)).value, float(np.abs(x)), f"abs({t}({a!r}))")
        assert_same((+t(a)).value, a, f"+{t}({a!r})")

    check()


@pytest.mark.parametrize("t", FLOATS, ids=repr)
def test_float_construction_rounds_once(t):
    @PROPERTY
    @given(x=st.floats(allow_nan=True, allow_infinity=True))
    def check(x):
        if t is BFloat16 and x and math.isfinite(x):
            expected = exact_round(Fraction(x), t)
        else:
            with np.errstate(all="ignore"):
                expected = float(np.array(x, np.float64).astype(NP_FLOAT[t]))
        assert_same(t(x).value, expected, f"{t}({x!r})")

    check()


# -- Boolean ---------------------------------------------------------------------
@pytest.mark.parametrize("op", ["+", "-", "*", "//", "%", "**", "/"] + COMPARISONS)
def test_boolean_operations_exhaustive(op):
    for a in (False, True):
        for b in (False, True):
            if op in ("//", "%") and not b:
                continue
            result = KDSL_OP[op](Boolean(a), Boolean(b))
            if op in COMPARISONS:
                expected = bool(UFUNC[op](np.bool_(a), np.bool_(b)))
            elif op == "/":
                with np.errstate(all="ignore"):
                    expected = float(np.float32(a) / np.float32(b))
            else:
                expected = np_int_binary(op, int(a), int(b), Int32)
            assert_same(result.value, expected, f"{a} {op} {b}")


@pytest.mark.parametrize("op", ["&", "|", "^"])
def test_boolean_bitwise_exhaustive(op):
    for a in (False, True):
        for b in (False, True):
            expected = bool(UFUNC[op](np.bool_(a), np.bool_(b)))
            assert_same(KDSL_OP[op](Boolean(a), Boolean(b)).value, expected, op)


# -- .to() between every pair of types --------------------------------------------
@pytest.mark.parametrize("src", ALL, ids=repr)
def test_convert(src):
    """``src(value).to(dst)`` for every ``dst``, on every example."""

    @PROPERTY
    @given(value=values_of(src))
    def check(value):
        for dst in ALL:
            result = src(value).to(dst)
            assert result.dtype is dst and result.is_static()
            expected = ref_convert(value, src, dst)
            assert_same(result.value, expected, f"{src}({value!r}).to({dst})")

    check()


# -- mixed types: promote, then operate --------------------------------------------
NON_BOOL = INTS + FLOATS


@PROPERTY
@given(
    ta=st.sampled_from(NON_BOOL),
    tb=st.sampled_from(NON_BOOL),
    op=st.sampled_from(["+", "-", "*", "/", "<", "==", "**", "//"]),
    data=st.data(),
)
def test_mixed_types_equal_explicit_conversion(ta, tb, op, data):
    a, b = data.draw(values_of(ta)), data.draw(values_of(tb))
    x, y = ta(a), tb(b)
    c = kdsl.transpile.core.promotion.binary_types(op, ta, tb)[0]
    xc, yc = x.to(c), y.to(c)
    if c.kind == "int" and int_excluded(op, yc.value, c):
        return
    result = KDSL_OP[op](x, y)
    expected = KDSL_OP[op](xc, yc)
    assert result.dtype is expected.dtype
    assert_same(result.value, expected.value, f"{x!r} {op} {y!r}")
