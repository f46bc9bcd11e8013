"""matmul: c = a @ b for row-major (M, K) and (K, N) matrices, tiled in shared memory.

Launch with block (TILE, TILE) and grid (ceil(N/TILE), ceil(M/TILE)).
Accumulates in Float32 for half types, in the dtype itself otherwise.
"""

import kdsl
from kdsl import Constexpr, Float32, Int32, Pointer, block_idx, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel
def matmul(
    a: Pointer[D],
    b: Pointer[D],
    c: Pointer[D],
    M: Int32,
    N: Int32,
    K: Int32,
    TILE: Constexpr[int] = 16,
):
    if D.width == 16:
        acc = Float32(0)
    else:
        acc = D(0)
    a_tile = kdsl.shared_array(D, (TILE, TILE))
    b_tile = kdsl.shared_array(D, (TILE, TILE))
    tx = thread_idx.x
    ty = thread_idx.y
    row = block_idx.y * TILE + ty
    col = block_idx.x * TILE + tx
    for k0 in range(0, K, TILE):
        a_tile[ty, tx] = a[row * K + k0 + tx] if row < M and k0 + tx < K else D(0)
        b_tile[ty, tx] = b[(k0 + ty) * N + col] if k0 + ty < K and col < N else D(0)
        kdsl.syncthreads()
        for k in kdsl.range_constexpr(TILE):
            acc = acc + a_tile[ty, k].to(acc.dtype) * b_tile[k, tx].to(acc.dtype)
        kdsl.syncthreads()
    if row < M and col < N:
        c[row * N + col] = acc.to(D)


if __name__ == "__main__":
    print(matmul.dispatch("f16").source)
