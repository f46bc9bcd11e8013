"""Warp-level matrix multiply-accumulate on the tensor cores (sm_80+):
``kdsl.mma_m16n8k16``, ``kdsl.mma_m16n8k8`` and ``kdsl.mma_m16n8k32``,
PTX's ``mma.sync.aligned.mMnNkK.row.col``.

Every lane of a warp calls one with its fragments of A (M x K, row-major),
B (K x N, column-major) and C (M x N), ordinary kdsl vectors, and gets its
fragment of ``D = A * B + C`` (C's type).  Which lane holds which element
is the PTX ISA's fragment layout (``layout`` below; the tables in
docs/tensor-cores.md).  The types the entries take:

==========  =====================  =================  ===============  =========
shape       A and B elements       A            B           C and D
==========  =====================  =================  ===============  =========
m16n8k16    Float16 or BFloat16    x8           x4          Float32x4
m16n8k16    Float16                Float16x8    Float16x4   Float16x4
m16n8k8     Float16 or BFloat16    x4           x2          Float32x4
m16n8k8     Float16                Float16x4    Float16x2   Float16x4
m16n8k8     Float32 (as tf32)      Float32x4    Float32x2   Float32x4
m16n8k32    Int8 / Uint8 (each)    x16          x8          Int32x4
m16n8k32    Float8E4M3FN / E5M2    x16          x8          Float32x4
==========  =====================  =================  ===============  =========

(A and B of one call have one 16-bit type; 8-bit ones may differ, as PTX
allows.  FP8 needs sm_89+; kdsl compiles for sm_90.)

The interpreter gathers the 32 lanes' fragments into the matrices, computes
D and hands each lane its fragment back; every lane of the warp must take
part (``.aligned``), or it is an error.  Integer MMA is exact (the int32
sum wraps: ``.satfinite`` is off).  Floating MMA multiplies exactly (each
product of two inputs is exact in float64; tf32 inputs keep their top 19
bits, the tensor cores ignore the low 13) and sums, for each element of D,
``c + a[0]*b[0] + a[1]*b[1] + …`` in float64 in k order, rounded once to
C's type.  The tensor cores sum in another (unspecified) order and
precision, so the GPU's D may differ from the interpreter's in its last
bits: docs/tensor-cores.md states the tolerance the GPU tests use.
"""

from __future__ import annotations

import numpy as np

from kdsl.transpile import ir
from kdsl.transpile.builtins.registry import emit_statement, register, want_args
from kdsl.transpile.core.cxx import call, template
from kdsl.transpile.core import arith, lanes
from kdsl.transpile.core.types import (
    BFloat16,
    Boolean,
    Float8E4M3FN,
    Float8E5M2,
    Float16,
    Float32,
    Int8,
    Int32,
    Numeric,
    Uint8,
    Vector,
)
from kdsl.transpile.errors import error

M, N = 16, 8
_PTX = {
    Float16: "f16",
    BFloat16: "bf16",
    Float32: "tf32",
    Int8: "s8",
    Uint8: "u8",
    Float8E4M3FN: "e4m3",
    Float8E5M2: "e5m2",
    Int32: "s32",
}
_ACC = {Float32: "f32", Float16: "f16", Int32: "s32"}

# shape -> the (A element, B element, C element) combinations it takes
_FP8 = (Float8E4M3FN, Float8E5M2)
_INT8 = (Int8, Uint8)
_TYPES = {
    "m16n8k16": [
        (Float16, Float16, Float32),
        (BFloat16, BFloat16, Float32),
        (Float16, Float16, Float16),
    ],
    "m16n8k8": [
        (Float16, Float16, Float32),
        (BFloat16, BFloat16, Float32),
        (Float16, Float16, Float16),
        (Float32, Float32, Float32),
    ],
    "m16n8k32": [(a, b, Int32) for a in _INT8 for b in _INT8]
    + [(a, b, Float32) for a in _FP8 for b in _FP8],
}


def shape_k(shape: str) -> int:
    return int(shape.split("k")[1])


def fragment_lanes(shape: str, elem) -> tuple[int, int, int]:
    """The lanes of the A, B and C fragments of ``shape`` for inputs ``elem``:
    the M x K, K x N and M x N elements over 32 lanes."""
    k = shape_k(shape)
    return M * k // 32, k * N // 32, M * N // 32


