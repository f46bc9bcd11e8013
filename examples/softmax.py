"""Row softmax of a (rows, cols) matrix, Float16 / BFloat16 / Float32 /
Float64, computed in Float32 (Float64 for Float64 data, so that gradients can
be checked numerically): ``y = exp(x - max(x)) / sum(exp(x - max(x)))`` per
row, and its backward ``dx = y * (dy - sum(dy * y))`` per row.

Two kernels, and ``softmax(x, y)`` on the host picks one:

* ``softmax_rows``: the row stays in registers (one read and one write of
  memory, the minimum). A row is read as 16-byte vectors (``x.vec(VEC)``:
  four Float32 or eight Float16/BFloat16 per load, one 128-bit instruction;
  narrower vectors when the width is not a multiple, scalars when it is odd),
  ``CHUNKS`` vectors per thread in a ``local_array`` indexed only at compile
  time (so it lives in registers), ``WARPS`` warps per row and ``ROWS`` rows
  per block (short rows: several rows per block keep the block at 128+
  threads, so enough warps stay resident to hide memory latency). The
  autotuner picks among the configurations that cover the row.
* ``softmax_online``: rows too long for registers. One block per row walks
  it once with the online softmax (a running maximum and a sum rescaled
  when the maximum grows), keeping the row in dynamic shared memory when
  ``CACHE`` (``shared_mem=`` bytes at launch, up to 227 KB on an H200) so
  the second pass does not read memory again.

* ``softmax_rows_backward``: the gradient, paired with ``softmax_rows``
  (``backward=``, so ``kdsl.torch.op`` differentiates it): the same row
  layout and launch, ``y`` and ``grad_y`` in registers, one block sum.

All use ``block_max``/``block_sum`` from block_reduce.py. ``kdsl.math.exp``
is the accurate ``expf`` (no fast math); the division is one reciprocal per
row and a multiply per element.
"""

import math
import sys
from pathlib import Path

# the siblings (block_reduce.py ...) import by name however this file is
# loaded: `python examples/x.py`, `from examples.x import ...`, kdsl-transpile
if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import kdsl
from block_reduce import block_max, block_sum, check_rows, itemsize, vector_lanes
from kdsl import (
    Constexpr,
    Float32,
    Float64,
    Int32,
    Pointer,
    Vector,
    block_idx,
    thread_idx,
)

D = kdsl.TypeVar("D", bound=kdsl.Float)
DTYPES = [kdsl.Float16, kdsl.BFloat16, kdsl.Float32, kdsl.Float64]
NEG_INF = -math.inf


@kdsl.kernel(dtypes=DTYPES)
def softmax_rows_backward(
    y: Pointer[D],
    grad_y: Pointer[D],
    grad_x: Pointer[D],
    rows: Int32,
    cols: Int32,
    VEC: Constexpr[int] = 4,
    WARPS: Constexpr[int] = 4,
    ROWS: Constexpr[int] = 1,
    CHUNKS: Constexpr[int] = 2,
):
    C = Float64 if D.width == 64 else Float32  # the type computed in
    scratch = kdsl.shared_array(C, (ROWS, WARPS))
    row = block_idx.x * ROWS + thread_idx.y
    nvec = cols // VEC
    base = row * nvec
    ys = kdsl.local_array(C, (CHUNKS, VEC))  # the row of y and of grad_y,
    gs = kdsl.local_array(C, (CHUNKS, VEC))  # in registers as in the forward

    # 1. load y and grad_y (0 past the row's end) and sum(grad_y * y)
    d = C(0)
    for c in kdsl.range_constexpr(CHUNKS):
        j = c * (WARPS * 32) + thread_idx.x
        for k in kdsl.range_constexpr(VEC):
            ys[c, k] = 0
            gs[c, k] = 0
        if row < rows and j < nvec:
            if VEC == 1:
                ys[c, 0] = y[base + j].to(C)
                gs[c, 0] = grad_y[base + j].to(C)
            else:
                yv = y.vec(VEC)[base + j].to(C)
                gv = grad_y.vec(VEC)[base + j].to(C)
                for lane in kdsl.range_constexpr(VEC):
                    ys[c, lane] = yv[lane]
                    gs[c, lane] = gv[lane]
        for k in kdsl.range_constexpr(VEC):
            d = d + gs[c, k] * ys[c, k]
    d = block_sum(scratch, d)

    # 2. grad_x = y * (grad_y - d), a vector at a time
    for c in kdsl.range_constexpr(CHUNKS):
        j = c * (WARPS * 32) + thread_idx.x
        if row < rows and j < nvec:
            if VEC == 1:
                grad_x[base + j] = (ys[c, 0] * (gs[c, 0] - d)).to(D)
            else:
                out = Vector[D, VEC].splat(0)
                for lane in kdsl.range_constexpr(VEC):
                    out[lane] = (ys[c, lane] * (gs[c, lane] - d)).to(D)
                grad_x.vec(VEC)[base + j] = out


