"""Hopper's Tensor Memory Accelerator (TMA) and the mbarriers it completes
on (sm_90): ``kdsl.tma_load`` copies a box of a tensor — described on the
host by a tensor map, a ``kdsl.TensorMap`` kernel parameter — into
(swizzled) shared memory, asynchronously, issued by one thread; the copy's
bytes complete the current phase of an mbarrier, which the threads that
read the box wait for.

An mbarrier is one 64-bit word of shared memory, here an element of a
``kdsl.shared_array(Uint64, (n,))``.  Its phase completes when the expected
number of threads have arrived (``mbarrier_init(bars, i, count)``) and the
expected bytes (``mbarrier_arrive_expect_tx(bars, i, nbytes)``) have landed;
a waiter names the phase by its parity (``mbarrier_wait(bars, i, parity)``:
phase k has parity k % 2).  Every entry is one PTX instruction (or a
try_wait loop) in templates/prelude/tma.h:

* ``mbarrier_init``: ``mbarrier.init.shared::cta.b64``;
* ``fence_mbarrier_init``: ``fence.mbarrier_init.release.cluster``;
* ``mbarrier_arrive``: ``mbarrier.arrive.shared::cta.b64``;
* ``mbarrier_arrive_expect_tx``: ``mbarrier.arrive.expect_tx.shared::cta.b64``;
* ``mbarrier_wait``: ``mbarrier.try_wait.parity.shared::cta.b64`` in a loop;
* ``tma_load``: ``cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::
  complete_tx::bytes``;
* ``tma_store``: ``cp.async.bulk.tensor.2d.global.shared::cta.bulk_group``,
  with ``tma_store_commit`` (``cp.async.bulk.commit_group``) and
  ``tma_store_wait(n)`` (``cp.async.bulk.wait_group.read n``).

The interpreter does not model them: a producer that spins on an mbarrier
until another warp arrives needs threads that run concurrently, and the
interpreter runs a block's threads in lock-step phases.  Each entry's
``interpret`` raises E362 (GPU only), and a launch of an instance with a
``TensorMap`` parameter in the interpreter is E836 before it starts.
"""

from __future__ import annotations

from kdsl.transpile import ir
from kdsl.transpile.builtins.registry import emit_statement, register, want_args
from kdsl.transpile.core.cxx import call, prefix, template
from kdsl.transpile.core import arith
from kdsl.transpile.core.types import Int64, Int32, Numeric, Uint32, Uint64
from kdsl.transpile.errors import DSLError, error

ARCH = "sm_90a"  # kdsl compiles Hopper-only instructions for sm_90a
SWIZZLE_ALIGN = 1024  # a 128-byte-swizzled box starts on its 1024-byte pattern


def _barrier(lw, entry, bars, index):
    """The shared-memory address of ``bars[index]``, a 64-bit mbarrier, or E835."""
    elem = getattr(bars, "elem", None) if lw.is_memory(bars) else None
    base = flat = None
    if elem in (Uint64, Int64):
        base, flat = lw.address(bars, index if isinstance(index, tuple) else (index,))
    if base is None or base.type.space != "shared":
        raise error("mbarrier-operand", callee=entry.spelled, got=lw.describe(bars))
    return ir.Address(ir.PointerType(Uint64, space="shared"), base, flat)


def _integer(lw, entry, value, what, t=Int32):
    """An integer operand (a Python int or a kdsl integer) as ``t``, or E837."""
    try:
        v = arith.as_numeric(value)
    except DSLError:
        v = None
    if not isinstance(v, Numeric) or v.dtype.kind != "int":
        raise error(
            "tma-integer-operand",
            callee=entry.spelled,
            operand=what,
            got=lw.describe(value),
        )
    return arith.convert(v, t).ir_value()


def _tensor_map(lw, entry, value):
    """The IR variable of a ``kdsl.TensorMap`` parameter, or E838."""
    expr = getattr(value, "expr", None)
    if not isinstance(getattr(expr, "type", None), ir.TensorMapType):
        raise error("tma-tensor-map", callee=entry.spelled, got=lw.describe(value))
    return expr


def _coords(lw, entry, coords):
    """The 2 box coordinates, innermost (column) first."""
    if not (isinstance(coords, tuple) and len(coords) == 2):
        raise error("tma-coordinates", callee=entry.spelled, got=lw.describe(coords))
    return tuple(_integer(lw, entry, c, "a coordinate") for c in coords)


