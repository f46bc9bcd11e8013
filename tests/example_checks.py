"""Every example kernel against a float64 numpy reference, on a backend: the
GPU (CuPy, large sizes) or the CPU interpreter (numpy, small sizes).

Inputs are random, outputs are poisoned (NaN or a sentinel) before the launch,
so an element the kernel forgot to write fails the comparison.
"""

from __future__ import annotations

import itertools
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

from examples_index import example_modules
from kdsl import DSLError, Int32

EX = example_modules()
TOL = {"f16": 2e-3, "bf16": 1.6e-2, "f32": 2e-6, "f64": 1e-13}


@dataclass(frozen=True)
class Backend:
    """Where a check runs: ``to_device``/``to_host`` move numpy arrays,
    ``launcher(kernel, grid, block)`` is the launch, ``small`` picks sizes."""

    name: str
    to_device: Callable
    to_host: Callable
    launcher: Callable
    small: bool

    def size(self, large: int, small: int) -> int:
        return small if self.small else large

    def poison(self, shape, t):
        fill = 77 if t.kind == "int" else np.nan
        return self.to_device(np.full(shape, fill, dtype=t.np_dtype))


def interpreter_backend() -> Backend:
    return Backend(
        "interpreter",
        to_device=lambda a: np.array(a),
        to_host=lambda a: a,
        launcher=lambda k, grid, block=None: (
            k.interpret[grid] if block is None else k.interpret[grid, block]
        ),
        small=True,
    )


def gpu_backend(cp) -> Backend:
    return Backend(
        "gpu",
        to_device=cp.asarray,
        to_host=cp.asnumpy,
        launcher=lambda k, grid, block=None: (
            k[grid] if block is None else k[grid, block]
        ),
        small=False,
    )


def _random(rng, shape, t, lo=-4.0, hi=4.0):
    if t.kind == "int":
        info = np.iinfo(t.np_dtype)
        return rng.integers(max(info.min, -100), min(info.max, 100), shape).astype(
            t.np_dtype
        )
    return rng.uniform(lo, hi, shape).astype(t.np_dtype)


def _close(be, got, want, t, scale=None):
    got = be.to_host(got).astype(np.float64)
    if t.kind == "int":
        np.testing.assert_array_equal(got, want)
        return
    scale = np.abs(want).max() if scale is None else scale
    err = np.abs(got - want).max() / max(scale, 1e-30)
    assert not np.isnan(got).any()
    assert err <= TOL[t.short] * 4, f"{t.__name__}: relative error {err:.3g}"


def _grid(n, block):
    return (n + block - 1) // block


def vector_add(be, t, rng):
    n = be.size(1_000_003, 3001)
    x, y = _random(rng, n, t), _random(rng, n, t)
    out = be.poison(n, t)
    kernel = EX["vector_add"].vector_add
    be.launcher(kernel, _grid(n, 256), 256)(be.to_device(x), be.to_device(y), out, n)
    with np.errstate(over="ignore"):
        want = (x + y).astype(t.np_dtype) if t.kind == "int" else x.astype(float) + y
    _close(be, out, want.astype(np.float64), t)


