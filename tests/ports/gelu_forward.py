"""Port of karpathy/llm.c, ``dev/cuda/gelu_forward.cu``,
``gelu_forward_kernel2``: the tanh approximation of GELU on BFloat16, 128
bits (eight lanes) a thread: a packed load, each lane computed in float,
rounded to BFloat16 and stored packed.

Differences from the original: the eight lanes are one ``BFloat16x8`` and
the arithmetic is lane-wise on the vector (``kdsl.math.tanh`` included)
instead of a loop over ``Packed128``'s lanes; ``load128cs`` is
``kdsl.ldcs`` of the vector (one streaming 128-bit load).
As in the original, ``N`` is a multiple of 8.
"""

import numpy as np

import kdsl
from kdsl import BFloat16, Float32, Int32, Pointer, block_dim, block_idx, thread_idx

GELU_SCALING_FACTOR = np.sqrt(np.float32(2.0 / np.pi))  # sqrtf(2.0f / M_PI)


@kdsl.kernel
def gelu_forward_kernel2(out: Pointer[BFloat16], inp: Pointer[BFloat16], N: Int32):
    i = (block_idx.x * block_dim.x + thread_idx.x) * 8
    if i < N:
        xi = kdsl.ldcs(inp.vec(8), i // 8).to(Float32)
        cube = 0.044715 * xi * xi * xi
        gelu = 0.5 * xi * (1.0 + kdsl.math.tanh(GELU_SCALING_FACTOR * (xi + cube)))
        out.vec(8)[i // 8] = gelu.to(BFloat16)


# -- benchmark: benchmarks/ports.py against benchmarks/originals/gelu_forward.cu --
N_ELEMENTS, BLOCK = 8 * 1024 * 4 * 768, 128  # llm.c's B * T * 4C


def _bench_setup(cp):
    import ml_dtypes

    x = 2 * np.random.default_rng(26).standard_normal(N_ELEMENTS, dtype=np.float32)
    return dict(
        inp=cp.asarray(x.astype(ml_dtypes.bfloat16)),
        out=cp.asarray(np.zeros(N_ELEMENTS, ml_dtypes.bfloat16)),
    )


def _bench_port(a):
    gelu_forward_kernel2[-(-N_ELEMENTS // (BLOCK * 8)), BLOCK](
        a["out"], a["inp"], N_ELEMENTS
    )


def _bench_original(o, a):
    args = (a["out"], a["inp"], np.int32(N_ELEMENTS))
    o("gelu_forward_kernel2")((-(-N_ELEMENTS // (BLOCK * 8)),), (BLOCK,), args)


BENCH = dict(
    source="gelu_forward.cu",
    contract=False,
    size="25M bf16",
    kernels=[(lambda: gelu_forward_kernel2.dispatch(), "gelu_forward_kernel2")],
    setup=_bench_setup,
    port=_bench_port,
    original=_bench_original,
    outputs=("out",),
    tolerance=None,  # tanhf both, the same order, rounded to bf16 alike
)
