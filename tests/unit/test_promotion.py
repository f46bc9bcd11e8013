"""Type interoperability: common types, result types, Boolean and literal rules.

The 9x9 table below is copied verbatim from
``reference/arithmetic-types.md`` (section "Common type") and checked cell by
cell, through the public operators on real values, not only through
``promotion``.
"""

import itertools
import warnings

import pytest

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
from kdsl.transpile.core import promotion, types

REFERENCE_TABLE = """
| lhs \\ rhs | Int8 | Int16 | Int32 | Int64 | Uint32 | Float16 | BFloat16 | Float32 | Float64 |
|-----------|------|-------|-------|-------|--------|---------|----------|---------|---------|
| Int8      | Int8 | Int16 | Int32 | Int64 | Uint32 | Float16 | BFloat16 | Float32 | Float64 |
| Int16     | Int16 | Int16 | Int32 | Int64 | Uint32 | Float16 | BFloat16 | Float32 | Float64 |
| Int32     | Int32 | Int32 | Int32 | Int64 | Uint32 | Float32 | Float32  | Float32 | Float64 |
| Int64     | Int64 | Int64 | Int64 | Int64 | Int64  | Float64 | Float64  | Float64 | Float64 |
| Uint32    | Uint32 | Uint32 | Uint32 | Int64 | Uint32 | Float32 | Float32  | Float32 | Float64 |
| Float16   | Float16 | Float16 | Float32 | Float64 | Float32 | Float16 | Float32 | Float32 | Float64 |
| BFloat16  | BFloat16 | BFloat16 | Float32 | Float64 | Float32 | Float32 | BFloat16 | Float32 | Float64 |
| Float32   | Float32 | Float32 | Float32 | Float64 | Float32 | Float32 | Float32 | Float32 | Float64 |
| Float64   | Float64 | Float64 | Float64 | Float64 | Float64 | Float64 | Float64 | Float64 | Float64 |
"""


def _parse_table(text):
    rows = [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in text.strip().splitlines()
        if not line.startswith("|---")
    ]
    header, body = rows[0][1:], rows[1:]
    return [
        (getattr(kdsl, row[0]), getattr(kdsl, rhs), getattr(kdsl, cell))
        for row in body
        for rhs, cell in zip(header, row[1:], strict=True)
    ]


TABLE = _parse_table(REFERENCE_TABLE)
TABLE_IDS = [f"{a.__name__}-{b.__name__}" for a, b, _ in TABLE]
ARITHMETIC = ["+", "-", "*", "//", "%", "**"]
COMPARISON = ["<", "<=", ">", ">=", "==", "!="]
BITWISE = ["&", "|", "^", "<<", ">>"]
NON_NARROW = types.INTEGER_TYPES + types.UNSIGNED_TYPES + types.FLOAT_TYPES


def apply(op, a, b):
    return {
        "+": lambda: a + b,
        "-": lambda: a - b,
        "*": lambda: a * b,
        "/": lambda: a / b,
        "//": lambda: a // b,
        "%": lambda: a % b,
        "**": lambda: a**b,
        "&": lambda: a & b,
        "|": lambda: a | b,
        "^": lambda: a ^ b,
        "<<": lambda: a << b,
        ">>": lambda: a >> b,
        "<": lambda: a < b,
        "<=": lambda: a <= b,
        ">": lambda: a > b,
        ">=": lambda: a >= b,
        "==": lambda: a == b,
        "!=": lambda: a != b,
    }[op]()


def one(t):
    return t(1)


def test_table_is_complete():
    assert len(TABLE) == 81
    assert len({(a, b) for a, b, _ in TABLE}) == 81


# -- the reference table, cell by cell ------------------------------------------
@pytest.mark.parametrize("lhs, rhs, common", TABLE, ids=TABLE_IDS)
def test_common_type_cell(lhs, rhs, common):
    assert promotion.common_type(lhs, rhs) is common
    for op in ARITHMETIC:
        assert promotion.binary_types(op, lhs, rhs) == (common, common)
        assert apply(op, one(lhs), one(rhs)).dtype is common, op


