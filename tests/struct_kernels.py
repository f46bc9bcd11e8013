"""Struct kernels (``@kdsl.struct``), shared by tests/lowering/test_structs.py
(interpreter, NVRTC, golden files in ``tests/golden/features/struct_kernels``)
and the GPU test."""

import kdsl
from kdsl import (
    Float16,
    Float32,
    Float32x4,
    Int8x4,
    Int8,
    Int32,
    Pointer,
    Uint8,
    Uint32,
    block_dim,
    block_idx,
    thread_idx,
)

QK8_0 = 32


@kdsl.struct
class BlockQ8_0:
    """llama.cpp's ``block_q8_0``: a scale and 32 signed bytes, 34 bytes."""

    d: Float16
    qs: Int8[QK8_0]


@kdsl.struct
class Pair:
    x: Float32
    y: Float32


@kdsl.struct
class Segment:
    """Nested structs and a vector field."""

    a: Pair
    b: Pair
    color: Float32x4
    id: Int32


@kdsl.struct(packed=True)
class Header:
    """An on-disk header: no padding (9 bytes), fields at odd offsets."""

    tag: Uint8
    count: Uint32
    scale: Float32


@kdsl.kernel(block="BLOCK")
def dequantize_q8_0(
    x: Pointer[BlockQ8_0],
    y: Pointer[Float32],
    n: Int32,
    BLOCK: kdsl.Constexpr[int] = 256,
):
    """``y[i] = d * qs[j]`` of element ``i`` (block ``i // 32``, byte ``i % 32``)."""
    i = block_idx.x * BLOCK + thread_idx.x
    if i < n:
        b = x[i // QK8_0]
        y[i] = b.d.to(Float32) * b.qs[i % QK8_0].to(Float32)


@kdsl.func
def midpoint(s: Segment) -> Pair:
    return Pair((s.a.x + s.b.x) * 0.5, (s.a.y + s.b.y) * 0.5)


@kdsl.kernel
def segments(segs: Pointer[Segment], mids: Pointer[Pair], shift: Pair, n: Int32):
    """A struct parameter by value, nested field reads, a device function
    taking and returning structs, field stores into a local and into memory."""
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < n:
        s = segs[i]
        m = midpoint(s)
        m.x += shift.x
        m.y = m.y + shift.y
        mids[i] = m
        segs[i].id = i
        segs[i].color[3] = 1.0
        segs[i].b = Pair(s.b.x * s.color[0], s.b.y)


@kdsl.kernel
def read_headers(h: Pointer[Header], out: Pointer[Float32], n: Int32):
    """Fields of a packed record at unaligned offsets."""
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < n:
        out[i] = h[i].scale * h[i].count.to(Float32) + h[i].tag.to(Float32)
        h[i].count = h[i].count + 1


@kdsl.kernel
def dot_q8_0(
    x: Pointer[BlockQ8_0], y: Pointer[BlockQ8_0], out: Pointer[Float32], nb: Int32
):
    """One thread a pair of blocks: the 32-byte integer dot product as 8
    ``kdsl.dp4a`` of ``Int8x4`` words, scaled by both ``d``."""
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < nb:
        sumi = Int32(0)
        for k in kdsl.range_constexpr(QK8_0 // 4):
            a = Int8x4(
                x[i].qs[4 * k],
                x[i].qs[4 * k + 1],
                x[i].qs[4 * k + 2],
                x[i].qs[4 * k + 3],
            )
            b = Int8x4(
                y[i].qs[4 * k],
                y[i].qs[4 * k + 1],
                y[i].qs[4 * k + 2],
                y[i].qs[4 * k + 3],
            )
            sumi = kdsl.dp4a(a, b, sumi)
        out[i] = x[i].d.to(Float32) * y[i].d.to(Float32) * sumi.to(Float32)


@kdsl.kernel
def byte_dots(a: Pointer[Uint32], b: Pointer[Uint32], out: Pointer[Uint32], n: Int32):
    """The unsigned forms on packed words."""
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < n:
        out[3 * i] = kdsl.dp4a(a[i], b[i], 0)
        out[3 * i + 1] = kdsl.dp2a_lo(a[i], b[i], out[3 * i])
        out[3 * i + 2] = kdsl.dp2a_hi(a[i], b[i], 1)
