"""Threads of the lock-step interpreter working together: the collective
check, barriers, reading other lanes and atomics — :class:`Threads`, the
batch's thread state, which is what a built-in's interpreter semantics is
given (``registry.Threads``, the protocol it satisfies).

``Threads(geometry, memory, race_log)`` is built from three parts: where
each thread is (:class:`Geometry`), the batch's block-local memory
(``memory.BatchMemory``: shared arrays, the dynamic buffer, the count of
writes) and the race report (:class:`RaceReport`, which turns a clash the
shared memories' logs found into a located error).  It holds, besides,
which threads have returned from the kernel and the Python statement
running (``span``, for errors), which ``simt.Batch`` updates as it runs.

Lanes of a batch advance together, so a barrier needs no waiting: it checks
that every running thread of each block (of the grid, for ``grid_sync``,
whose batch is the whole grid) is there, and a warp collective that every
running lane its mask names is (``check_collective``).  A shuffle reads the
other lanes' values directly, by PTX ``shfl.sync``'s rule for the source
lane; votes, matches and reductions reduce over the lanes taking part
(``warp_reduce``).
Atomics run one thread at a time in thread order, or as one ``ufunc.at``
(which keeps that order) when their old value is unused.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kdsl.transpile.core import lanes
from kdsl.runtime.interpreter import ranks
from kdsl.runtime.interpreter.memory import BatchMemory, fault

WARP = 32
FULL = 0xFFFFFFFF  # a lane mask naming the whole warp


@dataclass(frozen=True)
class Slot:
    """An atomic's element: the memory and each active thread's address."""

    mem: object
    addr: np.ndarray


@dataclass(frozen=True, eq=False)
class Geometry:
    """Where each of the ``n`` threads of a batch of ``count`` consecutive
    blocks of ``per_block`` threads is: one array element per thread."""

    n: int
    count: int
    per_block: int
    pos: np.ndarray  # its position in the batch
    local: np.ndarray  # its position in its block
    block_pos: np.ndarray  # its block's position in the batch
    lane: np.ndarray  # its lane in its warp (Int32)
    warp: np.ndarray  # its warp's position in the batch
    specials: dict  # "thread_idx.x" ... -> Int32 array

    @classmethod
    def of(cls, grid, block, first: int, count: int) -> "Geometry":
        """Blocks ``first`` .. ``first + count - 1`` of a launch."""
        bx, by, bz = block
        per_block = bx * by * bz
        n = count * per_block
        pos = np.arange(n)
        local = pos % per_block
        block_pos = pos // per_block
        linear_block = block_pos + first
        gx, gy, _ = grid
        axes = {
            "thread_idx": (local % bx, local // bx % by, local // (bx * by)),
            "block_idx": (
                linear_block % gx,
                linear_block // gx % gy,
                linear_block // (gx * gy),
            ),
            "block_dim": tuple(np.full(n, d) for d in block),
            "grid_dim": tuple(np.full(n, d) for d in grid),
        }
        specials = {
            f"{name}.{'xyz'[k]}": axis.astype(np.int32)
            for name, xyz in axes.items()
            for k, axis in enumerate(xyz)
        }
        warps_per_block = -(-per_block // WARP)
        return cls(
            n,
            count,
            per_block,
            pos,
            local,
            block_pos,
            (local % WARP).astype(np.int32),
            block_pos * warps_per_block + local // WARP,
            specials,
        )

    def who(self, lane: int) -> str:
        """Thread ``lane`` of the batch, as an error names it."""
        s = self.specials
        t = tuple(int(s[f"thread_idx.{a}"][lane]) for a in "xyz")
        b = tuple(int(s[f"block_idx.{a}"][lane]) for a in "xyz")
        return f"thread {t} of block {b}"


class RaceReport:
    """The race report: a clash that a memory's log of accesses found
    (``memory.RaceLog``), as the located error naming both threads."""

    def __init__(self, geometry: Geometry):
        self.who = geometry.who

    def check(self, clash, mem, span, verb) -> None:
        if clash is None:
            return
        addr, me, other = clash
        index = mem.race_index(addr, me)
        if getattr(mem, "lanes", 1) > 1 and isinstance(index, int):
            # an array of vectors: the element and its lane
            index = f"{index // mem.lanes}][{index % mem.lanes}"
        raise fault(
            "interpret-data-race",
            span,
            array=mem.name,
            index=index,
            thread=self.who(me),
            verb=verb,
            other=self.who(other),
            other_verb="wrote" if verb == "reads" else "read or wrote",
        )


class Threads:
    """The thread state of one batch and its cross-lane operations: what a
    built-in's ``interpret`` may use (it satisfies ``registry.Threads``)."""

    def __init__(self, geometry: Geometry, memory: BatchMemory, race_log: RaceReport):
        self.geometry, self.memory, self.race_log = geometry, memory, race_log
        g = geometry  # its arrays by name, as the methods below read them
        self.n, self.count, self.per_block = g.n, g.count, g.per_block
        self.pos, self.local, self.block_pos = g.pos, g.local, g.block_pos
        self.lane, self.warp = g.lane, g.warp
        self.returned = np.zeros(g.n, np.bool_)  # threads that left the kernel
        self.span = None  # the Python statement running (for errors)

    def who(self, lane: int) -> str:
        return self.geometry.who(lane)

    def where(self, node):
        """Where an error at ``node`` points: its span, else the statement's."""
        return node.span or self.span

    def special(self, name):
        return self.geometry.specials[name]

    def _diverged(self, group, groups, m):
        """The first lane still running in a group where other lanes are at
        this point, or None (every group is all here or all elsewhere)."""
        alive = ~self.returned
        missing = alive & ~m
        if not missing.any():  # every running thread is here
            return None
        here = np.bincount(group[m], minlength=groups)
        live = np.bincount(group[alive], minlength=groups)
        split = (here > 0) & (here < live)
        if not split.any():
            return None
        return int(np.argmax(missing & split[group]))

    def check_collective(self, entry, e, m, args):
        """Every running thread of the group (warp, block or grid) a
        collective built-in works across reaches the call; for a warp
        collective, the group is the lanes its mask (``args[0]``) names
        (``_check_masks``)."""
        if entry.collective == "block":
            lane = self._diverged(self.block_pos, self.count, m)
            rule = "every running thread of a block must reach the same barrier"
        elif entry.collective == "grid":  # the batch is the whole grid (simt.run)
            lane = self._diverged(np.zeros(self.n, np.intp), 1, m)
            rule = "every running thread of the grid must reach the same grid_sync()"
        elif (args[0][m] == FULL).all():
            lane = self._diverged(self.warp, int(self.warp[-1]) + 1, m)
            rule = "every running lane of a warp must take part in it"
        else:
            return self._check_masks(entry.name, e, m, args[0])
        if lane is not None:
            raise fault(
                "interpret-divergent",
                self.where(e),
                callee=entry.name,
                thread=self.who(lane),
                rule=rule,
            )
        if entry.collective == "grid":
            self._check_block_leaders(entry, e)

    def _check_block_leaders(self, entry, e):
        """On the GPU, thread (0, 0, 0) of each block arrives at the grid
        barrier for its block: it must not have returned."""
        gone = self.returned & (self.local == 0)
        if gone.any():
            raise fault(
                "interpret-grid-sync-returned",
                self.where(e),
                callee=entry.name,
                thread=self.who(int(np.argmax(gone))),
            )

    def _check_masks(self, callee, e, m, members):
        """A warp collective with lane masks: each calling lane is in its own
        mask; every lane its mask names is running (the full mask leaves out
        lanes that returned or lie beyond the block) and reaches the call
        with the same mask.  Lanes of one warp may call with disjoint masks."""
        idx = np.flatnonzero(m)
        lane = self.lane[idx].astype(np.int64)
        mask = members[idx].astype(np.int64)
        outside = ((mask >> lane) & 1) == 0
        if outside.any():
            k = int(np.argmax(outside))
            raise fault(
                "interpret-mask-self",
                self.where(e),
                callee=callee,
                thread=self.who(int(idx[k])),
                mask=_hex(mask[k]),
                lane=int(lane[k]),
            )
        warp = self.warp[idx]
        here = self._lane_bits(idx)[warp]
        running = self._lane_bits(np.flatnonzero(~self.returned))[warp]
        missing = np.where(mask == FULL, running, mask) & ~here
        if missing.any():
            k = int(np.argmax(missing != 0))
            self._missing(callee, e, int(idx[k]), int(mask[k]), _lowest(missing[k]))
        group = np.unique(warp << 32 | mask, return_inverse=True)[1].reshape(-1)
        same = np.zeros(int(group.max()) + 1, np.int64)
        np.bitwise_or.at(same, group, np.left_shift(1, lane))
        differs = mask & here & ~same[group]
        if differs.any():
            k = int(np.argmax(differs != 0))
            i = int(idx[k])
            j = i - int(lane[k]) + _lowest(differs[k])
            raise fault(
                "interpret-mask-mismatch",
                self.where(e),
                callee=callee,
                thread=self.who(i),
                mask=_hex(mask[k]),
                other=self.who(j),
                other_mask=_hex(members[j]),
            )

    def _lane_bits(self, threads):
        """Per warp of the batch, the lanes (bit k for lane k) among ``threads``."""
        bits = np.zeros(int(self.warp[-1]) + 1, np.int64)
        lanes = self.lane[threads].astype(np.int64)
        np.bitwise_or.at(bits, self.warp[threads], np.left_shift(1, lanes))
        return bits

    def _missing(self, callee, e, i, mask, k):
        """Thread ``i``'s mask names lane ``k``, which is not at the call."""
        j = i - int(self.lane[i]) + k
        if self.local[i] - self.lane[i] + k >= self.per_block:
            state = "is beyond the block"
        elif self.returned[j]:
            state = "has returned"
        else:
            raise fault(
                "interpret-divergent",
                self.where(e),
                callee=callee,
                thread=self.who(j),
                rule=f"{self.who(i)} names it in its mask {_hex(mask)}",
            )
        raise fault(
            "interpret-mask-lane-gone",
            self.where(e),
            callee=callee,
            thread=self.who(i),
            lane=k,
            mask=_hex(mask),
            state=state,
        )

    def warp_reduce(self, members, m, values, ufunc, key=None):
        """``ufunc`` reduced over ``values`` of the lanes taking part with
        each thread of ``m``: the threads of its warp at the call that pass
        the same mask (and ``key``).  After ``check_collective`` these are
        exactly the running lanes its mask names."""
        idx = np.flatnonzero(m)
        group = self.warp[idx].astype(np.uint64) << 32 | members[idx].astype(np.uint64)
        if key is None:
            group = np.unique(group, return_inverse=True)[1]
        else:
            rows = np.stack([group, key[idx].astype(np.uint64)], 1)
            group = np.unique(rows, axis=0, return_inverse=True)[1]
        group = group.reshape(-1)
        order = np.argsort(group, kind="stable")
        starts = np.searchsorted(group[order], np.arange(int(group.max()) + 1))
        vals = values[idx]
        reduced = ufunc.reduceat(vals[order], starts, dtype=vals.dtype)
        out = np.zeros(self.n, vals.dtype)
        out[idx] = reduced[group]
        return out

    def wait(self, e, arrived, describe):
        """The threads wait until ``arrived()`` (another rank signals):
        ``ranks.wait``, E762 if no rank can."""
        ranks.wait(self, e, arrived, describe)

    def peer(self, e, address, m):
        """The array at ``address`` (the same in every thread of ``m``):
        one a launch of some rank was given (``ranks.peer_memory``)."""
        return ranks.peer_memory(self, e, address, m)

    def gpu_only(self, e, what):
        """Refuse a built-in the interpreter does not model (E362)."""
        raise fault(
            "interpret-gpu-only", self.where(e), callee=e.builtin, unmodelled=what
        )

    def warpgroups(self, e, m):
        """The threads of each warpgroup (4 warps, the first warp's index a
        multiple of 4) with a thread in ``m``, a (groups, 128) array in
        thread order: every thread of those warpgroups must be in ``m``."""
        threads = self.whole_warps(e, m)
        first = threads[:, 0]
        key = (
            self.block_pos[first].astype(np.int64) * (1 << 20)
            + self.local[first] // 128
        )
        groups = []
        for k in np.unique(key):
            warps = threads[key == k]
            if len(warps) != 4:
                lead = int(warps[0, 0])
                raise fault(
                    "interpret-partial-warp",
                    self.where(e),
                    callee=e.builtin,
                    lane=0,
                    thread=self.who(lead),
                    state="is in a warpgroup (4 warps, 128 threads) not all of "
                    "whose warps are at the call",
                )
            groups.append(warps[np.argsort(self.local[warps[:, 0]])].ravel())
        return np.array(groups)

    def shared_bytes(self, e, threads):
        """``(bytes, base)``: the dynamic shared memory of the batch as
        uint8 and where each of ``threads``'s block's copy starts."""
        if self.memory.dynamic is None:
            self.gpu_only(e, "wgmma on static shared arrays")
        return (
            self.memory.dynamic.data,
            self.block_pos[threads] * self.memory.dynamic.stride,
        )

    def whole_warps(self, e, m):
        """The threads of each warp with a thread in ``m``, as a (warps, 32)
        array of positions in lane order: every lane of those warps must be
        in ``m`` (a ``.aligned`` warp instruction such as ``mma.sync``)."""
        idx = np.flatnonzero(m)
        first = np.unique(self.pos[idx] - self.lane[idx])
        threads = first[:, None] + np.arange(WARP)[None, :]
        exists = (self.local[first] + WARP <= self.per_block)[:, None]
        inside = np.minimum(threads, self.n - 1)
        here = exists & (threads < self.n) & m[inside]
        if not here.all():
            w, k = np.unravel_index(int(np.argmin(here)), here.shape)
            if not exists[w, 0]:
                state = "is beyond the block (make the block a multiple of 32)"
            elif self.returned[threads[w, k]]:
                state = "has returned"
            else:
                state = "is not at the call (call it outside divergent code)"
            raise fault(
                "interpret-partial-warp",
                self.where(e),
                callee=e.builtin,
                lane=int(k),
                thread=self.who(int(first[w])),
                state=state,
            )
        return threads

    def warp_rows(self, e, slot, m, used, verb):
        """A warp instruction moving whole rows of shared memory (ldmatrix,
        stmatrix) whose lanes 0 .. ``used`` - 1 each give a row's address
        (``slot``): ``(threads, rows)``, each warp's threads (as
        ``whole_warps``) and the element address of each row, (warps,
        used).  The giving lane is logged as reading (``verb`` "reads") or
        writing ("writes") its row, for the race check."""
        threads = self.whole_warps(e, m)
        full = np.zeros(self.n, np.int64)
        full[m] = slot.addr
        givers = threads[:, :used]
        rows = full[givers]
        mem = slot.mem
        if mem.races is not None:
            slots, span = mem.race_slots(rows.ravel())
            log = mem.races.read if verb == "reads" else mem.races.write
            self.race(log(slots, self.pos[givers.ravel()], span), mem, e, verb)
        if verb == "writes":
            self.memory.writes += 1
        return threads, rows

    def copy_elements(self, e, dst, src, m, full):
        """Copy, in each thread of ``m``, its element ``src`` to ``dst`` (two
        Slots of one element type), or zeros where ``full`` is False (the
        source is not read there): a store to ``dst``, race-logged."""
        mem = dst.mem
        if mem.races is not None:
            slots, span = mem.race_slots(dst.addr)
            self.race(mem.races.write(slots, self.pos[m], span), mem, e, "writes")
        keep = full[m]
        for k in range(mem.lanes):
            values = src.mem.data[src.addr + k]
            mem.data[dst.addr + k] = np.where(keep, values, np.zeros_like(values))
        self.memory.writes += 1

    def load(self, e, slot, m):
        """A plain load of each thread's element at ``slot`` (race-logged);
        a vector's lanes as a tuple."""
        mem = slot.mem
        if mem.races is not None:
            slots, span = mem.race_slots(slot.addr)
            self.race(mem.races.read(slots, self.pos[m], span), mem, e, "reads")
        parts = mem.load(slot.addr, self.n, m)
        return tuple(parts) if mem.lanes > 1 else parts[0]

    def store(self, e, slot, value, m):
        """A plain store of ``value`` to each thread's element at ``slot``
        (race-logged)."""
        mem = slot.mem
        if mem.races is not None:
            slots, span = mem.race_slots(slot.addr)
            self.race(mem.races.write(slots, self.pos[m], span), mem, e, "writes")
        mem.store(slot.addr, list(value) if mem.lanes > 1 else [value], m)
        self.memory.writes += 1

    def warp_barrier(self, members, m):
        """``__syncwarp``: order the shared-memory accesses of each mask's lanes."""
        for mem in self.memory.shared.values():
            mem.races.warp_barrier(self.pos[m], members[m])

    def barrier(self, m):
        at_barrier = np.bincount(self.block_pos[m], minlength=self.count) > 0
        for mem in self.memory.shared.values():
            mem.races.barrier(at_barrier)

    def from_lanes(self, e, m, value, src, members=None):
        """``value`` of the lane ``src`` of each thread's warp, in the threads
        of ``m`` (the others keep their own); each source must be running
        and, given the lane masks ``members``, in the thread's mask."""
        me = self.lane.astype(np.int64)
        if members is not None:
            outside = m & (((members.astype(np.int64) >> src) & 1) == 0)
            if outside.any():
                lane = int(np.argmax(outside))
                raise fault(
                    "interpret-lane-outside-mask",
                    self.where(e),
                    callee=e.builtin,
                    thread=self.who(lane),
                    lane=int(src[lane]),
                    mask=_hex(members[lane]),
                )
        source = self.pos - me + src
        exists = (self.local - me + src < self.per_block) & (source < self.n)
        source = np.where(exists, source, self.pos)
        gone = m & ~(exists & m[source])
        if gone.any():
            lane = int(np.argmax(gone))
            raise fault(
                "interpret-lane-gone",
                self.where(e),
                callee=e.builtin,
                thread=self.who(lane),
                lane=int(src[lane]),
            )
        if isinstance(value, tuple):
            return tuple(np.where(m, v[source], v) for v in value)
        return np.where(m, value[source], value)

    def atomic_unused(self, e, slot, operands, m, ufunc) -> bool:
        """An atomic whose old value is unused, on native numbers: one
        ``ufunc.at`` (which applies the updates in thread order, as the
        sequential path does).  False (nothing done) for other types."""
        t = e.type
        native = t.kind == "int" and t.width in (32, 64)
        native = native or (ufunc is np.add and t.width in (32, 64))
        if not native:
            return False
        (value,) = operands
        ufunc.at(slot.mem.data, slot.addr, value[m].astype(slot.mem.data.dtype))
        self.memory.writes += 1
        return True

    def atomic(self, e, slot, operands, m, update):
        """Atomics one thread at a time, in thread order; returns the old values."""
        mem, t = slot.mem, e.args[0].type.elem  # (a store's call has no type)
        columns = [lanes.to_values(o[m], t) for o in operands]
        old = []
        for j, a in enumerate(slot.addr.tolist()):
            current = lanes.to_values(mem.data[a : a + 1], t)[0]
            new = update(current, [c[j] for c in columns], t)
            if new != current:  # (a failed compare-and-swap changes nothing)
                mem.data[a : a + 1] = lanes.from_values([new], t)
                self.memory.writes += 1
            old.append(current)
        result = lanes.full(self.n, 0, t)
        result[m] = lanes.from_values(old, t)
        return result

    def race(self, clash, mem, node, verb):
        """Raise the located error of a race ``clash`` a log found (None: none)."""
        self.race_log.check(clash, mem, self.where(node), verb)


def _hex(mask) -> str:
    return f"{int(mask):#010x}"


def _lowest(bits) -> int:
    """The lowest lane set in ``bits``."""
    bits = int(bits)
    return (bits & -bits).bit_length() - 1
