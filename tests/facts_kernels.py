"""Kernels for the tests of ``kdsl.assume`` and the range analysis's facts
(tests/lowering/test_facts.py, tests/sass/test_sass_facts.py)."""

import kdsl
from kdsl import (
    Float32,
    Int32,
    Int64,
    Pointer,
    block_dim,
    block_idx,
    grid_dim,
    thread_idx,
)


@kdsl.kernel
def permute(
    q: Pointer[Float32],
    k: Pointer[Float32],
    v: Pointer[Float32],
    inp: Pointer[Float32],
    B: Int32,
    N: Int32,
    NH: Int32,
    d: Int32,
):
    """llm.c's attention permute (inp is (B, N, 3, NH, d); q, k, v are
    (B, NH, N, d)), as a grid-stride loop, with the facts its sizes have."""
    kdsl.assume(B >= 0 and 0 < N <= 1 << 14)
    kdsl.assume(0 < NH <= 256 and 0 < d <= 256)
    kdsl.assume(grid_dim.x <= 65535)
    nd = N * d
    nhnd = NH * nd
    total = B * nhnd
    for j in range(
        block_idx.x * block_dim.x + thread_idx.x, total, block_dim.x * grid_dim.x
    ):
        b = j // nhnd
        rest = j % nhnd
        nh_ = rest // nd
        rest = rest % nd
        n = rest // d
        d_ = rest % d
        at = b * N * 3 * NH * d + n * 3 * NH * d + nh_ * d + d_
        q[j] = inp[at]
        k[j] = inp[at + NH * d]
        v[j] = inp[at + 2 * NH * d]


@kdsl.kernel
def permute_unstated(
    q: Pointer[Float32],
    k: Pointer[Float32],
    v: Pointer[Float32],
    inp: Pointer[Float32],
    B: Int32,
    N: Int32,
    NH: Int32,
    d: Int32,
):
    """``permute`` without its facts."""
    nd = N * d
    nhnd = NH * nd
    total = B * nhnd
    for j in range(
        block_idx.x * block_dim.x + thread_idx.x, total, block_dim.x * grid_dim.x
    ):
        b = j // nhnd
        rest = j % nhnd
        nh_ = rest // nd
        rest = rest % nd
        n = rest // d
        d_ = rest % d
        at = b * N * 3 * NH * d + n * 3 * NH * d + nh_ * d + d_
        q[j] = inp[at]
        k[j] = inp[at + NH * d]
        v[j] = inp[at + 2 * NH * d]


@kdsl.kernel
def rows(out: Pointer[Int32], n: Int32, C: Int32):
    """``j // C`` and ``j % C`` over a grid-stride loop, with two facts."""
    kdsl.assume(n >= 0)
    kdsl.assume(C > 0)
    for j in range(thread_idx.x, n, block_dim.x):
        out[j] = j // C + j % C


@kdsl.kernel
def rows_unstated(out: Pointer[Int32], n: Int32, C: Int32):
    for j in range(thread_idx.x, n, block_dim.x):
        out[j] = j // C + j % C


@kdsl.kernel
def reassigned(out: Pointer[Int32], n: Int32):
    """A fact about ``n`` holds until ``n`` is assigned again."""
    kdsl.assume(n >= 0)
    out[0] = n // 4
    n = n - 10
    out[1] = n // 4


@kdsl.kernel
def in_branch(out: Pointer[Int32], n: Int32, flag: Int32):
    """A fact stated in a branch holds only there."""
    if flag > 0:
        kdsl.assume(n >= 0)
        out[0] = n // 4
    out[1] = n // 4


@kdsl.kernel
def in_loop(out: Pointer[Int32], n: Int32, steps: Int32):
    """A loop that assigns ``n`` does not see the fact stated before it."""
    kdsl.assume(n >= 0)
    out[0] = n // 4
    for s in range(steps):
        out[1] = n // 4
        n = n - 1
    out[2] = n // 4


@kdsl.kernel
def chained(out: Pointer[Int32], x: Pointer[Int32], n: Int32):
    """``0 <= i < n`` about a loaded value: a fact about a variable."""
    i = x[thread_idx.x]
    kdsl.assume(0 <= i < n)
    out[i] = i % 8 + i // 8


