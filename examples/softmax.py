"""Row softmax of a (rows, cols) matrix, Float16 / BFloat16 / Float32 /
Float64, computed in Float32 (Float64 for Float64 data, so that gradients can
be checked numerically): ``y = exp(x - max(x)) / sum(exp(x - max(x)))`` per
row, and its backward ``dx = y * (dy - sum(dy * y))`` per row.

Three forward kernels, and ``softmax(x, y)`` on the host picks one by shape
(``plan``):

* ``softmax_rows``: the row stays in registers (one read and one write of
  memory, the minimum). A row is read as 16-byte vectors (``x.vec(VEC)``:
  four Float32 or eight Float16/BFloat16 per load, one 128-bit instruction;
  narrower vectors when the width is not a multiple, scalars when it is odd),
  ``CHUNKS`` vectors per thread in a ``local_array`` indexed only at compile
  time (so it lives in registers), ``WARPS`` warps per row and ``ROWS`` rows
  per block (short rows: several rows per block keep the block at 128+
  threads, so enough warps stay resident to hide memory latency). The
  autotuner picks among the configurations that cover the row. Rows read 4
  lanes at a time (Float32) go up to 16 vectors a thread (32768 columns,
  ``WIDE_CONFIGS``: 64 values in 95 registers, one block an SM) when there
  are more rows than half the SMs, the rest up to 8.
* ``softmax_online``: rows too long for registers (vocabulary-sized: 50257
  to 128256 wide), as many rows as SMs or more. One block per row walks it
  once with the online softmax (a running maximum and a sum rescaled when
  the maximum grows), ``UNROLL`` 16-byte loads in flight a thread, keeping
  the row in dynamic shared memory when ``CACHE`` (``shared_mem=`` bytes at
  launch, up to 200 KB) so that the second pass does not read memory again:
  a copy's bytes, one read and one write. A row past 200 KB is read twice
  (the second read mostly from L2).
* ``softmax_split``: few wide rows (at most half as many as SMs: decoding,
  a handful of vocabulary rows). A block a row would leave most SMs idle,
  so each row is split over ``splits`` blocks, one an SM: each reads its
  chunk once into shared memory while folding it into a (maximum, sum)
  pair, the pairs meet in a small Float64 array after a grid barrier
  (``kdsl.grid_sync()``: a cooperative launch, every block resident), and
  each block writes its chunk from shared memory. One read and one write,
  the whole GPU busy, one launch. (Chunks past 200 KB — 64 rows of 128256
  Float32 — are read again after the barrier, mostly from L2.)

* ``softmax_rows_backward``: the gradient, paired with ``softmax_rows``
  (``backward=``, so ``kdsl.torch.op`` differentiates it): the same row
  layout and launch, ``y`` and ``grad_y`` in registers, one block sum.

All use ``block_max``/``block_sum`` from block_reduce.py; the online ones
share ``online_fold``, ``online_merge`` and ``block_online``. ``kdsl.math.exp``
is the accurate ``expf`` (no fast math); the division is one reciprocal per
row and a multiply per element.
"""

import functools
import math
import sys
from pathlib import Path

