"""The arithmetic type tower: every kdsl scalar and vector type.

A type class is also its constructor: ``Float32(x)`` builds or casts.  Each
concrete class carries its facts as class attributes (width, signedness, C
spelling, short name, numpy dtype), so code generation and dispatch read them
as data.  A value is *static* (a Python value, folded on the host) or
*dynamic* (an IR expression, known at run time); see ``arith`` for the
operators and ``values`` for the exact folding semantics.
"""

from __future__ import annotations

import math
import operator

import ml_dtypes
import numpy as np

from kdsl.transpile.errors import DSLError, error
from kdsl.transpile.sites import at_caller


class NumericMeta(type):
    """Metaclass of scalar types: readable reprs and ``Numeric.width`` access."""

    def __repr__(cls) -> str:
        return cls.__name__

    @property
    def log_width(cls) -> int:
        return max(0, math.ceil(math.log2(cls.width)))

    def vec(cls, lanes) -> "VectorMeta":
        """The vector type of ``lanes`` of this type: ``Float32.vec(4)`` is
        ``Float32x4`` (``D.vec(4)`` for a dtype parameter ``D``)."""
        return vector_type(cls, lanes)

    def __getitem__(cls, count):
        """``Int8[32]``: the type of a struct's array field of 32 Int8."""
        return array_field(cls, count)


class Numeric(metaclass=NumericMeta):
    """A scalar value: static (``_value``) or dynamic (``_expr``)."""

    __slots__ = ("_value", "_expr")
    __hash__ = None  # == builds a Boolean, so values are not hashable

    # Facts of a concrete type; the abstract classes leave them unset.
    width: int = 0
    signed: bool = False
    kind: str = ""  # "int", "float", "narrow" or "bool"
    c_name: str = ""
    short: str = ""
    np_dtype = None
    abstract = True

    def __init__(self, value):
        cls = type(self)
        if cls.abstract:
            raise error("abstract-type", type=cls.__name__, example=_EXAMPLE[cls])
        if isinstance(value, (bool, int, float)):  # a Python value, cast directly
            made = cls._static(values.from_python(value, cls))
        else:
            src = arith.as_numeric(value, context=f"{cls.__name__}(...)")
            if isinstance(src, Vector):
                raise error(
                    "scalar-of-vector", type=cls.__name__, got=type(src).__name__
                )
            made = arith.convert(src, cls)
        self._value = made._value
        self._expr = made._expr

    @classmethod
    def _static(cls, value) -> "Numeric":
        obj = object.__new__(cls)
        obj._value, obj._expr = value, None
        return obj

    @classmethod
    def _dynamic(cls, expr) -> "Numeric":
        obj = object.__new__(cls)
        obj._value, obj._expr = None, expr
        return obj

    # -- the reference's public methods -------------------------------------
    @property
    def dtype(self):
        return type(self)

    def is_static(self) -> bool:
        return self._expr is None

    def ir_value(self):
        """The IR expression of this value; a static value becomes a Const."""
        if self._expr is not None:
            return self._expr
        return ir.Const(type(self), self._value)

    @property
    def value(self):
        """The Python value of a static Numeric."""
        return self._python("read .value of")

    def to(self, dtype) -> "Numeric":
        return arith.convert(self, dtype)

    def bitcast(self, dtype) -> "Numeric":
        return arith.bitcast(self, dtype)

    def select(self, true_value, false_value):
        return arith.select(self, true_value, false_value)

    @staticmethod
    def from_python_value(value) -> "Numeric":
        return arith.as_numeric(value)

    @staticmethod
    def from_ir_type(ir_type):
        return from_ir_type(ir_type)

    # -- a static value works as a Python value ------------------------------
    def _python(self, what: str):
        if self._expr is not None:
            raise error("dynamic-as-python", action=what, type=type(self).__name__)
        return self._value

    def __bool__(self) -> bool:
        return bool(self._python("use as a Python bool"))

    def __int__(self) -> int:
        value = self._python("convert to a Python int")
        return int(value) if not isinstance(value, float) else math.trunc(value)

    def __float__(self) -> float:
        return float(self._python("convert to a Python float"))

    def __index__(self) -> int:
        value = self._python("use as an index")
        if isinstance(value, float):
            raise error("index-type", got=type(self).__name__)
        return int(value)

    def __repr__(self) -> str:
        if self._expr is None:
            return f"{type(self).__name__}({self._value!r})"
        return f"{type(self).__name__}(<dynamic>)"

    # -- operators: all defined once in ``arith`` ----------------------------
    def __add__(self, other):
        return arith.binary("+", self, other)

    def __radd__(self, other):
        return arith.binary("+", other, self)

    def __sub__(self, other):
        return arith.binary("-", self, other)

    def __rsub__(self, other):
        return arith.binary("-", other, self)

    def __mul__(self, other):
        return arith.binary("*", self, other)

    def __rmul__(self, other):
        return arith.binary("*", other, self)

    def __truediv__(self, other):
        return arith.binary("/", self, other)

    def __rtruediv__(self, other):
        return arith.binary("/", other, self)

    def __floordiv__(self, other):
        return arith.binary("//", self, other)

    def __rfloordiv__(self, other):
        return arith.binary("//", other, self)

    def __mod__(self, other):
        return arith.binary("%", self, other)

    def __rmod__(self, other):
        return arith.binary("%", other, self)

    def __pow__(self, other):
        return arith.binary("**", self, other)

    def __rpow__(self, other):
        return arith.binary("**", other, self)

    def __divmod__(self, other):
        return (arith.binary("//", self, other), arith.binary("%", self, other))

    def __rdivmod__(self, other):
        return (arith.binary("//", other, self), arith.binary("%", other, self))

    def __and__(self, other):
        return arith.binary("&", self, other)

    def __rand__(self, other):
        return arith.binary("&", other, self)

    def __or__(self, other):
        return arith.binary("|", self, other)

    def __ror__(self, other):
        return arith.binary("|", other, self)

    def __xor__(self, other):
        return arith.binary("^", self, other)

    def __rxor__(self, other):
        return arith.binary("^", other, self)

    def __lshift__(self, other):
        return arith.binary("<<", self, other)

    def __rlshift__(self, other):
        return arith.binary("<<", other, self)

    def __rshift__(self, other):
        return arith.binary(">>", self, other)

    def __rrshift__(self, other):
        return arith.binary(">>", other, self)

    def __lt__(self, other):
        return arith.binary("<", self, other)

    def __le__(self, other):
        return arith.binary("<=", self, other)

    def __gt__(self, other):
        return arith.binary(">", self, other)

    def __ge__(self, other):
        return arith.binary(">=", self, other)

    def __eq__(self, other):
        return arith.binary("==", self, other)

    def __ne__(self, other):
        return arith.binary("!=", self, other)

    def __neg__(self):
        return arith.unary("-", self)

    def __pos__(self):
        return arith.unary("+", self)

    def __invert__(self):
        return arith.unary("~", self)

    def __abs__(self):
        return arith.unary("abs", self)


class Integer(Numeric):
    """Abstract base of the integer types."""

    __slots__ = ()

    @classmethod
    def min(cls) -> int:
        return -(1 << (cls.width - 1)) if cls.signed else 0

    @classmethod
    def max(cls) -> int:
        return (1 << (cls.width - 1)) - 1 if cls.signed else (1 << cls.width) - 1


class Float(Numeric):
    """Abstract base of the floating-point types (narrow floats included)."""

    __slots__ = ()
    # Significand bits after the point and the smallest normal exponent.
    mantissa: int = 0
    min_exponent: int = 0


class Boolean(Numeric):
    """The ``i1`` type: results of comparisons and predicates."""

    __slots__ = ()
    width, kind, c_name, short = 1, "bool", "bool", "bool"
    np_dtype = np.dtype(np.bool_)
    abstract = False


def _integer(name, width, signed, c_name, np_dtype):
    short = ("i" if signed else "u") + str(width)
    what = "signed" if signed else "unsigned"
    attrs = dict(
        __doc__=f"kdsl's {width}-bit {what} integer ('{short}'; C++ {c_name}): "
        "exact arithmetic that wraps around (docs/types.md)",
        __slots__=(),
        width=width,
        signed=signed,
        kind="int",
        c_name=c_name,
        short=short,
        np_dtype=np_dtype,
        abstract=False,
    )
    return NumericMeta(name, (Integer,), attrs)


