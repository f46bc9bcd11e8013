"""Hopper's warpgroup MMA (sm_90a): ``kdsl.wgmma_mma_async`` with its
``wgmma_fence``, ``wgmma_commit`` and ``wgmma_wait``, the shared-memory
matrix descriptors it reads its operands through (``wgmma_desc``), and
``setmaxnreg`` for warp-specialised kernels.

A warpgroup is 4 consecutive warps (128 threads, the first warp's index a
multiple of 4).  ``wgmma_mma_async(acc, desc_a, desc_b, T)`` is PTX's
``wgmma.mma_async.sync.aligned.m64nNk16.f32.T.T``: D (64 x N, f32) = A (64 x
16, ``T``) * B (16 x N, ``T``) + D, A and B in shared memory, both
"K-major" (A row-major, B given as its N x K transpose: row n of B^T holds
column n of B), each described by a 64-bit matrix descriptor.  D is the
warpgroup's accumulator: each of its 128 threads holds N / 2 Float32 of it
in a ``kdsl.local_array(Float32, (N // 2,))`` (N any multiple of 8 up to
256: the helpers of 8, 16, 32, 64, 128 and 256 are in wgmma.h, the others
generated in the file whose calls use them), element ``i`` of thread ``t``
(warp ``w = t // 32`` of the warpgroup, lane ``l = t % 32``) being

    row = 16 w + l // 4 + 8 ((i // 2) % 2)
    col = 8 (i // 4) + 2 (l % 4) + i % 2

(the mma.sync m16n8 C fragment, repeated over the N / 8 column blocks, one
16-row slab per warp; CUTLASS's ``CLayout_64xN``).  :func:`accumulator_layout`
computes it, and docs/tensor-cores.md has the table.

Two variants of the operands (PTX's): A may come from registers instead, each
thread passing its ``T x8`` fragment (warp ``w``'s rows 16 w … 16 w + 15 as
mma.sync m16n8k16's A fragment, :func:`a_fragment_layout`; what an
accumulator converted to 16 bits already is, so attention's P needs no
shared memory); and ``trans_b=True`` reads B MN-major, its K x N tile stored
row by row (N contiguous: a row-major V of attention's P V), PTX's
``imm-trans-b``.

The descriptor (PTX ISA, "Matrix Descriptor Format"; CuTe's
``GmmaDescriptor``) is, bit by bit: the start address in shared memory >> 4
(bits 0-13), the leading-dimension byte offset >> 4 (16-29), the stride
byte offset >> 4 (32-45), the base offset (49-51, 0 for tiles aligned to the
swizzle pattern's 1024 bytes) and the swizzle mode (62-63: 0 none, 1 128-byte,
2 64-byte, 3 32-byte).  :func:`descriptor` encodes it on the host, and the
prelude helper ``kdsl::wgmma_desc`` the same on the device.

For the 128-byte swizzle of 16-bit tiles — the layout the GEMM example uses —
a tile is rows of 64 elements (128 bytes, 8 chunks of 16 bytes) along K,
chunk ``c`` of row ``r`` stored at chunk ``c ^ (r % 8)``
(``kdsl.swizzle(r, c, 8)``), 8 rows making a 1024-byte atom: the stride byte
offset is 1024 (from one 8-row group to the next), the leading one unused
(16), and the k-th 16-wide slice of the 64 starts 32 k bytes in
(descriptor + 2 k).  MN-major (``trans_b``), a row of the tile holds 64 of
B's N columns at one k (128 bytes, swizzled alike), 8 rows of k make an atom,
the stride byte offset is again 1024 (from 8 rows of k to the next 8; a
16-deep k step is 2048 bytes, descriptor + 128) and the leading one the
distance from 64 columns to the next 64 (N > 64).

8-bit inputs (``T`` Float8E4M3FN or Float8E5M2, or a pair ``(TA, TB)`` of
them, PTX's ``.e4m3``/``.e5m2``) are ``m64nNk32``: A 64 x 32 and B 32 x N
bytes, N any multiple of 8 up to 256, both K-major (PTX's transposes are for
16-bit types only: ``trans_b=True`` is E626), a K-major row of a 128-byte
swizzled tile holding 128 elements (the k-th 32-wide slice is again
descriptor + 2 k), A from registers a ``TA x16`` (mma.sync m16n8k32's A
fragment a warp), and D f32 or (PTX's ``.f16``) f16: a
``local_array(Float16x2, (N // 4,))``, pair p holding elements 2p, 2p + 1
of the f32 layout (its wait's overload is generated alike).  Their helpers — 32 widths, 4 type pairs, 2 operand forms
— are not in wgmma.h: each file defines the ones its calls use
(``helper_8bit``, through the registry's ``helper``).

Integer 8-bit inputs (``T`` Int8 or Uint8, or a pair of them, PTX's
``.s8``/``.u8``, mixed pairs too) are the same ``m64nNk32`` with the same
operands, D an Int32 accumulator (``local_array(Int32, (N // 2,))``, the
f32 layout) and fewer widths: N 8, 16, 24 or a multiple of 16 up to 256
(PTX's integer shapes; 40, 56 … are E808).  PTX's ``.s32`` form takes no
scale-a/b immediates; its optional ``.satfinite`` (clamping D to Int32's
range) is not used: the sums wrap, as mma.sync's integer ones do in kdsl.

The interpreter runs fence, commit, wait and setmaxnreg as no-ops (it is
synchronous and has no register file).  It models ``wgmma_desc`` of a
dynamic shared view (the address: the byte offset in the block's dynamic
shared memory, which kdsl aligns to 1024 bytes on the GPU too) and
``wgmma_mma_async`` on 128-byte-swizzled tiles, warpgroup-wide: A and B read
through the descriptors with the hardware's swizzle (bits 4-6 of each byte
address XORed with bits 7-9, :func:`read_tile`), each product exact in
float64, summed in k order onto D and rounded to f32 once per instruction
(8-bit inputs too: docs/tensor-cores.md, "fp8", states the tolerance to the
hardware, whose internal sum of 8-bit products is narrower); integer
products summed exactly and wrapped to Int32 (exact by construction: a
wrapping sum's order cannot matter).
Descriptors of static shared arrays, other swizzle modes, and descriptors
or ``scale_d`` that differ across a warpgroup are E362 there (GPU only).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from kdsl.transpile import ir
from kdsl.transpile.builtins import mma
from kdsl.transpile.builtins.registry import emit_statement, register, want_args
from kdsl.transpile.core.cxx import call, template
from kdsl.transpile.core.types import (
    BFloat16,
    Boolean,
    Float8E4M3FN,
    Float8E5M2,
    Float16,
    Float32,
    Int8,
    Int32,
    Uint8,
    Uint64,
    Vector,
)
from kdsl.transpile.errors import DSLError, error

ARCH = "sm_90a"
WIDTHS = (8, 16, 32, 64, 128, 256)  # the N a helper in wgmma.h exists for
SWIZZLES = {0: 0, 128: 1, 64: 2, 32: 3}  # bytes -> the descriptor's mode
_PTX = {BFloat16: "bf16", Float16: "f16"}
# 8-bit inputs (m64nNk32, A and B types each e4m3 or e5m2): every N the
# instruction takes, K-major only; their helpers are generated per call
_FP8 = {Float8E4M3FN: "e4m3", Float8E5M2: "e5m2"}
FP8_WIDTHS = tuple(range(8, 257, 8))
# integer 8-bit inputs (m64nNk32, A and B each s8 or u8, D s32): fewer N
# than fp8's (PTX ISA, wgmma.mma_async's integer shapes): 8, 16, 24, then
# the multiples of 16 from 32 to 256
_INT8 = {Int8: "s8", Uint8: "u8"}
INT8_WIDTHS = (8, 16, 24) + tuple(range(32, 257, 16))
_EIGHT_BIT = {**_FP8, **_INT8}
# 16-bit inputs take every N too: the widths not in WIDTHS (attention's
# 192-key tiles) have their helper generated per call, as 8-bit ones
WIDTHS_16 = FP8_WIDTHS
_NUMPY = {
    "bf16": ml_dtypes.bfloat16,
    "f16": np.float16,
    "e4m3": ml_dtypes.float8_e4m3fn,
    "e5m2": ml_dtypes.float8_e5m2,
    "s8": np.int8,
    "u8": np.uint8,
}
# the helpers taking A in registers take a kdsl::vec (vector.h)
PRELUDE = ("vector.h", "wgmma.h")


# -- host-side models (tests, docs) ------------------------------------------------
def descriptor(address: int, lbo: int, sbo: int, swizzle: int, base: int = 0) -> int:
    """The 64-bit wgmma matrix descriptor of a tile at shared-memory byte
    ``address`` (what ``kdsl::wgmma_desc`` computes on the device)."""
    return (
        ((address & 0x3FFFF) >> 4)
        | ((lbo & 0x3FFFF) >> 4) << 16
        | ((sbo & 0x3FFFF) >> 4) << 32
        | (base & 7) << 49
        | SWIZZLES[swizzle] << 62
    )


def accumulator_layout(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(row, col)``, each (128, n // 2): element ``i`` of warpgroup thread
    ``t``'s accumulator is D's ``(row[t, i], col[t, i])``."""
    t = np.arange(128)[:, None]
    i = np.arange(n // 2)[None, :]
    w, lane = t // 32, t % 32
    row = 16 * w + lane // 4 + 8 * ((i // 2) % 2)
    col = 8 * (i // 4) + 2 * (lane % 4) + i % 2
    return np.broadcast_arrays(row, col)


def swizzled_128(rows: int, k: int = 64) -> np.ndarray:
    """Element offsets of a 16-bit (rows x k) K-major tile in the 128-byte
    swizzle layout: ``offset[r, c]`` is where element (r, c) lies (``k`` a
    multiple of 64: one 1024-byte atom column after another)."""
    r = np.arange(rows)[:, None]
    c = np.arange(k)[None, :]
    atom, cc = c // 64, c % 64
    chunk, e = cc // 8, cc % 8
    return atom * rows * 64 + r * 64 + ((chunk ^ (r % 8)) * 8) + e


# -- the prelude helpers (templates/prelude/wgmma.h, generated by this) -------------
def _mma_helper(n: int, ptx: str, registers: bool = False) -> str:
    """The helper of one width and type: A through a descriptor, or
    (``registers``) A's fragment in this thread's registers; B through a
    descriptor, K-major or (``TRANS_B = 1``) MN-major."""
    regs = n // 2
    name = f"wgmma_m64n{n}k16_f32_{ptx}"
    elem = {"bf16": "__nv_bfloat16", "f16": "__half"}[ptx]
    d = ", ".join(f"%{i}" for i in range(regs))
    if registers:
        a_type, a_text = f"const vec<{elem}, 8>& a", "A (64 x 16) in registers"
        a_operand = f"{{%{regs}, %{regs + 1}, %{regs + 2}, %{regs + 3}}}"
        scale, b_at, tail = regs + 5, regs + 4, f"1, 1, %{regs + 6}"
        a_inputs = [f'"r"(A[{i}])' for i in range(4)]
    else:
        a_type, a_text = "uint64_t a", "A (64 x 16) in shared memory"
        a_operand = f"%{regs}"
        scale, b_at, tail = regs + 2, regs + 1, f"1, 1, 0, %{regs + 3}"
        a_inputs = ['"l"(a)']
    lines = [
        f"// D (64 x {n}, f32) += {a_text} * B (16 x {n}), {ptx}; B K-major",
        "// (TRANS_B = 1: MN-major)",
        "template <int TRANS_B = 0>",
        f"__device__ __forceinline__ void {name}(float* d, {a_type}, uint64_t b, "
        "int scale_d)",
        "{",
    ]
    if registers:
        lines.append("    const uint32_t* A = reinterpret_cast<const uint32_t*>(&a);")
    lines += [
        "    asm volatile(",
        '        "{\\n"',
        '        ".reg .pred p;\\n"',
        f'        "setp.ne.b32 p, %{scale}, 0;\\n"',
        f'        "wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{ptx}.{ptx} "',
    ]
    text = "{" + d + "}"
    while text:  # the register list, a line of at most 16 registers each
        parts = text.split(", ")
        head, text = ", ".join(parts[:16]), ", ".join(parts[16:])
        lines.append(f'        "{head}{", " if text else ""}"')
    lines += [
        f'        ", {a_operand}, %{b_at}, p, {tail};\\n"',
        '        "}\\n"',
    ]
    outs = [f'"+f"(d[{i}])' for i in range(regs)]
    for k in range(0, regs, 8):
        sep = "," if k + 8 < regs else ""
        lead = ": " if k == 0 else "  "
        lines.append(f"        {lead}{', '.join(outs[k:k + 8])}{sep}")
    inputs = ", ".join(a_inputs + ['"l"(b)', '"r"(scale_d)', '"n"(TRANS_B)'])
    lines += [f"        : {inputs});", "}"]
    return "\n".join(lines)


def _register_list(first: int, count: int) -> list[str]:
    """``{%first, …}`` of ``count`` registers, as asm string lines of at most
    16 registers each."""
    text = "{" + ", ".join(f"%{first + i}" for i in range(count)) + "}"
    lines = []
    while text:
        parts = text.split(", ")
        head, text = ", ".join(parts[:16]), ", ".join(parts[16:])
        lines.append(f'        "{head}{", " if text else ""}"')
    return lines


# 8-bit helpers: the C type of A's elements, and of D's registers (what
# the helper takes; its asm constraint) for each accumulator kind
_ELEM_8 = {
    "e4m3": "__nv_fp8_e4m3",
    "e5m2": "__nv_fp8_e5m2",
    "s8": "int8_t",
    "u8": "uint8_t",
}
_D_8 = {
    "f32": ("float* d", '"+f"(d[{}])'),
    "f16": ("vec<__half, 2>* d", '"+r"(D[{}])'),
    "s32": ("int32_t* d", '"+r"(d[{}])'),
}


def helper_8bit(
    n: int, a: str, b: str, registers: bool = False, acc: str = "f32"
) -> str:
    """The helper of one width and pair of 8-bit types: D (64 x n, f32, or
    ``acc="f16"``: f16 in n / 4 pairs; integer inputs ``acc="s32"``) += A
    (64 x 32) * B (32 x n), B K-major through a descriptor, A through one or
    (``registers``) this thread's 16 elements of A in 4 registers.  Integer
    sums wrap (PTX's ``.satfinite`` off); they take no scale-a/b
    immediates."""
    regs = n // 4 if acc == "f16" else n // 2
    name = f"wgmma_m64n{n}k32_{acc}_{a}_{b}"
    d_type, constraint = _D_8[acc]
    imm = "" if acc == "s32" else ", 1, 1"  # imm-scale-a, -b: floats only
    if registers:
        a_type, a_text = f"const vec<{_ELEM_8[a]}, 16>& a", "A (64 x 32) in registers"
        a_operand = f"{{%{regs}, %{regs + 1}, %{regs + 2}, %{regs + 3}}}"
        b_at, scale = regs + 4, regs + 5
        a_inputs = [f'"r"(A[{i}])' for i in range(4)]
    else:
        a_type, a_text = "uint64_t a", "A (64 x 32) in shared memory"
        a_operand, b_at, scale = f"%{regs}", regs + 1, regs + 2
        a_inputs = ['"l"(a)']
    lines = [
        f"// D (64 x {n}, {acc}) += {a_text} ({a}) * B (32 x {n}, {b}), both K-major",
        f"__device__ __forceinline__ void {name}({d_type}, {a_type}, uint64_t b, "
        "int scale_d)",
        "{",
    ]
    if registers:
        lines.append("    const uint32_t* A = reinterpret_cast<const uint32_t*>(&a);")
    if acc == "f16":
        lines.append("    uint32_t* D = reinterpret_cast<uint32_t*>(d);")
    lines += [
        "    asm volatile(",
        '        "{\\n"',
        '        ".reg .pred p;\\n"',
        f'        "setp.ne.b32 p, %{scale}, 0;\\n"',
        f'        "wgmma.mma_async.sync.aligned.m64n{n}k32.{acc}.{a}.{b} "',
        *_register_list(0, regs),
        f'        ", {a_operand}, %{b_at}, p{imm};\\n"',
        '        "}\\n"',
    ]
    outs = [constraint.format(i) for i in range(regs)]
    for k in range(0, regs, 8):
        sep = "," if k + 8 < regs else ""
        lead = ": " if k == 0 else "  "
        lines.append(f"        {lead}{', '.join(outs[k:k + 8])}{sep}")
    inputs = ", ".join(a_inputs + ['"l"(b)', '"r"(scale_d)'])
    lines += [f"        : {inputs});", "}"]
    return "\n".join(lines)


_HEAD = """\
// kdsl prelude, wgmma part (sm_90a): kdsl.wgmma_desc, wgmma_fence,
// wgmma_commit, wgmma_wait, wgmma_mma_async and setmaxnreg.  Generated by
// kdsl/transpile/builtins/wgmma.py (prelude_text); a test checks they agree.
// A warpgroup (4 warps) computes D (64 x N, f32) += A * B from shared-memory
// tiles described by matrix descriptors; each thread holds N / 2 floats of D
// (docs/tensor-cores.md, "Hopper").
#ifndef KDSL_WGMMA_H
#define KDSL_WGMMA_H

namespace kdsl {

// The matrix descriptor of the shared-memory tile at p (PTX ISA, "Matrix
// Descriptor Format"): start address, leading and stride byte offsets (each
// >> 4, 14 bits), swizzle mode MODE (0 none, 1 128-byte, 2 64-byte, 3 32-byte).
template <int MODE, int LBO, int SBO, typename T>
__device__ __forceinline__ uint64_t wgmma_desc(const T* p)
{
    const uint32_t address = static_cast<uint32_t>(__cvta_generic_to_shared(p));
    return static_cast<uint64_t>((address & 0x3FFFF) >> 4)
           | static_cast<uint64_t>((LBO & 0x3FFFF) >> 4) << 16
           | static_cast<uint64_t>((SBO & 0x3FFFF) >> 4) << 32
           | static_cast<uint64_t>(MODE) << 62;
}

// Makes this thread's generic-proxy writes to shared memory (stores, waited-for
// cp.async copies) visible to the async proxy, through which wgmma reads.
__device__ __forceinline__ void fence_proxy_async()
{
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// Orders this thread's register and shared-memory accesses before the
// warpgroup's next wgmma.mma_async.
__device__ __forceinline__ void wgmma_fence()
{
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}

// Closes the group of wgmma.mma_async started since the last commit.
__device__ __forceinline__ void wgmma_commit()
{
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}

// Keeps the compiler from moving reads or writes of an accumulator register
// across a wgmma wait (the registers change asynchronously).
__device__ __forceinline__ void wgmma_hold(float& r)
{
    asm volatile("" : "+f"(r)::"memory");
}

// Waits until at most N committed groups are pending; then the accumulators
// d[0 .. COUNT) of the finished groups may be read.
template <int N>
__device__ __forceinline__ void wgmma_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;" : : "n"(N) : "memory");
}

template <int N, int COUNT>
__device__ __forceinline__ void wgmma_wait(float* d)
{
    #pragma unroll
    for (int i = 0; i < COUNT; ++i)
        wgmma_hold(d[i]);
    wgmma_wait<N>();
    #pragma unroll
    for (int i = 0; i < COUNT; ++i)
        wgmma_hold(d[i]);
}

// setmaxnreg: this warp's register budget raised (producer: lowered) to N.
template <int N>
__device__ __forceinline__ void setmaxnreg_inc()
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" : : "n"(N));
}

template <int N>
__device__ __forceinline__ void setmaxnreg_dec()
{
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" : : "n"(N));
}
"""


def prelude_text() -> str:
    """templates/prelude/wgmma.h, as it must read."""
    parts = [_HEAD]
    for ptx, guard in (("bf16", "__CUDA_BF16_TYPES_EXIST__"),):
        parts.append(f"#ifdef {guard}")
        parts += [_mma_helper(n, ptx, r) + "\n" for r in (False, True) for n in WIDTHS]
        parts.append("#endif\n")
    parts.append("#ifdef __CUDA_FP16_TYPES_EXIST__")
    parts += [_mma_helper(n, "f16", r) + "\n" for r in (False, True) for n in WIDTHS]
    parts.append("#endif\n")
    parts.append("}  // namespace kdsl\n\n#endif  // KDSL_WGMMA_H\n")
    return "\n".join(parts)


# -- lowering ------------------------------------------------------------------------
def _static_int(lw, value, what):
    return lw.static_integer(value, what)


def _lower_desc(lw, entry, args, kwargs):
    want_args(entry, args, 2)
    tile, index = args
    swizzle = _static_int(lw, kwargs.pop("swizzle", 128), f"{entry.spelled}(swizzle=)")
    lbo = _static_int(lw, kwargs.pop("lbo", 16), f"{entry.spelled}(lbo=)")
    sbo = _static_int(lw, kwargs.pop("sbo", 1024), f"{entry.spelled}(sbo=)")
    if swizzle not in SWIZZLES or any(
        not (0 <= v < 1 << 18 and v % 16 == 0) for v in (lbo, sbo)
    ):
        raise error(
            "wgmma-desc-option",
            callee=entry.spelled,
            got=f"swizzle={swizzle}, lbo={lbo}, sbo={sbo}",
        )
    elem = getattr(tile, "elem", None) if lw.is_memory(tile) else None
    indices = index if isinstance(index, tuple) else (index,)
    base, flat = lw.address(tile, indices) if elem is not None else (None, None)
    if elem is None or base.type.space != "shared":
        raise error("wgmma-desc-operand", callee=entry.spelled, got=lw.describe(tile))
    if swizzle:  # the swizzle pattern repeats every 8 rows of `swizzle` bytes
        lw.align_dynamic_shared(8 * swizzle)
    address = ir.Address(ir.PointerType(elem, space="shared"), base, flat)
    options = (("mode", SWIZZLES[swizzle]), ("lbo", lbo), ("sbo", sbo))
    return Uint64._dynamic(ir.BuiltinCall(Uint64, entry.name, (address,), options))


def _render_desc(r, c, args):
    o = dict(c.options)
    return call(template("kdsl::wgmma_desc", o["mode"], o["lbo"], o["sbo"]), args[0])


# the accumulator kinds: element type -> (kind, N an element covers)
_KINDS = {Float32: ("f32", 2), Float16.vec(2): ("f16", 4), Int32: ("s32", 2)}


def _accumulator(lw, entry, acc, widths=FP8_WIDTHS, kinds=("f32", "f16", "s32")):
    """``(address of acc[0], N, kind)`` of an accumulator array of one of
    the ``widths`` (N) and ``kinds``: N // 2 Float32 ("f32"), N // 4
    Float16x2 pairs ("f16": fp8 inputs) or N // 2 Int32 ("s32": integer
    inputs); E808 otherwise."""
    shape = getattr(acc, "shape", None)
    elem = getattr(acc, "elem", None)
    kind, per = _KINDS.get(elem, (None, None))
    per = per if kind in kinds else None
    ok = (
        lw.is_memory(acc)
        and per is not None
        and isinstance(shape, tuple)
        and len(shape) == 1
        and per * shape[0] in widths
    )
    base = lw.address(acc, (0,))[0] if ok else None
    if not ok or base.type.space != "local":
        integer = kinds == ("s32",)
        raise error(
            "wgmma-accumulator",
            callee=entry.spelled,
            got=lw.describe(acc),
            widths=_spelled_widths(widths),
            acc="s32 (integer 8-bit inputs)" if integer else "f32",
            elem="Int32" if integer else "Float32",
            f16=(
                " (fp8 inputs: or an f16 one, kdsl.local_array(Float16x2, (N // 4,)))"
                if not integer
                else ""
            ),
        )
    base, flat = lw.address(acc, (0,))
    return (
        ir.Address(ir.PointerType(elem, space="local"), base, flat),
        per * shape[0],
        kind,
    )


def _spelled_widths(widths) -> str:
    if widths == INT8_WIDTHS:  # 8, 16, 24, then steps of 16
        return "4, 8, 12, 16, 24, 32, … 128 (N 8, 16, 24 or a multiple of 16)"
    halves = [str(n // 2) for n in widths]
    return (
        ", ".join(halves)
        if len(halves) < 8
        else f"{halves[0]}, {halves[1]}, … {halves[-1]}"
    )


def _operand_types(lw, entry, dtype):
    """``(A's, B's)`` element types of ``T``: one 16-bit type, or an 8-bit
    one or a pair of them ``(TA, TB)``, both fp8 or both integers; E809
    otherwise."""
    pair = tuple(dtype) if isinstance(dtype, tuple) else (dtype, dtype)
    if len(pair) == 2 and any(all(t in k for t in pair) for k in (_FP8, _INT8)):
        return pair
    if not isinstance(dtype, tuple) and dtype in _PTX:
        return pair
    raise error("wgmma-dtype", callee=entry.spelled, got=_describe_type(lw, dtype))


def _describe_type(lw, dtype) -> str:
    if isinstance(dtype, tuple):
        return "(" + ", ".join(_describe_type(lw, t) for t in dtype) + ")"
    return getattr(dtype, "__name__", None) or lw.describe(dtype)


def _lower_mma(lw, entry, args, kwargs):
    want_args(entry, args, 4)
    acc, a, desc_b, dtype = args
    scale_d = kwargs.pop("scale_d", True)
    scale_d = Boolean._static(scale_d) if isinstance(scale_d, bool) else scale_d
    trans_b = kwargs.pop("trans_b", False)
    if isinstance(trans_b, Boolean) and trans_b.is_static():
        trans_b = bool(trans_b.value)
    ta, tb = _operand_types(lw, entry, dtype)
    fp8 = ta in _EIGHT_BIT  # 8-bit inputs, floating or integer
    if ta in _INT8:
        widths, kinds = INT8_WIDTHS, ("s32",)
    else:
        widths, kinds = (FP8_WIDTHS, ("f32", "f16")) if fp8 else (WIDTHS_16, ("f32",))
    address, n, kind = _accumulator(lw, entry, acc, widths, kinds)
    # A: a descriptor, or this thread's fragment of it (T x8; 8-bit: T x16)
    fragment = ta.vec(16 if fp8 else 8)
    registers = isinstance(a, Vector) and type(a) is fragment
    for d in (desc_b,) if registers else (a, desc_b):
        if type(d) is not Uint64:
            raise error(
                "wgmma-descriptor",
                callee=entry.spelled,
                got=lw.describe(d),
                fragment=fragment.__name__,
            )
    if type(scale_d) is not Boolean:
        raise error(
            "warp-predicate-type", callee=entry.spelled, got=lw.describe(scale_d)
        )
    if not isinstance(trans_b, bool):
        raise error("wgmma-trans-b", callee=entry.spelled, got=lw.describe(trans_b))
    if fp8 and trans_b:  # PTX: imm-trans-b is for .f16/.bf16 only
        raise error("wgmma-fp8-k-major", callee=entry.spelled)
    lw.mark_written(acc)
    operands = (address, a.ir_value(), desc_b.ir_value(), scale_d.ir_value())
    if fp8:
        options = (
            ("n", n),
            ("dtype", _EIGHT_BIT[ta]),
            ("dtype_b", _EIGHT_BIT[tb]),
            ("registers", registers),
            ("trans_b", False),
            ("acc", kind),
        )
    else:
        options = (("n", n), ("dtype", _PTX[ta]), ("trans_b", trans_b))
        if n not in WIDTHS:  # its helper generated for this call (_helper)
            options += (("registers", registers),)
    lw.emit(ir.ExprStmt(ir.BuiltinCall(None, entry.name, operands, options=options)))
    return None


def _render_mma(r, c, args):
    o = dict(c.options)
    if "dtype_b" in o:  # 8-bit: the helper generated for this call (_helper)
        name = f"kdsl::wgmma_m64n{o['n']}k32_{o['acc']}_{o['dtype']}_{o['dtype_b']}"
        return call(name, *args)
    name = f"kdsl::wgmma_m64n{o['n']}k16_f32_{o['dtype']}"
    return call(template(name, 1) if o["trans_b"] else name, *args)


def _helper(c):
    """``(key, text)`` of the helper this call needs: 8-bit, or 16-bit of an
    N not in WIDTHS (None: 16-bit of a width whose helpers are in wgmma.h)."""
    o = dict(c.options)
    if "dtype_b" not in o:
        if o["n"] in WIDTHS:
            return None
        n, ptx, regs = o["n"], o["dtype"], o["registers"]
        return f"wgmma 16-bit {n:03d} {ptx} {int(regs)}", _mma_helper(n, ptx, regs)
    key = (o["n"], o["dtype"], o["dtype_b"], o["registers"], o["acc"])
    n, a, b, regs, acc = key
    family = "int8" if acc == "s32" else "fp8"
    return f"wgmma {family} {n:03d} {a} {b} {int(regs)} {acc}", helper_8bit(*key)


# the wait's overloads for the accumulators that are not f32 (whose is in
# wgmma.h): kind -> (element type, what it is)
_WAIT_OVERLOADS = {
    "f16": ("vec<__half, 2>", "Float16x2 pairs (8-bit inputs, f16 D)"),
    "s32": ("int32_t", "Int32 (integer 8-bit inputs, s32 D)"),
}


def _wait_text(kind: str) -> str:
    elem, what = _WAIT_OVERLOADS[kind]
    return f"""\
// Waits as wgmma_wait<N, COUNT>(float*) does, for an accumulator of COUNT
// {what}: its registers held across the wait.
template <int N, int COUNT>
__device__ __forceinline__ void wgmma_wait({elem}* d)
{{
    uint32_t* D = reinterpret_cast<uint32_t*>(d);
    #pragma unroll
    for (int i = 0; i < COUNT; ++i)
        asm volatile("" : "+r"(D[i])::"memory");
    wgmma_wait<N>();
    #pragma unroll
    for (int i = 0; i < COUNT; ++i)
        asm volatile("" : "+r"(D[i])::"memory");
}}"""


def _wait_helper(c):
    """The wait's overload for Float16x2 or Int32 accumulators (None:
    f32's, in wgmma.h)."""
    kind = dict(c.options).get("acc")
    return (f"wgmma wait {kind}", _wait_text(kind)) if kind else None


def _lower_fence(lw, entry, args, kwargs):
    want_args(entry, args, 0)
    emit_statement(lw, entry)


def _lower_wait(lw, entry, args, kwargs):
    want_args(entry, args, 1, 2)
    n = args[0]
    try:
        n = lw.static_integer(n, f"{entry.spelled}(n)")
    except DSLError:
        n = None
    if n is None or not 0 <= n <= 7:
        raise error("wgmma-wait", callee=entry.spelled, got=lw.describe(args[0]))
    operands, options = (), (("n", n),)
    if len(args) == 2:
        address, width, kind = _accumulator(lw, entry, args[1])
        # the wait's register holds ("+f") write the accumulator: a device
        # function that only waits on one and reads it takes it writable
        lw.mark_written(args[1])
        count = width // 4 if kind == "f16" else width // 2
        operands, options = (address,), options + (("count", count),)
        if kind != "f32":
            options += (("acc", kind),)
    emit_statement(lw, entry, operands, options)


def _render_wait(r, c, args):
    o = dict(c.options)
    if "count" in o:
        return call(template("kdsl::wgmma_wait", o["n"], o["count"]), args[0])
    return call(template("kdsl::wgmma_wait", o["n"]))


def _lower_setmaxnreg(lw, entry, args, kwargs):
    want_args(entry, args, 1)
    inc = kwargs.pop("inc", True)
    if isinstance(inc, Boolean) and inc.is_static():
        inc = bool(inc.value)
    n = lw.static_integer(args[0], f"{entry.spelled}(n)")
    if not (24 <= n <= 256 and n % 8 == 0) or not isinstance(inc, bool):
        raise error("setmaxnreg-count", callee=entry.spelled, got=f"{n}, inc={inc!r}")
    emit_statement(lw, entry, (), (("n", n), ("inc", inc)))


def _render_setmaxnreg(r, c, args):
    o = dict(c.options)
    return call(template(f"kdsl::setmaxnreg_{'inc' if o['inc'] else 'dec'}", o["n"]))


# -- the interpreter -------------------------------------------------------------------
def _no_op(t, call, args, mask):
    """Synchronous: nothing is in flight; no register budget to change."""


def _interpret_desc(t, call, args, mask):
    """The descriptor of a dynamic shared view's element: its address is its
    byte offset in the block's dynamic shared memory, which kdsl aligns to
    1024 bytes on the GPU too (so the swizzle sees the same address bits)."""
    slot = args[0]
    base = getattr(slot.mem, "base", None)
    if base is None:
        t.gpu_only(call, "descriptors of static shared arrays (use a dynamic view)")
    o = dict(call.options)
    byte = slot.addr.astype(np.int64) * slot.mem.unit - base[mask]
    mode = {v: k for k, v in SWIZZLES.items()}[o["mode"]]
    out = np.zeros(t.n, np.uint64)
    out[mask] = [descriptor(int(b), o["lbo"], o["sbo"], mode) for b in byte]
    return out


def _decode(desc: int) -> tuple[int, int, int, int]:
    """``(address, lbo, sbo, mode)`` in bytes of a descriptor."""
    return (
        (desc & 0x3FFF) << 4,
        ((desc >> 16) & 0x3FFF) << 4,
        ((desc >> 32) & 0x3FFF) << 4,
        desc >> 62,
    )


def read_tile(data, base: int, desc: int, rows: int, dtype, k_major=True):
    """The (rows x 16) tile (8-bit ``dtype``: rows x 32), element (r, k),
    that a 128-byte-swizzle descriptor describes, as float64, from the
    block's shared bytes ``data[base:]``.  K-major (A, or B^T): element (r,
    k) at byte ``address + (r // 8) sbo + (r % 8) 128 + w k`` (``w`` the
    element's bytes, 2 or 1); MN-major (16-bit only) (``k_major=False``: B stored
    K x N, row k holding columns r): at ``address + (r // 64) lbo + 2 (r %
    64) + (k // 8) sbo + (k % 8) 128``, 64 columns to a 128-byte row, 8 rows
    to a 1024-byte atom (CuTe's ``Layout_MN_SW128_Atom``).  Bits 4-6 of each
    address are XORed with bits 7-9 (the hardware's 128-byte swizzle)."""
    address, lbo, sbo, mode = _decode(desc)
    width = np.dtype(_NUMPY[dtype]).itemsize
    r = np.arange(rows)[:, None]
    k = np.arange(32 // width)[None, :]
    if k_major:
        at = address + (r // 8) * sbo + (r % 8) * 128 + width * k
    else:
        at = address + (r // 64) * lbo + 2 * (r % 64) + (k // 8) * sbo + (k % 8) * 128
    at = at ^ (((at >> 7) & 7) << 4)
    raw = np.stack([data[base + at + i] for i in range(width)], -1)
    raw = np.ascontiguousarray(raw.astype(np.uint8))
    return raw.view(_NUMPY[dtype])[..., 0].astype(np.float64)


def a_fragment_layout(fp8: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``(row, col)``, each (128, 8) (``fp8``: (128, 16)): element ``e`` of
    warpgroup thread ``t``'s A fragment (the ``T x8``, 8-bit ``T x16``, that
    ``wgmma_mma_async`` takes in place of A's descriptor) is A's ``(row[t,
    e], col[t, e])``: warp ``w`` holds rows 16 w … 16 w + 15 as mma.sync
    m16n8k16's A fragment (8-bit: m16n8k32's)."""
    if fp8:
        row, col = mma.layout("m16n8k32", "a", Float8E4M3FN)  # (32, 16)
    else:
        row, col = mma.layout("m16n8k16", "a", BFloat16)  # (32, 8)
    t = np.arange(128)
    return row[t % 32] + 16 * (t // 32)[:, None], col[t % 32]


def _interpret_mma(t, call, args, mask):
    acc, a_arg, desc_b, scale_d = args
    o = dict(call.options)
    n = o["n"]
    fp8 = "dtype_b" in o
    k_depth = 32 if fp8 else 16
    registers = isinstance(a_arg, tuple)  # A's fragments, a T x8 (x16) a thread
    integer = o.get("acc") == "s32"  # exact: int64 sums, wrapped to Int32
    exact = np.int64 if integer else np.float64
    groups = t.warpgroups(call, mask)  # (groups, 128)
    full = np.zeros((t.n, n // 2), np.int64 if integer else np.float32)
    where = np.flatnonzero(mask)
    for i in range(n // 2):
        full[where, i] = acc.mem.data[acc.addr + i]
    addr = np.zeros(t.n, np.int64)
    addr[where] = acc.addr
    row, col = accumulator_layout(n)
    if registers:
        frags = np.stack([np.asarray(p).astype(np.float64) for p in a_arg], -1)
        a_row, a_col = a_fragment_layout(fp8)
    for threads in groups:
        db, scale = desc_b[threads], scale_d[threads]
        da = None if registers else a_arg[threads]
        same = [db, scale] if registers else [da, db, scale]
        if any((v != v[0]).any() for v in same):
            t.gpu_only(call, "descriptors or scale_d that differ across a warpgroup")
        descs = [int(db[0])] if registers else [int(da[0]), int(db[0])]
        if any(_decode(d)[3] != 1 for d in descs):
            t.gpu_only(call, "swizzle modes other than 128 bytes")
        data, base = t.shared_bytes(call, threads[:1])
        if registers:
            a = np.zeros((64, k_depth))
            a[a_row, a_col] = frags[threads]
        else:
            a = read_tile(data, int(base[0]), int(da[0]), 64, o["dtype"])
        b_type = o.get("dtype_b", o["dtype"])
        b = read_tile(
            data, int(base[0]), int(db[0]), n, b_type, k_major=not o["trans_b"]
        )
        a, b = a.astype(exact), b.astype(exact)
        d = np.zeros((64, n), exact)
        if scale[0]:
            d[row, col] = full[threads]
        # products exact in float64 (8-bit ones in f32 too), summed in k order
        # (integers: in int64, then wrapped to Int32 as the hardware's
        # .satfinite-free sum, whose order cannot matter)
        for k in range(k_depth):
            d += a[:, k, None] * b[None, :, k]
        if integer:
            full[threads] = (d[row, col] + 2**31) % 2**32 - 2**31
        else:
            rounded = np.float16 if o.get("acc") == "f16" else np.float32
            full[threads] = d[row, col].astype(rounded)
    for i in range(n // 2):
        acc.mem.data[addr[where] + i] = full[where, i]


_SM90A = "(sm_90a: the instance compiles for it and runs on compute capability 9.0)"

register(
    "wgmma_desc",
    "`kdsl.wgmma_desc(tile, index, swizzle=128, lbo=16, sbo=1024)`: the 64-bit "
    "wgmma matrix descriptor (Uint64) of the shared-memory tile starting at "
    "`tile[index]`: swizzle mode 128, 64, 32 or 0 bytes, leading and stride byte "
    "offsets (compile-time multiples of 16); add `2 k` to step 32 k bytes along "
    "K (the interpreter: dynamic shared views only)",
    _lower_desc,
    cuda=_render_desc,
    interpret=_interpret_desc,
    keywords=("swizzle", "lbo", "sbo"),
    prelude=PRELUDE,
)
register(
    "wgmma_mma_async",
    "`kdsl.wgmma_mma_async(acc, a, desc_b, T, scale_d=True, trans_b=False)`: a "
    "warpgroup's D (64 x N, f32) = A (64 x 16) * B (16 x N) + D (`scale_d=False`: "
    "+ 0), A and B `T` (BFloat16 or Float16) tiles in shared memory given by "
    "descriptors, K-major (`trans_b=True`: B MN-major, K x N stored row by row), "
    "or A from registers (`a` this thread's `T x8` fragment, mma.sync's A layout "
    "a warp), each thread's N / 2 elements of D in `acc`, a "
    "`local_array(Float32, (N // 2,))` (N any multiple of 8 up to 256; layout in "
    "docs/tensor-cores.md); with 8-bit `T` (Float8E4M3FN or Float8E5M2, or a pair "
    "`(TA, TB)` of them) A (64 x 32) * B (32 x N), N any multiple of 8 up to 256, "
    "K-major only, A from registers a `TA x16`, and `acc` f32 or f16 (a "
    "`local_array(Float16x2, (N // 4,))`); with integer 8-bit `T` (Int8 or Uint8, "
    "or a pair of them) likewise m64nNk32, `acc` a `local_array(Int32, (N // 2,))` "
    "(N 8, 16, 24 or a multiple of 16 up to 256), the sums wrapping; PTX "
    "`wgmma.mma_async.sync.aligned.m64nNk16` (8-bit: `m64nNk32`) "
    + _SM90A
    + " — every thread of the warpgroup (the interpreter: 128-byte swizzle)",
    _lower_mma,
    cuda=_render_mma,
    interpret=_interpret_mma,
    keywords=("scale_d", "trans_b"),
    prelude=PRELUDE,
    arch=ARCH,
    helper=_helper,
)
register(
    "wgmma_fence",
    "`kdsl.wgmma_fence()`: orders this thread's accumulator and shared-memory "
    "accesses before the next `wgmma_mma_async`; PTX `wgmma.fence` " + _SM90A,
    _lower_fence,
    cuda=lambda r, c, args: call("kdsl::wgmma_fence"),
    interpret=_no_op,
    prelude=PRELUDE,
    arch=ARCH,
)
register(
    "wgmma_commit",
    "`kdsl.wgmma_commit()`: closes the group of `wgmma_mma_async` calls since "
    "the last commit; PTX `wgmma.commit_group` " + _SM90A,
    _lower_fence,
    cuda=lambda r, c, args: call("kdsl::wgmma_commit"),
    interpret=_no_op,
    prelude=PRELUDE,
    arch=ARCH,
)
register(
    "wgmma_wait",
    "`kdsl.wgmma_wait(n, acc=None)`: waits until at most `n` (compile-time 0 … "
    "7) committed groups are pending; then the finished groups' accumulators "
    "(pass `acc` to keep the compiler from moving its reads across the wait) "
    "may be read; PTX `wgmma.wait_group` " + _SM90A,
    _lower_wait,
    cuda=_render_wait,
    interpret=_no_op,
    prelude=PRELUDE,
    arch=ARCH,
    helper=_wait_helper,
)
register(
    "fence_proxy_async",
    "`kdsl.fence_proxy_async()`: makes this thread's earlier shared-memory "
    "writes (stores, `cp_async` copies it has waited for) visible to the async "
    "proxy that `wgmma_mma_async` reads through; call it before the barrier "
    "after which a warpgroup multiplies them; PTX `fence.proxy.async.shared::cta` "
    "(sm_90)",
    _lower_fence,
    cuda=lambda r, c, args: call("kdsl::fence_proxy_async"),
    interpret=_no_op,
    prelude=PRELUDE,
)
register(
    "setmaxnreg",
    "`kdsl.setmaxnreg(n, inc=True)`: raises (`inc=False`: lowers) the registers "
    "of each thread of this warpgroup to `n` (compile-time, 24 … 256, a multiple "
    "of 8), for warp-specialised kernels (declare `launch_bounds=(threads, 1)`, "
    'or `("THREADS", 1)` for a block size each instance has: without it ptxas '
    "cannot tell the count at entry and ignores the call); "
    "PTX `setmaxnreg` " + _SM90A,
    _lower_setmaxnreg,
    cuda=_render_setmaxnreg,
    interpret=_no_op,
    keywords=("inc",),
    prelude=PRELUDE,
    arch=ARCH,
)
