"""A kernel's parameters, dtype parameters, supported dtypes and instance names."""

from __future__ import annotations

import inspect
import itertools
import math
import re
import struct
import typing
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from kdsl.transpile.errors import DSLError, did_you_mean, error
from kdsl.transpile.sites import DefSite
from kdsl.transpile.frontend.lang import (
    ArraySpec,
    Bool,
    ConstexprSpec,
    Dtype,
    Int,
    Num,
    PointerSpec,
    TensorMap,
    TypeVar,
    _optional,
)
from kdsl.transpile.core.structs import is_struct
from kdsl.transpile.core.types import (
    BY_NAME,
    BY_SHORT,
    SCALAR_TYPES,
    Boolean,
    Float,
    Integer,
    NumericMeta,
)


@dataclass(frozen=True)
class ParamInfo:
    name: str
    kind: str  # "pointer", "array", "scalar", "struct", "tensormap" or "constexpr"
    spec: object  # PointerSpec, ArraySpec, ConstexprSpec, a type or a TypeVar
    default: object = inspect.Parameter.empty

    @property
    def optional(self) -> bool:
        """An ``Optional[Pointer[T]]``: None at launch is an instance of its own."""
        return getattr(self.spec, "optional", False)

    @property
    def has_default(self) -> bool:
        return self.default is not inspect.Parameter.empty


@dataclass(frozen=True)
class Signature:
    params: tuple[ParamInfo, ...]
    typevars: tuple[TypeVar, ...]

    # Derived once (a signature never changes): every launch reads them.
    @cached_property
    def constexprs(self) -> tuple[ParamInfo, ...]:
        return tuple(p for p in self.params if p.kind == "constexpr")

    @cached_property
    def runtime(self) -> tuple[ParamInfo, ...]:
        return tuple(p for p in self.params if p.kind != "constexpr")

    @cached_property
    def optional(self) -> tuple[str, ...]:
        """The optional pointer parameters, in order."""
        return tuple(p.name for p in self.params if p.optional)

    @cached_property
    def optional_at(self) -> tuple[tuple[int, str], ...]:
        """(position among the run-time arguments, name) of each optional pointer."""
        return tuple((i, p.name) for i, p in enumerate(self.runtime) if p.optional)


def _kind(spec) -> str:
    if isinstance(spec, PointerSpec):
        return "pointer"
    if isinstance(spec, ArraySpec):
        return "array"
    if isinstance(spec, ConstexprSpec):
        return "constexpr"
    if spec is TensorMap:
        return "tensormap"
    if is_struct(spec):
        return "struct"  # a struct passed by value
    if isinstance(spec, (TypeVar, NumericMeta)):
        return "scalar"
    return ""


def _typing_optional(spec):
    """``typing.Optional[Pointer[T]]`` (a Union with None) as
    ``kdsl.Optional[Pointer[T]]``; any other annotation as it is."""
    if typing.get_origin(spec) is typing.Union:
        args = [a for a in typing.get_args(spec) if a is not type(None)]
        if len(args) == 1 and len(typing.get_args(spec)) == 2:
            return _optional(args[0])
    return spec


_ANNOTATE = (
    "annotate it with Pointer[T], Array[T, ndim], a scalar type (Int32), a dtype "
    "parameter (a kdsl.TypeVar), Constexpr[int/bool/float] or kdsl.TensorMap"
)
# a Python type where a kdsl one is wanted: (compile-time, run-time) spellings
_PYTHON_TYPES = {int: "Int32", float: "Float32", bool: "Boolean"}


def _annotation_advice(annotation, elem) -> tuple[str, str]:
    """What is wrong with a parameter's annotation, and what to write."""
    if annotation is inspect.Parameter.empty:
        return "has no annotation", _ANNOTATE
    if annotation in _PYTHON_TYPES:
        name = annotation.__name__
        return (
            f"is annotated with Python's {name}",
            f"did you mean `Constexpr[{name}]` (a compile-time value, one kernel "
            f"instance per value) or `{_PYTHON_TYPES[annotation]}` (a run-time "
            f"argument)?",
        )
    if isinstance(elem, NumericMeta) and elem.abstract:
        return (
            f"is annotated with the abstract type {elem.__name__}",
            f"use a concrete type or a dtype parameter, e.g. "
            f'D = kdsl.TypeVar("D", bound=kdsl.{elem.__name__})',
        )
    name = getattr(annotation, "__name__", None) or repr(annotation)
    return f"is annotated with {name}, which is not a kdsl type", _ANNOTATE


def read_signature(fn, where: str) -> Signature:
    """The kdsl signature of ``fn`` from its annotations."""
    params, typevars = [], []
    site = DefSite(fn)
    for p in inspect.signature(fn).parameters.values():
        spec = p.annotation
        if isinstance(spec, str):
            try:
                spec = eval(spec, fn.__globals__)  # noqa: S307 - the user's own code
            except Exception:
                spec = None
        spec = _typing_optional(spec)
        kind = _kind(spec)
        elem = getattr(spec, "elem", spec)
        if not kind or (isinstance(elem, NumericMeta) and elem.abstract):
            problem, hint = _annotation_advice(p.annotation, elem)
            err = error(
                "bad-annotation", where=where, param=p.name, problem=problem, hint=hint
            )
            raise site.locate(err, param=p.name)
        elem = getattr(spec, "elem", spec)
        for t in (elem, getattr(elem, "dtype", None)):
            if isinstance(t, TypeVar) and t not in typevars:
                typevars.append(t)
        if kind != "constexpr" and p.default is not inspect.Parameter.empty:
            # a launch passes every run-time argument: the default never applies
            err = error("runtime-param-default", where=where, param=p.name)
            raise site.locate(err, param=p.name)
        params.append(ParamInfo(p.name, kind, spec, p.default))
    return Signature(tuple(params), tuple(typevars))


# -- dtypes -----------------------------------------------------------------------
_ALIASES = {"half": "f16", "float": "f32", "double": "f64", "bool": "bool"}

# numpy's byte-count codes ("f8" is 8 bytes) read against kdsl's short names,
# which count bits ("f8e4m3fn" is an 8-bit float): a trap, so refused (E276)
_BYTE_CODE = re.compile(r"[<>=|]?([fiu])([0-9]+)")
_NARROW = {  # kdsl's types of that many bits
    ("f", 8): "'f8e4m3fn' or 'f8e5m2'",
    ("f", 4): "'f4e2m1fn' for a 4-bit float",
}
# spellings of other libraries that are no dtype here, and kdsl's names for them
_OTHER_SPELLINGS = {
    "fp8": "'f8e4m3fn' or 'f8e5m2', the 8-bit floats",
    "float8": "'f8e4m3fn' or 'f8e5m2', the 8-bit floats",
    "e4m3": "'f8e4m3fn' ('f8e4m3' has infinities)",
    "e5m2": "'f8e5m2'",
    "fp6": "'f6e2m3fn' or 'f6e3m2fn'",
    "fp4": "'f4e2m1fn'",
    "e2m1": "'f4e2m1fn'",
    "e8m0": "'f8e8m0fnu'",
    "fp16": "'f16'",
    "fp32": "'f32'",
    "fp64": "'f64'",
    "tf32": "'f32' (TF32 is a tensor-core mode: docs/tensor-cores.md)",
}


def _ambiguous(value) -> str | None:
    """What to say of a numpy byte-count code that kdsl's names would read
    as a bit count ("f8", "f4", "u2" ...), or None."""
    match = _BYTE_CODE.fullmatch(value) if isinstance(value, str) else None
    if match is None or value in BY_SHORT:
        return None
    letter, count = match[1], int(match[2])
    dt = _numpy_dtype(value)
    if dt is None:
        return None
    wide = f"{letter}{8 * count}"
    fixes = [f"{wide!r} for {BY_SHORT[wide].__name__}"] if wide in BY_SHORT else []
    narrow = _NARROW.get((letter, count))
    if narrow:
        fixes.append(f"{narrow} for an 8-bit float" if count == 8 else narrow)
    fix = "; say " + ", or ".join(fixes) if fixes else ""
    return (
        f"numpy reads it as {dt.name} ({count} byte{'s' * (count != 1)}) but "
        f"kdsl's short names count bits{fix}"
    )


def resolve_dtype(value):
    """A kdsl scalar type from a kdsl type, a numpy dtype or a string."""
    if isinstance(value, NumericMeta) and not value.abstract:
        return value
    if isinstance(value, str):
        key = _ALIASES.get(value, value)
        if key in BY_SHORT:
            return BY_SHORT[key]
        if key in BY_NAME:
            return BY_NAME[key]
        problem = _ambiguous(value)
        if problem is not None:
            raise error("dtype-ambiguous", value=repr(value), problem=problem)
    dt = _numpy_dtype(value)
    for t in SCALAR_TYPES:
        if dt is not None and t.np_dtype is not None and t.np_dtype == dt:
            return t
    hint = ""
    if isinstance(value, str):
        known = [*BY_SHORT, *BY_NAME, *_ALIASES]
        other = _OTHER_SPELLINGS.get(value.lower())
        if other is not None:
            hint = f" (kdsl's name: {other})"
        else:
            hint = did_you_mean([value], known, quote=True)
            hint = f" ({hint[2:]})" if hint else ""
    raise error("not-a-dtype", value=repr(value), hint=hint)


