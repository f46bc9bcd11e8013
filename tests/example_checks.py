"""Every example kernel against a float64 numpy reference, on a backend: the
GPU (CuPy, large sizes) or the CPU interpreter (numpy, small sizes).

Inputs are random, outputs are poisoned (NaN or a sentinel) before the launch,
so an element the kernel forgot to write fails the comparison.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from examples_index import example_modules

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
        launcher=lambda k, grid, block: k.interpret[grid, block],
        small=True,
    )


def gpu_backend(cp) -> Backend:
    return Backend(
        "gpu",
        to_device=cp.asarray,
        to_host=cp.asnumpy,
        launcher=lambda k, grid, block: k[grid, block],
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
        be.launcher(kernel, grid, 128)(
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


def softmax(be, t, rng):
    rows, cols = be.size(64, 3), be.size(1000, 300)
    x = _random(rng, (rows, cols), t)
    y = be.poison((rows, cols), t)
    be.launcher(EX["softmax"].softmax, rows, 256)(be.to_device(x), y, cols)
    xv = x.astype(np.float64)
    e = np.exp(xv - xv.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)
    tol_t = t if t.short in ("f16", "bf16") else EX["softmax"].kdsl.Float32
    _close(be, y, want, tol_t)


def reduce_sum(be, t, rng):
    n = be.size(1_234_567, 5000)
    x = _random(rng, n, t)
    out = be.to_device(np.zeros(1, dtype=t.np_dtype))
    be.launcher(EX["reduce_sum"].reduce_sum, _grid(n, 256), 256)(
        be.to_device(x), out, n
    )
    want = np.array([x.astype(np.float64).sum()])
    _close(be, out, want, t, scale=np.abs(x).astype(np.float64).sum() * 1e-2)


def histogram(be, t, rng):
    mod = EX["histogram"]
    lo, hi = -0.75, 0.75
    lanes = 16 // t.np_dtype.itemsize
    for n in (be.size(2_000_003, 5003), lanes - 1):  # a ragged tail; a tail only
        x = _random(rng, n, t, -1.0, 1.0)
        counts = be.to_device(np.zeros(256, dtype=np.int32))
        # fewer blocks than vectors: the grid-stride loop and several merges
        grid = min(mod.histogram_grid(n, t.np_dtype.itemsize), be.size(40, 2))
        be.launcher(mod.histogram, grid, 256)(be.to_device(x), counts, n, lo, hi)
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
        be.launcher(mod.sgemm, grid, 256)(be.to_device(a), be.to_device(b), c, M, N, K)
        want = a.astype(np.float64) @ b.astype(np.float64)
        _close(be, c, want, t, scale=np.abs(a).astype(np.float64).sum(1).max())


def smooth(be, t, rng):
    mod = EX["smooth"]
    r = mod.RADIUS
    for n in (be.size(1_000_003, 700), 3):  # several blocks; fewer than the taps
        x = _random(rng, n, t)
        out = be.poison(n, t)
        be.launcher(mod.smooth, _grid(n, 256), 256)(be.to_device(x), out, n)
        padded = np.pad(x.astype(np.float64), r)
        taps = mod.TAPS.astype(np.float64)
        want = sum(taps[k] * padded[k : k + n] for k in range(2 * r + 1))
        _close(be, out, want, t, scale=np.abs(x).astype(np.float64).max())


CHECKS = {  # check -> the kernel whose dtypes it runs
    vector_add: EX["vector_add"].vector_add,
    vector_add_x4: EX["vector_add"].vector_add_x4,
    add: EX["vector_add"].add,
    saxpy: EX["saxpy"].saxpy,
    gelu: EX["gelu"].gelu,
    softmax: EX["softmax"].softmax,
    reduce_sum: EX["reduce_sum"].reduce_sum,
    histogram: EX["histogram"].histogram,
    transpose: EX["transpose"].transpose,
    matmul: EX["matmul"].matmul,
    sgemm: EX["matmul"].sgemm,
    smooth: EX["smooth"].smooth,
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

    checked = {id(k) for k in CHECKS.values()} | {id(EX["gelu"].gelu_backward)}
    return {
        f"{name}.{attr}"
        for name, module in EX.items()
        for attr, value in vars(module).items()
        if isinstance(value, Kernel) and id(value) not in checked
    }
