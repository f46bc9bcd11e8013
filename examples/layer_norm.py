"""Layer norm forward over the rows of a (rows, cols) matrix, Float16 /
BFloat16 / Float32, computed in Float32:

    y = (x - mean) / sqrt(var + eps) * weight + bias

``weight`` and ``bias`` are optional pointers: launching with ``None`` picks
an instance without them (``layer_norm__…__noweight__nobias``), so a
``LayerNorm(elementwise_affine=False)`` costs no load and no multiply.

The row stays in registers (read once, written once): 16-byte vector loads
(``VEC`` lanes), ``CHUNKS`` vectors per thread in a ``local_array`` indexed at
compile time, ``WARPS`` warps per row and ``ROWS`` rows per block, picked by
the autotuner among the configurations that cover the row (as softmax.py).
The variance is the mean of ``(x - mean)**2`` from the registers (two block
sums, not ``E[x^2] - mean^2``: no cancellation). ``block_sum`` comes from
block_reduce.py.
"""

import sys
from pathlib import Path

# the siblings (block_reduce.py ...) import by name however this file is
# loaded: `python examples/x.py`, `from examples.x import ...`, kdsl-transpile
if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import kdsl
from block_reduce import block_sum, check_rows
from kdsl import Constexpr, Float32, Int32, Pointer, Vector, block_idx, thread_idx
from softmax import REGISTER_CONFIGS, fits_in_registers

D = kdsl.TypeVar("D", bound=kdsl.Float)
DTYPES = [kdsl.Float16, kdsl.BFloat16, kdsl.Float32]


@kdsl.kernel(dtypes=DTYPES)
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
    scratch = kdsl.shared_array(Float32, (ROWS, WARPS))
    row = block_idx.x * ROWS + thread_idx.y
    nvec = cols // VEC  # vectors per row: the host picks a VEC that divides cols
    base = row * nvec
    # this thread's part of the row: CHUNKS vectors of VEC lanes, indexed only
    # by compile-time indices, so the array lives in registers
    vals = kdsl.local_array(Float32, (CHUNKS, VEC))

    # 1. load the row (lanes past its end are 0) and its mean. Threads past
    #    the last row still take part in the block sums: they skip memory.
    s = Float32(0)
    for c in kdsl.range_constexpr(CHUNKS):
        j = c * (WARPS * 32) + thread_idx.x
        for k in kdsl.range_constexpr(VEC):
            vals[c, k] = 0
        if row < rows and j < nvec:
            if VEC == 1:  # an odd width: scalar accesses
                vals[c, 0] = x[base + j].to(Float32)
            else:  # one 16-byte (or 8-, 4-byte) load
                v = x.vec(VEC)[base + j].to(Float32)
                for lane in kdsl.range_constexpr(VEC):
                    vals[c, lane] = v[lane]
        for k in kdsl.range_constexpr(VEC):
            s = s + vals[c, k]
    mean = block_sum(scratch, s) / cols

    # 2. the variance around the mean, from the registers (the lanes past the
    #    row's end are set to 0 again)
    q = Float32(0)
    for c in kdsl.range_constexpr(CHUNKS):
        j = c * (WARPS * 32) + thread_idx.x
        live = j < nvec
        for k in kdsl.range_constexpr(VEC):
            vals[c, k] = vals[c, k] - mean if live else Float32(0)
            q = q + vals[c, k] * vals[c, k]
    rstd = 1.0 / kdsl.math.sqrt(block_sum(scratch, q) / cols + eps)

    # 3. scale, shift, store a vector at a time; weight and bias are static
    #    branches (an instance per None), read as vectors too
    for c in kdsl.range_constexpr(CHUNKS):
        j = c * (WARPS * 32) + thread_idx.x
        if row < rows and j < nvec:
            if VEC == 1:
                o = vals[c, 0] * rstd
                if weight is not None:
                    o = o * weight[j].to(Float32)
                if bias is not None:
                    o = o + bias[j].to(Float32)
                y[base + j] = o.to(D)
            else:
                out = Vector[Float32, VEC].splat(0)
                for lane in kdsl.range_constexpr(VEC):
                    out[lane] = vals[c, lane] * rstd
                if weight is not None:
                    out = out * weight.vec(VEC)[j].to(Float32)
                if bias is not None:
                    out = out + bias.vec(VEC)[j].to(Float32)
                y.vec(VEC)[base + j] = out.to(D)


CONFIGS = REGISTER_CONFIGS  # the same row layouts as softmax_rows


def fits(configs, args):
    """Configurations covering a row with the widest vectors, no idle half
    (softmax.py's rule)."""
    return fits_in_registers(configs, args)


layer_norm_tuned = kdsl.autotune(configs=CONFIGS, key=["cols"], prune=fits)(layer_norm)


def launch(x, weight, bias, y, eps=1e-5, *, interpret=False):
    """y = layer_norm(x) over the rows of a (rows, cols) matrix; weight and
    bias: (cols,) arrays or None. Rows up to 16 * 32 * 8 vectors wide."""
    rows, cols = check_rows(x, y)
    tuned = layer_norm_tuned.interpret if interpret else layer_norm_tuned
    grid = lambda m: (rows + m["ROWS"] - 1) // m["ROWS"]  # noqa: E731
    block = lambda m: (32 * m["WARPS"], m["ROWS"])  # noqa: E731
    tuned[grid, block](x, weight, bias, y, rows, cols, eps)


if __name__ == "__main__":
    print(layer_norm.dispatch("bf16", bias=None, VEC=8).source)
