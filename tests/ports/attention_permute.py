"""Port of karpathy/llm.c, ``dev/cuda/attention_forward.cu``,
``permute_kernel``: splits the (B, N, 3, NH, d) QKV activations into Q, K
and V of shape (B, NH, N, d), one thread an element of each, the element's
coordinates recovered from its flat index by ``/`` and ``%`` with the
run-time sizes (``b = idx / (NH * N * d)`` …).  Blocks of
``block_size`` threads, ``ceil_div(B * NH * N * d, block_size)`` of them.

No differences from the original: C's ``/`` and ``%`` are Python's ``//``
and ``%`` (the same on the non-negative indices here); the
``0 * NH * d`` term of the input index is kept as written.  The port
states what the original's C takes for granted: the sizes are positive
(``kdsl.assume``) and its ``int`` arithmetic does not overflow
(``no_overflow=True``, which the interpreter checks), so the generated
index arithmetic is the original's plain ``/``, ``%``, ``*`` and ``+``.
"""

import numpy as np

import kdsl
from kdsl import Float32, Int32, Pointer, block_dim, block_idx, thread_idx


@kdsl.kernel(no_overflow=True)
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
    kdsl.assume(B > 0 and N > 0 and NH > 0 and d > 0)
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


# -- benchmark: benchmarks/ports.py against benchmarks/originals/attention_permute.cu --
def _bench_setup(cp):
    B, N, NH, d = 8, 1024, 12, 64  # GPT-2 small's heads, llm.c's B and T
    r = np.random.default_rng(26)
    inp = r.standard_normal(B * N * 3 * NH * d, dtype=np.float32)
    total = B * NH * N * d
    return dict(
        sizes=(B, N, NH, d),
        q=cp.zeros(total, np.float32),
        k=cp.zeros(total, np.float32),
        v=cp.zeros(total, np.float32),
        inp=cp.asarray(inp),
    )


def _blocks(a):
    B, N, NH, d = a["sizes"]
    return -(-(B * NH * N * d) // 256)


def _bench_port(a):
    permute_kernel[_blocks(a), 256](a["q"], a["k"], a["v"], a["inp"], *a["sizes"])


def _bench_original(o, a):
    args = (a["q"], a["k"], a["v"], a["inp"], *map(np.int32, a["sizes"]))
    o("permute_kernel")((_blocks(a),), (256,), args)


BENCH = dict(
    source="attention_permute.cu",
    contract=False,
    size="B8 N1024 NH12 d64",
    kernels=[(lambda: permute_kernel.dispatch(), "permute_kernel")],
    setup=_bench_setup,
    port=_bench_port,
    original=_bench_original,
    outputs=("q", "k", "v"),
    tolerance=None,
)
