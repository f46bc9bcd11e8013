"""``kdsl.syncwarp()`` with dynamic shared memory in the interpreter: its
race log places each thread in its warp by the block's thread count (it
took every thread for a block of its own, and a syncwarp in a block past
the first warp indexed past its table)."""

import numpy as np
import pytest

import kdsl
from kdsl import Float32, Pointer, block_idx, thread_idx


@kdsl.kernel
def warp_sums(x: Pointer[Float32], out: Pointer[Float32]):
    s = kdsl.dynamic_shared_array(Float32)
    t = thread_idx.x
    i = block_idx.x * kdsl.block_dim.x + t
    s[t] = x[i]
    kdsl.syncwarp()
    for k in kdsl.range_constexpr(4, -1, -1):
        if t % 32 < (1 << k):
            s[t] += s[t + (1 << k)]
        kdsl.syncwarp()
    if t % 32 == 0:
        out[i // 32] = s[t]


@pytest.mark.parametrize("blocks, block", [(1, 64), (2, 64), (3, 1024)])
def test_syncwarp_orders_a_warp_tree_in_dynamic_shared_memory(blocks, block):
    x = np.arange(blocks * block, dtype=np.float32) % 7
    out = np.zeros(blocks * block // 32, np.float32)
    warp_sums.interpret[blocks, block](x, out, shared_mem=4 * block)
    assert out.tolist() == x.reshape(-1, 32).sum(axis=1).tolist()
