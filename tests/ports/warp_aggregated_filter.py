"""Port of the NVIDIA Developer Blog post "CUDA Pro Tip: Optimized Filtering
with Warp-Aggregated Atomics" (Andy Adinets, 2014; updated for CUDA 9),
``atomicAggInc`` and ``filter_k``: stream compaction of the positive
elements, where the active lanes of a warp elect a leader (``__ffs`` of the
active mask) that makes one ``atomicAdd`` for all of them (``__popc`` of
the mask) and broadcasts the base (``__shfl_sync``); each lane adds its rank
among the active lanes.

The post's CUDA 8 version takes the mask with ``__ballot(1)``; as its
update advises, this one uses ``__activemask()``, and the lanes below
this one are ``kdsl.lanemask_lt()`` (the post's ``lanemask_lt()``, the
``%lanemask_lt`` register).  The order of the kept elements depends on the
order in which warps win the atomic, so on the GPU only the set (and the
count) is deterministic; the interpreter runs warps in order.
"""

import kdsl
from kdsl import Int32, Pointer, block_dim, block_idx, thread_idx


@kdsl.func
def atomic_agg_inc(ctr):
    active = kdsl.activemask()
    leader = kdsl.ffs(active) - 1
    res = Int32(0)
    if kdsl.lane_id() == leader:
        res = kdsl.atomic_add(ctr, 0, kdsl.popc(active))
    res = kdsl.shfl_idx(res, leader, mask=active)
    return res + kdsl.popc(active & kdsl.lanemask_lt())


@kdsl.kernel
def filter_k(dst: Pointer[Int32], nres: Pointer[Int32], src: Pointer[Int32], n: Int32):
    i = thread_idx.x + block_idx.x * block_dim.x
    if i < n and src[i] > 0:
        dst[atomic_agg_inc(nres)] = src[i]
