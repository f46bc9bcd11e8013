"""Threads of the lock-step interpreter working together: the collective
check, barriers, reading other lanes and atomics (the ``Batch`` methods that
look across lanes, used by the built-ins' interpreter semantics).

Lanes of a batch advance together, so a barrier needs no waiting: it checks
that every running thread of each block is there.  A shuffle reads the other
lanes' values directly, by PTX ``shfl.sync``'s rule for the source lane.
Atomics run one thread at a time in thread order, or as one ``ufunc.at``
(which keeps that order) when their old value is unused.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kdsl.transpile.core import lanes
from kdsl.runtime.interpreter.memory import fault

WARP = 32


@dataclass(frozen=True)
class Slot:
    """An atomic's element: the memory and each active thread's address."""

    mem: object
    addr: np.ndarray


class Together:
    """The cross-lane operations of ``simt.Batch`` (a mixin): what a
    built-in's ``interpret`` may use (``registry.Threads``)."""

    def _diverged(self, group, groups, m):
        """The first lane still running in a group where other lanes are at
        this point, or None (every group is all here or all elsewhere)."""
        alive = ~self.kernel_frame.returned
        missing = alive & ~m
        if not missing.any():  # every running thread is here
            return None
        here = np.bincount(group[m], minlength=groups)
        live = np.bincount(group[alive], minlength=groups)
        split = (here > 0) & (here < live)
        if not split.any():
            return None
        return int(np.argmax(missing & split[group]))

    def check_collective(self, entry, e, m):
        """Every running thread of the group (warp or block) a collective
        built-in works across reaches the call."""
        if entry.collective == "block":
            lane = self._diverged(self.block_pos, self.count, m)
            rule = "every running thread of a block must reach the same barrier"
        else:
            lane = self._diverged(self.warp, int(self.warp[-1]) + 1, m)
            rule = "every running lane of a warp must take part in it"
        if lane is not None:
            raise fault(
                "interpret-divergent",
                self.where(e),
                callee=entry.name,
                thread=self.who(lane),
                rule=rule,
            )

    def barrier(self, m):
        at_barrier = np.bincount(self.block_pos[m], minlength=self.count) > 0
        for mem in self.shared.values():
            mem.races.barrier(at_barrier)

    def from_lanes(self, e, m, value, src):
        """``value`` of the lane ``src`` of each thread's warp, in the threads
        of ``m`` (the others keep their own)."""
        me = self.lane.astype(np.int64)
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
        self.writes += 1
        return True

    def atomic(self, e, slot, operands, m, update):
        """Atomics one thread at a time, in thread order; returns the old values."""
        mem, t = slot.mem, e.type
        columns = [lanes.to_values(o[m], t) for o in operands]
        old = []
        for j, a in enumerate(slot.addr.tolist()):
            current = lanes.to_values(mem.data[a : a + 1], t)[0]
            new = update(current, [c[j] for c in columns], t)
            if new != current:  # (a failed compare-and-swap changes nothing)
                mem.data[a : a + 1] = lanes.from_values([new], t)
                self.writes += 1
            old.append(current)
        result = lanes.full(self.n, 0, t)
        result[m] = lanes.from_values(old, t)
        return result

    def _race(self, clash, mem, node, verb):
        if clash is None:
            return
        addr, me, other = clash
        index = addr % mem.races.per_block
        if mem.lanes > 1:  # an array of vectors: the element and its lane
            index = f"{index // mem.lanes}][{index % mem.lanes}"
        raise fault(
            "interpret-data-race",
            self.where(node),
            array=mem.name,
            index=index,
            thread=self.who(me),
            verb=verb,
            other=self.who(other),
            other_verb="wrote" if verb == "reads" else "read or wrote",
        )