def _box(lw, entry, tile, index):
    """The shared-memory address of ``tile[index]``, where a box lands (or
    is stored from); the dynamic shared buffer aligned for the 128-byte
    swizzle.  E839 unless ``tile`` is in shared memory."""
    elem = getattr(tile, "elem", None) if lw.is_memory(tile) else None
    base = flat = None
    if elem is not None:
        base, flat = lw.address(tile, index if isinstance(index, tuple) else (index,))
    if base is None or base.type.space != "shared":
        raise error("tma-box-operand", callee=entry.spelled, got=lw.describe(tile))
    lw.align_dynamic_shared(SWIZZLE_ALIGN)
    return ir.Address(ir.PointerType(elem, space="shared"), base, flat)


# -- lowering ---------------------------------------------------------------------
def _lower_counted(what: str):
    """The lowering of a built-in taking (bars, index, an integer ``what``)
    that writes the barrier: mbarrier_init, mbarrier_arrive_expect_tx."""

    def lower(lw, entry, args, kwargs):
        want_args(entry, args, 3)
        bars, index, value = args
        address = _barrier(lw, entry, bars, index)
        lw.mark_written(bars)
        emit_statement(lw, entry, (address, _integer(lw, entry, value, what)))

    return lower


_lower_init = _lower_counted("the arrival count")
_lower_expect_tx = _lower_counted("the byte count")


def _lower_arrive(lw, entry, args, kwargs):
    want_args(entry, args, 2)
    lw.mark_written(args[0])
    emit_statement(lw, entry, (_barrier(lw, entry, *args),))


def _lower_wait(lw, entry, args, kwargs):
    want_args(entry, args, 3)
    bars, index, parity = args
    address = _barrier(lw, entry, bars, index)
    # the prelude's wait takes a non-const uint64_t*: a device function
    # that only waits on a barrier array still takes it writable
    lw.mark_written(bars)
    emit_statement(
        lw, entry, (address, _integer(lw, entry, parity, "the parity", Uint32))
    )


def _lower_fence(lw, entry, args, kwargs):
    want_args(entry, args, 0)
    emit_statement(lw, entry)


def _lower_load(lw, entry, args, kwargs):
    want_args(entry, args, 6)
    tile, index, tmap, coords, bars, bar_index = args
    dst = _box(lw, entry, tile, index)
    expr = _tensor_map(lw, entry, tmap)
    x, y = _coords(lw, entry, coords)
    bar = _barrier(lw, entry, bars, bar_index)
    lw.mark_written(tile)
    lw.mark_written(bars)
    emit_statement(lw, entry, (dst, expr, x, y, bar))


def _lower_store(lw, entry, args, kwargs):
    want_args(entry, args, 4)
    tmap, coords, tile, index = args
    expr = _tensor_map(lw, entry, tmap)
    x, y = _coords(lw, entry, coords)
    src = _box(lw, entry, tile, index)
    emit_statement(lw, entry, (expr, x, y, src))


def _lower_store_wait(lw, entry, args, kwargs):
    want_args(entry, args, 1)
    try:
        n = lw.static_integer(args[0], f"{entry.spelled}(n)")
    except DSLError:
        n = None
    if n is None or not 0 <= n <= 7:
        raise error("cp-async-wait", callee=entry.spelled, got=lw.describe(args[0]))
    emit_statement(lw, entry, (), (("n", n),))


# -- rendering ----------------------------------------------------------------------
def _render(helper):
    return lambda r, c, args: call(f"kdsl::{helper}", *args)


def _render_load(r, c, args):
    dst, tmap, x, y, bar = args
    return call("kdsl::tma_load_2d", dst, prefix("&", tmap), x, y, bar)


def _render_store(r, c, args):
    tmap, x, y, src = args
    return call("kdsl::tma_store_2d", prefix("&", tmap), x, y, src)


def _gpu_only(what):
    def interpret(t, call, args, mask):
        t.gpu_only(call, what)

    return interpret


_GPU = "GPU only: the interpreter does not model mbarriers and TMA"
_SM80 = f" (sm_80; {_GPU})"
_SM90 = f" (sm_90a: the instance compiles for it and runs on compute capability 9.0; {_GPU})"
_MBARRIER = "mbarriers (their waits need threads that run concurrently)"
_TMA = "TMA copies (tensor maps are built for a GPU)"

