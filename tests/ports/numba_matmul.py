"""Port of numba/numba, ``numba/cuda/tests/doc_examples/test_matmul.py``,
``matmul`` and ``fast_matmul`` (the examples of Numba's CUDA documentation,
"Matrix multiplication"): C = A @ B, one thread an element of C, found with
``cuda.grid(2)``.  ``matmul`` runs the dot product from global memory;
``fast_matmul`` stages TPB x TPB tiles of A and B in shared memory (zeros
past the edges), ``cuda.gridDim.x`` tiles along the shared dimension, with
a barrier after loading and after using each tile.

Differences from the original: ``cuda.grid(2)`` is ``kdsl.grid(2)``,
``cuda.shared.array(shape=(TPB, TPB), dtype=float32)`` is
``kdsl.shared_array(Float32, (TPB, TPB))`` and the arrays are
``Array[Float32, 2]`` parameters; ``matmul``'s ``tmp`` is a Float32 (the
original's ``tmp = 0.`` sums in float64).  As in the original,
``fast_matmul``'s grid covers the shared dimension along x
(``gridDim.x * TPB >= A.shape[1]``).
"""

import kdsl
from kdsl import Array, Float32, grid_dim, thread_idx

TPB = 16


@kdsl.kernel
def matmul(A: Array[Float32, 2], B: Array[Float32, 2], C: Array[Float32, 2]):
    i, j = kdsl.grid(2)
    if i < C.shape[0] and j < C.shape[1]:
        tmp = Float32(0)
        for k in range(A.shape[1]):
            tmp += A[i, k] * B[k, j]
        C[i, j] = tmp


@kdsl.kernel
def fast_matmul(A: Array[Float32, 2], B: Array[Float32, 2], C: Array[Float32, 2]):
    sA = kdsl.shared_array(Float32, (TPB, TPB))
    sB = kdsl.shared_array(Float32, (TPB, TPB))
    x, y = kdsl.grid(2)
    tx = thread_idx.x
    ty = thread_idx.y
    bpg = grid_dim.x
    tmp = Float32(0)
    for i in range(bpg):
        # the tiles, zero past the matrices' edges
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and tx + i * TPB < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and ty + i * TPB < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]
        kdsl.syncthreads()
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]
        kdsl.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp
