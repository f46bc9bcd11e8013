"""RMSNorm forward over the rows of a (rows, cols) matrix, Float16 / BFloat16
/ Float32, computed in Float32:

    h = x + residual            (when a residual is given)
    y = h / sqrt(mean(h**2) + eps) * weight

``weight`` and ``residual`` are optional pointers (``None`` at launch picks an
instance without them). With a residual, the kernel is the fused
"add + RMSNorm" of transformer blocks: it also stores ``h`` into
``residual`` (in place), so the next block reads the updated stream without
a separate add kernel.

Same layout as layer_norm.py: the row in registers as 16-byte vectors,
``CHUNKS`` per thread, ``WARPS`` warps per row, ``ROWS`` rows per block, one
``block_sum`` (block_reduce.py), autotuned among the configurations that
cover the row. Wider rows take ``rms_norm_wide`` (a block a row, the row
read once into shared memory); ``launch`` picks.
"""

import sys
from pathlib import Path

# the siblings (block_reduce.py ...) import by name however this file is
# loaded: `python examples/x.py`, `from examples.x import ...`, kdsl-transpile
if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import kdsl
from block_reduce import block_sum, check_rows, itemsize, vector_lanes
from kdsl import Constexpr, Float32, Int32, Pointer, Vector, block_idx, thread_idx
from layer_norm import CONFIGS, fits
from softmax import cached_in_shared, longest_in_registers, unroll

D = kdsl.TypeVar("D", bound=kdsl.Float)
DTYPES = [kdsl.Float16, kdsl.BFloat16, kdsl.Float32]


