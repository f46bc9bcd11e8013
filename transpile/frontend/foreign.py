"""Names users bring from Triton, Numba-CUDA and CUDA C++, and kdsl's for them.

``kdsl.program_id`` is not a kdsl name, but a user coming from Triton will
write it: :func:`advice` says what kdsl calls it.  The table is read by
``kdsl.__getattr__`` (``kdsl.program_id`` in Python) and by the lowering
(``kdsl.program_id(0)`` in a kernel, E277); docs/coming-from.md shows the
same mapping as a table.  Keys are compared without case and without
leading underscores (``__syncthreads``, ``SyncThreads``).
"""

from __future__ import annotations

FOREIGN_NAMES: dict[str, str] = {
    # Triton
    "program_id": "kdsl.block_idx.x for tl.program_id(0) (a Triton program is "
    "a block of threads)",
    "num_programs": "kdsl.grid_dim.x (tl.num_programs(0))",
    "arange": "a thread per element: i = kdsl.block_idx.x * BLOCK + "
    "kdsl.thread_idx.x, or kdsl.range(start, stop, step) for a loop",
    "constexpr": "kdsl.Constexpr[int] (or [bool], [float]) in the annotation",
    "static_range": "kdsl.range_constexpr(n) (unrolled)",
    "load": "an index, x[i] (kdsl.ldg(x, i) for a cache-hinted load)",
    "store": "an assignment, x[i] = v (kdsl.stcs(...) for a cache-hinted store)",
    "jit": "@kdsl.kernel (a kernel) or @kdsl.func (a device function)",
    "where": "a conditional expression, a if cond else b",
    "zeros": "kdsl.local_array(T, n) (per thread) or kdsl.shared_array(T, n)",
    "dot": "kdsl.mma_m16n8k16 (docs/tensor-cores.md)",
    "debug_barrier": "kdsl.syncthreads()",
    "exp": "kdsl.math.exp",
    "sqrt": "kdsl.math.sqrt",
    "log": "kdsl.math.log",
    "fma": "kdsl.math.fma",
    # Numba-CUDA and CUDA C++
    "threadidx": "kdsl.thread_idx (kdsl.thread_idx.x)",
    "blockidx": "kdsl.block_idx (kdsl.block_idx.x)",
    "blockdim": "kdsl.block_dim (kdsl.block_dim.x)",
    "griddim": "kdsl.grid_dim (kdsl.grid_dim.x)",
    "laneid": "kdsl.lane_id()",
    "warpsize": "32 (a warp is always 32 lanes)",
    "shared": "kdsl.shared_array(T, n) (cuda.shared.array)",
    "local": "kdsl.local_array(T, n) (cuda.local.array)",
    "const": "a module-level numpy array (a __constant__ table, docs/language.md)",
    "syncthreads": "kdsl.syncthreads()",
    "sync_threads": "kdsl.syncthreads()",
    "barrier": "kdsl.syncthreads()",
    "syncthreads_count": "kdsl.syncthreads() with kdsl.atomic_add on a shared counter",
    "syncthreads_or": "kdsl.any_sync within a warp, or a shared flag and "
    "kdsl.syncthreads()",
    "sync_warp": "kdsl.syncwarp()",
    "shfl_down_sync": "kdsl.shfl_down(value, delta, mask=...)",
    "shfl_up_sync": "kdsl.shfl_up(value, delta, mask=...)",
    "shfl_xor_sync": "kdsl.shfl_xor(value, lane_mask, mask=...)",
    "shfl_sync": "kdsl.shfl_idx(value, lane, mask=...)",
    "shfl": "kdsl.shfl_idx(value, lane)",
    "ballot_sync": "kdsl.ballot(pred, mask=...)",
    "atomicadd": "kdsl.atomic_add(ptr, index, value)",
    "atomicsub": "kdsl.atomic_add(ptr, index, -value)",
    "atomicmax": "kdsl.atomic_max(ptr, index, value)",
    "atomicmin": "kdsl.atomic_min(ptr, index, value)",
    "atomiccas": "kdsl.atomic_cas(ptr, index, compare, value)",
    "atomicexch": "kdsl.atomic_exch(ptr, index, value)",
    "atomicand": "kdsl.atomic_and(ptr, index, value)",
    "atomicor": "kdsl.atomic_or(ptr, index, value)",
    "atomicxor": "kdsl.atomic_xor(ptr, index, value)",
    "atomic": "kdsl.atomic_add, atomic_max … (ptr, index, value)",
    "atomic_sub": "kdsl.atomic_add(ptr, index, -value)",
    "compare_and_swap": "kdsl.atomic_cas(ptr, index, compare, value)",
    "threadfence_warp": "kdsl.syncwarp() (it orders the lanes' memory accesses)",
    "popcount": "kdsl.popc(x)",
    "ldg_sync": "kdsl.ldg(ptr, index)",
    "device_function": "@kdsl.func",
    "to_device": "CuPy or PyTorch arrays (cupy.asarray, torch.tensor(..., "
    "device='cuda')), or numpy arrays with kernel.interpret",
}


def _key(name: str) -> str:
    return name.lstrip("_").lower()


_BY_KEY = {_key(name): advice for name, advice in FOREIGN_NAMES.items()}


def advice(name: str) -> str | None:
    """What kdsl calls ``name`` (a Triton, Numba or CUDA spelling), or None."""
    return _BY_KEY.get(_key(name))