@pytest.mark.parametrize("lhs, rhs, common", TABLE, ids=TABLE_IDS)
def test_true_division_cell(lhs, rhs, common):
    if common.kind == "float":
        expected = common
    else:
        expected = Float32 if common.width <= 32 else Float64
    assert promotion.binary_types("/", lhs, rhs) == (expected, expected)
    assert (one(lhs) / one(rhs)).dtype is expected


@pytest.mark.parametrize("lhs, rhs, common", TABLE, ids=TABLE_IDS)
def test_comparison_cell(lhs, rhs, common):
    for op in COMPARISON:
        assert promotion.binary_types(op, lhs, rhs) == (common, Boolean)
        result = apply(op, one(lhs), one(rhs))
        assert result.dtype is Boolean
        assert bool(result) == (op in ("<=", ">=", "=="))


@pytest.mark.parametrize("lhs, rhs, common", TABLE, ids=TABLE_IDS)
def test_bitwise_cell(lhs, rhs, common):
    for op in BITWISE:
        if lhs.kind == "float" or rhs.kind == "float":
            with pytest.raises(TypeError) as info:
                apply(op, one(lhs), one(rhs))
            assert isinstance(info.value, kdsl.DSLError)
            assert info.value.code == "E101"
        else:
            assert promotion.binary_types(op, lhs, rhs) == (common, common)
            assert apply(op, one(lhs), one(rhs)).dtype is common


# -- the same rules for every other width ----------------------------------------
OTHER_WIDTHS = [
    # same signedness: the wider
    (Int4, Int4, Int4),
    (Int4, Int8, Int8),
    (Int4, Int128, Int128),
    (Int64, Int128, Int128),
    (Uint8, Uint8, Uint8),
    (Uint8, Uint16, Uint16),
    (Uint16, Uint64, Uint64),
    (Uint64, Uint128, Uint128),
    (Uint32, Uint128, Uint128),
    # mixed signedness: the unsigned type when at least as wide
    (Int4, Uint8, Uint8),
    (Int8, Uint8, Uint8),
    (Int16, Uint8, Int16),
    (Int32, Uint16, Int32),
    (Int16, Uint16, Uint16),
    (Int64, Uint64, Uint64),
    (Int128, Uint64, Int128),
    (Int128, Uint128, Uint128),
    (Int64, Uint128, Uint128),
    (Int8, Uint64, Uint64),
    (Int4, Uint128, Uint128),
    # a float widens to cover the integer
    (Float16, Int4, Float16),
    (Float16, Int16, Float16),
    (Float16, Uint8, Float16),
    (Float16, Uint16, Float16),
    (Float16, Uint32, Float32),
    (Float16, Int64, Float64),
    (Float16, Uint64, Float64),
    (BFloat16, Int4, BFloat16),
    (BFloat16, Uint8, BFloat16),
    (BFloat16, Uint16, BFloat16),
    (BFloat16, Int16, BFloat16),
    (BFloat16, Uint32, Float32),
    (BFloat16, Uint64, Float64),
    (Float32, Uint8, Float32),
    (Float32, Int64, Float64),
    (Float32, Uint64, Float64),
    # anything with a 128-bit integer is Float64
    (Float16, Int128, Float64),
    (BFloat16, Int128, Float64),
    (Float32, Int128, Float64),
    (Float64, Int128, Float64),
    (Float16, Uint128, Float64),
    (Float32, Uint128, Float64),
    (Float64, Uint128, Float64),
]


