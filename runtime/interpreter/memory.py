"""Memory for the lock-step interpreter: addressing, bounds and races.

A :class:`Memory` is a flat numpy array seen through one kdsl array: a
pointer parameter (global memory shared by every thread), or a fixed array
declared in the kernel, which has one copy per block (``shared``) or per
thread (``local``) — ``rows`` holds, for each lane, where its copy starts.

Every access is checked: an index outside the array is an error naming the
array, the index, the thread and the Python line.  Shared arrays also track,
between two ``syncthreads``, which thread last wrote and which threads read
each element; a thread touching an element another thread wrote (or writing
one another thread read) in the same interval is a data race, reported the
same way — on the GPU its result would depend on scheduling.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from kdsl.runtime import errors as _registered  # noqa: F401 - the interpreter's
from kdsl.transpile.errors import error

from kdsl.transpile.core import lanes

_NONE, _MANY = -1, -2  # race tracking: no thread yet / more than one reader


@dataclass
class Memory:
    data: np.ndarray  # one-dimensional
    elem: object  # the element type (a vector type for a .vec(N) view)
    name: str
    shape: tuple = ()  # fixed arrays: the static shape of one copy
    rows: np.ndarray | None = None  # fixed arrays: each lane's first element
    lanes: int = 1  # a .vec(N) view reads N consecutive elements
    races: "RaceLog | None" = None
    origin: int = 0  # an array view's element 0 (negative strides reach below it)

    def view(self, lanes: int, elem) -> "Memory":
        """This memory read ``lanes`` elements at a time (``.vec(lanes)``)."""
        return replace(self, elem=elem, name=f"{self.name}.vec({lanes})", lanes=lanes)

    @property
    def size(self) -> int:
        """Scalars in one copy (one block's or thread's, or the whole array;
        an array of vectors holds ``lanes`` scalars per element)."""
        if self.shape:
            return int(np.prod(self.shape)) * self.lanes
        return len(self.data)

    def addresses(self, indices, active, fault) -> np.ndarray:
        """The flat address of each active lane's first element, checked.

        ``fault(lane, index_text)`` raises the out-of-bounds error.
        """
        idx = [np.asarray(i)[active].astype(np.int64) for i in indices]
        if self.shape:  # a fixed array (of scalars, or of vectors)
            flat = np.zeros(len(idx[0]), np.int64)
            for i, n in zip(idx, self.shape):
                bad = (i < 0) | (i >= n)
                if bad.any():
                    self._fault(idx, bad, active, fault)
                flat = flat * n + i
            flat = flat * self.lanes
        else:
            (flat,) = idx
            at = flat * self.lanes + self.origin
            bad = (at < 0) | (at + self.lanes > self.size)
            if bad.any():
                self._fault(idx, bad, active, fault)
            flat = at
        if self.rows is not None:
            flat = flat + self.rows[active]
        return flat

    def _fault(self, idx, bad, active, fault):
        k = int(np.argmax(bad))
        lane = int(np.flatnonzero(active)[k])
        where = ", ".join(str(int(i[k])) for i in idx)
        unit = "vectors" if self.lanes > 1 and not self.shape else "elements"
        count = self.size // self.lanes
        fault(lane, f"{self.name}[{where}] ({self.name} has {count} {unit})")

    def load(self, addr: np.ndarray, n: int, active, count: int | None = None) -> list:
        """One lane array per vector lane: the values at ``addr`` in active
        lanes (the first ``count`` lanes from ``addr``; by default all)."""
        scalar = self.elem.dtype if self.lanes > 1 else self.elem
        out = []
        for k in range(self.lanes if count is None else count):
            got = lanes.from_memory(self.data[addr + k], scalar)
            if len(got) == n:
                out.append(got)
                continue
            full = np.zeros(n, dtype=lanes.lane_dtype(scalar))
            full[active] = got
            out.append(full)
        return out

    def store(self, addr: np.ndarray, parts: list, active) -> None:
        for k, part in enumerate(parts):
            self.data[addr + k] = part[active] if len(part) != len(addr) else part


@dataclass
class RaceLog:
    """Who touched each element of a shared array since the last barrier."""

    size: int  # elements of every block's copy together
    per_block: int  # elements of one block's copy
    writer: np.ndarray = field(init=False)
    reader: np.ndarray = field(init=False)

    def __post_init__(self):
        self.writer = np.full(self.size, _NONE, np.int64)
        self.reader = np.full(self.size, _NONE, np.int64)

    def barrier(self, at_barrier: np.ndarray) -> None:
        """A ``syncthreads`` ends the interval of the blocks flagged in
        ``at_barrier`` (one flag per block of the batch)."""
        done = np.repeat(at_barrier, self.per_block)
        self.writer[done] = _NONE
        self.reader[done] = _NONE

    def read(self, addr, threads, lanes_read: int) -> tuple | None:
        """Record reads; return ``(address, reader, writer)`` of a race, if any."""
        for k in range(lanes_read):
            a = addr + k
            w = self.writer[a]
            clash = (w != _NONE) & (w != threads)
            if clash.any():
                j = int(np.argmax(clash))
                return int(a[j]), int(threads[j]), int(w[j])
            r = self.reader[a]
            self.reader[a] = np.where((r == _NONE) | (r == threads), threads, _MANY)
            self.reader[_shared_by_several(a, threads)] = _MANY
        return None

    def write(self, addr, threads, lanes_written: int) -> tuple | None:
        """Record writes; return ``(address, writer, other)`` of a race, if any."""
        for k in range(lanes_written):
            a = addr + k
            w, r = self.writer[a], self.reader[a]
            clash = ((w != _NONE) & (w != threads)) | ((r != _NONE) & (r != threads))
            if clash.any():
                j = int(np.argmax(clash))
                other = w[j] if w[j] not in (_NONE, threads[j]) else r[j]
                return int(a[j]), int(threads[j]), int(other)
            twice = _shared_by_several(a, threads)
            if len(twice):
                j = int(np.flatnonzero(a == twice[0])[0])
                others = threads[(a == twice[0]) & (threads != threads[j])]
                return int(a[j]), int(threads[j]), int(others[0])
            self.writer[a] = threads
        return None


def _shared_by_several(addr, threads) -> np.ndarray:
    """Addresses that more than one thread touches in this one access."""
    if len(addr) < 2:
        return addr[:0]
    order = np.argsort(addr, kind="stable")
    a, t = addr[order], threads[order]
    same = (a[1:] == a[:-1]) & (t[1:] != t[:-1])
    return np.unique(a[1:][same])


def fault(kind: str, span, **fields):
    """The interpreter's catalog error ``kind`` at ``span`` (with its source line)."""
    import linecache

    err = error(kind, **fields)
    if span is not None:
        line = linecache.getline(span.path, span.line).rstrip("\n") or None
        err.locate(span, line)
    return err
