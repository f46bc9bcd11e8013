"""Block-wide sum and max, written once and shared by the softmax, layer norm,
RMSNorm and reduction examples (``from block_reduce import block_sum``).

A block is seen as ``block_dim.y`` groups of ``block_dim.x`` threads (one
group per row of a row-wise kernel; a 1-D block is one group). Each function
takes the block's shared scratch array, shaped ``(block_dim.y, warps per
group)`` — ``kdsl.shared_array(Float32, (ROWS, WARPS))`` — and returns the
group's total in every thread of the group.

Why this shape:

* a warp reduces in registers with five ``shfl_xor`` steps (a butterfly:
  every lane ends with the warp's total, no shared memory, no barrier);
* with one warp per group (``scratch.shape[1] == 1``, known at compile time)
  that is all: no shared memory and no ``syncthreads`` are emitted;
* with more, lane 0 of each warp writes its total to the scratch array, one
  barrier, and every thread adds the group's slots (a handful of shared
  loads broadcast to the warp: cheaper than a second shuffle round plus
  another barrier);
* the last barrier lets the caller reuse the same scratch array at once
  (softmax reduces a max, then a sum, through one array).

Every thread of the block must call them (they contain block barriers), also
threads whose row or elements are out of range: mask the data, not the call.
"""

import kdsl
from kdsl import thread_idx


@kdsl.func
def warp_sum(v):
    for k in kdsl.range_constexpr(5):
        v = v + kdsl.shfl_xor(v, 16 >> k)
    return v


@kdsl.func
def warp_max(v):
    for k in kdsl.range_constexpr(5):
        v = max(v, kdsl.shfl_xor(v, 16 >> k))
    return v


@kdsl.func
def block_sum(scratch, v):
    """The sum of ``v`` over this thread's group (see the module's docstring)."""
    v = warp_sum(v)
    warps = scratch.shape[1]
    if warps > 1:  # static: one warp per group needs no shared memory
        if kdsl.lane_id() == 0:
            scratch[thread_idx.y, thread_idx.x // 32] = v
        kdsl.syncthreads()
        v = scratch[thread_idx.y, 0]
        for w in kdsl.range_constexpr(1, warps):
            v = v + scratch[thread_idx.y, w]
        kdsl.syncthreads()  # the slots may be written again right away
    return v


@kdsl.func
def block_max(scratch, v):
    """The maximum of ``v`` over this thread's group (see the module's docstring)."""
    v = warp_max(v)
    warps = scratch.shape[1]
    if warps > 1:
        if kdsl.lane_id() == 0:
            scratch[thread_idx.y, thread_idx.x // 32] = v
        kdsl.syncthreads()
        v = scratch[thread_idx.y, 0]
        for w in kdsl.range_constexpr(1, warps):
            v = max(v, scratch[thread_idx.y, w])
        kdsl.syncthreads()
    return v


# -- host-side helpers shared by the examples' launch functions --------------
_MULTIPROCESSORS: dict = {}  # device -> its count (CuPy's attributes are slow)


def multiprocessors() -> int:
    """The current GPU's streaming multiprocessors (132 on an H200): the
    size of a persistent grid."""
    import cupy

    device = cupy.cuda.runtime.getDevice()
    if device not in _MULTIPROCESSORS:
        attributes = cupy.cuda.Device(device).attributes
        _MULTIPROCESSORS[device] = attributes["MultiProcessorCount"]
    return _MULTIPROCESSORS[device]


def itemsize(a) -> int:
    """Bytes per element of a numpy/CuPy array or a PyTorch tensor."""
    size = getattr(a, "itemsize", None)
    return int(size if size is not None else a.element_size())


def vector_lanes(cols: int, size: int) -> int:
    """The widest vector that divides the row: 16 bytes when cols allows it
    (rows then start 16-byte aligned), else 8, 4 ... bytes."""
    lanes = 16 // size
    while cols % lanes:
        lanes //= 2
    return lanes


def check_rows(x, *others):
    """The host functions' argument check: a C-contiguous (rows, cols) ``x``
    and same-shaped outputs (the kernels take bare pointers: a smaller output
    would be written past its end)."""
    if len(x.shape) != 2:
        raise ValueError(f"expected a (rows, cols) matrix, got shape {tuple(x.shape)}")
    for other in others:
        if other is not None and tuple(other.shape) != tuple(x.shape):
            raise ValueError(
                f"shape {tuple(other.shape)} differs from x's {tuple(x.shape)}"
            )
    return x.shape