Int4 = _integer("Int4", 4, True, "int8_t", np.dtype(ml_dtypes.int4))
Int8 = _integer("Int8", 8, True, "int8_t", np.dtype(np.int8))
Int16 = _integer("Int16", 16, True, "int16_t", np.dtype(np.int16))
Int32 = _integer("Int32", 32, True, "int32_t", np.dtype(np.int32))
Int64 = _integer("Int64", 64, True, "int64_t", np.dtype(np.int64))
Int128 = _integer("Int128", 128, True, "__int128", None)
Uint8 = _integer("Uint8", 8, False, "uint8_t", np.dtype(np.uint8))
Uint16 = _integer("Uint16", 16, False, "uint16_t", np.dtype(np.uint16))
Uint32 = _integer("Uint32", 32, False, "uint32_t", np.dtype(np.uint32))
Uint64 = _integer("Uint64", 64, False, "uint64_t", np.dtype(np.uint64))
Uint128 = _integer("Uint128", 128, False, "unsigned __int128", None)


def _float(name, width, short, c_name, np_dtype, mantissa, min_exponent, kind="float"):
    what = "; a storage type: .to(Float32) to compute" * (kind == "narrow")
    attrs = dict(
        __doc__=f"kdsl's {width}-bit float ('{short}'; C++ {c_name}; "
        f"{mantissa} mantissa bits{what}; docs/types.md)",
        __slots__=(),
        width=width,
        signed=True,
        kind=kind,
        c_name=c_name,
        short=short,
        np_dtype=np.dtype(np_dtype),
        mantissa=mantissa,
        min_exponent=min_exponent,
        abstract=False,
    )
    return NumericMeta(name, (Float,), attrs)


Float16 = _float("Float16", 16, "f16", "__half", np.float16, 10, -14)
BFloat16 = _float("BFloat16", 16, "bf16", "__nv_bfloat16", ml_dtypes.bfloat16, 7, -126)
Float32 = _float("Float32", 32, "f32", "float", np.float32, 23, -126)
Float64 = _float("Float64", 64, "f64", "double", np.float64, 52, -1022)


def _narrow(name, width, short, c_name, np_dtype):
    fin = ml_dtypes.finfo(np_dtype)
    return _float(
        name, width, short, c_name, np_dtype, fin.nmant, fin.minexp, kind="narrow"
    )


Float8E5M2 = _narrow("Float8E5M2", 8, "f8e5m2", "__nv_fp8_e5m2", ml_dtypes.float8_e5m2)
Float8E4M3FN = _narrow(
    "Float8E4M3FN", 8, "f8e4m3fn", "__nv_fp8_e4m3", ml_dtypes.float8_e4m3fn
)
Float8E4M3FNUZ = _narrow(
    "Float8E4M3FNUZ", 8, "f8e4m3fnuz", "uint8_t", ml_dtypes.float8_e4m3fnuz
)
Float8E4M3B11FNUZ = _narrow(
    "Float8E4M3B11FNUZ", 8, "f8e4m3b11fnuz", "uint8_t", ml_dtypes.float8_e4m3b11fnuz
)
Float8E4M3 = _narrow("Float8E4M3", 8, "f8e4m3", "uint8_t", ml_dtypes.float8_e4m3)
Float6E2M3FN = _narrow(
    "Float6E2M3FN", 6, "f6e2m3fn", "__nv_fp6_e2m3", ml_dtypes.float6_e2m3fn
)
Float6E3M2FN = _narrow(
    "Float6E3M2FN", 6, "f6e3m2fn", "__nv_fp6_e3m2", ml_dtypes.float6_e3m2fn
)
Float8E8M0FNU = _narrow(
    "Float8E8M0FNU", 8, "f8e8m0fnu", "__nv_fp8_e8m0", ml_dtypes.float8_e8m0fnu
)
Float4E2M1FN = _narrow(
    "Float4E2M1FN", 4, "f4e2m1fn", "__nv_fp4_e2m1", ml_dtypes.float4_e2m1fn
)

