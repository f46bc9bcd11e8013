"""Where a thread is, and the barriers: ``thread_idx.x`` … (special
registers), ``kdsl.lane_id()``, ``kdsl.syncthreads()`` and
``kdsl.grid_sync()``."""

from __future__ import annotations

from kdsl.transpile import ir
from kdsl.transpile.builtins.registry import register, want_args
from kdsl.transpile.core import arith
from kdsl.transpile.core.cxx import call, member, name
from kdsl.transpile.core.types import Int32
from kdsl.transpile.errors import error

# kdsl's name of each register group -> CUDA's
_REGISTERS = {
    "thread_idx": ("threadIdx", "this thread's index in its block"),
    "block_idx": ("blockIdx", "this block's index in the grid"),
    "block_dim": ("blockDim", "the block's shape"),
    "grid_dim": ("gridDim", "the grid's shape"),
}


def _lower_special(lw, entry, args, kwargs):
    return Int32._dynamic(ir.Special(Int32, entry.name))


def _special(cuda_name):
    return lambda r, c, args: name(cuda_name)


def _read_special(t, call, args, mask):
    return t.special(call.name)


for _group, (_cuda, _what) in _REGISTERS.items():
    for _axis in "xyz":
        register(
            f"{_group}.{_axis}",
            f"`{_group}.{_axis}`: {_what}, along {_axis} (Int32)",
            _lower_special,
            cuda=_special(f"{_cuda}.{_axis}"),
            interpret=_read_special,
            kind="special",
        )


def _lower_lane_id(lw, entry, args, kwargs):
    want_args(entry, args, 0)
    return Int32._dynamic(ir.BuiltinCall(Int32, entry.name, ()))


register(
    "lane_id",
    "`kdsl.lane_id()`: this thread's lane in its warp (Int32)",
    _lower_lane_id,
    cuda=lambda r, c, args: call("kdsl::lane_id"),
    interpret=lambda t, call, args, mask: t.lane,
    prelude=("intrinsics.h",),
)


def _lower_barrier(lw, entry, args, kwargs):
    want_args(entry, args, 0)
    lw.emit(ir.ExprStmt(ir.BuiltinCall(None, entry.name, ())))
    return None


def _barrier(t, call, args, mask):
    t.barrier(mask)  # lock-step: the check that all are here is the barrier


register(
    "syncthreads",
    "`kdsl.syncthreads()`: a barrier for the thread block",
    _lower_barrier,
    cuda=lambda r, c, args: call("__syncthreads"),
    interpret=_barrier,
    collective="block",
)

# A grid barrier: cooperative groups' (which holds each block at a block
# barrier while its thread (0, 0, 0) waits for the other blocks), valid only
# in a cooperative launch, which the runtime makes for a kernel that calls it.
register(
    "grid_sync",
    "`kdsl.grid_sync()`: a barrier for the whole grid (the kernel is launched "
    "cooperatively: every block resident at once)",
    _lower_barrier,
    cuda=lambda r, c, args: call(member(call("cooperative_groups::this_grid"), "sync")),
    interpret=_barrier,
    collective="grid",
    headers=("cooperative_groups.h",),
)


# Numba-CUDA's thread-index helpers, written out as the expression a CUDA
# programmer writes (``blockIdx.x * blockDim.x + threadIdx.x``), so the
# emitter's rules for CUDA indices keep it plain C++.
def _axes(lw, entry, args, kwargs):
    want_args(entry, args, 1)
    ndim = args[0]
    if isinstance(ndim, bool) or not isinstance(ndim, int) or ndim not in (1, 2, 3):
        got = lw.static_integer(ndim, f"the ndim of {entry.spelled}(ndim)")
        raise error("grid-ndim", callee=entry.spelled, got=got)
    return "xyz"[:ndim]


def _register(name):
    return Int32._dynamic(ir.Special(Int32, name))


def _lower_grid(lw, entry, args, kwargs):
    pos = [
        arith.binary(
            "+",
            arith.binary("*", _register(f"block_idx.{a}"), _register(f"block_dim.{a}")),
            _register(f"thread_idx.{a}"),
        )
        for a in _axes(lw, entry, args, kwargs)
    ]
    return pos[0] if len(pos) == 1 else tuple(pos)


def _lower_gridsize(lw, entry, args, kwargs):
    size = [
        arith.binary("*", _register(f"block_dim.{a}"), _register(f"grid_dim.{a}"))
        for a in _axes(lw, entry, args, kwargs)
    ]
    return size[0] if len(size) == 1 else tuple(size)


register(
    "grid",
    "`kdsl.grid(ndim)`: this thread's index in the whole grid, "
    "`block_idx.x * block_dim.x + thread_idx.x` (Int32; a tuple of 2 or 3 for "
    "ndim 2 or 3), as Numba's `cuda.grid`",
    _lower_grid,
    kind="syntax",
)
register(
    "gridsize",
    "`kdsl.gridsize(ndim)`: the threads of the whole grid, "
    "`block_dim.x * grid_dim.x` (Int32; a tuple for ndim 2 or 3), as Numba's "
    "`cuda.gridsize`",
    _lower_gridsize,
    kind="syntax",
)