register(
    "mbarrier_init",
    "`kdsl.mbarrier_init(bars, i, count)`: sets up the mbarrier `bars[i]` (a "
    "`shared_array(Uint64, ...)` element) for `count` arrivals a phase; one "
    "thread, then `fence_mbarrier_init()` and a barrier; PTX `mbarrier.init`" + _SM80,
    _lower_init,
    cuda=_render("mbarrier_init"),
    interpret=_gpu_only(_MBARRIER),
    prelude=("tma.h",),
)
register(
    "fence_mbarrier_init",
    "`kdsl.fence_mbarrier_init()`: makes this thread's `mbarrier_init`s visible "
    "to TMA and to the other threads (before the `syncthreads()` after them); "
    "PTX `fence.mbarrier_init.release.cluster`" + _SM90,
    _lower_fence,
    cuda=lambda r, c, args: call("kdsl::fence_mbarrier_init"),
    interpret=_gpu_only(_MBARRIER),
    prelude=("tma.h",),
    arch=ARCH,
)
register(
    "mbarrier_arrive",
    "`kdsl.mbarrier_arrive(bars, i)`: one arrival on the mbarrier `bars[i]` "
    "(release: this thread's earlier accesses happen before its phase "
    "completes); PTX `mbarrier.arrive`" + _SM80,
    _lower_arrive,
    cuda=_render("mbarrier_arrive"),
    interpret=_gpu_only(_MBARRIER),
    prelude=("tma.h",),
)
register(
    "mbarrier_arrive_expect_tx",
    "`kdsl.mbarrier_arrive_expect_tx(bars, i, nbytes)`: one arrival on `bars[i]` "
    "that also makes its phase wait for `nbytes` more bytes of TMA copies "
    "(`tma_load`) completing on it; PTX `mbarrier.arrive.expect_tx`" + _SM90,
    _lower_expect_tx,
    cuda=_render("mbarrier_arrive_expect_tx"),
    interpret=_gpu_only(_MBARRIER),
    prelude=("tma.h",),
    arch=ARCH,
)
register(
    "mbarrier_wait",
    "`kdsl.mbarrier_wait(bars, i, parity)`: waits until the phase of `bars[i]` "
    "of parity `parity` (phase k: k % 2) has completed (acquire: what the "
    "arrivals and copies wrote is then visible); PTX "
    "`mbarrier.try_wait.parity` in a loop" + _SM90,
    _lower_wait,
    cuda=_render("mbarrier_wait"),
    interpret=_gpu_only(_MBARRIER),
    prelude=("tma.h",),
    arch=ARCH,
)
register(
    "tma_load",
    "`kdsl.tma_load(tile, index, tmap, (x, y), bars, i)`: one thread copies the "
    "box at element coordinates (x, y) (x the column) of the `kdsl.TensorMap` "
    "parameter `tmap`'s 2-d tensor to shared memory at `tile[index]` (laid out "
    "and swizzled as the map says; 1024-byte aligned for the 128-byte swizzle), "
    "completing its bytes on the mbarrier `bars[i]`; PTX "
    "`cp.async.bulk.tensor.2d...mbarrier::complete_tx::bytes`" + _SM90,
    _lower_load,
    cuda=_render_load,
    interpret=_gpu_only(_TMA),
    prelude=("tma.h",),
    arch=ARCH,
)
register(
    "tma_store",
    "`kdsl.tma_store(tmap, (x, y), tile, index)`: one thread copies the box at "
    "`tile[index]` in shared memory to the `kdsl.TensorMap` `tmap`'s tensor at "
    "(x, y) (call `fence_proxy_async()` and a barrier after writing the box); "
    "PTX `cp.async.bulk.tensor.2d.global.shared::cta.bulk_group`" + _SM90,
    _lower_store,
    cuda=_render_store,
    interpret=_gpu_only(_TMA),
    prelude=("tma.h",),
    arch=ARCH,
)
register(
    "tma_store_commit",
    "`kdsl.tma_store_commit()`: closes the group of this thread's `tma_store`s "
    "since the last commit; PTX `cp.async.bulk.commit_group`" + _SM90,
    _lower_fence,
    cuda=lambda r, c, args: call("kdsl::tma_store_commit"),
    interpret=_gpu_only(_TMA),
    prelude=("tma.h",),
    arch=ARCH,
)
register(
    "tma_store_wait",
    "`kdsl.tma_store_wait(n)`: waits until at most `n` (compile-time 0 … 7) of "
    "this thread's committed `tma_store` groups still read shared memory; PTX "
    "`cp.async.bulk.wait_group.read`" + _SM90,
    _lower_store_wait,
    cuda=lambda r, c, args: call(
        template("kdsl::tma_store_wait", dict(c.options)["n"])
    ),
    interpret=_gpu_only(_TMA),
    prelude=("tma.h",),
    arch=ARCH,
)