def looks_like_dtype(value) -> bool:
    """Whether ``value`` is a dtype as dispatch() takes them (a kdsl type, a
    numpy dtype or type, a dtype name): never a constexpr value."""
    if isinstance(value, (bool, int, float)):
        return False
    if _ambiguous(value) is not None:
        return True  # refused as a dtype, but meant as one
    try:
        resolve_dtype(value)
    except DSLError:
        return False
    return True


def _numpy_dtype(value):
    """``value`` as a numpy dtype when it names one (a dtype, a numpy scalar
    type, a dtype string, or Python's float/int/bool), else None."""
    named = isinstance(value, (np.dtype, str)) or any(
        value is t for t in (float, int, bool)
    )
    if not named and not (isinstance(value, type) and issubclass(value, np.generic)):
        return None
    try:
        return np.dtype(value)
    except (TypeError, ValueError):
        return None


def supported_dtypes(kernel_name: str, sig: Signature, dtypes) -> dict:
    """``{TypeVar name: (types...)}`` from ``dtypes=`` or the implicit sets.

    An explicit dtype must lie inside its parameter's bound (E405), and a
    ``dtypes={...}`` dict may only name the kernel's dtype parameters."""
    if isinstance(dtypes, dict):
        names = [tv.name for tv in sig.typevars]
        for key in dtypes:
            if key not in names:
                raise error(
                    "dtypes-unknown-name",
                    kernel=kernel_name,
                    name=key,
                    typevars=", ".join(names) or "none",
                )
    out = {}
    for tv in sig.typevars:
        if isinstance(dtypes, dict):
            listed = dtypes.get(tv.name)
        else:
            listed = dtypes
        if listed is None:
            implicit = tv.implicit_dtypes()
            if implicit is None:
                raise error(
                    "cannot-infer-dtypes",
                    kernel=kernel_name,
                    typevar=tv.name,
                    bound=repr(tv.bound),
                )
            out[tv.name] = tuple(implicit)
        else:
            out[tv.name] = _explicit(kernel_name, tv, listed)
    return out


def _explicit(kernel_name: str, tv: TypeVar, listed) -> tuple:
    """The explicit dtypes of ``tv``, checked against its bound."""
    chosen = tuple(resolve_dtype(d) for d in listed)
    if not chosen:
        raise error("dtypes-empty", kernel=kernel_name, typevar=tv.name)
    for t in chosen:
        if not _admits(tv.bound, t):
            raise error(
                "dtype-outside-bound",
                kernel=kernel_name,
                dtype=t.__name__,
                typevar=tv.name,
                bound=_bound_name(tv.bound),
            )
    return chosen


def _admits(bound, t) -> bool:
    """Whether the dtype ``t`` lies inside a TypeVar ``bound``: Float, Int
    (Integer), Num, Numeric, Bool, Dtype, or any kdsl type class; other
    bounds (None, ``object``) leave the explicit list to decide."""
    if bound is Num:
        return issubclass(t, (Integer, Float))
    if bound is Int:
        return issubclass(t, Integer)
    if bound is Bool:
        return t is Boolean
    if bound is Dtype:
        return True
    if isinstance(bound, NumericMeta):
        return issubclass(t, bound)
    return True


def _bound_name(bound) -> str:
    return f"kdsl.{getattr(bound, '__name__', bound)}"


def dtype_combinations(supported: dict) -> list[tuple]:
    return list(itertools.product(*supported.values()))


def check_dtypes(kernel_name: str, supported: dict, chosen: tuple):
    for (name, allowed), t in zip(supported.items(), chosen):
        if t not in allowed:
            listed = ", ".join(a.__name__ for a in allowed)
            raise error(
                "unsupported-dtype",
                kernel=kernel_name,
                dtype=t.__name__,
                typevar=name,
                where="",
                supported=listed,
            )


# -- instance names -------------------------------------------------------------------
def _constexpr_token(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"m{-value}" if value < 0 else str(value)
    if math.isnan(value):  # its bits reach the source: one name per payload
        bits = struct.pack(">d", value).hex()
        return "nan" if bits == "7ff8000000000000" else f"nan{bits}"
    if math.isinf(value):
        return "inf" if value > 0 else "minf"
    return repr(float(value)).replace("-", "m").replace(".", "p").replace("+", "")


def instance_name(
    kernel_name: str, dtypes: tuple, constexprs: tuple, absent: tuple = ()
) -> str:
    """``vector_add__f32__256``: the kernel, its dtypes, its constexpr values,
    then ``no<param>`` for each optional pointer passed as None
    (``layer_norm__f32__nobias``)."""
    parts = [kernel_name]
    if dtypes:
        parts.append("_".join(t.short for t in dtypes))
    parts.extend(_constexpr_token(v) for v in constexprs)
    parts.extend(f"no{name}" for name in absent)
    return "__".join(parts)