@kdsl.kernel(dtypes=DTYPES, backward=softmax_rows_backward)
def softmax_rows(
    x: Pointer[D],
    y: Pointer[D],
    rows: Int32,
    cols: Int32,
    VEC: Constexpr[int] = 4,
    WARPS: Constexpr[int] = 4,
    ROWS: Constexpr[int] = 1,
    CHUNKS: Constexpr[int] = 2,
):
    C = Float64 if D.width == 64 else Float32  # the type computed in
    scratch = kdsl.shared_array(C, (ROWS, WARPS))
    row = block_idx.x * ROWS + thread_idx.y
    nvec = cols // VEC  # vectors per row: the host picks a VEC that divides cols
    base = row * nvec
    # this thread's part of the row: CHUNKS vectors of VEC lanes, indexed only
    # by compile-time indices, so the array lives in registers
    vals = kdsl.local_array(C, (CHUNKS, VEC))

    # 1. load the row (lanes past its end are -inf: they change neither the
    #    max nor the sum) and its maximum. Threads past the last row still
    #    take part in the block reductions: they only skip memory.
    m = C(NEG_INF)
    for c in kdsl.range_constexpr(CHUNKS):
        j = c * (WARPS * 32) + thread_idx.x
        for k in kdsl.range_constexpr(VEC):
            vals[c, k] = C(NEG_INF)
        if row < rows and j < nvec:
            if VEC == 1:  # an odd width: scalar accesses
                vals[c, 0] = x[base + j].to(C)
            else:  # one 16-byte (or 8-, 4-byte) load
                v = x.vec(VEC)[base + j].to(C)
                for lane in kdsl.range_constexpr(VEC):
                    vals[c, lane] = v[lane]
        for k in kdsl.range_constexpr(VEC):
            m = kdsl.math.fmax(m, vals[c, k])  # one FMNMX (a NaN ignored, as max does)
    m = block_max(scratch, m)

    # 2. the exponentials, kept in registers for the store, and their sum
    s = C(0)
    for c in kdsl.range_constexpr(CHUNKS):
        for k in kdsl.range_constexpr(VEC):
            vals[c, k] = kdsl.math.exp(vals[c, k] - m)
            s = s + vals[c, k]
    inv = 1.0 / block_sum(scratch, s)

    # 3. normalise and store, a vector at a time
    for c in kdsl.range_constexpr(CHUNKS):
        j = c * (WARPS * 32) + thread_idx.x
        if row < rows and j < nvec:
            if VEC == 1:
                y[base + j] = (vals[c, 0] * inv).to(D)
            else:
                out = Vector[D, VEC].splat(0)
                for lane in kdsl.range_constexpr(VEC):
                    out[lane] = (vals[c, lane] * inv).to(D)
                y.vec(VEC)[base + j] = out


@kdsl.kernel(dtypes=DTYPES)
def softmax_online(
    x: Pointer[D],
    y: Pointer[D],
    cols: Int32,
    VEC: Constexpr[int] = 4,
    WARPS: Constexpr[int] = 8,
    CACHE: Constexpr[bool] = True,
):
    C = Float64 if D.width == 64 else Float32  # the type computed in
    scratch = kdsl.shared_array(C, (1, WARPS))
    nvec = cols // VEC
    base = block_idx.x * nvec  # one row per block
    v = kdsl.local_array(C, VEC)  # one vector's lanes, in registers
    if CACHE:  # the row as read: cols * D's size bytes of shared_mem
        if VEC == 1:
            row = kdsl.dynamic_shared_array(D, cols)
        else:
            row = kdsl.dynamic_shared_array(Vector[D, VEC], nvec)

    # 1. one pass: the running maximum m and the sum s of exp(x - m); s is
    #    rescaled only when a vector raises the maximum
    m = C(NEG_INF)
    s = C(0)
    for j in range(thread_idx.x, nvec, WARPS * 32):
        if VEC == 1:  # an odd width: scalar accesses
            raw = x[base + j]
            if CACHE:
                row[j] = raw
            v[0] = raw.to(C)
        else:
            raw = x.vec(VEC)[base + j]
            if CACHE:
                row[j] = raw
            for k in kdsl.range_constexpr(VEC):
                v[k] = raw[k].to(C)
        vm = v[0]
        for k2 in kdsl.range_constexpr(1, VEC):  # (each unrolled loop in a
            vm = kdsl.math.fmax(vm, v[k2])  # run-time loop has a name of its own)
        if vm > m:
            s = s * kdsl.math.exp(m - vm)
            m = vm
        for k3 in kdsl.range_constexpr(VEC):
            s = s + kdsl.math.exp(v[k3] - m)

    # 2. combine the threads' (m, s): the row maximum, then each sum rescaled
    #    to it (a thread without elements has s = 0 and m = -inf)
    row_max = block_max(scratch, m)
    if s > 0:
        s = s * kdsl.math.exp(m - row_max)
    inv = 1.0 / block_sum(scratch, s)

    # 3. normalise, from shared memory when the row is cached
    for j in range(thread_idx.x, nvec, WARPS * 32):
        if VEC == 1:
            raw = row[j] if CACHE else x[base + j]
            y[base + j] = (kdsl.math.exp(raw.to(C) - row_max) * inv).to(D)
        else:
            raw = row[j] if CACHE else x.vec(VEC)[base + j]
            out = Vector[D, VEC].splat(0)
            for lane in kdsl.range_constexpr(VEC):
                e = kdsl.math.exp(raw[lane].to(C) - row_max)
                out[lane] = (e * inv).to(D)
            y.vec(VEC)[base + j] = out


