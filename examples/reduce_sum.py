"""Sum and maximum of a Float16 / BFloat16 / Float32 array, into one Float32.

Both kernels are the same bandwidth-bound pattern (reading memory is all the
work):

* a grid-stride loop over 16-byte vectors (``x.vec(VEC)``: one 128-bit load
  for four Float32 or eight Float16/BFloat16), ``UNROLL`` loads issued before
  any is used, so each thread keeps several requests in flight;
* a persistent grid (8 blocks per SM, see ``_grid``): each thread
  accumulates many vectors in registers, in Float32;
* the elements after the last whole vector (``n % VEC``) are read by block 0;
* ``block_sum``/``block_max`` (block_reduce.py: warp shuffles, one shared
  slot per warp) give each block's partial result, written to
  ``partials[block]``; the last block to finish (one atomic counter per
  launch) reduces the partials in a second pass and writes ``out[0]``.

Nothing needs zeroing before a launch, and the sum is deterministic: the
same grid adds the same numbers in the same order on every run. The maximum
follows Python's ``max``: a NaN element is skipped (``torch.amax`` would
return NaN).
"""

import math
import sys
from pathlib import Path

# the siblings (block_reduce.py ...) import by name however this file is
# loaded: `python examples/x.py`, `from examples.x import ...`, kdsl-transpile
if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import kdsl
from block_reduce import block_max, block_sum, itemsize, multiprocessors
from kdsl import Constexpr, Float32, Int32, Pointer, Uint32, Vector, block_idx, grid_dim
from kdsl import thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Float)
DTYPES = [kdsl.Float16, kdsl.BFloat16, kdsl.Float32]
NEG_INF = -math.inf


@kdsl.func
def last_block(partials, arrived, value, flag):
    """Publish this block's result; whether this block is the last to do so
    (then every other block's partial is visible to it). Thread 0 counts the
    block in with an acq_rel atomic (release: its partial is visible before
    the count; acquire: the last sees all the others'), the barrier hands
    the answer and that visibility to the block's other threads. The last
    block resets the counter, so the next launch needs no memset."""
    if thread_idx.x == 0:
        partials[block_idx.x] = value
        ticket = kdsl.atomic_add(arrived, 0, 1, order="acq_rel")
        flag[0] = 0
        if ticket == grid_dim.x - 1:
            flag[0] = 1
            arrived[0] = 0
    kdsl.syncthreads()
    return flag[0] == 1


@kdsl.kernel(dtypes=DTYPES, no_overflow=True)
def reduce_sum(
    x: Pointer[D],
    out: Pointer[Float32],
    partials: Pointer[Float32],
    arrived: Pointer[Uint32],
    n: Int32,
    VEC: Constexpr[int] = 4,
    WARPS: Constexpr[int] = 8,
    UNROLL: Constexpr[int] = 4,
):
    kdsl.assume(n >= 0)
    scratch = kdsl.shared_array(Float32, (1, WARPS))
    flag = kdsl.shared_array(Int32, 1)
    xv = x.vec(VEC)
    nvec = n // VEC
    stride = grid_dim.x * (WARPS * 32)
    i = block_idx.x * (WARPS * 32) + thread_idx.x
    acc = Vector[Float32, VEC].splat(0)  # VEC independent addition chains
    # UNROLL loads in flight, then their sums
    while i + (UNROLL - 1) * stride < nvec:
        loaded = kdsl.local_array(Vector[D, VEC], UNROLL)
        for u in kdsl.range_constexpr(UNROLL):
            loaded[u] = xv[i + u * stride]
        for u in kdsl.range_constexpr(UNROLL):
            acc = acc + loaded[u].to(Float32)
        i += UNROLL * stride
    while i < nvec:
        acc = acc + xv[i].to(Float32)
        i += stride
    total = acc[0]
    for k in kdsl.range_constexpr(1, VEC):
        total = total + acc[k]
    tail = nvec * VEC + thread_idx.x
    if block_idx.x == 0 and tail < n:
        total = total + x[tail].to(Float32)
    total = block_sum(scratch, total)
    if last_block(partials, arrived, total, flag):
        total = Float32(0)
        for b in range(thread_idx.x, grid_dim.x, WARPS * 32):
            total = total + partials[b]
        total = block_sum(scratch, total)
        if thread_idx.x == 0:
            out[0] = total


