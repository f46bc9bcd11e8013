"""Kernels of byte views (``p.view(T)``), constant tables and optional
pointers, shared by tests/lowering/test_lang11.py and the GPU test."""

import numpy as np

import kdsl
import kdsl.math
from kdsl import Float32, Int32, Pointer, Uint8, Uint32

# Constant tables: module-level arrays a kernel reads.
RAMP = (np.arange(40, dtype=np.float32) / np.float32(10)).astype(np.float32)
SIGNS = np.array([-128, 0, 5, 127], np.int8)


@kdsl.kernel
def floats_of_bytes(
    raw: Pointer[Uint8], out: Pointer[Float32], bits: Pointer[Uint32], n: Int32
):
    """Reads Float32 values out of a byte buffer, doubles them, and reads
    the doubled floats' bits back through a Uint32 view of ``out``."""
    i = kdsl.block_idx.x * kdsl.block_dim.x + kdsl.thread_idx.x
    if i < n:
        floats = raw.view(Float32)
        out[i] = floats[i] * 2.0
        bits[i] = out.view(Uint32)[i]


@kdsl.kernel
def quads_of_bytes(raw: Pointer[Uint8], out: Pointer[Float32], n: Int32):
    """A byte buffer read four floats at a time: .view(Float32).vec(4)."""
    i = kdsl.block_idx.x * kdsl.block_dim.x + kdsl.thread_idx.x
    if i < n:
        q = raw.view(Float32).vec(4)[i]
        out[i] = q[0] + q[1] + q[2] + q[3]


@kdsl.kernel
def words_of_a_view(raw: Pointer[Uint8], out: Pointer[Uint32], n: Int32):
    """A view held in a variable, viewed again: both const."""
    i = kdsl.block_idx.x * kdsl.block_dim.x + kdsl.thread_idx.x
    floats = raw.view(Float32)
    words = floats.view(Uint32)
    if i < n:
        out[i] = words[i]


@kdsl.func
def ramp_at(i: Int32) -> Float32:
    return RAMP[i]


@kdsl.kernel
def table_lookup(idx: Pointer[Int32], out: Pointer[Float32], n: Int32):
    """Constant tables read in the kernel and in a device function; a
    compile-time index folds to the element."""
    i = kdsl.block_idx.x * kdsl.block_dim.x + kdsl.thread_idx.x
    if i < n:
        k = idx[i]
        s = SIGNS[i % 4]
        out[i] = RAMP[k] * ramp_at(39 - k) + s.to(Float32) + RAMP[3]


@kdsl.kernel
def layer_norm(
    x: Pointer[Float32],
    weight: Pointer[Float32],
    bias: Pointer[Float32] | None,
    out: Pointer[Float32],
    rows: Int32,
    cols: Int32,
    eps: Float32,
):
    """One row a thread: (x - mean) / sqrt(var + eps) * weight (+ bias)."""
    row = kdsl.block_idx.x * kdsl.block_dim.x + kdsl.thread_idx.x
    if row < rows:
        base = row * cols
        total = Float32(0.0)
        for j in range(cols):
            total += x[base + j]
        mean = total / cols.to(Float32)
        squares = Float32(0.0)
        for j in range(cols):
            d = x[base + j] - mean
            squares += d * d
        scale = 1.0 / kdsl.math.sqrt(squares / cols.to(Float32) + eps)
        for j in range(cols):
            y = (x[base + j] - mean) * scale * weight[j]
            if bias is not None:
                y += bias[j]
            out[base + j] = y


@kdsl.kernel
def maybe_scaled(x: kdsl.Optional[Pointer[Float32]], out: Pointer[Float32], n: Int32):
    """``is None`` in both spellings, in an expression and a statement."""
    i = kdsl.thread_idx.x
    if i < n:
        if x is None:
            out[i] = -1.0
        else:
            out[i] = x[i] * 2.0
        out[i] += 1.0 if x is not None else 0.5
