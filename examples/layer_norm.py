"""Layer norm over the rows of a (rows, cols) matrix, Float16 / BFloat16 /
Float32 / Float64, computed in Float32 (Float64 for Float64 data, so that
gradients can be checked numerically):

    y = (x - mean) / sqrt(var + eps) * weight + bias

and its backward (``layer_norm_backward``, paired with ``backward=`` so that
``kdsl.torch.op`` differentiates it), with ``xhat = (x - mean) * rstd`` and
``g = grad_y * weight``:

    grad_x = rstd * (g - mean(g) - xhat * mean(g * xhat))
    grad_weight = sum over rows of grad_y * xhat,  grad_bias = sum of grad_y

``weight`` and ``bias`` are optional pointers: launching with ``None`` picks
an instance without them (``layer_norm__…__noweight__nobias``), so a
``LayerNorm(elementwise_affine=False)`` costs no load and no multiply.

The row stays in registers (read once, written once): 16-byte vector loads
(``VEC`` lanes), ``CHUNKS`` vectors per thread in a ``local_array`` indexed at
compile time, ``WARPS`` warps per row and ``ROWS`` rows per block, picked by
the autotuner among the configurations that cover the row (as softmax.py).
The variance is the mean of ``(x - mean)**2`` from the registers (two block
sums, not ``E[x^2] - mean^2``: no cancellation). ``block_sum`` comes from
block_reduce.py. Rows too wide for registers (past 16 warps x 8 vectors a
thread: 16384 Float32, 32768 16-bit) take ``layer_norm_wide``: a block a
row, the row read once into shared memory (``launch`` picks).

The backward kernel has the forward's launch and row layout: it recomputes
the mean and ``rstd`` of its rows (nothing is saved but ``x``), and adds each
row's ``grad_y * xhat`` and ``grad_y`` into ``grad_weight`` / ``grad_bias``
with ``kdsl.atomic_add`` into zero-filled Float64 sums (for every dtype: a
sum over thousands of rows in 16 bits would lose most of its bits;
``kdsl.torch`` allocates a gradient in its parameter's own dtype and rounds
it to the weight's after).  The order of the additions is not fixed on the
GPU, so the last bits of these sums may differ from run to run.  An absent weight or bias has no gradient: its
``grad_`` pointer is ``None`` too.
"""

import sys
from pathlib import Path

# the siblings (block_reduce.py ...) import by name however this file is
# loaded: `python examples/x.py`, `from examples.x import ...`, kdsl-transpile
if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import kdsl
from block_reduce import block_sum, check_rows, itemsize, vector_lanes
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
from softmax import (
    REGISTER_CONFIGS,
    cached_in_shared,
    fits_in_registers,
    longest_in_registers,
    unroll,
)

D = kdsl.TypeVar("D", bound=kdsl.Float)
DTYPES = [kdsl.Float16, kdsl.BFloat16, kdsl.Float32, kdsl.Float64]