# -- the fragment layouts (PTX ISA, "Matrix Fragments for mma.m16n8kK") ----------
def layout(shape: str, operand: str, elem) -> tuple[np.ndarray, np.ndarray]:
    """``(row, col)``, each of shape (32, lanes): element ``i`` of lane ``l``'s
    fragment of ``operand`` ("a", "b" or "c") is the matrix's ``(row[l, i],
    col[l, i])``.  ``elem`` is the input element type (it picks tf32's
    layout, and a 32-bit register's element count)."""
    lane = np.arange(32)[:, None]
    group, tid = lane >> 2, lane & 3  # PTX's groupID, threadID_in_group
    if operand == "c":  # every shape and type: 4 elements, 2 a row
        i = np.arange(4)[None, :]
        return group + 8 * (i >> 1), 2 * tid + (i & 1)
    k = shape_k(shape)
    per_reg = 32 // (elem.width if elem is not Float32 else 32)  # elements a register
    count = (M * k if operand == "a" else k * N) // 32
    i = np.arange(count)[None, :]
    reg, e = i // per_reg, i % per_reg
    # a register holds per_reg elements along k; the second half of k comes
    # in the later registers
    chunk = k // 2
    if operand == "a":  # registers: rows g, g+8, then the same in the next chunk
        row = group + 8 * (reg & 1)
        col = tid * per_reg + e + chunk * (reg >> 1)
        return np.broadcast_to(row, col.shape), col
    # b: the registers go down k, the column is the group
    row = tid * per_reg + e + chunk * reg
    return row, np.broadcast_to(group, row.shape)


# -- lowering -------------------------------------------------------------------------
def _describe(v) -> str:
    return type(v).__name__


def _lower(lw, entry, args, kwargs):
    want_args(entry, args, 3)
    shape = entry.name.split("_", 1)[1]
    a, b, c = args
    combos = _TYPES[shape]
    got = None
    if all(isinstance(v, Vector) for v in (a, b, c)):
        key = (type(a).dtype, type(b).dtype, type(c).dtype)
        if key in combos:
            na, nb, nc = fragment_lanes(shape, key[0])
            if (type(a).lanes, type(b).lanes, type(c).lanes) == (na, nb, nc):
                got = key
    if got is None:
        raise error(
            "mma-operand-types",
            callee=entry.spelled,
            got=", ".join(_describe(v) for v in (a, b, c)),
            takes=_takes(shape),
        )
    t = type(c)
    operands = tuple(v.ir_value() for v in (a, b, c))
    return t._dynamic(ir.BuiltinCall(t, entry.name, operands))


def _takes(shape: str) -> str:
    out = []
    for ta, tb, tc in _TYPES[shape]:
        na, nb, nc = fragment_lanes(shape, ta)
        out.append(f"{ta.__name__}x{na}, {tb.__name__}x{nb}, {tc.__name__}x{nc}")
    return "; ".join(out)


# -- CUDA -----------------------------------------------------------------------------
def helper(shape: str, ta, tb, tc) -> str:
    """The prelude helper (templates/prelude/mma.h) of one shape and types."""
    return f"kdsl::mma_{shape}_{_PTX[ta]}_{_PTX[tb]}_{_ACC[tc]}"


def _render(r, c, args):
    shape = c.builtin.split("_", 1)[1]
    ta, tb, tc = (a.type.dtype for a in c.args)
    return call(helper(shape, ta, tb, tc), *args)


# -- the interpreter ------------------------------------------------------------------
def _as_f64(frag, elem) -> np.ndarray:
    """Input elements as float64 (exact); tf32 keeps the top 19 bits of each
    Float32, as the tensor cores read them."""
    if elem is Float32:
        bits = np.ascontiguousarray(frag, np.float32).view(np.uint32)
        return (bits & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)
    return frag.astype(np.float64)


