"""transpose: out = a.T for a 2-D array, through a padded shared-memory tile.

Launch with block (TILE, TILE) and grid (ceil(cols/TILE), ceil(rows/TILE)).
"""

import kdsl
from kdsl import Array, Constexpr, block_idx, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Num)


@kdsl.kernel
def transpose(a: Array[D, 2], out: Array[D, 2], TILE: Constexpr[int] = 32):
    tile = kdsl.shared_array(D, (TILE, TILE + 1))
    tx = thread_idx.x
    ty = thread_idx.y
    col = block_idx.x * TILE + tx
    row = block_idx.y * TILE + ty
    if row < a.shape[0] and col < a.shape[1]:
        tile[ty, tx] = a[row, col]
    kdsl.syncthreads()
    out_col = block_idx.y * TILE + tx
    out_row = block_idx.x * TILE + ty
    if out_row < out.shape[0] and out_col < out.shape[1]:
        out[out_row, out_col] = tile[tx, ty]


if __name__ == "__main__":
    print(transpose.dispatch("f32").source)