@kdsl.kernel(dtypes=DTYPES, no_overflow=True)
def rms_norm(
    x: Pointer[D],
    residual: Pointer[D] | None,
    weight: Pointer[D] | None,
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
    scratch = kdsl.shared_array(Float32, (ROWS, WARPS))
    row = block_idx.x * ROWS + thread_idx.y
    nvec = cols // VEC  # vectors per row: the host picks a VEC that divides cols
    base = row * nvec
    vals = kdsl.local_array(Float32, (CHUNKS, VEC))  # in registers

    # 1. load the row (lanes past its end are 0), add the residual, and sum
    #    the squares
    q = Float32(0)
    for c in kdsl.range_constexpr(CHUNKS):
        j = c * (WARPS * 32) + thread_idx.x
        for k in kdsl.range_constexpr(VEC):
            vals[c, k] = 0
        if row < rows and j < nvec:
            if VEC == 1:  # an odd width: scalar accesses
                h = x[base + j]
                if residual is not None:  # static: an instance per None
                    h = (h.to(Float32) + residual[base + j].to(Float32)).to(D)
                    residual[base + j] = h
                vals[c, 0] = h.to(Float32)
            else:  # one 16-byte (or 8-, 4-byte) load
                hv = x.vec(VEC)[base + j]
                if residual is not None:
                    # the sum is rounded to D once, stored in place, and
                    # normalised as stored (what an add kernel would hand over)
                    rv = residual.vec(VEC)[base + j]
                    hv = (hv.to(Float32) + rv.to(Float32)).to(D)
                    residual.vec(VEC)[base + j] = hv
                for lane in kdsl.range_constexpr(VEC):
                    vals[c, lane] = hv[lane].to(Float32)
        for k in kdsl.range_constexpr(VEC):
            q = q + vals[c, k] * vals[c, k]
    rrms = 1.0 / kdsl.math.sqrt(block_sum(scratch, q) / cols + eps)

    # 2. scale and store a vector at a time
    for c in kdsl.range_constexpr(CHUNKS):
        j = c * (WARPS * 32) + thread_idx.x
        if row < rows and j < nvec:
            if VEC == 1:
                o = vals[c, 0] * rrms
                if weight is not None:
                    o = o * weight[j].to(Float32)
                y[base + j] = o.to(D)
            else:
                out = Vector[Float32, VEC].splat(0)
                for lane in kdsl.range_constexpr(VEC):
                    out[lane] = vals[c, lane] * rrms
                if weight is not None:
                    out = out * weight.vec(VEC)[j].to(Float32)
                y.vec(VEC)[base + j] = out.to(D)


@kdsl.kernel(dtypes=DTYPES, no_overflow=True)
def rms_norm_wide(
    x: Pointer[D],
    residual: Pointer[D] | None,
    weight: Pointer[D] | None,
    y: Pointer[D],
    cols: Int32,
    eps: Float32,
    VEC: Constexpr[int] = 4,
    WARPS: Constexpr[int] = 16,
    CACHE: Constexpr[bool] = True,
    UNROLL: Constexpr[int] = 4,
):
    """Rows too wide for registers: a block a row, as layer_norm_wide. The
    first pass reads x (and the residual, storing the sum back into it) with
    ``UNROLL`` 16-byte loads in flight a thread and keeps ``h`` in dynamic
    shared memory when ``CACHE`` (``cols`` elements of ``shared_mem``); the
    output reads it there (uncached: ``h`` again from memory). Launch with
    grid ``rows``, block ``32 * WARPS``."""
    kdsl.assume(cols >= 0)
    scratch = kdsl.shared_array(Float32, (1, WARPS))
    nvec = cols // VEC
    base = block_idx.x * nvec  # one row per block
    step = WARPS * 32
    if CACHE:
        if VEC == 1:
            row = kdsl.dynamic_shared_array(D, cols)
        else:
            row = kdsl.dynamic_shared_array(Vector[D, VEC], nvec)

    # 1. h = x (+ residual, stored back), the sum of its squares. The UNROLL
    #    vectors of x (and of the residual) are loaded before any store: a
    #    store into the residual could alias x, and would hold back the next
    #    loads otherwise
    if VEC == 1:
        xs = kdsl.local_array(D, UNROLL)
        rs = kdsl.local_array(D, UNROLL)
    else:
        xs = kdsl.local_array(Vector[D, VEC], UNROLL)
        rs = kdsl.local_array(Vector[D, VEC], UNROLL)
    q = Float32(0)
    for j0 in range(thread_idx.x, nvec, step * UNROLL):
        for u in kdsl.range_constexpr(UNROLL):
            j = j0 + u * step
            if u == 0 or j < nvec:
                if VEC == 1:
                    xs[u] = x[base + j]
                    if residual is not None:
                        rs[u] = residual[base + j]
                else:
                    xs[u] = x.vec(VEC)[base + j]
                    if residual is not None:
                        rs[u] = residual.vec(VEC)[base + j]
        for u2 in kdsl.range_constexpr(UNROLL):
            j = j0 + u2 * step
            if u2 == 0 or j < nvec:
                h = xs[u2]
                if residual is not None:  # rounded to D once, stored in place
                    h = (h.to(Float32) + rs[u2].to(Float32)).to(D)
                    if VEC == 1:
                        residual[base + j] = h
                    else:
                        residual.vec(VEC)[base + j] = h
                if CACHE:
                    row[j] = h
                if VEC == 1:
                    q = q + h.to(Float32) * h.to(Float32)
                else:
                    for k in kdsl.range_constexpr(VEC):
                        q = q + h[k].to(Float32) * h[k].to(Float32)
    rrms = 1.0 / kdsl.math.sqrt(block_sum(scratch, q) / cols + eps)

    # 2. scale and store, h from shared memory (or where pass 1 left it)
    src = x if residual is None else residual
    for j in range(thread_idx.x, nvec, step):
        if VEC == 1:
            o = (row[j] if CACHE else src[base + j]).to(Float32) * rrms
            if weight is not None:
                o = o * weight[j].to(Float32)
            y[base + j] = o.to(D)
        else:
            hv = row[j] if CACHE else src.vec(VEC)[base + j]
            out = hv.to(Float32) * rrms
            if weight is not None:
                out = out * weight.vec(VEC)[j].to(Float32)
            y.vec(VEC)[base + j] = out.to(D)


rms_norm_tuned = kdsl.autotune(configs=CONFIGS, key=["cols"], prune=fits)(rms_norm)


def launch(x, residual, weight, y, eps=1e-6, *, interpret=False):
    """y = rms_norm(x [+ residual]) * weight over the rows of a (rows, cols)
    matrix; residual (rows, cols) or None (updated in place), weight (cols,)
    or None. Rows wider than the registers hold take ``rms_norm_wide``."""
    rows, cols = check_rows(x, residual, y)
    size = itemsize(x)
    if cols > longest_in_registers(cols, size):
        wide = rms_norm_wide.interpret if interpret else rms_norm_wide
        cache = cached_in_shared(cols, size)
        vec = vector_lanes(cols, size)
        wide[rows, 32 * 16](
            x,
            residual,
            weight,
            y,
            cols,
            eps,
            VEC=vec,
            CACHE=cache,
            UNROLL=unroll(vec, size),
            shared_mem=cols * size if cache else 0,
        )
        return
    tuned = rms_norm_tuned.interpret if interpret else rms_norm_tuned
    grid = lambda m: (rows + m["ROWS"] - 1) // m["ROWS"]  # noqa: E731
    block = lambda m: (32 * m["WARPS"], m["ROWS"])  # noqa: E731
    tuned[grid, block](x, residual, weight, y, rows, cols, eps)


if __name__ == "__main__":
    print(rms_norm.dispatch("bf16", residual=None, VEC=8).source)