# -- the host side: configurations and the choice between the kernels --------
REGISTER_CONFIGS = [
    kdsl.Config(VEC=vec, WARPS=warps, ROWS=max(1, 4 // warps), CHUNKS=chunks)
    for vec in (8, 4, 2, 1)
    for warps in (1, 2, 4, 8, 16)
    for chunks in range(1, 9)
]


def fits_in_registers(configs, args):
    """For each warp count, the fewest chunks that cover the row with the
    widest vectors that divide it (3000 Float32 columns: 4 warps x 6 chunks
    or 8 x 3, 3072 lanes, rather than 4096); a layout leaving half its lanes
    idle is dropped unless it is the smallest (a short row: one warp, one
    vector a thread)."""
    cols = args["cols"]
    vec = vector_lanes(cols, itemsize(args["x"]))
    kept = []
    for c in configs:
        k = c.constexprs
        per_chunk = k["WARPS"] * 32 * k["VEC"]
        covered = per_chunk * k["CHUNKS"]
        fewest = cols <= covered < cols + per_chunk
        smallest = k["WARPS"] * k["CHUNKS"] == 1
        if k["VEC"] == vec and fewest and (covered < 2 * cols or smallest):
            kept.append(c)
    return kept


softmax_rows_tuned = kdsl.autotune(
    configs=REGISTER_CONFIGS, key=["cols"], prune=fits_in_registers
)(softmax_rows)


LONGEST_IN_REGISTERS = 16 * 32 * 8  # vectors: 16 warps of 32 threads, 8 each


def longest_in_registers(cols: int, size: int) -> int:
    """The longest row of ``size``-byte elements the register kernels take,
    in the vectors a row of ``cols`` is read with."""
    return LONGEST_IN_REGISTERS * vector_lanes(cols, size)


def cached_in_shared(cols: int, size: int) -> bool:
    """Whether ``softmax_online`` can keep the row in shared memory (227 KB
    a block on an H200, the scratch too)."""
    return cols * size <= 200 * 1024


def softmax(x, y, *, interpret=False, online=None):
    """y = softmax(x) over the rows of a C-contiguous (rows, cols) matrix.
    ``online``: force (True) or forbid (False) the long-row kernel."""
    rows, cols = check_rows(x, y)
    size = itemsize(x)
    vec = vector_lanes(cols, size)
    if online is None:
        online = cols > longest_in_registers(cols, size)
    if not online:
        tuned = softmax_rows_tuned
        launch = tuned.interpret if interpret else tuned
        grid = lambda m: (rows + m["ROWS"] - 1) // m["ROWS"]  # noqa: E731
        block = lambda m: (32 * m["WARPS"], m["ROWS"])  # noqa: E731
        launch[grid, block](x, y, rows, cols)
        return
    cache = cached_in_shared(cols, size)
    kernel = softmax_online.interpret if interpret else softmax_online
    kernel[rows, 256](
        x,
        y,
        cols,
        VEC=vec,
        WARPS=8,
        CACHE=cache,
        shared_mem=cols * size if cache else 0,
    )


if __name__ == "__main__":
    print(softmax_rows.dispatch("bf16", VEC=8, WARPS=4, CHUNKS=1).source)