@kdsl.kernel(dtypes=DTYPES, no_overflow=True)
def layer_norm_backward(
    x: Pointer[D],
    weight: Pointer[D] | None,
    grad_y: Pointer[D],
    grad_x: Pointer[D],
    grad_weight: Pointer[Float64] | None,
    grad_bias: Pointer[Float64] | None,
    rows: Int32,
    cols: Int32,
    eps: Float32,
    VEC: Constexpr[int] = 4,
    WARPS: Constexpr[int] = 4,
    ROWS: Constexpr[int] = 1,
    CHUNKS: Constexpr[int] = 2,
):
    kdsl.assume(rows >= 0 and cols >= 0)
    C = Float64 if D.width == 64 else Float32  # the type computed in
    scratch = kdsl.shared_array(C, (ROWS, WARPS))
    row = block_idx.x * ROWS + thread_idx.y
    nvec = cols // VEC
    base = row * nvec
    xs = kdsl.local_array(C, (CHUNKS, VEC))  # x, then xhat
    gs = kdsl.local_array(C, (CHUNKS, VEC))  # grad_y
    ws = kdsl.local_array(C, (CHUNKS, VEC))  # grad_y * weight

    # 1. load x and grad_y (0 past the row's end); the mean as in the forward
    s = C(0)
    for c in kdsl.range_constexpr(CHUNKS):
        j = c * (WARPS * 32) + thread_idx.x
        for k in kdsl.range_constexpr(VEC):
            xs[c, k] = 0
            gs[c, k] = 0
        if row < rows and j < nvec:
            if VEC == 1:
                xs[c, 0] = x[base + j].to(C)
                gs[c, 0] = grad_y[base + j].to(C)
            else:
                xv = x.vec(VEC)[base + j].to(C)
                gv = grad_y.vec(VEC)[base + j].to(C)
                for lane in kdsl.range_constexpr(VEC):
                    xs[c, lane] = xv[lane]
                    gs[c, lane] = gv[lane]
        for k in kdsl.range_constexpr(VEC):
            s = s + xs[c, k]
    mean = block_sum(scratch, s) / cols

    # 2. the variance around the mean, then xhat and g = grad_y * weight
    q = C(0)
    for c in kdsl.range_constexpr(CHUNKS):
        j = c * (WARPS * 32) + thread_idx.x
        live = j < nvec
        for k in kdsl.range_constexpr(VEC):
            xs[c, k] = xs[c, k] - mean if live else C(0)
            q = q + xs[c, k] * xs[c, k]
    rstd = 1.0 / kdsl.math.sqrt(block_sum(scratch, q) / cols + eps.to(C))
    a = C(0)  # sum(g)
    b = C(0)  # sum(g * xhat)
    for c in kdsl.range_constexpr(CHUNKS):
        j = c * (WARPS * 32) + thread_idx.x
        for k in kdsl.range_constexpr(VEC):
            xs[c, k] = xs[c, k] * rstd
            ws[c, k] = gs[c, k]
        if weight is not None and j < nvec:  # weight read as vectors too
            if VEC == 1:
                ws[c, 0] = gs[c, 0] * weight[j].to(C)
            else:
                wv = weight.vec(VEC)[j].to(C)
                for lane in kdsl.range_constexpr(VEC):
                    ws[c, lane] = gs[c, lane] * wv[lane]
        for k in kdsl.range_constexpr(VEC):
            a = a + ws[c, k]
            b = b + ws[c, k] * xs[c, k]
    a = block_sum(scratch, a) / cols
    b = block_sum(scratch, b) / cols

    # 3. grad_x a vector at a time; this row's share of grad_weight and
    #    grad_bias added with atomics
    for c in kdsl.range_constexpr(CHUNKS):
        j = c * (WARPS * 32) + thread_idx.x
        if row < rows and j < nvec:
            if VEC == 1:
                grad_x[base + j] = (rstd * (ws[c, 0] - a - xs[c, 0] * b)).to(D)
            else:
                out = Vector[D, VEC].splat(0)
                for lane in kdsl.range_constexpr(VEC):
                    dx = rstd * (ws[c, lane] - a - xs[c, lane] * b)
                    out[lane] = dx.to(D)
                grad_x.vec(VEC)[base + j] = out
            for k in kdsl.range_constexpr(VEC):
                if grad_weight is not None:
                    kdsl.atomic_add(
                        grad_weight, j * VEC + k, (gs[c, k] * xs[c, k]).to(Float64)
                    )
                if grad_bias is not None:
                    kdsl.atomic_add(grad_bias, j * VEC + k, gs[c, k].to(Float64))