def vector_add_x4(be, t, rng):
    n = be.size(1 << 20, 4096)
    x, y = _random(rng, n, t), _random(rng, n, t)
    out = be.poison(n, t)
    kernel = EX["vector_add"].vector_add_x4
    be.launcher(kernel, _grid(n // 4, 256), 256)(
        be.to_device(x), be.to_device(y), out, n
    )
    _close(be, out, x.astype(np.float64) + y, t)


def add(be, t, rng):
    # Ragged sizes: whole vectors, a tail shorter than one vector, fewer
    # elements than one vector, several blocks.
    kernel = EX["vector_add"].add
    lanes = 16 // t.np_dtype.itemsize
    for n in (be.size(1_000_003, 3001), lanes - 1, 5 * lanes + 3):
        x, y = _random(rng, n, t), _random(rng, n, t)
        out = be.poison(n, t)
        grid = EX["vector_add"].add_grid(n, t.np_dtype.itemsize, 128, 2)
        be.launcher(kernel, grid)(  # block="BLOCK": 128 threads a block
            be.to_device(x), be.to_device(y), out, n, BLOCK=128, UNROLL=2
        )
        with np.errstate(over="ignore"):
            if t.kind == "int":
                want = (x + y).astype(t.np_dtype)
            else:
                want = x.astype(float) + y
        _close(be, out, want.astype(np.float64), t)


def saxpy(be, t, rng):
    lanes = 16 // t.np_dtype.itemsize
    for n in (be.size(300_001, 3001), lanes - 1):  # a ragged tail; a tail only
        x, y = _random(rng, n, t), _random(rng, n, t)
        a = 1.5
        dy = be.to_device(y)
        grid = be.size(37, 2)  # fewer threads than vectors: the grid-stride loop
        be.launcher(EX["saxpy"].saxpy, grid, 128)(a, be.to_device(x), dy, n)
        want = a * x.astype(np.float64) + y.astype(np.float64)
        _close(be, dy, want, t)


def _gelu(v):
    c = math.sqrt(2 / math.pi)
    return 0.5 * v * (1 + np.tanh(c * (v + 0.044715 * v**3)))


def _gelu_slope(v):
    c = math.sqrt(2 / math.pi)
    t = np.tanh(c * (v + 0.044715 * v**3))
    return 0.5 * (1 + t) + 0.5 * v * (1 - t * t) * c * (1 + 3 * 0.044715 * v * v)


def gelu(be, t, rng):
    g = EX["gelu"]
    computed = t  # Float32 inside for the 16-bit types, Float64 for Float64
    lanes = 16 // t.np_dtype.itemsize
    for n in (be.size(100_003, 2003), lanes - 1):  # a ragged tail, a tail only
        x = _random(rng, n, t)
        y = be.poison(n, t)
        grid = g.gelu_grid(n, t.np_dtype.itemsize)
        be.launcher(g.gelu, grid, 256)(be.to_device(x), y, n)
        xv = x.astype(np.float64)
        _close(be, y, _gelu(xv), computed)
        go = _random(rng, n, t)
        gi = be.poison(n, t)
        be.launcher(g.gelu_backward, grid, 256)(
            be.to_device(x), be.to_device(go), gi, n
        )
        want = go.astype(np.float64) * _gelu_slope(xv)
        _close(be, gi, want, computed, scale=np.abs(want).max())


def _softmax_ref(x):
    xv = x.astype(np.float64)
    e = np.exp(xv - xv.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _f32_inside(t):
    """The tolerance type of a kernel computing in Float32 (in Float64 for
    Float64 data)."""
    return t if t.short in ("f16", "bf16", "f64") else EX["softmax"].kdsl.Float32


# (rows, cols): ragged widths (cols not a multiple of the 16-byte vector: the
# narrower vectors; odd: scalar accesses) and rows not a multiple of a block's
# rows (masked threads)
ROW_SHAPES = {
    True: [(5, 300), (3, 333), (2, 24)],
    False: [(64, 1000), (37, 4098), (9, 12000), (33, 3001)],
}


def _row_shapes(be, t):
    """ROW_SHAPES whose rows fit the register kernels for ``t`` (12000
    Float64 columns do not: the host functions send such rows to the online
    kernel)."""
    size = t.np_dtype.itemsize
    longest = EX["softmax"].longest_in_registers
    return [(r, c) for r, c in ROW_SHAPES[be.small] if c <= longest(c, size)]


def _tuned_rows(be, tuned, rows):
    """The launch of an autotuned row kernel: ROWS rows a block, WARPS warps
    a row (the example's own host functions launch the same way)."""
    grid = lambda m: (rows + m["ROWS"] - 1) // m["ROWS"]  # noqa: E731
    block = lambda m: (32 * m["WARPS"], m["ROWS"])  # noqa: E731
    return be.launcher(tuned, grid, block)


def _row_layouts(t, cols):
    """Layouts besides the autotuner's first: several warps a row (the block
    reduction through shared memory), two rows a block, more chunks than
    needed (masked vectors)."""
    vec = EX["block_reduce"].vector_lanes(cols, t.np_dtype.itemsize)
    out = []
    for warps, rows_per_block in ((2, 2), (4, 1)):
        chunks = 1
        while warps * 32 * vec * chunks < cols:
            chunks *= 2
        out.append(dict(VEC=vec, WARPS=warps, ROWS=rows_per_block, CHUNKS=chunks * 2))
    return out


def _fixed_rows(be, kernel, rows, config):
    grid = (rows + config["ROWS"] - 1) // config["ROWS"]
    launch = be.launcher(kernel, grid, (32 * config["WARPS"], config["ROWS"]))
    return lambda *args: launch(*args, **config)


def softmax(be, t, rng):
    mod = EX["softmax"]
    for rows, cols in _row_shapes(be, t):
        x = _random(rng, (rows, cols), t)
        want = _softmax_ref(x)
        y = be.poison((rows, cols), t)
        _tuned_rows(be, mod.softmax_rows_tuned, rows)(be.to_device(x), y, rows, cols)
        _close(be, y, want, _f32_inside(t))
        for config in _row_layouts(t, cols):
            y = be.poison((rows, cols), t)
            _fixed_rows(be, mod.softmax_rows, rows, config)(
                be.to_device(x), y, rows, cols
            )
            _close(be, y, want, _f32_inside(t))
        # the backward kernel: dx = y * (dy - sum(dy * y)) per row
        yt = want.astype(t.np_dtype)
        dy = _random(rng, (rows, cols), t)
        yv, dyv = yt.astype(np.float64), dy.astype(np.float64)
        want_dx = yv * (dyv - (dyv * yv).sum(axis=1, keepdims=True))
        for config in _row_layouts(t, cols):
            dx = be.poison((rows, cols), t)
            _fixed_rows(be, mod.softmax_rows_backward, rows, config)(
                be.to_device(yt), be.to_device(dy), dx, rows, cols
            )
            _close(be, dx, want_dx, _f32_inside(t))


def softmax_online(be, t, rng):
    mod = EX["softmax"]
    # 200 KB of Float32 a row on the GPU (fits the shared memory of a block)
    for rows, cols in ((be.size(40, 3), be.size(50_000, 1000)), (2, be.size(3001, 77))):
        x = _random(rng, (rows, cols), t)
        x[0, :] = -30.0  # a row whose maximum comes late: the sum is rescaled
        x[0, -1] = 5.0
        want = _softmax_ref(x)
        vec = EX["block_reduce"].vector_lanes(cols, t.np_dtype.itemsize)
        # the row cached in shared memory where it fits, as the host function
        # decides (50,000 Float64 columns do not)
        fits = mod.cached_in_shared(cols, t.np_dtype.itemsize)
        # (WARPS, UNROLL): one vector in flight a thread, four (with one
        # warp: a whole batch and a ragged one, vectors past the row), and
        # the 16 the host function takes for scalars
        layouts = ((8, 1), (1, 4), (2, 16))
        for cache, (warps, unroll) in itertools.product(
            (True, False) if fits else (False,), layouts
        ):
            y = be.poison((rows, cols), t)
            shared = cols * t.np_dtype.itemsize if cache else 0
            be.launcher(mod.softmax_online, rows, 32 * warps)(
                be.to_device(x),
                y,
                cols,
                VEC=vec,
                WARPS=warps,
                CACHE=cache,
                UNROLL=unroll,
                shared_mem=shared,
            )
            _close(be, y, want, _f32_inside(t))


def softmax_split(be, t, rng):
    """Few wide rows split over blocks (a grid barrier between the chunks'
    (max, sum) pairs and the stores): the chunks softmax.plan picks for a
    GPU of ``sms`` multiprocessors, ragged last chunks, a row whose maximum
    is in its last chunk."""
    mod = EX["softmax"]
    size = t.np_dtype.itemsize
    sms = be.size(132, 6)
    for rows, cols in ((be.size(7, 2), be.size(40_000, 900)), (3, be.size(3001, 77))):
        x = _random(rng, (rows, cols), t)
        x[0, :] = -30.0
        x[0, -1] = 5.0
        want = _softmax_ref(x)
        path, p = mod.plan(rows, cols, size, sms, online=True)
        assert path == "split", (rows, cols, path)
        # (WARPS, UNROLL, CACHE): the chunk in shared memory, or read again
        for warps, unroll, cache in ((16, 4, True), (1, 2, False)):
            y = be.poison((rows, cols), t)
            stats = be.to_device(np.full(2 * rows * p["splits"], np.nan))
            be.launcher(mod.softmax_split, (rows, p["splits"]), 32 * warps)(
                be.to_device(x),
                y,
                stats,
                cols,
                p["chunk"],
                VEC=p["VEC"],
                WARPS=warps,
                UNROLL=unroll,
                CACHE=cache,
                shared_mem=p["chunk"] * p["VEC"] * size if cache else 0,
            )
            _close(be, y, want, _f32_inside(t))


def _layer_norm_ref(x, w, b, eps):
    xv = x.astype(np.float64)
    mean = xv.mean(axis=1, keepdims=True)
    var = ((xv - mean) ** 2).mean(axis=1, keepdims=True)
    out = (xv - mean) / np.sqrt(var + eps)
    if w is not None:
        out = out * w.astype(np.float64)
    if b is not None:
        out = out + b.astype(np.float64)
    return out


def _layer_norm_backward_ref(x, w, dy, eps):
    """(dx, dweight, dbias) in Float64."""
    xv, dyv = x.astype(np.float64), dy.astype(np.float64)
    mean = xv.mean(axis=1, keepdims=True)
    rstd = 1 / np.sqrt(((xv - mean) ** 2).mean(axis=1, keepdims=True) + eps)
    xhat = (xv - mean) * rstd
    g = dyv if w is None else dyv * w.astype(np.float64)
    a = g.mean(axis=1, keepdims=True)
    b = (g * xhat).mean(axis=1, keepdims=True)
    return rstd * (g - a - xhat * b), (dyv * xhat).sum(axis=0), dyv.sum(axis=0)


def _maybe(be, a):
    return None if a is None else be.to_device(a)


def layer_norm(be, t, rng):
    mod = EX["layer_norm"]
    eps = 1e-5
    for rows, cols in _row_shapes(be, t):
        x = _random(rng, (rows, cols), t) + 3  # a mean far from 0
        w = _random(rng, cols, t, 0.5, 1.5)
        b = _random(rng, cols, t, -1, 1)
        for weight, bias in ((w, b), (None, None), (w, None), (None, b)):
            y = be.poison((rows, cols), t)
            _tuned_rows(be, mod.layer_norm_tuned, rows)(
                be.to_device(x),
                _maybe(be, weight),
                _maybe(be, bias),
                y,
                rows,
                cols,
                eps,
            )
            _close(be, y, _layer_norm_ref(x, weight, bias, eps), _f32_inside(t))
        for config in _row_layouts(t, cols):
            y = be.poison((rows, cols), t)
            args = (
                be.to_device(x),
                be.to_device(w),
                be.to_device(b),
                y,
                rows,
                cols,
                eps,
            )
            _fixed_rows(be, mod.layer_norm, rows, config)(*args)
            _close(be, y, _layer_norm_ref(x, w, b, eps), _f32_inside(t))
        dy = _random(rng, (rows, cols), t)
        for weight, config in zip((w, None), _row_layouts(t, cols)):
            want_dx, want_dw, want_db = _layer_norm_backward_ref(x, weight, dy, eps)
            dx = be.poison((rows, cols), t)
            dw = be.to_device(np.zeros(cols, np.float64))  # sums in Float64
            db = be.to_device(np.zeros(cols, np.float64))
            _fixed_rows(be, mod.layer_norm_backward, rows, config)(
                be.to_device(x),
                _maybe(be, weight),
                be.to_device(dy),
                dx,
                None if weight is None else dw,
                db,
                rows,
                cols,
                eps,
            )
            _close(be, dx, want_dx, _f32_inside(t))
            # summed over the rows by atomics in Float64: the products' rounding
            sums = _f32_inside(t)
            _close(be, db, want_db, sums, scale=np.abs(dy).sum(axis=0).max())
            if weight is not None:
                _close(be, dw, want_dw, sums, scale=np.abs(dy).sum(axis=0).max())


def rms_norm(be, t, rng):
    mod = EX["rms_norm"]
    eps = 1e-6
    for rows, cols in _row_shapes(be, t):
        x = _random(rng, (rows, cols), t)
        r = _random(rng, (rows, cols), t)
        w = _random(rng, cols, t, 0.5, 1.5)
        for residual, weight in ((r, w), (None, None), (None, w), (r, None)):
            y = be.poison((rows, cols), t)
            dres = _maybe(be, residual)
            _tuned_rows(be, mod.rms_norm_tuned, rows)(
                be.to_device(x), dres, _maybe(be, weight), y, rows, cols, eps
            )
            h = x.astype(np.float64)
            if residual is not None:  # updated in place, rounded once to t
                h = (h + residual.astype(np.float64)).astype(t.np_dtype)
                np.testing.assert_array_equal(be.to_host(dres), h)
                h = h.astype(np.float64)
            want = h / np.sqrt((h * h).mean(axis=1, keepdims=True) + eps)
            if weight is not None:
                want = want * weight.astype(np.float64)
            _close(be, y, want, _f32_inside(t))
        h = x.astype(np.float64)
        want = h / np.sqrt((h * h).mean(axis=1, keepdims=True) + eps) * w
        for config in _row_layouts(t, cols):
            y = be.poison((rows, cols), t)
            args = (be.to_device(x), None, be.to_device(w), y, rows, cols, eps)
            _fixed_rows(be, mod.rms_norm, rows, config)(*args)
            _close(be, y, want, _f32_inside(t))


# rows for the wide-row norms: odd (scalars) and even widths; on the GPU
# past what registers hold (16384 Float32, 4096 when odd)
WIDE_SHAPES = {True: [(3, 333), (2, 1000)], False: [(37, 70_000), (9, 20_001)]}


def _wide(be, kernel, rows, cols, t, cache, *args):
    """A wide-row norm launch: a block a row, cached or not."""
    size = t.np_dtype.itemsize
    vec = EX["block_reduce"].vector_lanes(cols, size)
    launch = be.launcher(kernel, rows, 32 * 16)
    launch(
        *args,
        VEC=vec,
        CACHE=cache,
        shared_mem=cols * size if cache else 0,
    )


def layer_norm_wide(be, t, rng):
    """``layer_norm_wide``: the row in shared memory (weight and bias), and
    read again from memory (neither); 70,000 Float64 columns do not fit."""
    mod = EX["layer_norm"]
    eps = 1e-5
    for rows, cols in WIDE_SHAPES[be.small]:
        x = _random(rng, (rows, cols), t) + 3  # a mean far from 0
        w = _random(rng, cols, t, 0.5, 1.5)
        b = _random(rng, cols, t, -1, 1)
        fits = EX["softmax"].cached_in_shared(cols, t.np_dtype.itemsize)
        for (weight, bias), cache in (((w, b), fits), ((None, None), False)):
            y = be.poison((rows, cols), t)
            args = (be.to_device(x), _maybe(be, weight), _maybe(be, bias), y)
            _wide(be, mod.layer_norm_wide, rows, cols, t, cache, *args, cols, eps)
            _close(be, y, _layer_norm_ref(x, weight, bias, eps), _f32_inside(t))


def rms_norm_wide(be, t, rng):
    """``rms_norm_wide``: with a residual (updated in place) and a weight,
    cached; with neither, read twice."""
    mod = EX["rms_norm"]
    eps = 1e-6
    for rows, cols in WIDE_SHAPES[be.small]:
        x = _random(rng, (rows, cols), t)
        r = _random(rng, (rows, cols), t)
        w = _random(rng, cols, t, 0.5, 1.5)
        fits = EX["softmax"].cached_in_shared(cols, t.np_dtype.itemsize)
        for (residual, weight), cache in (((r, w), fits), ((None, None), False)):
            y = be.poison((rows, cols), t)
            dres = _maybe(be, residual)
            args = (be.to_device(x), dres, _maybe(be, weight), y, cols, eps)
            _wide(be, mod.rms_norm_wide, rows, cols, t, cache, *args)
            h = x.astype(np.float64)
            if residual is not None:  # updated in place, rounded once to t
                h = (h + residual.astype(np.float64)).astype(t.np_dtype)
                np.testing.assert_array_equal(be.to_host(dres), h)
                h = h.astype(np.float64)
            want = h / np.sqrt((h * h).mean(axis=1, keepdims=True) + eps)
            if weight is not None:
                want = want * weight.astype(np.float64)
            _close(be, y, want, _f32_inside(t))


def _reduce(be, t, kernel, x, grid):
    """out[0] of a reduction kernel launched on ``grid`` blocks of 256."""
    out = be.to_device(np.full(1, np.nan, dtype=np.float32))
    partials = be.to_device(np.full(grid, np.nan, dtype=np.float32))
    arrived = be.to_device(np.zeros(1, dtype=np.uint32))
    vec = 16 // t.np_dtype.itemsize
    launch = be.launcher(kernel, grid, 256)
    for _ in range(2):  # the last block resets the counter: launch again
        launch(be.to_device(x), out, partials, arrived, x.size, VEC=vec, WARPS=8)
    assert be.to_host(arrived)[0] == 0
    return be.to_host(out)[0]


def reduce_sum(be, t, rng):
    mod = EX["reduce_sum"]
    for n, grid in ((be.size(1_234_567, 5003), be.size(300, 3)), (be.size(1000, 7), 2)):
        x = _random(rng, n, t)
        got = _reduce(be, t, mod.reduce_sum, x, grid)
        want = x.astype(np.float64).sum()
        scale = np.abs(x).astype(np.float64).sum() * 1e-2
        assert abs(got - want) <= scale * TOL["f32"] * 4, (got, want)


def reduce_max(be, t, rng):
    mod = EX["reduce_sum"]
    for n, grid in ((be.size(1_234_567, 5003), be.size(300, 3)), (be.size(1000, 7), 2)):
        x = _random(rng, n, t)
        x[n - 1] = 9.0  # the maximum in the tail
        assert _reduce(be, t, mod.reduce_max, x, grid) == 9.0
        x[n - 1] = -9.0  # and elsewhere
        got = _reduce(be, t, mod.reduce_max, x, grid)
        assert got == np.float32(x.astype(np.float32).max())


def histogram(be, t, rng):
    mod = EX["histogram"]
    lo, hi = -0.75, 0.75
    lanes = 16 // t.np_dtype.itemsize
    for n in (be.size(2_000_003, 5003), lanes - 1):  # a ragged tail; a tail only
        x = _random(rng, n, t, -1.0, 1.0)
        counts = be.to_device(np.zeros(256, dtype=np.int32))
        # fewer blocks than vectors: the grid-stride loop and several merges
        grid = min(mod.histogram_grid(n, t.np_dtype.itemsize), be.size(40, 2))
        be.launcher(mod.histogram, grid)(be.to_device(x), counts, n, lo, hi)
        v = x.astype(np.float32)
        f32 = np.float32
        scale = f32(256) / (f32(hi) - f32(lo))
        inside = (v >= f32(lo)) & (v < f32(hi))
        b = ((v[inside] - f32(lo)) * scale).astype(np.int32)
        want = np.bincount(np.minimum(b, 255), minlength=256)
        np.testing.assert_array_equal(be.to_host(counts), want)


def transpose(be, t, rng):
    for rows, cols in ((be.size(1000, 70), be.size(777, 45)), (64, 32)):
        a = _random(rng, (rows, cols), t)
        out = be.poison((cols, rows), t)
        grid = (_grid(cols, 32), _grid(rows, 32))
        be.launcher(EX["transpose"].transpose, grid, (32, 8))(be.to_device(a), out)
        np.testing.assert_array_equal(be.to_host(out), a.T)


def transpose_tiled(be, t, rng):
    """Contiguous, any shape: ragged tiles on both sides (odd and prime
    sizes), fewer rows than a tile, and 64- and 32-wide tiles."""
    sizes = ((be.size(1031, 70), be.size(777, 45)), (be.size(31, 3), be.size(4097, 67)))
    for (rows, cols), tile in itertools.product(sizes, (64, 32)):
        a = _random(rng, (rows, cols), t)
        out = be.poison((cols, rows), t)
        grid = (_grid(cols, tile), _grid(rows, tile))
        be.launcher(EX["transpose"].transpose_tiled, grid, (32, 8))(
            be.to_device(a), out, rows, cols, TILE=tile
        )
        np.testing.assert_array_equal(be.to_host(out), a.T)


def transpose_odd(be, t, rng):
    """16-byte accesses at any offset: odd and prime sizes (rows start
    anywhere in a vector, ragged tiles both ways), a thin matrix (one window
    covers a row and the next), a whole tile, fewer rows than a vector, and
    sizes whose last elements lie past a's last whole vector (the tail fixed
    from scalar loads), in one tile or over two rows of tiles; 125 x 9: the
    tail lies in the 7 rows past a block's own that its vectors read, and
    out rows' vectors wrap into the next row from the block above the last
    (rows fewer than a block's past the last whole tile)."""
    side = EX["transpose"].ODD_SIDE
    lanes = 8
    sizes = [
        (be.size(1031, side + 3), be.size(777, side - 1)),
        (be.size(4097, 2 * side + 1), 3),
        (3, be.size(4097, 2 * side + 5)),
        (side, side),
        (1, lanes + 1),
        (side + 1, 1),
        (side + 5, 9),
    ]
    for rows, cols in sizes:
        a = _random(rng, (rows, cols), t)
        out = be.poison((cols, rows), t)
        grid = (_grid(cols, side), _grid(rows, side))
        be.launcher(EX["transpose"].transpose_odd, grid, 256)(
            be.to_device(a), out, rows, cols
        )
        np.testing.assert_array_equal(be.to_host(out), a.T)


def transpose_odd4(be, t, rng):
    """``transpose_odd``'s cases for 4-byte elements (L = 4, tiles of 60),
    with every residue of rows and cols mod 4 among them (the lane rotation
    and the window's offsets differ by each): odd and prime sizes, a thin
    matrix, a whole tile, fewer rows than a vector, a's tail past its last
    whole vector in one tile or over two rows of tiles, and 65 x 5 (the
    tail in the rows past block 0's own, vectors wrapping from the block
    above the last); the same at the other tiles for some of them."""
    side = EX["transpose"].ODD4_SIDE
    sizes = [
        (be.size(1031, side + 3), be.size(777, side - 1)),
        (be.size(4097, 2 * side + 1), 3),
        (3, be.size(4097, 2 * side + 5)),
        (side, side),
        (1, 5),
        (side + 1, 1),
        (side + 5, 5),
        (be.size(502, 2 * side + 2), be.size(303, side + 7)),
        (be.size(303, side + 7), be.size(498, 2 * side + 2)),
        (be.size(500, 2 * side + 4), be.size(301, side + 5)),
        (be.size(129, side + 9), be.size(131, 2 * side + 11)),
        (be.size(130, side + 2), be.size(126, side + 2)),
    ]
    # the larger tiles (124 x 60, 60 x 124): the odd shapes
    cases = [(size, 16, 64) for size in sizes]
    cases += [(size, w, h) for size in sizes[:3] + sizes[-3:] for w, h in ODD4_TILES]
    for (rows, cols), win, trows in cases:
        a = _random(rng, (rows, cols), t)
        out = be.poison((cols, rows), t)
        grid = (_grid(cols, (win - 1) * 4), _grid(rows, trows - 4))
        be.launcher(EX["transpose"].transpose_odd4, grid, 256)(
            be.to_device(a), out, rows, cols, WIN=win, TROWS=trows
        )
        np.testing.assert_array_equal(be.to_host(out), a.T)


ODD4_TILES = [(32, 64), (16, 128)]  # transpose_odd4's (WIN, TROWS) besides 16, 64


def transpose_vec(be, t, rng):
    """The 16-byte path: dimensions multiples of the lanes, tiles ragged
    (a partial tile in each direction) and whole, 1, 2 and 4 tiles a block."""
    lanes = 16 // t.np_dtype.itemsize
    side = 8 * lanes
    sizes = ((be.size(2000, 19), be.size(776, 9)), (be.size(4096, 32), 8))
    for (vr, vc), tiles in itertools.product(sizes, (1, 2, 4)):
        rows, cols = vr * lanes, vc * lanes
        a = _random(rng, (rows, cols), t)
        out = be.poison((cols, rows), t)
        grid = (_grid(cols, side), _grid(rows, side * tiles))
        be.launcher(EX["transpose"].transpose_vec, grid, (8, 8 * tiles))(
            be.to_device(a), out, rows, cols, TILES=tiles
        )
        np.testing.assert_array_equal(be.to_host(out), a.T)


def matmul(be, t, rng):
    M, N, K = be.size(200, 40), be.size(300, 50), be.size(150, 30)
    a, b = _random(rng, (M, K), t, -1, 1), _random(rng, (K, N), t, -1, 1)
    c = be.poison((M, N), t)
    grid = (_grid(N, 16), _grid(M, 16))
    be.launcher(EX["matmul"].matmul, grid, (16, 16))(
        be.to_device(a), be.to_device(b), c, M, N, K
    )
    want = a.astype(np.float64) @ b.astype(np.float64)
    _close(be, c, want, t, scale=np.abs(a).astype(np.float64).sum(1).max())


def gemm_mma(be, t, rng):
    """The tensor-core GEMM, autotuned: sizes multiple of every tile (the
    EDGE=False configurations) and ragged ones (EDGE=True)."""
    ex = EX["gemm_mma"]
    sizes = [
        (be.size(512, 128), be.size(384, 128), be.size(256, 64)),
        (be.size(333, 50), be.size(200, 24), be.size(120, 40)),
    ]
    for M, N, K in sizes:
        a, b = _random(rng, (M, K), t, -1, 1), _random(rng, (K, N), t, -1, 1)
        c = be.poison((M, N), t)
        full = M % 128 == 0 and N % 128 == 0 and K % 32 == 0
        tuned = ex.gemm_full if full else ex.gemm_edge
        be.launcher(tuned, ex.grid(M, N), ex.block)(
            be.to_device(a), be.to_device(b), c, M, N, K
        )
        want = a.astype(np.float64) @ b.astype(np.float64)
        _close(be, c, want, t, scale=np.abs(a).astype(np.float64).sum(1).max())


def gemm_wgmma(be, t, rng):
    """The wgmma GEMM (sm_90a; c = a @ bt.T), autotuned on the GPU; in the
    interpreter (which models wgmma's 128-byte-swizzle descriptors) each
    configuration on one small size."""
    ex = EX["gemm_wgmma"]
    M, N, K = be.size(1024, 128), be.size(768, 256), be.size(512, 192)
    a, bt = _random(rng, (M, K), t, -1, 1), _random(rng, (N, K), t, -1, 1)
    want = a.astype(np.float64) @ bt.T.astype(np.float64)
    scale = np.abs(a).astype(np.float64).sum(1).max()
    if be.name == "interpreter":
        for bm, bn, stages in ex.SHAPES:
            c = be.poison((M, N), t)
            launch = be.launcher(ex.gemm_wgmma, (N // bn, M // bm), bm // 64 * 128)
            launch(
                a, bt, c, M, N, K, BM=bm, BN=bn, STAGES=stages,
                shared_mem=ex.shared_mem(bm, bn, stages),
            )  # fmt: skip
            _close(be, c, want, t, scale=scale)
        return
    c = be.poison((M, N), t)
    be.launcher(ex.gemm_tuned, ex.grid(M, N), ex.block)(
        be.to_device(a), be.to_device(bt), c, M, N, K, shared_mem=ex.config_shared_mem
    )
    _close(be, c, want, t, scale=scale)


def _attention_reference(q, k, v, causal):
    """softmax(q k^T / sqrt(d)) v in float64, per (batch, head)."""
    q, k, v = (x.astype(np.float64) for x in (q, k, v))
    s = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])
    if causal:  # key j > query i masked out
        n = s.shape[-1]
        s = np.where(np.tril(np.ones((n, n), dtype=bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


# two units of rounding of P (each probability rounded to 16 bits before
# P V) relative to max |v|: about 4 times the error the interpreter shows
ATTENTION_TOL = {"bf16": 2.0**-7, "f16": 2.0**-10}


def attention(be, t, rng):
    """The FlashAttention-style forward: head dims 64 and 128, causal and
    not, autotuned on the GPU; in the interpreter every configuration (d 64,
    causal; in bf16, the first in other dtypes) on a sequence of two 64-key
    tiles. A row of o is an average of
    rows of v: the error is measured against max |v| (P and o are rounded
    to 16 bits)."""
    ex = EX["attention"]
    runs = []  # (batch, heads, seq, d, causal, configuration or None: tuned)
    if be.small:  # the interpreter (and the interpreter-and-GPU comparison)
        # causal: with BLOCK_M 64, one block has a tile below the diagonal
        # and one across it; with 128, both cross it
        # (every configuration in one dtype: they differ in tiling, not in
        # what the dtype changes; each interpreted run takes seconds)
        every = ex.SHAPES[64] if t.short == "bf16" else ex.SHAPES[64][:1]
        runs += [(1, 1, 128, 64, True, s) for s in every]
        runs += [(1, 1, 128, 64, False, ex.SHAPES[64][0])]
        runs += [(1, 1, 128, 128, True, ex.SHAPES[128][0])]
    else:
        runs += [(2, 3, 256, d, c, None) for d in ex.HEAD_DIMS for c in (False, True)]
        runs += [(1, 2, 640, 128, True, None)]  # seq a multiple of 64, not 128
    for batch, heads, seq, d, causal, shape in runs:
        dims = (batch, heads, seq, d)
        q, k, v = (_random(rng, dims, t, -2, 2) for _ in range(3))
        out = be.poison(dims, t)
        args = [be.to_device(q), be.to_device(k), be.to_device(v), out, None, seq]
        args.append(ex.LOG2E / math.sqrt(d))
        if shape is None:
            tuned = ex.TUNED[d, causal]
            launch = be.launcher(tuned, ex.grid(seq, batch * heads), ex.block)
            launch(*args, shared_mem=ex.config_shared_mem)
        else:
            m = ex.constexprs(d, causal, shape)
            grid = ex.grid(seq, batch * heads)(m)
            launch = be.launcher(ex.attention_fwd, grid, ex.threads(m))
            launch(*args, **m, shared_mem=ex.shared_mem(d, shape))
        got = be.to_host(out).astype(np.float64)
        want = _attention_reference(q, k, v, causal)
        err = np.abs(got - want).max() / np.abs(v).astype(np.float64).max()
        assert not np.isnan(got).any()
        assert (
            err <= ATTENTION_TOL[t.short]
        ), f"{dims} causal={causal}: relative error {err:.3g}"


def attention_gradients_reference(q, k, v, do, causal):
    """``(o, lse, dq, dk, dv)`` of softmax(q k^T / sqrt(d)) v in float64, lse
    in the log2 domain (m + log2(l) of the scores times log2(e)), as the
    forwards save it."""
    q, k, v, do = (x.astype(np.float64) for x in (q, k, v, do))
    scale = 1 / math.sqrt(q.shape[-1])
    s = q @ np.swapaxes(k, -1, -2) * scale
    if causal:  # key j > query i masked out
        n = s.shape[-1]
        s = np.where(np.tril(np.ones((n, n), dtype=bool)), s, -np.inf)
    m = s.max(-1, keepdims=True)
    p = np.exp(s - m)
    l = p.sum(-1, keepdims=True)
    p = p / l
    o = p @ v
    lse = (m[..., 0] + np.log(l[..., 0])) / math.log(2)
    dv = np.swapaxes(p, -1, -2) @ do
    ds = p * (do @ np.swapaxes(v, -1, -2) - (do * o).sum(-1, keepdims=True))
    return o, lse, ds @ k * scale, np.swapaxes(ds, -1, -2) @ q * scale, dv


# the gradients' error relative to their largest element: P, dS and o are
# rounded to 16 bits (the interpreter shows about a third of it)
ATTENTION_BWD_TOL = {"bf16": 2.0**-6, "f16": 2.0**-9}


def attention_backward(be, t, rng):
    """The FlashAttention-2 backward (examples/attention_backward.py: delta,
    dk/dv and dq, wgmma on sm_90a) from the exact o and lse: in the
    interpreter head dims 64 (causal and not) and 128 on one 128-row tile,
    which with BLOCK_M 64 has query tiles across and below the diagonal; on
    the GPU every configuration and the autotuned host function on (2, 3,
    256, d)."""
    ex = EX["attention_backward"]
    runs = []  # (dims, causal, (dkdv, dq) configurations, or None: tuned)
    if be.small:
        runs += [((1, 1, 128, 64), c, (ex.DKDV_SHAPES[64][1], None)) for c in (0, 1)]
        runs += [((1, 1, 128, 128), False, (ex.DKDV_SHAPES[128][0], None))]
    else:
        for d in ex.HEAD_DIMS:
            for c in (False, True):
                runs += [((2, 3, 256, d), c, None)]
                pairs = itertools.zip_longest(ex.DKDV_SHAPES[d], ex.DQ_SHAPES[d])
                runs += [((1, 2, 384, d), c, pair) for pair in pairs]
    for dims, causal, shapes in runs:
        q, k, v, do = (_random(rng, dims, t, -2, 2) for _ in range(4))
        o, lse, *want = attention_gradients_reference(q, k, v, do, causal)
        dev = [be.to_device(x) for x in (q, k, v, do)]
        o16 = be.to_device(o.astype(t.np_dtype))
        lse32 = be.to_device(lse.astype(np.float32))
        grads = [be.poison(dims, t) for _ in range(3)]
        if shapes is None and not be.small:
            ex.attention_backward(*dev[:3], o16, lse32, dev[3], causal, *grads)
        else:
            bh, seq, d = dims[0] * dims[1], dims[2], dims[3]
            delta = be.to_device(np.full(dims[:3], np.nan, np.float32))
            grid = ex.delta_grid(bh * seq, d)
            be.launcher(ex.attention_bwd_delta, (grid,), ex.DELTA_THREADS)(
                o16, dev[3], delta, HEAD_DIM=d
            )
            scale = 1 / math.sqrt(d)
            args = (*dev[:3], dev[3], lse32, delta)
            tail = (seq, ex.LOG2E * scale, scale)
            kv, qs = shapes
            kv = kv or ex.DKDV_SHAPES[d][0]
            qs = qs or ex.DQ_SHAPES[d][0]
            m = dict(HEAD_DIM=d, CAUSAL=bool(causal), BLOCK_M=kv[0], STAGES=kv[1])
            be.launcher(ex.attention_bwd_dkdv, (seq // ex.KV_ROWS, bh), ex.THREADS)(
                *args, grads[1], grads[2], *tail, **m,
                shared_mem=ex.dkdv_shared_mem(m),
            )  # fmt: skip
            m = dict(HEAD_DIM=d, CAUSAL=bool(causal), BLOCK_N=qs[0], STAGES=qs[1])
            be.launcher(ex.attention_bwd_dq, (seq // ex.Q_ROWS, bh), ex.THREADS)(
                *args, grads[0], *tail, **m, shared_mem=ex.dq_shared_mem(m)
            )
            got_delta = be.to_host(delta).astype(np.float64)
            want_delta = (o.astype(t.np_dtype).astype(np.float64) * do).sum(-1)
            np.testing.assert_allclose(got_delta, want_delta, rtol=1e-5, atol=1e-4)
        for name, g, w in zip(("dq", "dk", "dv"), grads, want):
            got = be.to_host(g).astype(np.float64)
            assert not np.isnan(got).any(), f"{dims} causal={causal}: NaN in {name}"
            err = np.abs(got - w).max() / np.abs(w).max()
            assert (
                err <= ATTENTION_BWD_TOL[t.short]
            ), f"{dims} causal={causal} {shapes}: {name} relative error {err:.3g}"


def gemm_tma(be, t, rng):
    """The warp-specialised TMA GEMM (sm_90a; c = a @ bt.T), autotuned on the
    GPU (tests/gpu/tma_gpu_checks.gemm_example, in a process of its own);
    the interpreter refuses its tensor maps (E836, GPU only)."""
    ex = EX["gemm_tma"]
    if be.name == "interpreter":
        M, N, K = 128, 256, 64
        c = be.poison((M, N), t)
        launch = be.launcher(ex.gemm_tma, ((M // ex.BM) * (N // 256),), ex.THREADS)
        with pytest.raises(DSLError, match="E836"):
            launch(None, None, c, None, None, M, N, K, shared_mem=ex.shared_mem(256, 4))
        return
    # on the GPU in a process of its own: a kernel hung on an mbarrier
    # cannot be interrupted, and would stall every other example's check
    sys.path.insert(0, str(Path(__file__).resolve().parent / "gpu"))
    import isolated

    failure = isolated.run("tma_gpu_checks", "gemm_example", t.short, 1024, 768, 1024)
    assert failure is None, failure


def gemm_fp8(be, t, rng):
    """The fp8 TMA GEMMs (sm_90a; per-tensor and block-scaled), autotuned on
    the GPU in a process of its own (tests/gpu/fp8_gpu_checks.example); the
    interpreter refuses their tensor maps (E836, GPU only)."""
    ex = EX["gemm_fp8"]
    if be.name == "interpreter":
        M, N, K = 128, 256, 128
        c = be.poison((M, N), t)
        one = np.ones(1, np.float32)
        launch = be.launcher(ex.gemm_fp8, (1,), ex.THREADS)
        with pytest.raises(DSLError, match="E836"):
            launch(None, None, c, one, one, M, N, K, shared_mem=ex.shared_mem(256, 4))
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent / "gpu"))
    import isolated

    failure = isolated.run("fp8_gpu_checks", "example", t.short)
    assert failure is None, failure


def attention_tma(be, t, rng):
    """The warp-specialised TMA + wgmma attention (sm_90a), autotuned on the
    GPU in a process of its own (tests/gpu/attention_tma_checks.py); the
    interpreter refuses its tensor maps (E836, GPU only)."""
    ex = EX["attention_tma"]
    if be.name == "interpreter":
        out = be.poison((1, 1, 128, 64), t)
        launch = be.launcher(ex.attention_tma, ex.grid(128, 1), ex.THREADS)
        with pytest.raises(DSLError, match="E836"):
            launch(None, None, None, out, None, 128, 0.125, HEAD_DIM=64)
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent / "gpu"))
    import isolated

    failure = isolated.run("attention_tma_checks", "host_function", t.short)
    assert failure is None, failure


def sgemm(be, t, rng):
    mod = EX["matmul"]
    # ragged in every dimension (and N % 4 != 0: the scalar stores), then
    # whole 128 x 128 tiles with N % 4 == 0 (the 16-byte stores)
    shapes = [(be.size(300, 130), be.size(257, 67), be.size(203, 19))]
    shapes.append((be.size(512, 128), be.size(384, 128), be.size(256, 16)))
    for M, N, K in shapes:
        a, b = _random(rng, (M, K), t, -1, 1), _random(rng, (K, N), t, -1, 1)
        c = be.poison((M, N), t)
        grid = (_grid(N, mod.BN), _grid(M, mod.BM))
        be.launcher(mod.sgemm, grid, 256)(
            be.to_device(a), be.to_device(b), c, None, M, N, K
        )
        want = a.astype(np.float64) @ b.astype(np.float64)
        _close(be, c, want, t, scale=np.abs(a).astype(np.float64).sum(1).max())


def sgemm_vec(be, t, rng):
    mod = EX["matmul"]
    # N and K multiples of 4: ragged M, N and K tiles (K % 16 != 0), then
    # whole tiles
    shapes = [(be.size(300, 130), be.size(260, 68), be.size(204, 20))]
    shapes.append((be.size(512, 128), be.size(384, 128), be.size(256, 32)))
    for M, N, K in shapes:
        a, b = _random(rng, (M, K), t, -1, 1), _random(rng, (K, N), t, -1, 1)
        c = be.poison((M, N), t)
        grid = (_grid(N, mod.BN), _grid(M, mod.BM))
        be.launcher(mod.sgemm_vec, grid, 256)(
            be.to_device(a), be.to_device(b), c, None, M, N, K
        )
        want = a.astype(np.float64) @ b.astype(np.float64)
        _close(be, c, want, t, scale=np.abs(a).astype(np.float64).sum(1).max())
        # the same fmas in the same order as sgemm: the same bits
        c0 = be.poison((M, N), t)
        be.launcher(mod.sgemm, grid, 256)(
            be.to_device(a), be.to_device(b), c0, None, M, N, K
        )
        np.testing.assert_array_equal(be.to_host(c), be.to_host(c0))


def split_sum(be, t, rng):
    """Split-K: ``split_sum`` adds the slices of Float32 partial sums in
    slice order, rounding once to t (bit for bit the float32 sum); in f32,
    ``sgemm`` and ``sgemm_vec`` with a grid of depth 3 multiply slice
    ``block_idx.z`` of the k tiles into slice z of ``part`` (k tiles not a
    multiple of 3, a partial last one, ragged M and N), whose sum is the
    product."""
    mod = EX["matmul"]
    M, N, S = 5, 7, 3  # slices of 35 elements, 36 apart
    part = rng.uniform(-4, 4, (S, 36)).astype(np.float32)
    c = be.poison((M, N), t)
    launch = be.launcher(mod.split_sum, (_grid(M * N, mod.SUM_THREADS),))
    launch(be.to_device(part.ravel()), c, M, N, SPLIT=S)
    want = (part[0] + part[1]) + part[2]  # float32, in slice order
    got = be.to_host(c).ravel()
    np.testing.assert_array_equal(got, want[: M * N].astype(t.np_dtype))
    if t.short != "f32":
        return
    # sgemm: 8 k tiles of 8 (the last of 4) in slices of 2, 3, 3; sgemm_vec:
    # 7 of 16 (the last of 4) in slices of 2, 2, 3
    for kernel, (M, N, K) in (
        (mod.sgemm, (130, 67, 60)),
        (mod.sgemm_vec, (130, 68, 100)),
    ):
        a, b = _random(rng, (M, K), t, -1, 1), _random(rng, (K, N), t, -1, 1)
        c = be.poison((M, N), t)
        part = be.to_device(np.full(S * ((M * N + 3) // 4 * 4), np.nan, np.float32))
        grid = (_grid(N, mod.BN), _grid(M, mod.BM), S)
        launch = be.launcher(kernel, grid, 256)
        launch(be.to_device(a), be.to_device(b), c, part, M, N, K)
        assert np.isnan(be.to_host(c)).all()  # the slices went to part
        launch = be.launcher(mod.split_sum, (_grid(M * N, mod.SUM_THREADS),))
        launch(part, c, M, N, SPLIT=S)
        want = a.astype(np.float64) @ b.astype(np.float64)
        _close(be, c, want, t, scale=np.abs(a).astype(np.float64).sum(1).max())


def sgemm_warp(be, t, rng):
    """Whole tiles, and ragged ones with EDGE. The interpreter (tens of
    seconds a case, so one): UNROLL = 2 over an odd number of k tiles; the
    GPU: every configuration, ones that spill too, a ragged last group (8
    row tiles, GROUP = 3), several column tiles."""
    mod = EX["matmul"]
    # EDGE (ragged M, N, K: the last tiles moved back, a partial first k
    # tile), with 16-byte (VEC) or 4-byte accesses
    # tile 128: (EDGE, VEC, SHORT): less than a tile high (rows past M read
    # row M - 1)
    edges = [(130, 131, 19, 128, 16, 8, 2, True, False, False)]
    edges.append((21, 132, 20, 128, 16, 8, 2, True, True, True))
    if be.small:  # UNROLL = 2 over an odd number of k tiles (3)
        cases = [(128, 128, 48, 128, 16, 8, 2, False, True, False)] + edges
    else:
        configs = mod.WARP_CONFIGS + [(128, 8, 8, 2), (256, 16, 8, 1), (128, 16, 3, 2)]
        cases = [(1024, 768, 512, *config, False, True, False) for config in configs]
        cases.append((1024, 768, 528, 128, 16, 8, 2, False, True, False))  # 33 k tiles
        cases += edges
        for cfg in mod.WARP_CONFIGS:
            cases.append((1000, 780, 508, *cfg, True, True, False))
            cases.append((1001, 779, 509, *cfg, True, False, False))
        cases.append((99, 779, 509, 128, 16, 8, 2, True, False, True))
        cases.append((100, 780, 508, 128, 16, 8, 2, True, True, True))
    for M, N, K, bm, bk, group, unroll, edge, vec, short in cases:
        a, b = _random(rng, (M, K), t, -1, 1), _random(rng, (K, N), t, -1, 1)
        c = be.poison((M, N), t)
        tiles = -(-M // bm) * -(-N // 128)
        launch = be.launcher(mod.sgemm_warp, (tiles,), bm * 2)
        constexprs = dict(BM=bm, BK=bk, GROUP=group, UNROLL=unroll)
        constexprs.update(EDGE=edge, VEC=vec, SHORT=short)
        launch(be.to_device(a), be.to_device(b), c, None, M, N, K, **constexprs)
        want = a.astype(np.float64) @ b.astype(np.float64)
        _close(be, c, want, t, scale=np.abs(a).astype(np.float64).sum(1).max())
        if edge and not be.small:
            # split-K in 3 slices (the partial k tile in the first), summed
            # by split_sum
            S = 3
            part = np.full(S * ((M * N + 3) // 4 * 4), np.nan, np.float32)
            part = be.to_device(part)
            c = be.poison((M, N), t)
            launch = be.launcher(mod.sgemm_warp, (tiles, 1, S), bm * 2)
            launch(be.to_device(a), be.to_device(b), c, part, M, N, K, **constexprs)
            sums = be.launcher(mod.split_sum, (_grid(M * N, mod.SUM_THREADS),))
            sums(part, c, M, N, SPLIT=S)
            _close(be, c, want, t, scale=np.abs(a).astype(np.float64).sum(1).max())
            continue
        # the same fmas in the same order as sgemm: the same bits
        c0 = be.poison((M, N), t)
        grid = (_grid(N, mod.BN), _grid(M, mod.BM))
        be.launcher(mod.sgemm, grid, 256)(
            be.to_device(a), be.to_device(b), c0, None, M, N, K
        )
        np.testing.assert_array_equal(be.to_host(c), be.to_host(c0))


def gemm_int8(be, t, rng):
    """The int8 tensor-core GEMM (c = a @ bt.T, exact in Int32), autotuned:
    full tiles and ragged sizes."""
    ex = EX["gemm_int8"]
    sizes = [
        (be.size(512, 128), be.size(384, 128), be.size(256, 128)),
        (be.size(333, 50), be.size(200, 24), be.size(112, 48)),
    ]
    for M, N, K in sizes:
        info = np.iinfo(t.np_dtype)
        a = rng.integers(info.min, info.max, (M, K), endpoint=True).astype(t.np_dtype)
        bt = rng.integers(info.min, info.max, (N, K), endpoint=True).astype(t.np_dtype)
        c = be.poison((M, N), Int32)
        full = M % 128 == 0 and N % 128 == 0 and K % 64 == 0
        tuned = ex.gemm_full if full else ex.gemm_edge
        be.launcher(tuned, ex.grid(M, N), ex.block)(
            be.to_device(a), be.to_device(bt), c, M, N, K
        )
        want = a.astype(np.int64) @ bt.T.astype(np.int64)
        np.testing.assert_array_equal(be.to_host(c), want)


def smooth(be, t, rng):
    mod = EX["smooth"]
    r = mod.RADIUS
    for n in (be.size(1_000_003, 700), 3):  # several blocks; fewer than the taps
        x = _random(rng, n, t)
        out = be.poison(n, t)
        be.launcher(mod.smooth, _grid(n, 256))(be.to_device(x), out, n)
        padded = np.pad(x.astype(np.float64), r)
        taps = mod.TAPS.astype(np.float64)
        want = sum(taps[k] * padded[k : k + n] for k in range(2 * r + 1))
        _close(be, out, want, t, scale=np.abs(x).astype(np.float64).max())


def _all_reduce_one_rank(kernel_name):
    """An all-reduce of one rank (its peer table holds its own buffer, so
    one GPU runs it): the sum is the input, bit for bit, run twice (the
    second barrier generation).  tests/examples/test_allreduce.py runs 2, 4
    and 8 ranks in the interpreter."""

    def check(be, t, rng):
        ar = EX["allreduce"]
        kernel = getattr(ar, kernel_name)
        for n in (be.size(1_000_003, 700), 1):
            x = _random(rng, n, t)
            buf, pad = be.to_device(x), be.to_device(np.zeros(ar.PAD_WORDS, np.uint32))
            bufs = be.to_device(ar.address_table([buf], np))
            pads = be.to_device(ar.address_table([pad], np))
            for _ in range(2):
                out = be.poison(n, t)
                ar.launch_all_reduce(
                    kernel, be.launcher, bufs, buf, pads, pad, out, 0, 1, grid=3
                )
                got = be.to_host(out)
                np.testing.assert_array_equal(got.view(np.uint8), x.view(np.uint8))

    check.__name__ = kernel_name
    return check


all_reduce_one_shot = _all_reduce_one_rank("all_reduce_one_shot")
all_reduce_two_shot = _all_reduce_one_rank("all_reduce_two_shot")


CHECKS = {  # check -> the kernel whose dtypes it runs
    vector_add: EX["vector_add"].vector_add,
    vector_add_x4: EX["vector_add"].vector_add_x4,
    add: EX["vector_add"].add,
    saxpy: EX["saxpy"].saxpy,
    gelu: EX["gelu"].gelu,
    softmax: EX["softmax"].softmax_rows,
    softmax_online: EX["softmax"].softmax_online,
    softmax_split: EX["softmax"].softmax_split,
    layer_norm: EX["layer_norm"].layer_norm,
    layer_norm_wide: EX["layer_norm"].layer_norm_wide,
    rms_norm: EX["rms_norm"].rms_norm,
    rms_norm_wide: EX["rms_norm"].rms_norm_wide,
    reduce_sum: EX["reduce_sum"].reduce_sum,
    reduce_max: EX["reduce_sum"].reduce_max,
    histogram: EX["histogram"].histogram,
    transpose: EX["transpose"].transpose,
    transpose_tiled: EX["transpose"].transpose_tiled,
    transpose_vec: EX["transpose"].transpose_vec,
    transpose_odd: EX["transpose"].transpose_odd,
    transpose_odd4: EX["transpose"].transpose_odd4,
    matmul: EX["matmul"].matmul,
    gemm_mma: EX["gemm_mma"].gemm_mma,
    gemm_int8: EX["gemm_int8"].gemm_int8,
    gemm_wgmma: EX["gemm_wgmma"].gemm_wgmma,
    attention: EX["attention"].attention_fwd,
    gemm_tma: EX["gemm_tma"].gemm_tma,
    gemm_fp8: EX["gemm_fp8"].gemm_fp8,
    attention_tma: EX["attention_tma"].attention_tma,
    attention_backward: EX["attention_backward"].attention_bwd_dkdv,
    sgemm: EX["matmul"].sgemm,
    sgemm_vec: EX["matmul"].sgemm_vec,
    sgemm_warp: EX["matmul"].sgemm_warp,
    split_sum: EX["matmul"].split_sum,
    smooth: EX["smooth"].smooth,
    all_reduce_one_shot: EX["allreduce"].all_reduce_one_shot,
    all_reduce_two_shot: EX["allreduce"].all_reduce_two_shot,
}


def cases():
    """``(check, dtype)`` for every example and every dtype it supports."""
    return [(check, t) for check, k in CHECKS.items() for t in k.supported_dtypes]


def case_id(case) -> str:
    check, t = case
    return f"{check.__name__}-{t}"


def every_example_is_checked() -> set:
    """Example kernels no check runs (a test asserts this is empty)."""
    from kdsl import Kernel

    checked = {id(k) for k in CHECKS.values()} | {
        id(EX["gelu"].gelu_backward),  # in gelu's check
        id(EX["softmax"].softmax_rows_backward),  # in softmax's
        id(EX["layer_norm"].layer_norm_backward),  # in layer_norm's
        id(EX["attention_backward"].attention_bwd_delta),  # in attention_backward's
        id(EX["attention_backward"].attention_bwd_dq),  # in attention_backward's
    }
    return {
        f"{name}.{attr}"
        for name, module in EX.items()
        for attr, value in vars(module).items()
        if isinstance(value, Kernel) and id(value) not in checked
    }
