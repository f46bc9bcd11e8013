"""Port of triton-lang/triton, ``python/tutorials/05-layer-norm.py``,
``_layer_norm_bwd_dx_fused`` and ``_layer_norm_bwd_dwdb``: the backward pass
of layer normalisation.  One block a row computes ``dx`` and adds the row's
``dy * xhat`` and ``dy`` to one of ``GROUP_SIZE_M`` partial sums of ``dw``
and ``db`` (row ``row % GROUP_SIZE_M``) under a spin lock; the first row to
take a group's lock stores instead of adding (a count next to the lock
says).  A second kernel sums the partial rows.

Differences from the original: a Triton program holds the whole row, a
block here strides over it (computing ``xhat`` and ``w * dy`` twice: once
for the row's sums, once for ``dx``) and reduces the sums with
``layernorm_forward``'s ``block_sum2`` device function (``tl.sum`` there;
``mean1`` and ``mean2`` are ``a / N`` and ``b / N``).  Thread 0 takes the
lock (``atomic_cas`` with ``order="acquire"``; Triton's atomics default to
``acq_rel``) and the block's barrier passes it on; thread 0 sets the count
with one ``atomic_exch``, which returns the old count (the original loads it
and exchanges it when it is 0), and tells the block through shared memory;
after a barrier, thread 0 releases the lock with a ``threadfence`` and a
release ``atomic_exch`` (the block's stores must be visible before the lock
is free: a Triton program is one thread of control).  The unused ``B`` and
``eps`` parameters are left out; ``_layer_norm_bwd_dwdb`` sums a column a
thread instead of ``BLOCK_SIZE_M x BLOCK_SIZE_N`` tiles; Float32 only (the
tutorial also runs Float16).  The interpreter runs a batch of blocks in
lock-step: two rows of one batch that share a lock never end there (E451),
so the tests give each row of a batch its own group.
"""

from layernorm_forward import block_sum2

import kdsl
from kdsl import Boolean, Constexpr, Float32, Int32, Pointer, block_dim, block_idx
from kdsl import thread_idx


@kdsl.kernel
def layer_norm_bwd_dx_fused(
    DX: Pointer[Float32],
    DY: Pointer[Float32],
    DW: Pointer[Float32],
    DB: Pointer[Float32],
    X: Pointer[Float32],
    W: Pointer[Float32],
    M: Pointer[Float32],
    V: Pointer[Float32],
    Lock: Pointer[Int32],
    stride: Int32,
    N: Int32,
    GROUP_SIZE_M: Constexpr[int],
):
    sums, sums2 = kdsl.shared_array(Float32, 32), kdsl.shared_array(Float32, 32)
    first = kdsl.shared_array(Boolean, 1)  # whether this row is its group's first
    row, lock_id = block_idx.x, block_idx.x % GROUP_SIZE_M
    mean, rstd = M[row], V[row]
    a, b = Float32(0), Float32(0)
    for col in range(thread_idx.x, N, block_dim.x):
        wdy = W[col] * DY[row * stride + col]
        a, b = a + (X[row * stride + col] - mean) * rstd * wdy, b + wdy
    a, b = block_sum2(sums, sums2, a, b)  # N times mean1 and mean2
    if thread_idx.x == 0:
        while kdsl.atomic_cas(Lock, lock_id, 0, 1, order="acquire") == 1:
            pass
        first[0] = kdsl.atomic_exch(Lock, GROUP_SIZE_M + lock_id, 1) == 0  # Count
    kdsl.syncthreads()
    for col in range(thread_idx.x, N, block_dim.x):
        xhat = (X[row * stride + col] - mean) * rstd
        dy = DY[row * stride + col]
        DX[row * stride + col] = (W[col] * dy - (xhat * (a / N) + b / N)) * rstd
        partial_dw, partial_db = dy * xhat, dy
        k = lock_id * N + col
        if not first[0]:
            partial_dw, partial_db = partial_dw + DW[k], partial_db + DB[k]
        DW[k], DB[k] = partial_dw, partial_db
    kdsl.syncthreads()
    if thread_idx.x == 0:
        kdsl.threadfence()
        kdsl.atomic_exch(Lock, lock_id, 0, order="release")


@kdsl.kernel
def layer_norm_bwd_dwdb(
    DW: Pointer[Float32],
    DB: Pointer[Float32],
    FINAL_DW: Pointer[Float32],
    FINAL_DB: Pointer[Float32],
    M: Int32,
    N: Int32,
):
    col = block_idx.x * block_dim.x + thread_idx.x
    if col < N:
        dw, db = Float32(0), Float32(0)
        for i in range(M):
            dw, db = dw + DW[i * N + col], db + DB[i * N + col]
        FINAL_DW[col], FINAL_DB[col] = dw, db