@kdsl.kernel(dtypes=DTYPES, backward=layer_norm_backward, no_overflow=True)
def layer_norm(
    x: Pointer[D],
    weight: Pointer[D] | None,
    bias: Pointer[D] | None,
    y: Pointer[D],
    rows: Int32,
    cols: Int32,
    eps: Float32,
    VEC: Constexpr[int] = 4,
    WARPS: Constexpr[int] = 4,
    ROWS: Constexpr[int] = 1,
    CHUNKS: Constexpr[int] = 2,
):
    kdsl.assume(rows >= 0 and cols >= 0)
    C = Float64 if D.width == 64 else Float32  # the type computed in
    scratch = kdsl.shared_array(C, (ROWS, WARPS))
    row = block_idx.x * ROWS + thread_idx.y
    nvec = cols // VEC  # vectors per row: the host picks a VEC that divides cols
    base = row * nvec
    # this thread's part of the row: CHUNKS vectors of VEC lanes, indexed only
    # by compile-time indices, so the array lives in registers
    vals = kdsl.local_array(C, (CHUNKS, VEC))

    # 1. load the row (lanes past its end are 0) and its mean. Threads past
    #    the last row still take part in the block sums: they skip memory.
    s = C(0)
    for c in kdsl.range_constexpr(CHUNKS):
        j = c * (WARPS * 32) + thread_idx.x
        for k in kdsl.range_constexpr(VEC):
            vals[c, k] = 0
        if row < rows and j < nvec:
            if VEC == 1:  # an odd width: scalar accesses
                vals[c, 0] = x[base + j].to(C)
            else:  # one 16-byte (or 8-, 4-byte) load
                v = x.vec(VEC)[base + j].to(C)
                for lane in kdsl.range_constexpr(VEC):
                    vals[c, lane] = v[lane]
        for k in kdsl.range_constexpr(VEC):
            s = s + vals[c, k]
    mean = block_sum(scratch, s) / cols

    # 2. the variance around the mean, from the registers (the lanes past the
    #    row's end are set to 0 again)
    q = C(0)
    for c in kdsl.range_constexpr(CHUNKS):
        j = c * (WARPS * 32) + thread_idx.x
        live = j < nvec
        for k in kdsl.range_constexpr(VEC):
            vals[c, k] = vals[c, k] - mean if live else C(0)
            q = q + vals[c, k] * vals[c, k]
    rstd = 1.0 / kdsl.math.sqrt(block_sum(scratch, q) / cols + eps.to(C))

    # 3. scale, shift, store a vector at a time; weight and bias are static
    #    branches (an instance per None), read as vectors too
    for c in kdsl.range_constexpr(CHUNKS):
        j = c * (WARPS * 32) + thread_idx.x
        if row < rows and j < nvec:
            if VEC == 1:
                o = vals[c, 0] * rstd
                if weight is not None:
                    o = o * weight[j].to(C)
                if bias is not None:
                    o = o + bias[j].to(C)
                y[base + j] = o.to(D)
            else:
                out = Vector[C, VEC].splat(0)
                for lane in kdsl.range_constexpr(VEC):
                    out[lane] = vals[c, lane] * rstd
                if weight is not None:
                    out = out * weight.vec(VEC)[j].to(C)
                if bias is not None:
                    out = out + bias.vec(VEC)[j].to(C)
                y.vec(VEC)[base + j] = out.to(D)


