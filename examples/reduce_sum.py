"""reduce_sum: out[0] += sum(x), one partial sum per block in shared memory.

Each block reduces BLOCK elements in shared memory (a tree), then thread 0
adds the block's sum to out[0] atomically.  out must be zeroed first.
"""

import kdsl
from kdsl import Constexpr, Int32, Pointer, block_idx, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel(dtypes=[kdsl.Float32, kdsl.Float64])
def reduce_sum(x: Pointer[D], out: Pointer[D], n: Int32, BLOCK: Constexpr[int] = 256):
    partial = kdsl.shared_array(D, BLOCK)
    tid = thread_idx.x
    i = block_idx.x * BLOCK + tid
    value = D(0)
    if i < n:
        value = x[i]
    partial[tid] = value
    kdsl.syncthreads()
    stride = BLOCK // 2
    while stride > 0:
        if tid < stride:
            partial[tid] = partial[tid] + partial[tid + stride]
        kdsl.syncthreads()
        stride = stride // 2
    if tid == 0:
        kdsl.atomic_add(out, 0, partial[0])


if __name__ == "__main__":
    print(reduce_sum.dispatch("f32").source)
