"""Port of karpathy/llm.c, ``dev/cuda/attention_forward.cu``,
``permute_kernel``: splits the (B, N, 3, NH, d) QKV activations into Q, K
and V of shape (B, NH, N, d), one thread an element of each, the element's
coordinates recovered from its flat index by ``/`` and ``%`` with the
run-time sizes (``b = idx / (NH * N * d)`` …).  Blocks of
``block_size`` threads, ``ceil_div(B * NH * N * d, block_size)`` of them.

No differences from the original: C's ``/`` and ``%`` are Python's ``//``
and ``%`` (the same on the non-negative indices here); the
``0 * NH * d`` term of the input index is kept as written.
"""

import kdsl
from kdsl import Float32, Int32, Pointer, block_dim, block_idx, thread_idx


@kdsl.kernel
def permute_kernel(
    q: Pointer[Float32],
    k: Pointer[Float32],
    v: Pointer[Float32],
    inp: Pointer[Float32],
    B: Int32,
    N: Int32,
    NH: Int32,
    d: Int32,
):
    idx = block_idx.x * block_dim.x + thread_idx.x
    # Q[b][nh_][n][d_] = inp[b][n][0][nh_][d_]
    if idx < B * NH * N * d:
        b = idx // (NH * N * d)
        rest = idx % (NH * N * d)
        nh_ = rest // (N * d)
        rest = rest % (N * d)
        n = rest // d
        d_ = rest % d
        inp_idx = (
            (b * N * 3 * NH * d) + (n * 3 * NH * d) + (0 * NH * d) + (nh_ * d) + d_
        )
        q[idx] = inp[inp_idx]
        k[idx] = inp[inp_idx + NH * d]
        v[idx] = inp[inp_idx + 2 * (NH * d)]