@kdsl.kernel
def grid_stride(out: Pointer[Int32], n: Int32):
    """A grid-stride loop: the Int32 stride block_dim.x * grid_dim.x is
    positive once the grid is bounded."""
    kdsl.assume(grid_dim.x <= 65535)
    for j in range(
        block_idx.x * block_dim.x + thread_idx.x, n, block_dim.x * grid_dim.x
    ):
        out[j] = j


@kdsl.kernel
def grid_stride_unstated(out: Pointer[Int32], n: Int32):
    for j in range(
        block_idx.x * block_dim.x + thread_idx.x, n, block_dim.x * grid_dim.x
    ):
        out[j] = j


@kdsl.kernel
def wide_stride(out: Pointer[Int32], n: Int64):
    """An Int64 stride of block_dim.x * grid_dim.x is positive: no fact needed."""
    start = Int64(block_idx.x) * block_dim.x + thread_idx.x
    for j in range(start, n, Int64(block_dim.x) * grid_dim.x):
        out[j] = 1


@kdsl.kernel(debug=True)
def checked(out: Pointer[Int32], n: Int32):
    """A debug build checks its assumption on the GPU."""
    kdsl.assume(n >= 0)
    out[0] = n // 4


@kdsl.func
def halve(n):
    kdsl.assume(n >= 0)
    return n // 2


@kdsl.kernel
def calls_func(out: Pointer[Int32], n: Int32):
    out[0] = halve(n)


# -- no_overflow=True: signed + - * stated not to overflow -------------------------------
@kdsl.kernel(no_overflow=True)
def scaled(out: Pointer[Int32], a: Int32, b: Int32, c: Int32):
    """``a * b + c``, ``-a`` and ``a - b`` of any sign: plain C++."""
    out[0] = a * b + c
    out[1] = -a
    out[2] = a - b


@kdsl.kernel
def scaled_wrapping(out: Pointer[Int32], a: Int32, b: Int32, c: Int32):
    out[0] = a * b + c
    out[1] = -a
    out[2] = a - b


@kdsl.kernel(no_overflow=True)
def wide_scaled(out: Pointer[Int64], a: Int64, b: Int64):
    out[0] = a * b
    out[1] = a + b
    out[2] = a - b


@kdsl.func(no_overflow=True)
def flat(r, C, c):
    return r * C + c


@kdsl.kernel
def calls_no_overflow_func(out: Pointer[Int32], r: Int32, C: Int32, c: Int32):
    """A ``no_overflow=True`` device function in a kernel without it."""
    out[0] = flat(r, C, c)
    out[1] = r * C + c


@kdsl.func
def flat_plain(r, C, c):
    return r * C + c


@kdsl.kernel(no_overflow=True)
def kernel_states_it_for_funcs(out: Pointer[Int32], r: Int32, C: Int32, c: Int32):
    """A ``no_overflow=True`` kernel states it for the functions it calls."""
    out[0] = flat_plain(r, C, c)


@kdsl.kernel
def early_return(out: Pointer[Int32], i: Int32, n: Int32):
    """``if i >= n: return`` or ``if i < 0: return`` state ``i < n`` and
    ``i >= 0`` below them."""
    if i < 0:
        return
    out[0] = i // 8
    if i >= n:
        return
    out[1] = n // 8  # n > i >= 0


@kdsl.kernel
def no_early_return(out: Pointer[Int32], i: Int32, n: Int32):
    """An ``if`` that does not leave states nothing after it."""
    if i < 0:
        out[2] = 0
    out[0] = i // 8


@kdsl.kernel
def break_fact(out: Pointer[Int32], x: Pointer[Int32], n: Int32):
    """``if v < 0: break`` in a loop: ``v >= 0`` in the rest of its body."""
    for t in range(n):
        v = x[t]
        if v < 0 or v > 1000:
            break
        out[t] = v // 4


@kdsl.kernel(debug=True, no_overflow=True)
def scaled_checked(out: Pointer[Int32], wide: Pointer[Int64], a: Int32, b: Int32):
    """A debug build checks each signed + - * on the GPU."""
    out[0] = a * b + 1
    wide[0] = Int64(a) * b - 1
