"""Threads of the lock-step interpreter working together: ``syncthreads``,
warp shuffles and atomics (the ``Batch`` methods that look across lanes).

Lanes of a batch advance together, so a barrier needs no waiting: it checks
that every running thread of each block is there.  A shuffle reads the other
lanes' values directly, by PTX ``shfl.sync``'s rule for the source lane.
Atomics run one thread at a time in thread order, or as one ``ufunc.at``
(which keeps that order) when their old value is unused.
"""

from __future__ import annotations

import numpy as np

from kdsl.transpile.core import values

from kdsl.transpile.core import lanes
from kdsl.runtime.interpreter.memory import fault

WARP = 32

_AT_OPS = {  # atomics whose old value is unused, as one ufunc.at
    "atomic_add": np.add,
    "atomic_max": np.maximum,
    "atomic_min": np.minimum,
    "atomic_and_": np.bitwise_and,
    "atomic_or_": np.bitwise_or,
    "atomic_xor": np.bitwise_xor,
}


class Together:
    """The cross-lane operations of ``simt.Batch`` (a mixin)."""

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

    def syncthreads(self, e, m):
        lane = self._diverged(self.block_pos, self.count, m)
        if lane is not None:
            raise fault(
                f"syncthreads() is not reached by {self.who(lane)}, which is still "
                "running: every running thread of a block must reach the same barrier",
                self.where(e),
            )
        at_barrier = np.bincount(self.block_pos[m], minlength=self.count) > 0
        for mem in self.shared.values():
            mem.races.barrier(at_barrier)

    def shuffle(self, e, m, value, arg, width):
        lane = self._diverged(self.warp, int(self.warp[-1]) + 1, m)
        if lane is not None:
            raise fault(
                f"{e.func}() is not reached by {self.who(lane)}, which is still running: "
                "every running lane of a warp must take part in a shuffle",
                self.where(e),
            )
        # PTX shfl.sync's rule, with the c operand CUDA passes for a width:
        # segment mask 32 - width; a source beyond the segment's last lane
        # reads the lane's own value (an earlier segment may be read)
        me = self.lane.astype(np.int64)
        b = arg.astype(np.int64) & (WARP - 1)
        segment = WARP - width.astype(np.int64)
        last = (me & segment) | ((WARP - 1) & ~segment)
        if e.func == "shfl_idx":
            src = (me & segment) | (b & ~segment)
        elif e.func == "shfl_xor":
            src = me ^ b
        else:  # shfl_down
            src = me + b
        src = np.where(src <= last, src, me)
        source = self.pos - me + src
        exists = (self.local - me + src < self.per_block) & (source < self.n)
        source = np.where(exists, source, self.pos)
        gone = m & ~(exists & m[source])
        if gone.any():
            lane = int(np.argmax(gone))
            raise fault(
                f"{e.func}() in {self.who(lane)} reads lane {int(src[lane])}, "
                "which is not running (it returned, or is beyond the block)",
                self.where(e),
            )
        if isinstance(value, tuple):
            return tuple(np.where(m, v[source], v) for v in value)
        return np.where(m, value[source], value)

    def _atomic_target(self, e, m, frame):
        slot = e.args[0]
        mem = self.eval(slot.base, m, frame)
        indices = [self.eval(i, m, frame) for i in slot.indices]
        addr = mem.addresses(indices, m, self._oob(e, "atomic on"))
        operands = [self.eval(a, m, frame)[m] for a in e.args[1:]]
        return mem, addr, operands

    def _fast_atomic(self, e, m, frame) -> bool:
        """An atomic whose old value is unused, on native numbers: one ufunc.at
        (which applies the updates in thread order, as the sequential path)."""
        t = e.type
        if e.func not in _AT_OPS:
            return False
        native = t.kind == "int" and t.width in (32, 64)
        native = native or (e.func == "atomic_add" and t.width in (32, 64))
        if not native:
            return False
        mem, addr, (value,) = self._atomic_target(e, m, frame)
        _AT_OPS[e.func].at(mem.data, addr, value.astype(mem.data.dtype))
        self.writes += 1
        return True

    def atomic(self, e, m, frame):
        """Atomics one thread at a time, in thread order; returns the old values."""
        mem, addr, operands = self._atomic_target(e, m, frame)
        t = e.type
        columns = [lanes.to_values(o, t) for o in operands]
        old = []
        for j, a in enumerate(addr.tolist()):
            current = lanes.to_values(mem.data[a : a + 1], t)[0]
            new = _atomic_update(e.func, current, [c[j] for c in columns], t)
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
        raise fault(
            f"data race on shared array {mem.name}[{index}]: {self.who(me)} {verb} it "
            f"and {self.who(other)} {'wrote' if verb == 'reads' else 'read or wrote'} "
            "it, with no syncthreads() between",
            self.where(node),
        )


def _atomic_update(func, old, operands, t):
    if func == "atomic_cas":
        compare, value = operands
        return value if old == compare else old
    (value,) = operands
    if func == "atomic_exch":
        return value
    if func == "atomic_max":
        return max(old, value)
    if func == "atomic_min":
        return min(old, value)
    op = {"atomic_add": "+", "atomic_and_": "&", "atomic_or_": "|", "atomic_xor": "^"}
    return values.binary(op[func], old, value, t)
