"""Port of ggerganov/llama.cpp, ``ggml/src/ggml-cuda/quantize.cu``,
``quantize_q8_1`` (with ``warp_reduce_max`` and ``warp_reduce_sum`` of
``ggml/src/ggml-cuda/common.cuh``): quantises rows of Float32 to llama.cpp's
``block_q8_1``, 36 bytes for each 32 values: a ``half2`` (the scale ``d``
and the values' sum) then 32 ``int8`` quants ``round(x / d)``.  A warp
handles one block: it reduces the maximum magnitude and the sum with
``__shfl_xor_sync``, each lane stores its quant, lane 0 the ``half2``.

The output is a ``Pointer[block_q8_1]`` as in the original (the launch may
pass the blocks' bytes as a uint8 array); the two ``reinterpret_cast<half&>``
stores into ``ds`` are lane stores ``vy[ib].ds[0] = ...``.  No differences
from the original but the template parameters (one layout, no fused ops).
``no_overflow=True`` states what C takes for granted of its ``int64_t``
indices (the interpreter checks it); with ``ix0 < kx0_padded`` after the
early return, the block and quant indices ``i_padded // 32`` and
``i_padded % 32`` are C's ``/`` and ``%`` on a non-negative index.  The
Float32 -> Int8 conversion (``kdsl::to_i8``: saturating, NaN gives 0) is
one F2I and a clamp (the original's C conversion, undefined out of range,
is the F2I alone).
"""

import numpy as np

import kdsl
from kdsl import Float16, Float16x2, Float32, Int8, Int64, Pointer
from kdsl import block_dim, block_idx, thread_idx

QK8_1 = 32


@kdsl.struct
class block_q8_1:
    ds: Float16x2  # the scale d, then the sum of the block's values
    qs: Int8[QK8_1]


@kdsl.func
def warp_reduce_sum(x):
    for k in kdsl.range_constexpr(5):
        x += kdsl.shfl_xor(x, 16 >> k)
    return x


@kdsl.func
def warp_reduce_max(x):
    for k in kdsl.range_constexpr(5):
        x = kdsl.math.fmax(x, kdsl.shfl_xor(x, 16 >> k))
    return x


@kdsl.kernel(no_overflow=True)
def quantize_q8_1(
    x: Pointer[Float32], vy: Pointer[block_q8_1], kx: Int64, kx0_padded: Int64
):
    ix0 = Int64(block_dim.x) * block_idx.x + thread_idx.x
    if ix0 >= kx0_padded:
        return
    ix1 = Int64(block_idx.y)
    i_padded = ix1 * kx0_padded + ix0
    ib = i_padded // QK8_1  # block index
    iqs = i_padded % QK8_1  # quant index
    xi = x[ix1 * kx + ix0] if ix0 < kx else Float32(0)
    amax = warp_reduce_max(kdsl.math.fabs(xi))
    total = warp_reduce_sum(xi)
    d = amax / 127
    q = Int8(0) if amax == 0 else kdsl.math.round(xi / d).to(Int8)
    vy[ib].qs[iqs] = q
    if iqs > 0:
        return
    vy[ib].ds[0] = d.to(Float16)
    vy[ib].ds[1] = total.to(Float16)


# -- benchmark: benchmarks/ports.py against benchmarks/originals/quantize_q8_1.cu --
ROWS, KX = 4096, 4096  # kx0_padded = kx (a multiple of 512)


def _bench_setup(cp):
    x = 3 * np.random.default_rng(26).standard_normal((ROWS, KX), dtype=np.float32)
    return dict(x=cp.asarray(x), vy=cp.zeros(ROWS * KX // QK8_1 * 36, np.uint8))


def _bench_port(a):
    quantize_q8_1[(KX // 256, ROWS), 256](a["x"], a["vy"], KX, KX)


def _bench_original(o, a):
    args = (a["x"], a["vy"], np.int64(KX), np.int64(KX))
    o("quantize_q8_1")((KX // 256, ROWS), (256,), args)


BENCH = dict(
    source="quantize_q8_1.cu",
    contract=False,
    size="4096x4096 float32",
    kernels=[(lambda: quantize_q8_1.dispatch(), "quantize_q8_1")],
    setup=_bench_setup,
    port=_bench_port,
    original=_bench_original,
    outputs=("vy",),
    tolerance=None,
)