# the siblings (block_reduce.py ...) import by name however this file is
# loaded: `python examples/x.py`, `from examples.x import ...`, kdsl-transpile
if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import kdsl
from block_reduce import (
    block_max,
    block_sum,
    check_rows,
    itemsize,
    multiprocessors,
    vector_lanes,
)
from kdsl import (
    Constexpr,
    Float32,
    Float64,
    Int32,
    Pointer,
    Vector,
    block_idx,
    grid_dim,
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


@kdsl.func
def online_fold(v, m, s):
    """The running ``(m, s)`` (maximum, sum of ``exp(x - m)``) after the
    values of the local array ``v`` (lanes past the row's end are -inf): the
    sum is rescaled once a batch, and only when the batch raises the maximum."""
    top = m
    for u in kdsl.range_constexpr(v.shape[0]):
        for k in kdsl.range_constexpr(v.shape[1]):
            top = kdsl.math.fmax(top, v[u, k])
    if top > m:
        s = s * kdsl.math.exp(m - top)
        m = top
    for u2 in kdsl.range_constexpr(v.shape[0]):  # (each unrolled loop in a
        for k2 in kdsl.range_constexpr(v.shape[1]):  # run-time loop: its own name)
            s = s + kdsl.math.exp(v[u2, k2] - m)
    return m, s


@kdsl.func
def online_merge(m, s, m2, s2):
    """Two ``(maximum, sum)`` pairs as one, each sum rescaled to the larger
    maximum (a pair without elements has s = 0 and m = -inf)."""
    top = kdsl.math.fmax(m, m2)
    if s > 0:
        s = s * kdsl.math.exp(m - top)
    if s2 > 0:
        s = s + s2 * kdsl.math.exp(m2 - top)
    return top, s


@kdsl.func
def block_online(scratch, m, s):
    """The block's ``(maximum, sum)`` from each thread's: the maximum, then
    each sum rescaled to it."""
    top = block_max(scratch, m)
    if s > 0:
        s = s * kdsl.math.exp(m - top)
    return top, block_sum(scratch, s)


@kdsl.kernel(dtypes=DTYPES)
def softmax_online(
    x: Pointer[D],
    y: Pointer[D],
    cols: Int32,
    VEC: Constexpr[int] = 4,
    WARPS: Constexpr[int] = 8,
    CACHE: Constexpr[bool] = True,
    UNROLL: Constexpr[int] = 1,
):
    C = Float64 if D.width == 64 else Float32  # the type computed in
    scratch = kdsl.shared_array(C, (1, WARPS))
    nvec = cols // VEC
    base = block_idx.x * nvec  # one row per block
    step = WARPS * 32
    v = kdsl.local_array(C, (UNROLL, VEC))  # UNROLL vectors' lanes, in registers
    if CACHE:  # the row as read: cols * D's size bytes of shared_mem
        if VEC == 1:
            row = kdsl.dynamic_shared_array(D, cols)
        else:
            row = kdsl.dynamic_shared_array(Vector[D, VEC], nvec)

    # 1. one pass: the running maximum m and the sum s of exp(x - m). Each
    #    thread issues UNROLL loads back to back (bytes in flight: a block of
    #    one row per SM needs them to reach the memory's bandwidth), then
    #    folds them into (m, s)
    m = C(NEG_INF)
    s = C(0)
    for j0 in range(thread_idx.x, nvec, step * UNROLL):
        for u in kdsl.range_constexpr(UNROLL):
            j = j0 + u * step
            for k in kdsl.range_constexpr(VEC):
                v[u, k] = C(NEG_INF)
            if u == 0 or j < nvec:  # the first vector is in the row
                if VEC == 1:  # an odd width: scalar accesses
                    raw = x[base + j]
                    if CACHE:
                        row[j] = raw
                    v[u, 0] = raw.to(C)
                else:
                    raw = x.vec(VEC)[base + j]
                    if CACHE:
                        row[j] = raw
                    for k2 in kdsl.range_constexpr(VEC):
                        v[u, k2] = raw[k2].to(C)
        m, s = online_fold(v, m, s)

    # 2. combine the threads' (m, s)
    row_max, total = block_online(scratch, m, s)
    inv = 1.0 / total

    # 3. normalise, from shared memory when the row is cached: the UNROLL
    #    vectors are read before any is stored (a store to y could alias x)
    for j0 in range(thread_idx.x, nvec, step * UNROLL):
        for u in kdsl.range_constexpr(UNROLL):
            j = j0 + u * step
            if u == 0 or j < nvec:
                if VEC == 1:
                    v[u, 0] = (row[j] if CACHE else x[base + j]).to(C)
                else:
                    raw = row[j] if CACHE else x.vec(VEC)[base + j]
                    for k in kdsl.range_constexpr(VEC):
                        v[u, k] = raw[k].to(C)
        for u2 in kdsl.range_constexpr(UNROLL):
            j = j0 + u2 * step
            if u2 == 0 or j < nvec:
                if VEC == 1:
                    y[base + j] = (kdsl.math.exp(v[u2, 0] - row_max) * inv).to(D)
                else:
                    out = Vector[D, VEC].splat(0)
                    for lane in kdsl.range_constexpr(VEC):
                        e = kdsl.math.exp(v[u2, lane] - row_max)
                        out[lane] = (e * inv).to(D)
                    y.vec(VEC)[base + j] = out


@kdsl.kernel(dtypes=DTYPES)
def softmax_split(
    x: Pointer[D],
    y: Pointer[D],
    stats: Pointer[Float64],
    cols: Int32,
    chunk: Int32,
    VEC: Constexpr[int] = 4,
    WARPS: Constexpr[int] = 16,
    UNROLL: Constexpr[int] = 4,
    CACHE: Constexpr[bool] = True,
):
    """Few wide rows: a row split over ``grid_dim.y`` blocks, ``chunk``
    vectors each (grid (rows, splits), every block resident: it grid-syncs).
    Each block reads its chunk once, into dynamic shared memory when
    ``CACHE`` (``chunk * VEC`` elements of ``shared_mem``), while folding it
    into (m, s), writes that pair to ``stats`` (2 Float64 a block), waits at
    the grid barrier, merges its row's pairs and writes its chunk from
    shared memory: one read and one write of memory, with every SM busy
    however few the rows. Chunks too large for shared memory are read again
    after the barrier (the whole input was just read: mostly from L2)."""
    C = Float64 if D.width == 64 else Float32  # the type computed in
    scratch = kdsl.shared_array(C, (1, WARPS))
    nvec = cols // VEC
    base = block_idx.x * nvec  # the row's first vector
    splits = grid_dim.y
    lo = block_idx.y * chunk  # this block's vectors: lo .. hi - 1
    hi = min(lo + chunk, nvec)
    step = WARPS * 32
    v = kdsl.local_array(C, (UNROLL, VEC))
    if CACHE:
        if VEC == 1:
            part = kdsl.dynamic_shared_array(D, chunk)
        else:
            part = kdsl.dynamic_shared_array(Vector[D, VEC], chunk)

    # 1. the chunk (into shared memory), folded into (m, s) as softmax_online
    m = C(NEG_INF)
    s = C(0)
    for j0 in range(lo + thread_idx.x, hi, step * UNROLL):
        for u in kdsl.range_constexpr(UNROLL):
            j = j0 + u * step
            for k in kdsl.range_constexpr(VEC):
                v[u, k] = C(NEG_INF)
            if u == 0 or j < hi:
                if VEC == 1:
                    raw = x[base + j]
                    if CACHE:
                        part[j - lo] = raw
                    v[u, 0] = raw.to(C)
                else:
                    raw = x.vec(VEC)[base + j]
                    if CACHE:
                        part[j - lo] = raw
                    for k2 in kdsl.range_constexpr(VEC):
                        v[u, k2] = raw[k2].to(C)
        m, s = online_fold(v, m, s)
    m, s = block_online(scratch, m, s)
    if thread_idx.x == 0:
        at = (block_idx.x * splits + block_idx.y) * 2
        stats[at] = m.to(Float64)
        stats[at + 1] = s.to(Float64)
    kdsl.grid_sync()

    # 2. the row's (m, s): every block of the row merges the same pairs
    rm = C(NEG_INF)
    rs = C(0)
    for b in range(thread_idx.x, splits, step):
        at = (block_idx.x * splits + b) * 2
        rm, rs = online_merge(rm, rs, stats[at].to(C), stats[at + 1].to(C))
    row_max, total = block_online(scratch, rm, rs)
    inv = 1.0 / total

    # 3. normalise the chunk: UNROLL vectors read (from shared memory or
    #    memory) before any is stored, as softmax_online
    for j0 in range(lo + thread_idx.x, hi, step * UNROLL):
        for u in kdsl.range_constexpr(UNROLL):
            j = j0 + u * step
            if u == 0 or j < hi:
                if VEC == 1:
                    v[u, 0] = (part[j - lo] if CACHE else x[base + j]).to(C)
                else:
                    raw = part[j - lo] if CACHE else x.vec(VEC)[base + j]
                    for k in kdsl.range_constexpr(VEC):
                        v[u, k] = raw[k].to(C)
        for u2 in kdsl.range_constexpr(UNROLL):
            j = j0 + u2 * step
            if u2 == 0 or j < hi:
                if VEC == 1:
                    y[base + j] = (kdsl.math.exp(v[u2, 0] - row_max) * inv).to(D)
                else:
                    out = Vector[D, VEC].splat(0)
                    for lane in kdsl.range_constexpr(VEC):
                        e = kdsl.math.exp(v[u2, lane] - row_max)
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


# the forward's own layouts past 16 warps x 8 vectors, for rows read 4 lanes
# at a time (Float32): up to 16 chunks, 64 values a thread in 95 registers
# (no spill; one block of 512 threads an SM, the layout of Triton's fused
# softmax), where softmax_online's shared-memory row is slower (Float32 4096
# x 32000: 0.89x Triton's time with 32 warps)
WIDE_CHUNKS = 16
WIDE_CONFIGS = [
    kdsl.Config(VEC=4, WARPS=16, ROWS=1, CHUNKS=chunks)
    for chunks in range(9, WIDE_CHUNKS + 1)
]

softmax_rows_tuned = kdsl.autotune(
    configs=REGISTER_CONFIGS + WIDE_CONFIGS, key=["cols"], prune=fits_in_registers
)(softmax_rows)


LONGEST_IN_REGISTERS = 16 * 32 * 8  # vectors: 16 warps of 32 threads, 8 each


def longest_in_registers(cols: int, size: int) -> int:
    """The longest row of ``size``-byte elements the register kernels take,
    in the vectors a row of ``cols`` is read with."""
    return LONGEST_IN_REGISTERS * vector_lanes(cols, size)


def softmax_in_registers(cols: int, size: int) -> int:
    """The longest row ``softmax_rows`` takes in ``softmax``: 16 warps x
    16 vectors of 4 lanes where the row is read 4 lanes at a time (32768
    Float32 columns), else ``longest_in_registers`` (the norms and the
    backward, which holds two rows, stay there)."""
    if vector_lanes(cols, size) == 4:
        return 16 * 32 * WIDE_CHUNKS * 4
    return longest_in_registers(cols, size)


SHARED_LIMIT = 200 * 1024  # bytes of a row or chunk cached a block (227 KB on an H200)


def cached_in_shared(cols: int, size: int) -> bool:
    """Whether ``softmax_online`` can keep the row in shared memory (227 KB
    a block on an H200, the scratch too)."""
    return cols * size <= SHARED_LIMIT


def unroll(vec: int, size: int) -> int:
    """Loads in flight a thread for the wide-row kernels: 64 bytes (four
    16-byte vectors; 16 scalars of an odd Float32 width), at most 16."""
    return min(16, max(1, 64 // (vec * size)))


def online_warps(size: int) -> int:
    """``softmax_online``'s warps a block: 32 for Float32 (1024 threads:
    twice the bytes in flight of 16 warps while an SM holds one block, its
    row filling the shared memory: 4096 x 32000 in 292 us against 326 on
    the H200, 1024 x 50257 in 161 against 179), 16 for 16-bit types (32 are
    slower: 1024 x 50257 BFloat16 in 132 us against 108) and Float64."""
    return 32 if size == 4 else 16


def plan(rows: int, cols: int, size: int, sms: int, online=None):
    """The kernel ``softmax`` launches for a (rows, cols) matrix of
    ``size``-byte elements on a GPU of ``sms`` multiprocessors, and its
    parameters: ``("rows", {})`` (the row in registers, autotuned);
    ``("split", {...})`` for rows too wide for registers and too few to fill
    the GPU (at most half as many as SMs): each row over ``splits`` blocks
    of ``chunk`` vectors, one block an SM, the chunk in shared memory where
    it fits (``CACHE``);
    ``("online", {...})`` otherwise: a block a row, cached in shared memory
    when the row fits; but ``("rows", {})`` again for rows of up to 16
    vectors a thread (``softmax_in_registers``: 32768 Float32) unless the
    wide-row kernels are forced. ``online`` True/False forces/forbids the
    wide-row kernels."""
    vec = vector_lanes(cols, size)
    forced = online is True
    if online is None:
        online = cols > longest_in_registers(cols, size)
    if not online:
        return "rows", {}
    nvec = cols // vec
    if 2 * rows <= sms:  # a block a row would leave half the SMs idle or more
        chunk = -(-nvec // (sms // rows))
        splits = -(-nvec // chunk)  # no block without vectors
        cache = chunk * vec * size <= SHARED_LIMIT
        return "split", dict(
            splits=splits,
            chunk=chunk,
            VEC=vec,
            CACHE=cache,
            UNROLL=unroll(vec, size),
        )
    if not forced and cols <= softmax_in_registers(cols, size):
        return "rows", {}  # 16 vectors a thread (WIDE_CONFIGS)
    cache = cached_in_shared(cols, size)
    return "online", dict(
        VEC=vec, WARPS=online_warps(size), CACHE=cache, UNROLL=unroll(vec, size)
    )


_plan = functools.lru_cache(maxsize=4096)(plan)  # softmax's: a few us a call saved


def _on_gpu(x) -> bool:
    if hasattr(x, "is_cuda"):  # PyTorch
        return bool(x.is_cuda)
    return hasattr(x, "__cuda_array_interface__")  # CuPy (numpy: the interpreter)


def _stats(x, n: int):
    """A Float64 work array of ``n`` on x's device, of x's library."""
    if hasattr(x, "data_ptr"):  # PyTorch
        import torch

        return torch.empty(n, dtype=torch.float64, device=x.device)
    if hasattr(x, "__cuda_array_interface__"):  # CuPy
        import cupy

        return cupy.empty(n, dtype=cupy.float64)
    import numpy

    return numpy.empty(n, dtype=numpy.float64)  # the interpreter


def softmax(x, y, *, interpret=False, online=None, sms=None):
    """y = softmax(x) over the rows of a C-contiguous (rows, cols) matrix.
    ``online``: force (True) or forbid (False) the wide-row kernels;
    ``sms``: the multiprocessors to plan for (the current GPU's; 8 for the
    interpreter)."""
    rows, cols = check_rows(x, y)
    size = itemsize(x)
    wide = cols > longest_in_registers(cols, size)
    if (online or (online is None and wide)) and sms is None:
        # the SM count matters to wide rows only
        sms = 8 if interpret or not _on_gpu(x) else multiprocessors()
    path, p = _plan(rows, cols, size, sms or 0, online)
    if path == "rows":
        tuned = softmax_rows_tuned
        launch = tuned.interpret if interpret else tuned
        grid = lambda m: (rows + m["ROWS"] - 1) // m["ROWS"]  # noqa: E731
        block = lambda m: (32 * m["WARPS"], m["ROWS"])  # noqa: E731
        launch[grid, block](x, y, rows, cols)
    elif path == "split":
        kernel = softmax_split.interpret if interpret else softmax_split
        splits, chunk, vec, cache = p["splits"], p["chunk"], p["VEC"], p["CACHE"]
        kernel[(rows, splits), 32 * 16](
            x,
            y,
            _stats(x, 2 * rows * splits),
            cols,
            chunk,
            VEC=vec,
            CACHE=cache,
            UNROLL=p["UNROLL"],
            shared_mem=chunk * vec * size if cache else 0,
        )
    else:
        kernel = softmax_online.interpret if interpret else softmax_online
        kernel[rows, 32 * p["WARPS"]](
            x,
            y,
            cols,
            shared_mem=cols * size if p["CACHE"] else 0,
            **p,
        )


if __name__ == "__main__":
    print(softmax_rows.dispatch("bf16", VEC=8, WARPS=4, CHUNKS=1).source)
