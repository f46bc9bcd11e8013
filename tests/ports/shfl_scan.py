"""Port of NVIDIA/cuda-samples,
Samples/2_Concepts_and_Techniques/shfl_scan/shfl_scan.cu, kernels
``shfl_scan_test`` and ``uniform_add``: an inclusive prefix sum of Int32,
each warp scanning with ``__shfl_up_sync``, the first warp scanning the warp
totals (with a mask of as many lanes as the block has warps), one partial
sum per block, then a second pass adding the scanned partial sums.

Differences from the original:
* the block size is a ``Constexpr`` (``BLOCK``) rather than ``blockDim.x``,
  so the warp-total array is a static shared array, not ``extern __shared__``;
* the original needs ``n`` to be a multiple of the block size; here threads
  past ``n`` scan a 0 and store nothing (they must still take part in the
  full-warp shuffles, so they do not return);
* ``uniform_add`` is passed ``data`` and skips the first block itself
  (the original is passed ``data + blockSize``: kdsl has no pointer
  arithmetic), and its guard is ``i >= n`` where the original's ``id > len``
  would let one thread past the end (harmless there, as ``n`` is a multiple
  of the block size).
"""

import numpy as np

import kdsl
from kdsl import Constexpr, Int32, Pointer, block_dim, block_idx, thread_idx


@kdsl.kernel
def shfl_scan_test(
    data: Pointer[Int32], n: Int32, partial_sums: Pointer[Int32], BLOCK: Constexpr[int]
):
    WARPS = BLOCK // 32
    sums = kdsl.shared_array(Int32, WARPS)
    i = block_idx.x * BLOCK + thread_idx.x
    lane = kdsl.lane_id()
    warp = thread_idx.x // 32
    value = data[i] if i < n else 0
    # the inclusive scan of each warp
    for k in kdsl.range_constexpr(5):
        up = kdsl.shfl_up(value, 1 << k)
        if lane >= (1 << k):
            value += up
    # the last lane of each warp holds its warp's total
    if lane == 31:
        sums[warp] = value
    kdsl.syncthreads()
    # the first warp scans the warp totals, WARPS lanes at a time
    if warp == 0 and lane < WARPS:
        warp_sum = sums[lane]
        for k in kdsl.range_constexpr(5):
            if (1 << k) < WARPS:  # static: log2(WARPS) steps
                up = kdsl.shfl_up(warp_sum, 1 << k, width=WARPS, mask=(1 << WARPS) - 1)
                if lane >= (1 << k):
                    warp_sum += up
        sums[lane] = warp_sum
    kdsl.syncthreads()
    if warp > 0:
        value += sums[warp - 1]
    if i < n:
        data[i] = value
    if thread_idx.x == BLOCK - 1:
        partial_sums[block_idx.x] = value


@kdsl.kernel
def uniform_add(data: Pointer[Int32], partial_sums: Pointer[Int32], n: Int32):
    """Adds the scanned total of blocks 0 … b to each element of block b + 1
    (launched on one block fewer than the scan)."""
    buf = kdsl.shared_array(Int32, 1)
    i = (block_idx.x + 1) * block_dim.x + thread_idx.x
    if i >= n:
        return
    if thread_idx.x == 0:
        buf[0] = partial_sums[block_idx.x]
    kdsl.syncthreads()
    data[i] += buf[0]


# -- benchmark: benchmarks/ports.py against benchmarks/originals/shfl_scan.cu --
N_ELEMENTS = 65536  # the sample's n_elements; 256 blocks of 256


def _bench_setup(cp):
    r = np.random.default_rng(26)
    data = r.integers(-(2**31), 2**31, N_ELEMENTS, dtype=np.int32)
    return dict(
        data=cp.asarray(data),
        partial=cp.zeros(256, np.int32),
        unused=cp.zeros(1, np.int32),  # the port's second pass writes one sum there
    )


def _bench_port(a):
    blocks = N_ELEMENTS // 256
    shfl_scan_test[blocks, 256](a["data"], N_ELEMENTS, a["partial"], BLOCK=256)
    shfl_scan_test[1, 256](a["partial"], blocks, a["unused"], BLOCK=256)
    uniform_add[blocks - 1, 256](a["data"], a["partial"], N_ELEMENTS)


def _bench_original(o, a):
    blocks, smem = N_ELEMENTS // 256, 256 // 32 * 4
    scan, add = o("shfl_scan_test"), o("uniform_add")
    width = np.int32(32)
    scan((blocks,), (256,), (a["data"], width, a["partial"]), shared_mem=smem)
    scan((1,), (256,), (a["partial"], width, np.uint64(0)), shared_mem=smem)
    add((blocks - 1,), (256,), (a["data"][256:], a["partial"], np.int32(N_ELEMENTS)))


BENCH = dict(
    source="shfl_scan.cu",
    contract=False,
    size="65536 int32, 3 launches",
    kernels=[
        (lambda: shfl_scan_test.dispatch(BLOCK=256), "shfl_scan_test"),
        (lambda: uniform_add.dispatch(), "uniform_add"),
    ],
    setup=_bench_setup,
    port=_bench_port,
    original=_bench_original,
    outputs=("data", "partial"),
    tolerance=None,
)
