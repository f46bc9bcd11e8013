"""transpose: out = a.T for a (rows, cols) array (any strides: ``Array``
parameters carry them), through a padded shared-memory tile, for every dtype.

Why it is fast (a transpose moves every byte once each way; the target is
the speed of a device-to-device copy):

* both the reads of ``a`` and the writes of ``out`` are coalesced: a warp
  reads 32 consecutive elements of a row of ``a`` into the tile, and,
  after the barrier, writes 32 consecutive elements of a row of ``out``
  read down a column of the tile;
* the tile has one column of padding (TILE x TILE + 1): reading a column of
  it then touches 32 different shared-memory banks instead of one;
* a block of TILE x ROWS threads (32 x 8) moves a 32 x 32 tile, each thread
  TILE // ROWS elements: fewer, busier threads, with several loads in flight
  per thread before the barrier.

Launch with block (TILE, ROWS) and grid (ceil(cols / TILE), ceil(rows / TILE));
any shape (edges are guarded).
"""

import kdsl
from kdsl import Array, Constexpr, block_idx, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Num)


@kdsl.kernel
def transpose(
    a: Array[D, 2],
    out: Array[D, 2],
    TILE: Constexpr[int] = 32,
    ROWS: Constexpr[int] = 8,
):
    tile = kdsl.shared_array(D, (TILE, TILE + 1))
    rows = a.shape[0]
    cols = a.shape[1]
    tx = thread_idx.x
    ty = thread_idx.y
    # read a TILE x TILE block of a, row by row (coalesced along cols)
    col = block_idx.x * TILE + tx
    for k in kdsl.range_constexpr(0, TILE, ROWS):
        row = block_idx.y * TILE + ty + k
        if row < rows and col < cols:
            tile[ty + k, tx] = a[row, col]
    kdsl.syncthreads()
    # write it to out transposed, row by row of out (coalesced along rows)
    out_col = block_idx.y * TILE + tx
    for k in kdsl.range_constexpr(0, TILE, ROWS):
        out_row = block_idx.x * TILE + ty + k
        if out_row < cols and out_col < rows:
            out[out_row, out_col] = tile[tx, ty + k]


def launch_transpose(a, out, stream=None):
    """``out = a.T`` on the GPU (2-D CuPy arrays or PyTorch tensors)."""
    rows, cols = a.shape
    if tuple(out.shape) != (cols, rows):
        raise ValueError(f"transpose: out is {tuple(out.shape)}, a.T is {(cols, rows)}")
    grid = ((cols + 31) // 32, (rows + 31) // 32)
    transpose[grid, (32, 8)](a, out, stream=stream)


if __name__ == "__main__":
    print(transpose.dispatch("f32").source)