@pytest.mark.parametrize(
    "lhs, rhs, common",
    OTHER_WIDTHS,
    ids=[f"{a.__name__}-{b.__name__}" for a, b, _ in OTHER_WIDTHS],
)
def test_other_widths(lhs, rhs, common):
    for a, b in ((lhs, rhs), (rhs, lhs)):
        assert promotion.common_type(a, b) is common
        assert (one(a) + one(b)).dtype is common
        assert (one(a) * one(b)).dtype is common
        assert (one(a) < one(b)).dtype is Boolean


@pytest.mark.parametrize(
    "lhs, rhs, expected",
    [
        (Int4, Int4, Float32),
        (Uint16, Uint16, Float32),
        (Int16, Uint32, Float32),
        (Uint32, Uint32, Float32),
        (Int64, Uint8, Float64),
        (Uint64, Uint64, Float64),
        (Int128, Int8, Float64),
        (Uint128, Uint128, Float64),
        (Float16, Uint8, Float16),
        (BFloat16, Int4, BFloat16),
        (Float16, Uint128, Float64),
    ],
)
def test_true_division_other_widths(lhs, rhs, expected):
    assert (one(lhs) / one(rhs)).dtype is expected


@pytest.mark.parametrize("a, b", list(itertools.product(NON_NARROW, repeat=2)))
def test_common_type_is_symmetric_and_covers_both(a, b):
    c = promotion.common_type(a, b)
    assert c is promotion.common_type(b, a)
    assert promotion.common_type(c, c) is c
    if a is b:
        assert c is a
    if c.kind == "int":  # an integer common type holds both operands' ranges,
        for t in (a, b):  # except where the unsigned type wins at equal width
            assert c.width >= t.width
    else:
        assert c.width >= min(64, max(a.width, b.width))


# -- Boolean ------------------------------------------------------------------
@pytest.mark.parametrize("op", ["+", "-", "*", "//", "%", "**"])
def test_boolean_arithmetic_is_int32(op):
    assert promotion.binary_types(op, Boolean, Boolean) == (Int32, Int32)
    result = apply(op, Boolean(True), Boolean(True))
    assert result.dtype is Int32
    assert result.value == {"+": 2, "-": 0, "*": 1, "//": 1, "%": 0, "**": 1}[op]


def test_boolean_true_division_is_float32():
    result = Boolean(True) / Boolean(True)
    assert result.dtype is Float32 and result.value == 1.0


@pytest.mark.parametrize(
    "other, common",
    [
        (Int8, Int32),
        (Int64, Int64),
        (Uint32, Uint32),
        (Uint64, Uint64),
        (Int128, Int128),
        (Float16, Float32),
        (BFloat16, Float32),
        (Float32, Float32),
        (Float64, Float64),
    ],
)
def test_boolean_arithmetic_with_others_follows_int32(other, common):
    assert (Boolean(True) + one(other)).dtype is common
    assert (one(other) * Boolean(True)).dtype is common


@pytest.mark.parametrize("op", COMPARISON)
def test_boolean_comparison(op):
    assert promotion.binary_types(op, Boolean, Boolean) == (Boolean, Boolean)
    result = apply(op, Boolean(True), Boolean(False))
    assert result.dtype is Boolean
    assert (
        result.value
        == {
            "<": False,
            "<=": False,
            ">": True,
            ">=": True,
            "==": False,
            "!=": True,
        }[op]
    )


@pytest.mark.parametrize("op", BITWISE)
def test_boolean_bitwise_and_shift_stay_boolean(op):
    assert promotion.binary_types(op, Boolean, Boolean) == (Boolean, Boolean)
    for x, y in itertools.product((False, True), repeat=2):
        result = apply(op, Boolean(x), Boolean(y))
        assert result.dtype is Boolean
    assert (Boolean(True) & Boolean(False)).value is False
    assert (Boolean(True) | Boolean(False)).value is True
    assert (Boolean(True) ^ Boolean(True)).value is False
    # a one-bit value: shifting by 1 shifts it out, by 0 keeps it
    assert (Boolean(True) << Boolean(False)).value is True
    assert (Boolean(True) << Boolean(True)).value is False
    assert (Boolean(True) >> Boolean(True)).value is False