INTEGER_TYPES = (Int4, Int8, Int16, Int32, Int64, Int128)
UNSIGNED_TYPES = (Uint8, Uint16, Uint32, Uint64, Uint128)
FLOAT_TYPES = (Float16, BFloat16, Float32, Float64)
NARROW_FLOAT_TYPES = (
    Float8E5M2,
    Float8E4M3FN,
    Float8E4M3FNUZ,
    Float8E4M3B11FNUZ,
    Float8E4M3,
    Float6E2M3FN,
    Float6E3M2FN,
    Float8E8M0FNU,
    Float4E2M1FN,
)
SCALAR_TYPES = (
    INTEGER_TYPES + UNSIGNED_TYPES + FLOAT_TYPES + NARROW_FLOAT_TYPES + (Boolean,)
)

_EXAMPLE = {Numeric: "Int32 or Float32", Integer: "Int32", Float: "Float32"}


# -- vectors -------------------------------------------------------------------
VECTOR_LANES = (2, 3, 4, 8, 16)
MAX_VECTOR_BITS = 512


class VectorMeta(type):
    """Metaclass of vector types; ``Vector[Float32, 4]`` names one."""

    def __repr__(cls) -> str:
        return cls.__name__

    def __getitem__(cls, key):
        if cls.dtype is not None and not isinstance(key, tuple):
            return array_field(cls, key)  # Int8x4[8]: a struct's array field
        if not (isinstance(key, tuple) and len(key) == 2):
            keys = key if isinstance(key, tuple) else (key,)
            err = error("vector-spelling", got=", ".join(repr(k) for k in keys))
            raise at_caller(err)
        try:
            return vector_type(*key)
        except DSLError as exc:  # in an annotation: located there
            raise at_caller(exc) from None


class Vector(metaclass=VectorMeta):
    """A fixed-length vector of one scalar type; always a run-time value."""

    __slots__ = ("_expr",)
    __hash__ = None
    dtype = None  # the element type (a class attribute of concrete vectors)
    lanes = 0
    width = 0

    def __init__(self, *values):
        arith.init_vector(self, values)

    @classmethod
    def splat(cls, value) -> "Vector":
        """``value`` converted to the element type, in every lane (the
        one-argument constructor: ``Float32x4.splat(x)`` is ``Float32x4(x)``)."""
        return cls(value)

    @classmethod
    def _dynamic(cls, expr) -> "Vector":
        obj = object.__new__(cls)
        obj._expr = expr
        return obj

    def is_static(self) -> bool:
        return False

    def ir_value(self):
        return self._expr

    def to(self, dtype):
        return arith.convert(self, dtype)

    def bitcast(self, dtype):
        return arith.bitcast(self, dtype)

    def select(self, true_value, false_value):
        return arith.select(self, true_value, false_value)

    def __getitem__(self, lane):
        return arith.extract(self, lane)

    def __len__(self) -> int:
        return self.lanes

    def __repr__(self) -> str:
        return f"{type(self).__name__}(<dynamic>)"

    def __bool__(self):
        raise error(
            "vector-condition", type=type(self).__name__, use="used as a Python bool"
        )


_OPERATORS = (
    "add radd sub rsub mul rmul truediv rtruediv floordiv rfloordiv mod rmod pow "
    "rpow divmod rdivmod and rand or ror xor rxor lshift rlshift rshift rrshift "
    "lt le gt ge eq ne neg pos invert abs"
).split()
for _op in _OPERATORS:  # vectors share the scalar operators (elementwise in arith)
    setattr(Vector, f"__{_op}__", vars(Numeric)[f"__{_op}__"])

_VECTOR_CACHE: dict = {}