def multiply(shape: str, a, b, c, ta, tb, tc):
    """D = A * B + C for whole warps: ``a``, ``b``, ``c`` of shape
    (warps, 32, lanes) as numpy arrays of the element types; D's fragments
    (warps, 32, lanes) in C's lane dtype."""
    k = shape_k(shape)
    warps = a.shape[0]
    integer = tc is Int32
    work = np.int64 if integer else np.float64
    A = np.zeros((warps, M, k), work)
    B = np.zeros((warps, k, N), work)
    C = np.zeros((warps, M, N), work)
    for mat, frag, op, elem in ((A, a, "a", ta), (B, b, "b", tb), (C, c, "c", tc)):
        row, col = layout(shape, op, elem)
        if integer or op == "c":
            values = frag.astype(work)
        else:
            values = _as_f64(frag, elem)
        mat[:, row, col] = values
    acc = C.copy()
    for kk in range(k):  # in k order: the documented summation order
        acc += A[:, :, kk, None] * B[:, None, kk, :]
    row, col = layout(shape, "c", tc)
    d = acc[:, row, col]
    if integer:
        return ((d + (1 << 31)) % (1 << 32) - (1 << 31)).astype(np.int32)
    return lanes.round_to(d, tc)


def _interpret(t, call, args, mask):
    shape = call.builtin.split("_", 1)[1]
    ta, tb, tc = (a.type.dtype for a in call.args)
    threads = t.whole_warps(call, mask)  # (warps, 32): each warp's threads
    frags = [np.stack(parts, -1)[threads] for parts in args]
    d = multiply(shape, *frags, ta, tb, tc)
    out = [p.copy() for p in args[2]]
    for i, p in enumerate(out):
        p[threads] = d[..., i]
    return tuple(out)


_DOC = {
    "m16n8k16": "Float16x8/BFloat16x8 A, x4 B, Float32x4 C (or all Float16)",
    "m16n8k8": "Float16x4/BFloat16x4 A, x2 B, Float32x4 C (or all Float16; or "
    "Float32x4, Float32x2, Float32x4 as tf32)",
    "m16n8k32": "Int8x16/Uint8x16 A, Int8x8/Uint8x8 B, Int32x4 C; or "
    "Float8E4M3FN/Float8E5M2 x16, x8 and Float32x4 C",
}

for _shape in _TYPES:
    register(
        f"mma_{_shape}",
        f"`kdsl.mma_{_shape}(a, b, c)`: a warp's D = A * B + C on the tensor cores, "
        f"each lane passing its fragments ({_DOC[_shape]}; layouts in "
        f"docs/tensor-cores.md); PTX `mma.sync.aligned.{_shape}.row.col` (sm_80+) "
        "— every lane of the warp",
        _lower,
        cuda=_render,
        interpret=_interpret,
        prelude=("mma.h",),
    )


# -- ldmatrix / stmatrix ----------------------------------------------------------------
# 8 x 8 matrices of 16-bit elements (or 8 x 16 of 8-bit ones) in shared
# memory, each row one 16-byte vector (an element of a shared array of
# ``T x8`` or ``T x16``, so aligned as the instructions need): lanes
# 8j .. 8j + 7 give the rows of matrix j; lane l's 32-bit register j is
# row l // 4, bytes 4 (l % 4) .. 4 (l % 4) + 3 of matrix j (two 16-bit or
# four 8-bit elements), or with trans=True (16-bit only) elements (2 (l %
# 4) + e, l // 4) of it: the transpose's row.
_ROW_BYTES = 16


def _matrix_options(lw, entry, kwargs):
    count = kwargs.pop("count", 4)
    count = lw.static_integer(count, f"{entry.spelled}(count=)")
    trans = kwargs.pop("trans", False)
    if isinstance(trans, Boolean) and trans.is_static():  # a Constexpr[bool]
        trans = bool(trans.value)
    if count not in (1, 2, 4) or not isinstance(trans, bool):
        raise error(
            "matrix-option",
            callee=entry.spelled,
            got=f"count={count!r}, trans={trans!r}",
        )
    return count, trans