@pytest.mark.parametrize("op", COMPARISON + BITWISE)
def test_boolean_with_non_boolean_is_int32(op):
    """kdsl's choice where the reference is silent."""
    expected = Boolean if op in COMPARISON else Int32
    assert promotion.binary_types(op, Boolean, Int8) == (Int32, expected)
    assert apply(op, Boolean(True), Int8(1)).dtype is expected
    assert apply(op, Int16(1), Boolean(True)).dtype is expected
    if op in COMPARISON:
        assert promotion.binary_types(op, Float16, Boolean) == (Float32, Boolean)


def test_boolean_with_float_in_bitwise_is_an_error():
    with pytest.raises(TypeError) as info:
        Boolean(True) & Float32(1.0)
    assert info.value.code == "E101"


# -- Python literals -----------------------------------------------------------
@pytest.mark.parametrize(
    "literal, expected",
    [
        (0, Int32),
        (-(2**31), Int32),
        (2**31 - 1, Int32),
        (2**31, Int64),
        (-(2**31) - 1, Int64),
        (2**63 - 1, Int64),
        (-(2**63), Int64),
        (0.0, Float32),
        (0.1, Float32),
        (1e300, Float32),
        (True, Boolean),
        (False, Boolean),
    ],
)
def test_literal_normalization(literal, expected):
    x = kdsl.as_numeric(literal)
    assert x.dtype is expected and x.is_static()
    assert kdsl.Numeric.from_python_value(literal).dtype is expected


def test_float_literal_is_rounded_to_float32():
    assert kdsl.as_numeric(0.1).value == float(Float32(0.1))
    assert kdsl.as_numeric(0.1).value != 0.1
    assert kdsl.as_numeric(1e300).value == float("inf")


@pytest.mark.parametrize("literal", [2**63, -(2**63) - 1, 2**64, 10**40])
def test_literal_too_big(literal):
    with pytest.raises(ValueError) as info:
        kdsl.as_numeric(literal)
    assert isinstance(info.value, kdsl.DSLError) and info.value.code == "E105"
    with pytest.raises(kdsl.DSLError) as info:
        Int64(1) + literal
    assert info.value.code == "E105"


def test_explicit_types_hold_big_literals():
    assert Uint64(2**64 - 1).value == 2**64 - 1
    assert Int128(-(2**127)).value == -(2**127)