def vector_type(dtype, lanes: int):
    """The vector type of ``lanes`` elements of ``dtype`` (cached)."""
    if not (isinstance(dtype, NumericMeta) and not dtype.abstract):
        raise error("vector-element", got=getattr(dtype, "__name__", repr(dtype)))
    if isinstance(lanes, (Numeric, np.integer)):
        lanes = operator.index(lanes)  # a static Int32 (a run-time one is E104)
    if (
        not isinstance(lanes, int)
        or isinstance(lanes, bool)
        or lanes not in VECTOR_LANES
        or dtype.width * lanes > MAX_VECTOR_BITS
    ):
        raise error(
            "vector-type",
            dtype=dtype.__name__,
            lanes=lanes,
            allowed=VECTOR_LANES,
            max_bits=MAX_VECTOR_BITS,
        )
    key = (dtype, lanes)
    if key not in _VECTOR_CACHE:
        name = f"{dtype.__name__}x{lanes}"
        attrs = dict(
            __doc__=f"Vector[{dtype.__name__}, {lanes}]: {lanes} lanes of "
            f"{dtype.__name__} ({dtype.width * lanes} bits), lane-wise arithmetic "
            "(docs/types.md)",
            __slots__=(),
            dtype=dtype,
            lanes=lanes,
            width=dtype.width * lanes,
        )
        _VECTOR_CACHE[key] = VectorMeta(name, (Vector,), attrs)
    return _VECTOR_CACHE[key]


def vector_align(vtype) -> int:
    """The bytes a vector is aligned to (``kdsl::vec`` in prelude/vector.h):
    the whole vector when the lane count is a power of two, so that it moves
    in one wide load or store; one lane for 3 lanes, as CUDA's ``float3``.
    A lane narrower than a byte takes a byte of its own."""
    lane = (vtype.dtype.width + 7) // 8
    return lane * vtype.lanes if vtype.lanes & (vtype.lanes - 1) == 0 else lane


def vector_aliases() -> dict[str, type]:
    """Every ``<dtype>x<N>`` alias, by name."""
    out = {}
    for t in SCALAR_TYPES:
        for n in VECTOR_LANES:
            if t.width * n <= MAX_VECTOR_BITS:
                v = vector_type(t, n)
                out[v.__name__] = v
    return out


# -- array fields of structs ---------------------------------------------------------
class FieldArray:
    """The type of a struct's fixed-length array field, ``Int8[32]``:
    ``count`` elements of ``elem`` (a scalar, vector or struct type; see
    ``core.structs``)."""

    __slots__ = ("elem", "count")

    def __init__(self, elem, count: int):
        self.elem, self.count = elem, count

    def __eq__(self, other):
        return isinstance(other, FieldArray) and (self.elem, self.count) == (
            other.elem,
            other.count,
        )

    def __hash__(self):
        return hash((FieldArray, self.elem, self.count))

    @property
    def __name__(self) -> str:  # as types are named in messages
        return f"{self.elem.__name__}[{self.count}]"

    def __repr__(self) -> str:
        return self.__name__


def array_field(elem, count) -> FieldArray:
    """``T[count]``: the type of an array field of a struct."""
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        got = f"{getattr(elem, '__name__', elem)}[{count!r}]"
        exc = error("struct-field-type", struct="(an array field)", field="?", got=got)
        raise at_caller(exc)
    return FieldArray(elem, count)


# -- lookup ---------------------------------------------------------------------
BY_NAME = {t.__name__: t for t in SCALAR_TYPES}
BY_SHORT = {t.short: t for t in SCALAR_TYPES}
_BY_C_NAME: dict[str, type] = {}
for _t in SCALAR_TYPES:
    if _t is not Int4 and _t.c_name not in _BY_C_NAME:
        _BY_C_NAME[_t.c_name] = _t
_BY_C_NAME.update({"half": Float16, "int": Int32, "unsigned int": Uint32})


def from_ir_type(ir_type):
    """The kdsl type for an IR type (a kdsl type) or its C++ spelling."""
    if isinstance(ir_type, (NumericMeta, VectorMeta)):
        return ir_type
    if isinstance(ir_type, str):
        key = " ".join(ir_type.split())
        if key in _BY_C_NAME:
            return _BY_C_NAME[key]
        if key in BY_NAME:
            return BY_NAME[key]
    raise error("unknown-ir-type", spelling=ir_type)


def is_scalar_type(t) -> bool:
    return isinstance(t, NumericMeta) and not t.abstract


# The operators of kdsl values are arith's rules, and arith and values are
# written over these types: the one import cycle of the core (justified in
# pyproject's import-linter contracts), closed here at the end of the module.
from kdsl.transpile import ir  # noqa: E402
from kdsl.transpile.core import arith, values  # noqa: E402
