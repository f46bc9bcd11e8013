"""vector_add: out = x + y, elementwise, for every float and integer dtype.

Three kernels:

* ``vector_add``, one element per thread: the shortest correct kernel (the
  README's first example);
* ``vector_add_x4``, the same with one Float32x4 per thread (``x.vec(4)``),
  for sizes that are a multiple of 4;
* ``add``, the fast one for large arrays (it runs at the speed of the memory
  on an H200; ``add_tuned`` picks BLOCK and UNROLL per size):

  - every access moves 16 bytes (``x.vec(L)`` with ``L = 128 // D.width``
    lanes: 4 Float32, 8 BFloat16, 16 Int8), the widest load a thread can
    issue, so a warp moves 512 bytes per instruction;
  - each thread issues UNROLL independent loads of x and of y before it adds
    or stores anything: the loads are in flight together, which is what
    hides the memory latency (a store between them would have to wait,
    since ``out`` may alias ``x``);
  - consecutive threads read consecutive 16-byte vectors (coalesced): a
    thread's UNROLL vectors are BLOCK vectors apart;
  - the ragged tail (the last ``n % L`` elements, fewer than one vector) is
    added element by element by the first block.

  Launch with ``add_grid(n, x.itemsize, BLOCK, UNROLL)`` blocks of BLOCK threads; the
  pointers must be 16-byte aligned (any CuPy or PyTorch allocation is; the
  launch checks it).

``block="BLOCK"`` ties each kernel's block to its BLOCK constexpr:
``vector_add[(n + 255) // 256](x, y, out, n)`` launches 256 threads a block,
``vector_add[(n + 127) // 128](x, y, out, n, BLOCK=128)`` 128; a launch with
another block (``vector_add[grid, 128]`` at BLOCK=256) is refused. The
autotuned ``add_tuned[grid]`` launches each config with its BLOCK.
"""

import kdsl
from kdsl import Constexpr, Int32, Pointer, Vector, block_idx, grid_dim, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Num)


@kdsl.kernel(block="BLOCK")
def vector_add(
    x: Pointer[D], y: Pointer[D], out: Pointer[D], n: Int32, BLOCK: Constexpr[int] = 256
):
    i = block_idx.x * BLOCK + thread_idx.x
    if i < n:
        out[i] = x[i] + y[i]


@kdsl.kernel(dtypes=[kdsl.Float32], block="BLOCK", no_overflow=True)
def vector_add_x4(
    x: Pointer[D], y: Pointer[D], out: Pointer[D], n: Int32, BLOCK: Constexpr[int] = 256
):
    """The smallest ``.vec`` kernel: n must be a multiple of 4 and the
    pointers 16-byte aligned (``add`` below has neither limit)."""
    kdsl.assume(n >= 0)
    i = block_idx.x * BLOCK + thread_idx.x
    if i < n // 4:
        xv = x.vec(4)
        yv = y.vec(4)
        ov = out.vec(4)
        ov[i] = xv[i] + yv[i]


@kdsl.kernel(block="BLOCK")
def add(
    x: Pointer[D],
    y: Pointer[D],
    out: Pointer[D],
    n: Int32,
    BLOCK: Constexpr[int] = 256,
    UNROLL: Constexpr[int] = 4,
):
    kdsl.assume(n >= 0)
    L = 128 // D.width  # lanes in 16 bytes
    # no more blocks than n < 2**31 elements need (add_grid): indices fit
    kdsl.assume(grid_dim.x <= (1 << 31) // (BLOCK * UNROLL * L))
    xv = x.vec(L)
    yv = y.vec(L)
    ov = out.vec(L)
    nv = n // L  # whole vectors
    first = block_idx.x * (BLOCK * UNROLL) + thread_idx.x
    # All loads first, into registers (the local arrays are indexed by
    # compile-time indices only, so they never touch local memory).
    a = kdsl.local_array(Vector[D, L], UNROLL)
    b = kdsl.local_array(Vector[D, L], UNROLL)
    for u in kdsl.range_constexpr(UNROLL):
        j = first + u * BLOCK
        if j < nv:
            a[u] = xv[j]
            b[u] = yv[j]
    for u in kdsl.range_constexpr(UNROLL):
        j = first + u * BLOCK
        if j < nv:
            ov[j] = a[u] + b[u]
    # The tail: fewer than L elements past the last whole vector.
    t = nv * L + thread_idx.x
    if block_idx.x == 0 and t < n:
        out[t] = x[t] + y[t]


def add_grid(n: int, itemsize: int, BLOCK: int = 256, UNROLL: int = 4) -> int:
    """Blocks for ``add`` over ``n`` elements of ``itemsize`` bytes: one tile
    of BLOCK * UNROLL 16-byte vectors each, at least one (for the tail)."""
    per_block = BLOCK * UNROLL * (16 // itemsize)
    return max(1, -(-n // per_block))


# Short config list: small arrays want small blocks (more of them), large
# ones more loads in flight per thread.
ADD_CONFIGS = [
    kdsl.Config(BLOCK=b, UNROLL=u) for b, u in ((128, 2), (256, 4), (512, 2), (256, 8))
]
# The search saves and restores ``out`` (the array ``add`` writes), so an
# in-place ``launch_add(x, y, x)`` is searched without doubling x.
add_tuned = kdsl.autotune(configs=ADD_CONFIGS, key=["n"])(add)


def launch_add(x, y, out, stream=None):
    """``out = x + y`` on the GPU with the tuned configuration for this size
    (CuPy arrays or PyTorch tensors, one dtype, contiguous)."""
    n = out.size if isinstance(out.size, int) else out.numel()
    size = out.itemsize
    # grid only: each config's block is its BLOCK (add declares block="BLOCK")
    add_tuned[lambda m: add_grid(n, size, m["BLOCK"], m["UNROLL"])](
        x, y, out, n, stream=stream
    )


if __name__ == "__main__":
    for dtype in vector_add.supported_dtypes:
        print(vector_add.dispatch(dtype).name)
    print(add.dispatch(kdsl.BFloat16).source)