@pytest.mark.parametrize(
    "expr, expected",
    [
        (lambda: Int8(1) + 1, Int32),
        (lambda: 1 + Int8(1), Int32),
        (lambda: Int8(1) + 2**40, Int64),
        (lambda: Uint32(1) + 1, Uint32),
        (lambda: Uint64(1) + 2**40, Uint64),
        (lambda: Int128(1) - 1, Int128),
        (lambda: Float16(1) + 1, Float32),
        (lambda: Float16(1) * 2.0, Float32),
        (lambda: BFloat16(1) - 0.5, Float32),
        (lambda: Float64(1) + 0.5, Float64),
        (lambda: Int32(1) + 0.5, Float32),
        (lambda: Int64(1) + 0.5, Float64),
        (lambda: Int32(1) + True, Int32),
        (lambda: Boolean(True) & True, Boolean),
        (lambda: Int32(1) < 2**40, Boolean),
        (lambda: 7 // Int16(2), Int32),
        (lambda: 2 ** Int8(3), Int32),
        (lambda: 1 / Int8(2), Float32),
    ],
)
def test_literal_then_rules(expr, expected):
    result = expr()
    assert result.dtype is expected and result.is_static()


def test_python_literals_alone_stay_python():
    assert type(2 + 3) is int  # nothing of kdsl is involved


# -- errors ----------------------------------------------------------------------
@pytest.mark.parametrize("op", BITWISE)
@pytest.mark.parametrize(
    "a, b",
    [
        (lambda: Float32(1.0), lambda: Float32(1.0)),
        (lambda: Int32(1), lambda: Float16(1.0)),
        (lambda: BFloat16(1.0), lambda: Uint8(1)),
        (lambda: Float64(1.0), lambda: 1),
        (lambda: Int32(1), lambda: 1.0),
    ],
)
def test_bitwise_on_floats(op, a, b):
    with pytest.raises(TypeError) as info:
        apply(op, a(), b())
    err = info.value
    assert isinstance(err, kdsl.DSLError) and err.code == "E101"
    assert f"'{op}'" in str(err)


@pytest.mark.parametrize("t", types.FLOAT_TYPES)
def test_invert_on_floats(t):
    with pytest.raises(TypeError) as info:
        ~t(1.0)
    assert isinstance(info.value, kdsl.DSLError) and info.value.code == "E111"


@pytest.mark.parametrize("narrow", types.NARROW_FLOAT_TYPES)
@pytest.mark.parametrize("op", ["+", "*", "/", "//", "**", "<", "==", "&", ">>"])
def test_narrow_float_arithmetic(narrow, op):
    x = narrow(1.0)
    for a, b in ((x, x), (x, Float32(1.0)), (Int32(1), x), (x, 1), (1.0, x)):
        with pytest.raises(TypeError) as info:
            apply(op, a, b)
        err = info.value
        assert isinstance(err, kdsl.DSLError) and err.code == "E102"
        assert ".to(Float32)" in str(err) and narrow.__name__ in str(err)


@pytest.mark.parametrize("narrow", types.NARROW_FLOAT_TYPES)
def test_narrow_float_unary(narrow):
    for fn in (lambda x: -x, abs, lambda x: ~x):
        with pytest.raises(kdsl.DSLError) as info:
            fn(narrow(1.0))
        assert info.value.code == "E102" and ".to(Float32)" in str(info.value)


@pytest.mark.parametrize("narrow", types.NARROW_FLOAT_TYPES)
def test_narrow_float_after_to_is_fine(narrow):
    assert (narrow(1.0).to(Float32) + 1).dtype is Float32


# -- the Float32 literal warning -------------------------------------------------
@pytest.mark.parametrize(
    "expr",
    [
        lambda: Float64(1.0) + 0.1,
        lambda: 0.1 + Float64(1.0),
        lambda: Float64(1.0) * 1e-50,
        lambda: Float64(1.0) < 0.1,
        lambda: Float64(1.0) == 1e300,
        lambda: 3.14159 / Float64(2.0),
        lambda: kdsl.Float64x2(1.0) * 0.1,
    ],
)
def test_precision_warning(expr):
    with pytest.warns(kdsl.PrecisionWarning, match=r"Float64\("):
        expr()


@pytest.mark.parametrize(
    "expr",
    [
        lambda: Float64(1.0) + 0.5,
        lambda: Float64(1.0) * 1024.0,
        lambda: Float64(1.0) + 2.0**-100,
        lambda: Float64(1.0) + float("inf"),
        lambda: Float64(1.0) + float("nan"),
        lambda: Float64(1.0) + 3,
        lambda: Float64(1.0) + Float64(0.1),
        lambda: Float32(1.0) + 0.1,
        lambda: Float16(1.0) + 0.1,
        lambda: Int64(1) + 0.1,
    ],
)
def test_no_precision_warning(expr):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        expr()


def test_precision_warning_points_at_the_caller():
    with pytest.warns(kdsl.PrecisionWarning) as record:
        Float64(1.0) + 0.1
    assert record[0].filename == __file__


def test_precision_warning_value():
    with pytest.warns(kdsl.PrecisionWarning):
        result = Float64(1.0) + 0.1
    assert result.dtype is Float64
    assert result.value == 1.0 + float(Float32(0.1))  # the literal is a Float32
