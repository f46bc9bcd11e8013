"""The kernels of test_debug_gpu.py, in a module of their own so that a
subprocess can launch them: CUDA's printf writes to the process's standard
output, which a test can only read from outside."""

import inspect

import numpy as np

import kdsl
from kdsl import (
    Constexpr,
    Float16,
    Float32,
    Int32,
    Pointer,
    Uint64,
    block_dim,
    block_idx,
    thread_idx,
)


@kdsl.kernel
def show(x: Pointer[Float32], h: Pointer[Float16], u: Pointer[Uint64], n: Int32):
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < n:  # one print per thread: one line each
        print(
            f"thread {i:3d}: x={x[i]:+.4e} h={h[i]:.3f} u={u[i]:x}",
            x[i],
            i % 3 == 0,
            -i,
            sep=", ",
            end=" |\n",
        )
    kdsl.print_once("done:", n, "threads", 0.5, True)


def show_inputs(n: int):
    rng = np.random.default_rng(7)
    x = (rng.standard_normal(n) * 1000).astype(np.float32)
    h = rng.standard_normal(n).astype(np.float16)
    u = rng.integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True)
    return x, h, u


def show_on_gpu(n: int) -> None:
    """Launch ``show`` on the GPU and wait for it (its lines go to stdout)."""
    import cupy as cp

    x, h, u = (cp.asarray(a) for a in show_inputs(n))
    show[(n + 63) // 64, 64](x, h, u, n)
    cp.cuda.runtime.deviceSynchronize()


@kdsl.func
def checked_index(j, n):
    assert j < n, "index past the end"
    return j


@kdsl.kernel(debug=True)
def gather(
    x: Pointer[Float32],
    idx: Pointer[Int32],
    out: Pointer[Float32],
    n: Int32,
    LIMIT: Constexpr[int] = 1024,
):
    i = block_idx.x * block_dim.x + thread_idx.x
    assert n <= LIMIT, f"at most {LIMIT} elements"
    if i < n:
        j = idx[i]
        assert j >= 0, "negative index"
        out[i] = x[checked_index(j, n)]


def line_of(text: str, function=gather) -> int:
    """The line of this file holding ``text`` in ``function``."""
    fn = getattr(function, "fn", function)
    source, first = inspect.getsourcelines(fn)
    return first + next(k for k, line in enumerate(source) if text in line)