@kdsl.kernel(dtypes=DTYPES, no_overflow=True)
def reduce_max(
    x: Pointer[D],
    out: Pointer[Float32],
    partials: Pointer[Float32],
    arrived: Pointer[Uint32],
    n: Int32,
    VEC: Constexpr[int] = 4,
    WARPS: Constexpr[int] = 8,
    UNROLL: Constexpr[int] = 4,
):
    kdsl.assume(n >= 0)
    scratch = kdsl.shared_array(Float32, (1, WARPS))
    flag = kdsl.shared_array(Int32, 1)
    xv = x.vec(VEC)
    nvec = n // VEC
    stride = grid_dim.x * (WARPS * 32)
    i = block_idx.x * (WARPS * 32) + thread_idx.x
    acc = Vector[Float32, VEC].splat(NEG_INF)
    while i + (UNROLL - 1) * stride < nvec:
        loaded = kdsl.local_array(Vector[D, VEC], UNROLL)
        for u in kdsl.range_constexpr(UNROLL):
            loaded[u] = xv[i + u * stride]
        for u in kdsl.range_constexpr(UNROLL):
            acc = max(acc, loaded[u].to(Float32))
        i += UNROLL * stride
    while i < nvec:
        acc = max(acc, xv[i].to(Float32))
        i += stride
    best = acc[0]
    for k in kdsl.range_constexpr(1, VEC):
        best = max(best, acc[k])
    tail = nvec * VEC + thread_idx.x
    if block_idx.x == 0 and tail < n:
        best = max(best, x[tail].to(Float32))
    best = block_max(scratch, best)
    if last_block(partials, arrived, best, flag):
        best = Float32(NEG_INF)
        for b in range(thread_idx.x, grid_dim.x, WARPS * 32):
            best = max(best, partials[b])
        best = block_max(scratch, best)
        if thread_idx.x == 0:
            out[0] = best


WARPS, UNROLL = 8, 4
BLOCKS_PER_SM = 8  # 8 blocks of 256 threads: every thread slot of an H200 SM


_WORKSPACE: dict = {}  # device (or "cpu") -> (partials, arrived), reused


def _workspace(interpret: bool):
    """The blocks' partial results and the arrival counter (zero between
    launches: the last block resets it), allocated once per device: launches
    on one device run one after the other (one stream), or each needs its own
    workspace passed to the kernel."""
    if interpret:
        import numpy as xp

        where, cap = "cpu", 4
    else:
        import cupy as xp

        where, cap = xp.cuda.runtime.getDevice(), multiprocessors() * BLOCKS_PER_SM
    if where not in _WORKSPACE:
        _WORKSPACE[where] = (
            xp.zeros(cap, dtype=xp.float32),
            xp.zeros(1, dtype=xp.uint32),
        )
    return _WORKSPACE[where]


def _grid(n: int, vec: int, interpret: bool) -> int:
    per_block = WARPS * 32 * vec * UNROLL
    wanted = max(1, (n + per_block - 1) // per_block)
    return min(wanted, 4 if interpret else multiprocessors() * BLOCKS_PER_SM)


def _launch(kernel, x, out, interpret):
    n = x.size if isinstance(x.size, int) else x.numel()
    vec = 16 // itemsize(x)
    partials, arrived = _workspace(interpret)
    k = kernel.interpret if interpret else kernel
    k[_grid(n, vec, interpret), WARPS * 32](
        x, out, partials, arrived, n, VEC=vec, WARPS=WARPS, UNROLL=UNROLL
    )


def sum_into(x, out, *, interpret=False):
    """out[0] = sum(x), computed in Float32 (out: one Float32 element)."""
    _launch(reduce_sum, x, out, interpret)


def max_into(x, out, *, interpret=False):
    """out[0] = max(x) (out: one Float32 element)."""
    _launch(reduce_max, x, out, interpret)


if __name__ == "__main__":
    print(reduce_sum.dispatch("bf16", VEC=8).source)
