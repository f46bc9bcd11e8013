"""Constant tables: a module-level numpy array a kernel reads becomes a
``__constant__`` array of the generated file, initialised with its values.

The instance's tables share CUDA's 64 KB of constant memory; the table's
values are read once, when the instance is lowered (the source cache's key
hashes them: ``runtime.compile.kernel_fingerprint``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from kdsl.transpile import ir
from kdsl.transpile.core.types import (
    Boolean,
    Float32,
    Float64,
    Int8,
    Int16,
    Int32,
    Int64,
    Uint8,
    Uint16,
    Uint32,
    Uint64,
)
from kdsl.transpile.errors import error

LIMIT = 64 * 1024  # bytes of constant memory a CUDA module may declare
# The element types a table may have: those whose literals are constant
# expressions in C++ (a __constant__ array's initialiser must be one).
TABLE_TYPES = (
    Int8,
    Int16,
    Int32,
    Int64,
    Uint8,
    Uint16,
    Uint32,
    Uint64,
    Float32,
    Float64,
    Boolean,
)


@dataclass(frozen=True, eq=False)
class ConstantTable:
    """One ``__constant__`` array: its C++ name, Python name, element type
    and values (a read-only copy of the module's array)."""

    cname: str
    name: str
    elem: object
    values: np.ndarray

    @property
    def ref(self) -> ir.ConstantRef:
        ptype = ir.PointerType(self.elem, const=True, space="constant")
        return ir.ConstantRef(ptype, self.cname)

    @property
    def nbytes(self) -> int:
        return int(self.values.nbytes)


@dataclass(frozen=True)
class ConstantArray:
    """What a constant table's name evaluates to in a kernel."""

    table: ConstantTable

    @property
    def name(self) -> str:
        return self.table.name

    @property
    def elem(self):
        return self.table.elem


def table_of(ctx, symbols, name: str, array: np.ndarray) -> ConstantArray:
    """The table of the module-level array ``name`` (declared on first use;
    the same array read again, or from a device function, is one table)."""
    known = ctx.constants.get(id(array))
    if known is not None and known.values.shape == array.shape:
        return ConstantArray(known)
    elem = _element_type(name, array)
    values = np.array(array, copy=True)
    values.setflags(write=False)
    if elem.kind == "float":
        bad = values[~np.isfinite(values)]
        if bad.size:
            raise error(
                "constant-table-value",
                name=name,
                value=repr(float(bad[0])),
                dtype=elem.__name__,
                bits=f"Uint{elem.width}",
            )
    used = sum(t.nbytes for t in ctx.constants.values())
    if used + values.nbytes > LIMIT:
        raise error(
            "constant-table-too-large",
            name=name,
            nbytes=values.nbytes,
            used=used,
            limit=LIMIT,
        )
    cname = symbols.function(name)  # file scope, like a device function
    table = ConstantTable(cname, name, elem, values)
    ctx.constants[id(array)] = table  # (the module keeps the array, and its id)
    return ConstantArray(table)


def _element_type(name: str, array: np.ndarray):
    for t in TABLE_TYPES:
        if array.dtype == t.np_dtype:
            if array.ndim != 1 or array.size == 0:
                shape = "x".join(map(str, array.shape)) or "0-dimensional"
                raise error("constant-table-type", name=name, got=f"a {shape} array")
            return t
    raise error("constant-table-type", name=name, got=f"an array of {array.dtype}")


def element(table: ConstantTable, index: int):
    """The value of ``table[index]``, a Python value (a static index folds)."""
    if not 0 <= index < len(table.values):
        raise error(
            "constant-index-range", name=table.name, index=index, n=len(table.values)
        )
    value = table.values[index].item()
    return table.elem._static(value)


def declaration(table: ConstantTable, literal, width: int = 88) -> str:
    """``__constant__ float table[4] = {...};``: the values wrapped at
    ``width`` columns, four spaces in."""
    texts = [_literal(table.elem, v, literal) for v in table.values.tolist()]
    head = f"__constant__ {table.elem.c_name} {table.cname}[{len(texts)}] = {{"
    count = f"{len(texts)} {table.elem.__name__} value{'s' * (len(texts) != 1)}"
    lines, line = [f"// {table.name}: a module-level array, {count}", head], "   "
    for text in texts:
        if len(line) + len(text) + 2 > width:
            lines.append(line.rstrip())
            line = "   "
        line += f" {text},"
    lines.append(line.rstrip())
    lines.append("};")
    return "\n".join(lines)


def _literal(t, value, literal) -> str:
    if t.kind == "int" and t.width < 32:  # fits: no narrowing in braces
        return str(int(value))
    assert not (t.kind == "float" and not math.isfinite(value))
    return str(literal(t, value))
