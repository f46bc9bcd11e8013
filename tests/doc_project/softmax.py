"""A user's softmax kernel (one row per block, BLOCK threads), the project of
docs/reviewing-generated-code.md's golden-test example (tests/docs/test_golden_doc_example.py).


Each thread strides over the row; warp shuffles reduce within a warp and
shared memory combines the warps.  Computes in Float32 for every dtype.
"""

import kdsl
from kdsl import Constexpr, Float32, Int32, Pointer, block_idx, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Float)
WARP = 32
NEG_INF = float("-inf")


@kdsl.func
def warp_max(v):
    for k in kdsl.range_constexpr(5):
        v = max(v, kdsl.shfl_xor(v, 16 >> k))
    return v


@kdsl.func
def warp_sum(v):
    for k in kdsl.range_constexpr(5):
        v = v + kdsl.shfl_xor(v, 16 >> k)
    return v


@kdsl.kernel
def softmax(x: Pointer[D], y: Pointer[D], cols: Int32, BLOCK: Constexpr[int] = 256):
    scratch = kdsl.shared_array(Float32, BLOCK // WARP)
    row = block_idx.x
    tid = thread_idx.x
    lane = kdsl.lane_id()
    warp = tid // WARP
    base = row * cols

    # 1. the row maximum
    m = Float32(NEG_INF)
    for j in range(tid, cols, BLOCK):
        m = max(m, x[base + j].to(Float32))
    m = warp_max(m)
    if lane == 0:
        scratch[warp] = m
    kdsl.syncthreads()
    m = scratch[0]
    for w in kdsl.range_constexpr(1, BLOCK // WARP):
        m = max(m, scratch[w])
    kdsl.syncthreads()

    # 2. the sum of exponentials
    s = Float32(0)
    for j in range(tid, cols, BLOCK):
        s = s + kdsl.math.exp(x[base + j].to(Float32) - m)
    s = warp_sum(s)
    if lane == 0:
        scratch[warp] = s
    kdsl.syncthreads()
    s = scratch[0]
    for w in kdsl.range_constexpr(1, BLOCK // WARP):
        s = s + scratch[w]

    # 3. normalise
    for j in range(tid, cols, BLOCK):
        y[base + j] = (kdsl.math.exp(x[base + j].to(Float32) - m) / s).to(D)


if __name__ == "__main__":
    print(softmax.dispatch("f32").source)