def _row_address(lw, entry, tile, index, trans):
    """``&tile[index]`` as an ir.Address: a row of a shared array of 16-byte
    vectors of 8- or 16-bit lanes; its element type."""
    elem = getattr(tile, "elem", None) if lw.is_memory(tile) else None
    ok = (
        isinstance(elem, type)
        and issubclass(elem, Vector)
        and elem.dtype.width in (8, 16)
        and elem.width == 8 * _ROW_BYTES
    )
    indices = index if isinstance(index, tuple) else (index,)
    base, flat = lw.address(tile, indices) if ok else (None, None)
    if not ok or base.type.space != "shared":
        raise error("matrix-operand", callee=entry.spelled, got=lw.describe(tile))
    if trans and elem.dtype.width != 16:
        raise error(
            "matrix-option",
            callee=entry.spelled,
            got=f"trans=True on {elem.__name__} rows (transposes are 16-bit only)",
        )
    return ir.Address(ir.PointerType(elem, space="shared"), base, flat), elem.dtype


def _fragment_type(elem, count):
    """What ``count`` matrices give each lane: 4 bytes each."""
    return elem.vec(count * 32 // elem.width)


def _lower_ldmatrix(lw, entry, args, kwargs):
    want_args(entry, args, 2)
    count, trans = _matrix_options(lw, entry, kwargs)
    addr, elem = _row_address(lw, entry, args[0], args[1], trans)
    t = _fragment_type(elem, count)
    options = (("count", count), ("trans", trans))
    return t._dynamic(ir.BuiltinCall(t, entry.name, (addr,), options=options))


def _lower_stmatrix(lw, entry, args, kwargs):
    want_args(entry, args, 3)
    count, trans = _matrix_options(lw, entry, kwargs)
    addr, elem = _row_address(lw, entry, args[0], args[1], trans)
    value = args[2]
    want = _fragment_type(elem, count)
    if type(value) is not want:
        raise error(
            "stmatrix-value",
            callee=entry.spelled,
            want=want.__name__,
            got=lw.describe(value),
        )
    lw.mark_written(args[0])
    options = (("count", count), ("trans", trans))
    call = ir.BuiltinCall(None, entry.name, (addr, value.ir_value()), options=options)
    lw.emit(ir.ExprStmt(call))
    return None


def _render_matrix(name):
    def render(r, c, args):
        options = dict(c.options)
        trans = "_trans" if options["trans"] else ""
        return call(f"kdsl::{name}_x{options['count']}{trans}", *args)

    return render


def _matrix_addresses(count, trans, per_reg):
    """``(row, column)`` for each (lane, element): which row (0 .. 8 count - 1,
    i.e. which giving lane) and which element of it lane l's element i is;
    ``per_reg`` elements make a 32-bit register."""
    lane = np.arange(32)[:, None]
    i = np.arange(count * per_reg)[None, :]
    j, e = i // per_reg, i % per_reg
    if trans:
        row, col = 8 * j + 2 * (lane & 3) + e, lane >> 2
    else:
        row, col = 8 * j + (lane >> 2), per_reg * (lane & 3) + e
    return np.broadcast_arrays(row, col)


def _ldmatrix(t, call, args, mask):
    options = dict(call.options)
    count = options["count"]
    slot = args[0]
    threads, rows = t.warp_rows(call, slot, mask, 8 * count, "reads")
    per_reg = call.type.lanes // count
    row, col = _matrix_addresses(count, options["trans"], per_reg)
    data = slot.mem.data
    out = []
    for i in range(call.type.lanes):
        part = np.zeros(t.n, data.dtype)
        part[threads] = data[rows[:, row[:, i]] + col[:, i]]
        out.append(part)
    return tuple(out)


def _stmatrix(t, call, args, mask):
    options = dict(call.options)
    count = options["count"]
    slot, value = args
    threads, rows = t.warp_rows(call, slot, mask, 8 * count, "writes")
    per_reg = len(value) // count
    row, col = _matrix_addresses(count, options["trans"], per_reg)
    data = slot.mem.data
    for i in range(len(value)):
        data[rows[:, row[:, i]] + col[:, i]] = value[i][threads]


_MATRIX_DOC = (
    "`count` (1, 2 or 4) matrices of 8 rows of 16 bytes in shared memory, each "
    "row one element of a shared array of `T x8` (16-bit `T`) or `T x16` (8-bit) "
    "whose index the lanes 8j .. 8j + 7 give for matrix j; lane l's 4 bytes of "
    "matrix j are row l // 4, bytes 4 (l % 4) .. +3 (`trans=True`, 16-bit: of "
    "the transpose)"
)
register(
    "ldmatrix",
    "`kdsl.ldmatrix(tile, index, count=4, trans=False)`: loads "
    + _MATRIX_DOC
    + " (a `T x(4 count / bytes of T)`); PTX `ldmatrix.sync.aligned.m8n8` — every "
    "lane of the warp",
    _lower_ldmatrix,
    cuda=_render_matrix("ldmatrix"),
    interpret=_ldmatrix,
    keywords=("count", "trans"),
    prelude=("mma.h", "matrix.h"),
)
register(
    "stmatrix",
    "`kdsl.stmatrix(tile, index, value, count=4, trans=False)`: stores "
    + _MATRIX_DOC
    + ", from `value` (a `T x(4 count / bytes of T)`); PTX "
    "`stmatrix.sync.aligned.m8n8` (sm_90) "
    "— every lane of the warp",
    _lower_stmatrix,
    cuda=_render_matrix("stmatrix"),
    interpret=_stmatrix,
    keywords=("count", "trans"),
    prelude=("mma.h", "matrix.h"),
)


# -- cp.async ------------------------------------------------------------------------------
# An asynchronous copy of one 4-, 8- or 16-byte element from global to shared
# memory (PTX cp.async, sm_80+), grouped by cp_async_commit() and waited for
# by cp_async_wait(n).  The interpreter copies at the call: a kernel may read
# the destination only after cp_async_wait (and, for other threads' copies,
# a barrier), and by then the GPU has copied too.
_CACHES = ("ca", "cg")


def _lower_cp_async(lw, entry, args, kwargs):
    want_args(entry, args, 4)
    dst, dst_index, src, src_index = args
    cache = kwargs.pop("cache", None)
    pred = kwargs.pop("pred", True)
    pred = Boolean._static(pred) if isinstance(pred, bool) else pred
    elem = getattr(dst, "elem", None) if lw.is_memory(dst) else None
    nbytes = _bytes(elem)
    src_ok = lw.is_memory(src) and getattr(src, "elem", None) is elem
    if nbytes not in (4, 8, 16) or not src_ok:
        raise error(
            "cp-async-operands",
            callee=entry.spelled,
            dst=lw.describe(dst),
            src=lw.describe(src),
        )
    cache = cache if cache is not None else ("cg" if nbytes == 16 else "ca")
    if cache not in _CACHES or (cache == "cg" and nbytes != 16):
        raise error("cp-async-cache", callee=entry.spelled, got=repr(cache), n=nbytes)
    if not isinstance(pred, Numeric) or type(pred) is not Boolean:
        raise error("warp-predicate-type", callee=entry.spelled, got=lw.describe(pred))
    d_base, d_flat = lw.address(dst, _tuple(dst_index))
    if d_base.type.space != "shared":
        raise error(
            "cp-async-operands",
            callee=entry.spelled,
            dst=lw.describe(dst),
            src=lw.describe(src),
        )
    indices = _tuple(src_index)
    if not pred.is_static():  # a zero-fill copy reads nothing: index 0 then
        indices = tuple(arith.select(pred, i, 0) for i in indices)
    s_base, s_flat = lw.address(src, indices)
    if s_base.type.space != "global":
        raise error(
            "cp-async-operands",
            callee=entry.spelled,
            dst=lw.describe(dst),
            src=lw.describe(src),
        )
    lw.mark_written(dst)
    operands = (
        ir.Address(ir.PointerType(elem, space="shared"), d_base, d_flat),
        ir.Address(ir.PointerType(elem, const=True), s_base, s_flat),
    )
    if not (pred.is_static() and pred.value):
        operands += (pred.ir_value(),)
    options = (("cache", cache), ("bytes", nbytes))
    lw.emit(ir.ExprStmt(ir.BuiltinCall(None, entry.name, operands, options=options)))
    return None


def _tuple(index):
    return index if isinstance(index, tuple) else (index,)


def _bytes(elem) -> int:
    if isinstance(elem, type) and issubclass(elem, Vector):
        return elem.dtype.width * elem.lanes // 8
    width = getattr(elem, "width", 0)
    return width // 8 if width % 8 == 0 else 0


def _render_cp_async(r, c, args):
    options = dict(c.options)
    copy = template(f"kdsl::cp_async_{options['cache']}", options["bytes"])
    return call(copy, *args)


def _cp_async(t, call, args, mask):
    dst, src = args[0], args[1]
    full = args[2] if len(args) == 3 else np.ones(t.n, np.bool_)
    t.copy_elements(call, dst, src, mask, full)


def _lower_statement(lw, entry, args, kwargs, operands=()):
    emit_statement(lw, entry, operands)


def _lower_commit(lw, entry, args, kwargs):
    want_args(entry, args, 0)
    return _lower_statement(lw, entry, args, kwargs)


def _lower_wait(lw, entry, args, kwargs):
    want_args(entry, args, 1)
    n = args[0]
    if not (isinstance(n, int) and not isinstance(n, bool)) and not (
        isinstance(n, Numeric) and n.is_static() and n.dtype.kind == "int"
    ):
        raise error("cp-async-wait", callee=entry.spelled, got=lw.describe(n))
    n = int(n if isinstance(n, int) else n.value)
    if not 0 <= n <= 7:
        raise error("cp-async-wait", callee=entry.spelled, got=str(n))
    return _lower_statement(lw, entry, args, kwargs, (ir.Const(Int32, n),))


def _no_op(t, call, args, mask):
    """The interpreter copied at each cp_async: nothing is in flight."""


register(
    "cp_async",
    "`kdsl.cp_async(dst, dst_index, src, src_index, cache=None, pred=True)`: "
    "starts copying the 4-, 8- or 16-byte element `src[src_index]` (global "
    "memory) to `dst[dst_index]` (shared memory, the same element type); "
    '`pred=False` fills it with zeros and reads nothing; `cache="ca"` (L1 and '
    'L2, the default below 16 bytes) or `"cg"` (L2 only, 16 bytes, the '
    "default there); PTX `cp.async` (sm_80+)",
    _lower_cp_async,
    cuda=_render_cp_async,
    interpret=_cp_async,
    keywords=("cache", "pred"),
    prelude=("cp_async.h",),
)
register(
    "cp_async_commit",
    "`kdsl.cp_async_commit()`: closes the group of this thread's `cp_async` "
    "copies started since the last commit; PTX `cp.async.commit_group`",
    _lower_commit,
    cuda=lambda r, c, args: call("kdsl::cp_async_commit"),
    interpret=_no_op,
    prelude=("cp_async.h",),
)
register(
    "cp_async_wait",
    "`kdsl.cp_async_wait(n)`: waits until at most `n` (a compile-time 0 … 7) of "
    "this thread's committed groups are still copying; then their data may be "
    "read (other threads' copies: after a barrier too); PTX "
    "`cp.async.wait_group`",
    _lower_wait,
    cuda=lambda r, c, args: call(template("kdsl::cp_async_wait", args[0])),
    interpret=_no_op,
    prelude=("cp_async.h",),
)


# -- the XOR swizzle ---------------------------------------------------------------------
def _lower_swizzle(lw, entry, args, kwargs):
    want_args(entry, args, 3)
    row, chunk = (arith.as_numeric(a) for a in args[:2])
    chunks = lw.static_integer(args[2], f"{entry.spelled}(..., chunks)")
    if chunks < 1 or chunks & (chunks - 1):
        raise error("swizzle-chunks", callee=entry.spelled, got=chunks)
    span = min(chunks, 8)  # the 16-byte chunks of one 128-byte bank line
    rows_per_line = max(1, 8 // chunks)
    if span == 1:
        return chunk
    if rows_per_line > 1:
        row = arith.binary("//", row, rows_per_line)
    key = arith.binary("&", row, span - 1)
    return arith.binary("^", chunk, key)


register(
    "swizzle",
    "`kdsl.swizzle(row, chunk, chunks)`: the 16-byte chunk of a shared-memory "
    "row of `chunks` chunks (a power of two) where chunk `chunk` of row `row` "
    "is stored so that any 8 consecutive rows' same chunk lie in different "
    "banks: `chunk ^ (row // max(1, 8 // chunks)) % min(chunks, 8)` "
    "(conflict-free `ldmatrix` and `cp_async`)",
    _lower_swizzle,
    kind="syntax",
)
