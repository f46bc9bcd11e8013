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
from kdsl import Int32

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


def saxpy(be, t, rng):
    n = be.size(300_001, 3001)
    x, y = _random(rng, n, t), _random(rng, n, t)
    a = 1.5
    dy = be.to_device(y)
    grid = be.size(37, 5)  # fewer threads than elements: the grid-stride loop
    be.launcher(EX["saxpy"].saxpy, grid, 128)(a, be.to_device(x), dy, n)
    want = a * x.astype(np.float64) + y.astype(np.float64)
    _close(be, dy, want, t)


def _gelu(v):
    c = math.sqrt(2 / math.pi)
    return 0.5 * v * (1 + np.tanh(c * (v + 0.044715 * v**3)))


def gelu(be, t, rng):
    g = EX["gelu"]
    n = be.size(100_000, 2000)
    x = _random(rng, n, t)
    y = be.poison(n, t)
    be.launcher(g.gelu, _grid(n, 256), 256)(be.to_device(x), y, n)
    xv = x.astype(np.float64)
    computed = t if t.short != "f64" else g.kdsl.Float32  # Float32 inside
    _close(be, y, _gelu(xv), computed)
    go = _random(rng, n, t)
    gi = be.poison(n, t)
    be.launcher(g.gelu_backward, _grid(n, 256), 256)(
        be.to_device(x), be.to_device(go), gi, n
    )
    h = 1e-6
    deriv = (_gelu(xv + h) - _gelu(xv - h)) / (2 * h)
    want = go.astype(np.float64) * deriv
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
    n = be.size(200_000, 5000)
    x = _random(rng, n, t, -1.0, 1.0)
    counts = be.to_device(np.zeros(64, dtype=np.int32))
    lo, hi = -0.75, 0.75
    be.launcher(EX["histogram"].histogram, _grid(n, 256), 256)(
        be.to_device(x), counts, n, lo, hi
    )
    v = x.astype(np.float32)
    f32 = np.float32
    inside = (v >= f32(lo)) & (v < f32(hi))
    b = (((v[inside] - f32(lo)) / (f32(hi) - f32(lo))) * f32(64)).astype(np.int32)
    want = np.bincount(np.minimum(b, 63), minlength=64)
    np.testing.assert_array_equal(be.to_host(counts), want)


def transpose(be, t, rng):
    rows, cols = be.size(1000, 70), be.size(777, 45)
    a = _random(rng, (rows, cols), t)
    out = be.poison((cols, rows), t)
    grid = (_grid(cols, 32), _grid(rows, 32))
    be.launcher(EX["transpose"].transpose, grid, (32, 32))(be.to_device(a), out)
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


CHECKS = {  # check -> the kernel whose dtypes it runs
    vector_add: EX["vector_add"].vector_add,
    vector_add_x4: EX["vector_add"].vector_add_x4,
    saxpy: EX["saxpy"].saxpy,
    gelu: EX["gelu"].gelu,
    softmax: EX["softmax"].softmax,
    reduce_sum: EX["reduce_sum"].reduce_sum,
    histogram: EX["histogram"].histogram,
    transpose: EX["transpose"].transpose,
    matmul: EX["matmul"].matmul,
    gemm_mma: EX["gemm_mma"].gemm_mma,
    gemm_int8: EX["gemm_int8"].gemm_int8,
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
