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

import numpy as np

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


# -- benchmark: benchmarks/ports.py against benchmarks/originals/warp_aggregated_filter.cu --
N_ELEMENTS, BLOCK = 1 << 24, 256


def _bench_setup(cp):
    src = np.random.default_rng(26).integers(-5, 5, N_ELEMENTS, dtype=np.int32)
    return dict(
        src=cp.asarray(src),
        dst=cp.zeros(N_ELEMENTS, np.int32),
        nres=cp.zeros(1, np.int32),
    )


def _bench_port(a):
    filter_k[-(-N_ELEMENTS // BLOCK), BLOCK](a["dst"], a["nres"], a["src"], N_ELEMENTS)


def _bench_original(o, a):
    args = (a["dst"], a["nres"], a["src"], np.int32(N_ELEMENTS))
    o("filter_k")((-(-N_ELEMENTS // BLOCK),), (BLOCK,), args)


def _bench_compare(port, original):
    """The count, and the kept elements as a set: their order is the
    order in which warps win the atomic."""
    count = int(port["nres"][0])
    assert count == int(original["nres"][0]), "the counts differ"
    kept = np.sort(port["dst"][:count])
    assert kept.tobytes() == np.sort(original["dst"][:count]).tobytes()
    return "count, sorted"


BENCH = dict(
    source="warp_aggregated_filter.cu",
    contract=False,
    size="16M int32",
    kernels=[(lambda: filter_k.dispatch(), "filter_k")],
    setup=_bench_setup,
    port=_bench_port,
    original=_bench_original,
    outputs=("nres", "dst"),
    compare=_bench_compare,
)
