"""Kernels of cache-hinted loads and stores (``kdsl.ldcs`` …), shared by
tests/lowering/test_cache_hints.py and the GPU test."""

import kdsl
from kdsl import Constexpr, Int32, Pointer

T = kdsl.TypeVar("T")
ALL = [
    "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64",
    "f16", "bf16", "f32", "f64", "bool", "f8e4m3fn", "f8e5m2",
]  # fmt: skip


@kdsl.kernel(dtypes=ALL)
def every_hint(x: Pointer[T], y: Pointer[T], n: Int32):
    """y[6 i + k] = x[i], loaded and stored with each hint."""
    i = kdsl.block_idx.x * kdsl.block_dim.x + kdsl.thread_idx.x
    if i < n:
        kdsl.stwb(y, 6 * i, kdsl.ldg(x, i))
        kdsl.stcg(y, 6 * i + 1, kdsl.ldca(x, i))
        kdsl.stcs(y, 6 * i + 2, kdsl.ldcg(x, i))
        kdsl.stwt(y, 6 * i + 3, kdsl.ldcs(x, i))
        kdsl.stcs(y, 6 * i + 4, kdsl.ldlu(x, i))
        kdsl.stcs(y, 6 * i + 5, kdsl.ldcv(x, i))


@kdsl.kernel(dtypes=ALL)
def every_hint_vec(x: Pointer[T], y: Pointer[T], n: Int32, V: Constexpr[int] = 4):
    """The same on vectors of V lanes (``x.vec(V)``); n counts vectors."""
    i = kdsl.block_idx.x * kdsl.block_dim.x + kdsl.thread_idx.x
    xv, yv = x.vec(V), y.vec(V)
    if i < n:
        kdsl.stwb(yv, 6 * i, kdsl.ldg(xv, i))
        kdsl.stcg(yv, 6 * i + 1, kdsl.ldca(xv, i))
        kdsl.stcs(yv, 6 * i + 2, kdsl.ldcg(xv, i))
        kdsl.stwt(yv, 6 * i + 3, kdsl.ldcs(xv, i))
        kdsl.stcs(yv, 6 * i + 4, kdsl.ldlu(xv, i))
        kdsl.stcs(yv, 6 * i + 5, kdsl.ldcv(xv, i))


@kdsl.kernel
def scale_streaming(
    x: Pointer[kdsl.Float32], y: Pointer[kdsl.Float32], n: Int32, s: kdsl.Float32
):
    """y = s * x, four floats at a time, streamed through (read once,
    written once: ``ldcs``/``stcs`` keep them from evicting other data)."""
    i = kdsl.block_idx.x * kdsl.block_dim.x + kdsl.thread_idx.x
    if i < n // 4:
        kdsl.stcs(y.vec(4), i, kdsl.ldcs(x.vec(4), i) * s)
    elif i < n // 4 + n % 4:  # the tail, one float a thread
        j = n // 4 * 4 + (i - n // 4)
        kdsl.stcs(y, j, kdsl.ldcs(x, j) * s)


@kdsl.kernel
def rows_ldg(a: kdsl.Array[kdsl.Float32, 2], out: Pointer[kdsl.Float32]):
    """An ``Array`` element by its index tuple: out[r] = a[r, 0] + a[r, 1]."""
    r = kdsl.block_idx.x * kdsl.block_dim.x + kdsl.thread_idx.x
    if r < a.shape[0]:
        out[r] = kdsl.ldg(a, (r, 0)) + kdsl.ldg(a, (r, 1))