@kdsl.kernel(dtypes=DTYPES, no_overflow=True)
def layer_norm_wide(
    x: Pointer[D],
    weight: Pointer[D] | None,
    bias: Pointer[D] | None,
    y: Pointer[D],
    cols: Int32,
    eps: Float32,
    VEC: Constexpr[int] = 4,
    WARPS: Constexpr[int] = 16,
    CACHE: Constexpr[bool] = True,
    UNROLL: Constexpr[int] = 4,
):
    """Rows too wide for registers (past 16 x 32 x 8 vectors): a block a
    row. The first pass reads the row with ``UNROLL`` 16-byte loads in
    flight a thread, keeps it in dynamic shared memory when ``CACHE``
    (``cols`` elements of ``shared_mem``) and sums it; the variance around
    the mean and the output then read shared memory, not the row again
    (uncached rows, past 200 KB, are read three times, mostly from L2).
    Launch with grid ``rows``, block ``32 * WARPS``."""
    kdsl.assume(cols >= 0)
    C = Float64 if D.width == 64 else Float32  # the type computed in
    scratch = kdsl.shared_array(C, (1, WARPS))
    nvec = cols // VEC
    base = block_idx.x * nvec  # one row per block
    step = WARPS * 32
    if CACHE:
        if VEC == 1:
            row = kdsl.dynamic_shared_array(D, cols)
        else:
            row = kdsl.dynamic_shared_array(Vector[D, VEC], nvec)

    # 1. the sum, UNROLL loads issued back to back; the row into shared memory
    s = C(0)
    for j0 in range(thread_idx.x, nvec, step * UNROLL):
        for u in kdsl.range_constexpr(UNROLL):
            j = j0 + u * step
            if u == 0 or j < nvec:
                if VEC == 1:
                    raw = x[base + j]
                    if CACHE:
                        row[j] = raw
                    s = s + raw.to(C)
                else:
                    raw = x.vec(VEC)[base + j]
                    if CACHE:
                        row[j] = raw
                    for k in kdsl.range_constexpr(VEC):
                        s = s + raw[k].to(C)
    mean = block_sum(scratch, s) / cols

    # 2. the variance around the mean (no cancellation), from shared memory
    q = C(0)
    for j in range(thread_idx.x, nvec, step):
        if VEC == 1:
            d = (row[j] if CACHE else x[base + j]).to(C) - mean
            q = q + d * d
        else:
            raw = row[j] if CACHE else x.vec(VEC)[base + j]
            for k2 in kdsl.range_constexpr(VEC):
                d = raw[k2].to(C) - mean
                q = q + d * d
    rstd = 1.0 / kdsl.math.sqrt(block_sum(scratch, q) / cols + eps.to(C))

    # 3. scale, shift and store
    for j in range(thread_idx.x, nvec, step):
        if VEC == 1:
            o = ((row[j] if CACHE else x[base + j]).to(C) - mean) * rstd
            if weight is not None:
                o = o * weight[j].to(C)
            if bias is not None:
                o = o + bias[j].to(C)
            y[base + j] = o.to(D)
        else:
            raw = row[j] if CACHE else x.vec(VEC)[base + j]
            out = Vector[C, VEC].splat(0)
            for lane in kdsl.range_constexpr(VEC):
                out[lane] = (raw[lane].to(C) - mean) * rstd
            if weight is not None:
                out = out * weight.vec(VEC)[j].to(C)
            if bias is not None:
                out = out + bias.vec(VEC)[j].to(C)
            y.vec(VEC)[base + j] = out.to(D)


CONFIGS = REGISTER_CONFIGS  # the same row layouts as softmax_rows


def fits(configs, args):
    """Configurations covering a row with the widest vectors, no idle half
    (softmax.py's rule)."""
    return fits_in_registers(configs, args)


layer_norm_tuned = kdsl.autotune(configs=CONFIGS, key=["cols"], prune=fits)(layer_norm)


def launch(x, weight, bias, y, eps=1e-5, *, interpret=False):
    """y = layer_norm(x) over the rows of a (rows, cols) matrix; weight and
    bias: (cols,) arrays or None. Rows up to 16 * 32 * 8 vectors wide stay
    in registers (autotuned); wider ones take ``layer_norm_wide``."""
    rows, cols = check_rows(x, y)
    size = itemsize(x)
    if cols > longest_in_registers(cols, size):
        wide = layer_norm_wide.interpret if interpret else layer_norm_wide
        cache = cached_in_shared(cols, size)
        vec = vector_lanes(cols, size)
        wide[rows, 32 * 16](
            x,
            weight,
            bias,
            y,
            cols,
            eps,
            VEC=vec,
            CACHE=cache,
            UNROLL=unroll(vec, size),
            shared_mem=cols * size if cache else 0,
        )
        return
    tuned = layer_norm_tuned.interpret if interpret else layer_norm_tuned
    grid = lambda m: (rows + m["ROWS"] - 1) // m["ROWS"]  # noqa: E731
    block = lambda m: (32 * m["WARPS"], m["ROWS"])  # noqa: E731
    tuned[grid, block](x, weight, bias, y, rows, cols, eps)


if __name__ == "__main__":
    print(layer_norm.dispatch("bf16", bias=None, VEC=8).source)
