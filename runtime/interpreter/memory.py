"""Memory for the lock-step interpreter: addressing, bounds and races.

A :class:`Memory` is a flat numpy array seen through one kdsl array: a
pointer parameter (global memory shared by every thread), or a fixed array
declared in the kernel, which has one copy per block (``shared``) or per
thread (``local``) — ``rows`` holds, for each lane, where its copy starts.

A :class:`DynamicView` is a ``kdsl.dynamic_shared_array`` view: the bytes of
the launch's dynamic shared memory (one run of ``shared_mem`` bytes per
block, :class:`DynamicBuffer`) read as its element type from its offset on.

Every access is checked: an index outside the array is an error naming the
array, the index, the thread and the Python line.  Shared arrays also track,
between two ``syncthreads``, which thread last wrote and which threads read
each element; a thread touching an element another thread wrote (or writing
one another thread read) in the same interval is a data race, reported the
same way — on the GPU its result would depend on scheduling.  A
``syncwarp`` orders the accesses of its lanes (``RaceLog``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from kdsl.runtime import errors as _registered  # noqa: F401 - the interpreter's
from kdsl.transpile.errors import error

from kdsl.transpile.core import lanes

_NONE, _MANY = -1, -2  # race tracking: no thread yet / more than one reader


_INT64 = (-(2**63), 2**63 - 1)


def _int64_index(i: np.ndarray) -> np.ndarray:
    """Index lanes as Int64; an Int128's (Python ints) beyond Int64 are
    clamped to its ends, out of bounds of every array all the same."""
    if i.dtype == object:
        return np.array([min(max(int(v), _INT64[0]), _INT64[1]) for v in i], np.int64)
    return i.astype(np.int64)


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
    unit: int = 1  # race-log slots per element of ``data`` (bytes, for a view)
    # a moved pointer (``p + k``): how far each lane's pointer is from the
    # allocation's element 0, in elements of ``data``; and, for a pointer
    # into a fixed array, the elements of one copy
    shift: np.ndarray | None = None
    extent: int | None = None

    def moved(self, k: np.ndarray) -> "Memory":
        """This pointer moved by ``k`` (one per lane) of its elements: a
        fixed array becomes a pointer to its first element first."""
        size = self.size
        if self.shape:
            base = replace(self, shape=(), extent=size)
        else:
            base = self
        k = np.asarray(k).astype(np.int64) * self.lanes
        shift = k if base.shift is None else base.shift + k
        return replace(base, shift=shift)

    def position(self, n: int) -> np.ndarray:
        """Each lane's pointer, in elements of ``data`` from its start (a
        comparison's or a difference's operand)."""
        at = np.full(n, self.origin, np.int64)
        if self.shift is not None:
            at = at + self.shift
        if self.rows is not None:
            at = at + self.rows
        return at

    def misaligned(self, lanes: int, nbytes: int | None = None):
        """Where a ``.vec(lanes)`` view of this moved pointer would not start
        on a whole vector (one flag per lane), or None if it cannot; with
        ``nbytes``, where a ``.view(T)`` of ``nbytes``-byte elements would
        not start on a whole element."""
        if self.shift is None:
            return None
        if nbytes is not None:
            return (self.origin + self.shift) * self.data.dtype.itemsize % nbytes != 0
        return (self.origin + self.shift) % lanes != 0

    def view(self, lanes: int, elem) -> "Memory":
        """This memory read ``lanes`` elements at a time (``.vec(lanes)``)."""
        return replace(self, elem=elem, name=f"{self.name}.vec({lanes})", lanes=lanes)

    def reinterpret(self, elem) -> "Memory":
        """This memory's bytes read as elements of the scalar type ``elem``
        (``.view(T)``): as many whole elements as its bytes hold."""
        raw = self.data.view(np.uint8)
        size = elem.np_dtype.itemsize
        data = raw[: len(raw) // size * size].view(elem.np_dtype)
        shift = self.shift  # a moved pointer: its offset in elem's units
        if shift is not None:
            shift = shift * self.data.dtype.itemsize // size
        return replace(
            self,
            data=data,
            elem=elem,
            name=f"{self.name}.view({elem.__name__})",
            shift=shift,
        )

    @property
    def size(self) -> int:
        """Scalars in one copy (one block's or thread's, or the whole array;
        an array of vectors holds ``lanes`` scalars per element)."""
        if self.shape:
            return int(np.prod(self.shape)) * self.lanes
        if self.extent is not None:
            return self.extent
        return len(self.data)

    def addresses(self, indices, active, fault) -> np.ndarray:
        """The flat address of each active lane's first element, checked.

        ``fault(lane, index_text)`` raises the out-of-bounds error.
        """
        if not indices:  # a shared scalar: s[()]
            indices = [np.zeros(len(active), np.int64)]
        raw = [np.asarray(i)[active] for i in indices]
        idx = [_int64_index(i) for i in raw]
        if self.shape:  # a fixed array (of scalars, or of vectors)
            flat = np.zeros(len(idx[0]), np.int64)
            for i, n in zip(idx, self.shape):
                bad = (i < 0) | (i >= n)
                if bad.any():
                    self._fault(raw, bad, active, fault)
                flat = flat * n + i
            flat = flat * self.lanes
        else:
            (flat,) = idx
            # the bounds on the index itself: flat * lanes would wrap for an
            # index of 2**62 or more and land in bounds
            start = self.origin
            if self.shift is not None:
                start = start + self.shift[active]
            lowest = -(start // self.lanes)
            highest = (self.size - self.lanes - start) // self.lanes
            bad = (flat < lowest) | (flat > highest)
            at = np.where(bad, 0, flat) * self.lanes + start
            if bad.any():
                self._fault(raw, bad, active, fault)
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
        if self.shift is None:
            fault(lane, f"{self.name}[{where}] ({self.name} has {count} {unit})")
        moved = int(self.shift[lane]) // self.lanes
        at = moved + int(idx[0][k])
        fault(
            lane,
            f"({self.name} {'-' if moved < 0 else '+'} {abs(moved)})[{where}]: "
            f"element {at} of {self.name}, which has {count} {unit}",
        )

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

    def same_values(self, addr: np.ndarray, parts: list, active) -> tuple:
        """For a store of ``parts`` at ``addr`` (before it is made), each
        access's ``(holds, agrees)``: whether it stores the bytes its element
        holds now, and whether every access of this store to its element
        stores the same bytes (a race log's benign concurrent stores)."""
        count = len(addr)
        new = np.empty((count, len(parts)), self.data.dtype)
        for k, part in enumerate(parts):
            new[:, k] = part[active] if len(part) != count else part
        old = np.stack([self.data[addr + k] for k in range(len(parts))], axis=1)
        new_bytes = new.view(np.uint8).reshape(count, -1)
        holds = (old.view(np.uint8).reshape(count, -1) == new_bytes).all(axis=1)
        order = np.argsort(addr, kind="stable")
        a, b = addr[order], new_bytes[order]
        differs = (a[1:] == a[:-1]) & (b[1:] != b[:-1]).any(axis=1)
        agrees = ~np.isin(addr, a[1:][differs])
        return holds, agrees

    def race_slots(self, addr: np.ndarray) -> tuple:
        """``(first race-log slot of each access, slots an access covers)``
        for accesses at the element addresses ``addr``."""
        if self.unit == 1:
            return addr, self.lanes
        return addr * self.unit, self.lanes * self.unit

    def lane_race_slots(self, addr: np.ndarray) -> tuple:
        """:meth:`race_slots` of one vector lane at each scalar address."""
        if self.unit == 1:
            return addr, 1
        return addr * self.unit, self.unit

    def race_index(self, slot: int, lane: int) -> int:
        """The index, in this array, of the race-log slot ``slot`` (for
        messages); ``lane`` is the thread that touched it."""
        return slot % self.races.per_block


class BatchMemory:
    """The block-local memory of a batch, declared as its kernel runs:
    shared arrays (one per declaration, id of the ``ArrayDecl`` -> Memory),
    the dynamic shared buffer (None until the kernel declares it;
    ``shared_mem`` bytes a block) and the count of memory changes so far
    (for ``simt._Watch``)."""

    def __init__(self, shared_mem: int):
        self.shared_mem = shared_mem
        self.shared: dict = {}
        self.dynamic: "DynamicBuffer | None" = None
        self.writes = 0


class DynamicBuffer:
    """The launch's dynamic shared memory for a batch of ``count`` blocks:
    ``size`` bytes a block, each block's copy ``stride`` bytes after the one
    before (rounded up so that every copy starts 16-byte aligned); races are
    tracked per byte, for blocks of ``threads`` threads."""

    def __init__(self, size: int, count: int, threads: int):
        self.size = size
        self.stride = -(-size // 16) * 16
        self.data = np.zeros(count * self.stride, np.uint8)
        self.races = RaceLog(len(self.data), self.stride, threads)


@dataclass
class DynamicView(Memory):
    """A view of a :class:`DynamicBuffer`: ``data`` is the whole buffer read
    as the view's scalar type; ``start`` is each lane's byte offset of its
    element 0 in its block's copy, ``base`` where that copy begins in the
    buffer, ``count`` each lane's element count (None: to the end)."""

    start: np.ndarray | None = None
    base: np.ndarray | None = None
    count: np.ndarray | None = None
    limit: int = 0  # bytes a block: the launch's shared_mem

    @property
    def itemsize(self) -> int:
        return self.unit * self.lanes  # bytes an element

    def addresses(self, indices, active, fault) -> np.ndarray:
        i = np.asarray(indices[0])[active].astype(np.int64)
        asked = i
        if self.shift is not None:  # a moved view: from the view's element 0
            i = i + self.shift[active] // self.lanes
        huge = i > self.limit // self.itemsize  # (i * itemsize would wrap)
        at = self.start[active] + np.where(huge, 0, i) * self.itemsize
        bad = huge | (i < 0) | (at < 0) | (at + self.itemsize > self.limit)
        if self.count is not None:
            bad |= i >= self.count[active]
        if bad.any():
            k = int(np.argmax(bad))
            lane = int(np.flatnonzero(active)[k])
            if self.shift is None:
                fault(lane, f"{self.name}[{int(i[k])}] ({self._extent(lane)})")
            moved = int(self.shift[lane]) // self.lanes
            sign = "-" if moved < 0 else "+"
            fault(
                lane,
                f"({self.name} {sign} {abs(moved)})[{int(asked[k])}]: element "
                f"{int(i[k])} of {self.name} ({self._extent(lane)})",
            )
        return (self.base[active] + at) // self.unit

    def position(self, n: int) -> np.ndarray:
        at = (self.base + self.start) // self.unit
        return at if self.shift is None else at + self.shift

    def _extent(self, lane: int) -> str:
        """What the view holds for ``lane``, for an out-of-bounds message."""
        if self.limit == 0:
            return (
                "the launch has no dynamic shared memory: pass shared_mem=<bytes> "
                "to the launch"
            )
        start = int(self.start[lane])
        unit = "vectors" if self.lanes > 1 else "elements"
        fits = max(0, (self.limit - start) // self.itemsize) if start >= 0 else 0
        launch = f"the launch's {self.limit} bytes of dynamic shared memory"
        if self.count is None:
            return f"{self.name} has {fits} {unit} from byte {start} of {launch}"
        count = int(self.count[lane])
        if count <= fits:
            return f"{self.name} has {count} {unit}"
        return (
            f"{self.name} has {count} {unit} from byte {start}, but only {fits} "
            f"fit in {launch}"
        )

    def race_index(self, slot: int, lane: int) -> int:
        first = int(self.base[lane] + self.start[lane])
        return (slot - first) // self.unit  # a scalar: [vector][lane] to report


@dataclass
class RaceLog:
    """Who touched each element of a shared array since the last barrier.

    A ``syncwarp`` orders the accesses of the lanes of its mask: an element
    that only those lanes touched since the last ``syncthreads`` is *fenced*
    for them — they may touch it again; any other thread that touches it
    (writes it, or reads it after a fenced write) before the next
    ``syncthreads`` races with them.  A fence untouched since keeps its
    lanes at the next ``syncwarp`` of some of them; an element other
    threads touched too stays in its interval: the rule never misses a race,
    and a ``syncthreads`` ends every interval."""

    size: int  # elements of every block's copy together
    per_block: int  # elements of one block's copy
    threads: int = 1  # threads of one block (a thread's warp and lane)
    writer: np.ndarray = field(init=False)
    reader: np.ndarray = field(init=False)

    def __post_init__(self):
        n = self.size
        self.writer = np.full(n, _NONE, np.int64)
        self.reader = np.full(n, _NONE, np.int64)
        # two of the readers of an element that several threads read (the
        # reader is _MANY): whom a later writer is reported racing with
        self.reader1 = np.full(n, _NONE, np.int64)
        self.reader2 = np.full(n, _NONE, np.int64)
        # since the last syncthreads: the warps (lowest, highest) and lanes
        # that touched each element, and the last thread that did
        self.warp_lo = np.full(n, np.iinfo(np.int64).max, np.int64)
        self.warp_hi = np.full(n, _NONE, np.int64)
        self.lanes = np.zeros(n, np.int64)
        self.last = np.full(n, _NONE, np.int64)
        self.since_fence = np.zeros(n, np.bool_)  # touched since the last fence
        # the last syncwarp fence: its warp and lanes, a thread it covers,
        # and whether a fenced access wrote
        self.fence_warp = np.full(n, _NONE, np.int64)
        self.fence_lanes = np.zeros(n, np.int64)
        self.fence_thread = np.full(n, _NONE, np.int64)
        self.fence_wrote = np.zeros(n, np.bool_)

    def barrier(self, at_barrier: np.ndarray) -> None:
        """A ``syncthreads`` ends the interval of the blocks flagged in
        ``at_barrier`` (one flag per block of the batch)."""
        done = np.repeat(at_barrier, self.per_block)
        fresh = RaceLog(1, 1)
        for name in _TRACKED:
            getattr(self, name)[done] = getattr(fresh, name)[0]

    def warp_barrier(self, threads, masks) -> None:
        """A ``syncwarp``: ``threads`` passed it, each with its lane mask."""
        warp, lane = self._place(threads)
        group = np.zeros(self.size // self.per_block * _WARPS * 32, np.int64)
        group[warp * 32 + lane] = masks
        # an element touched by one warp only: the mask its lowest lane passed
        one_warp = self.warp_lo == self.warp_hi  # (both unset when untouched)
        low = np.log2(self.lanes & -self.lanes, where=one_warp, out=np.zeros(self.size))
        at = np.where(one_warp, self.warp_hi * 32 + low.astype(np.int64), 0)
        mask = np.where(one_warp, group[at], 0)
        f = np.flatnonzero(one_warp & (mask != 0) & ((self.lanes & ~mask) == 0))
        if not len(f):
            return
        wrote = self.writer[f] != _NONE
        keep = np.where(self.fence_wrote[f], self.fence_thread[f], self.last[f])
        self.fence_thread[f] = np.where(wrote, self.writer[f], keep)
        self.fence_wrote[f] |= wrote
        # a fence untouched since: what it ordered stays ordered for its lanes
        again = (self.fence_warp[f] == self.warp_hi[f]) & ~self.since_fence[f]
        self.fence_lanes[f] = np.where(again, self.fence_lanes[f], 0) | mask[f]
        self.fence_warp[f] = self.warp_hi[f]
        self.since_fence[f] = False
        self.writer[f] = _NONE
        self.reader[f] = _NONE

    def _place(self, threads):
        """Each thread's warp (numbered across the batch) and lane."""
        local = threads % self.threads
        return threads // self.threads * _WARPS + local // 32, local % 32

    def _touch(self, a, threads) -> None:
        warp, lane = self._place(threads)
        np.minimum.at(self.warp_lo, a, warp)
        np.maximum.at(self.warp_hi, a, warp)
        np.bitwise_or.at(self.lanes, a, np.left_shift(1, lane))
        self.last[a] = threads
        self.since_fence[a] = True

    def _outside_fence(self, a, threads, writing: bool) -> tuple | None:
        """A thread touching an element fenced for other lanes."""
        f = self.fence_warp[a]
        if (f == _NONE).all():
            return None
        warp, lane = self._place(threads)
        outside = (f != _NONE) & (
            (f != warp) | (((self.fence_lanes[a] >> lane) & 1) == 0)
        )
        if not writing:
            outside &= self.fence_wrote[a]
        if not outside.any():
            return None
        j = int(np.argmax(outside))
        return int(a[j]), int(threads[j]), int(self.fence_thread[a[j]])

    def read(self, addr, threads, lanes_read: int) -> tuple | None:
        """Record reads; return ``(address, reader, writer)`` of a race, if any."""
        for k in range(lanes_read):
            a = addr + k
            clash = self._outside_fence(a, threads, writing=False)
            if clash is not None:
                return clash
            w = self.writer[a]
            clash = (w != _NONE) & (w != threads)
            if clash.any():
                j = int(np.argmax(clash))
                return int(a[j]), int(threads[j]), int(w[j])
            r = self.reader[a]
            second = (r != _NONE) & (r != _MANY) & (r != threads)
            self.reader1[a[second]] = r[second]
            self.reader2[a[second]] = threads[second]
            self.reader[a] = np.where((r == _NONE) | (r == threads), threads, _MANY)
            several, first, last = _two_threads(a, threads)
            fresh = self.reader[several] != _MANY
            self.reader1[several[fresh]] = first[fresh]
            self.reader2[several[fresh]] = last[fresh]
            self.reader[several] = _MANY
            self._touch(a, threads)
        return None

    def write(self, addr, threads, lanes_written: int, same=None) -> tuple | None:
        """Record writes; return ``(address, writer, other)`` of a race, if
        any.  ``same()`` (:meth:`Memory.same_values`, called only where
        threads clash), each write's ``(holds, agrees)``: a write of the
        bytes the element holds, after another thread's write, and writes
        of one value by several threads at once, are not races (concurrent
        stores of one value are benign)."""
        benign = None
        for k in range(lanes_written):
            a = addr + k
            clash = self._outside_fence(a, threads, writing=True)
            if clash is not None:
                return clash
            w, r = self.writer[a], self.reader[a]
            other_writer = (w != _NONE) & (w != threads)
            twice = _shared_by_several(a, threads)
            if (other_writer.any() or len(twice)) and same is not None:
                if benign is None:
                    benign = same()  # (holds, agrees)
                holds, agrees = benign
                other_writer &= ~(holds & agrees)
                twice = _shared_by_several(a[~agrees], threads[~agrees])
            clash = other_writer | ((r != _NONE) & (r != threads))
            if clash.any():
                j = int(np.argmax(clash))
                other = w[j] if w[j] not in (_NONE, threads[j]) else r[j]
                if other == _MANY:  # several readers: one of them other than me
                    other = self.reader1[a[j]]
                    if other == threads[j]:
                        other = self.reader2[a[j]]
                return int(a[j]), int(threads[j]), int(other)
            if len(twice):
                j = int(np.flatnonzero(a == twice[0])[0])
                others = threads[(a == twice[0]) & (threads != threads[j])]
                return int(a[j]), int(threads[j]), int(others[0])
            self.writer[a] = threads
            self._touch(a, threads)
        return None


_WARPS = 32  # warps of a block at most (1024 threads)
_TRACKED = (
    "writer",
    "reader",
    "reader1",
    "reader2",
    "warp_lo",
    "warp_hi",
    "lanes",
    "last",
    "since_fence",
    "fence_warp",
    "fence_lanes",
    "fence_thread",
    "fence_wrote",
)


def _shared_by_several(addr, threads) -> np.ndarray:
    """Addresses that more than one thread touches in this one access."""
    if len(addr) < 2:
        return addr[:0]
    order = np.argsort(addr, kind="stable")
    a, t = addr[order], threads[order]
    same = (a[1:] == a[:-1]) & (t[1:] != t[:-1])
    return np.unique(a[1:][same])


def _two_threads(addr, threads) -> tuple:
    """The addresses that more than one thread touches in this one access,
    each with two of those threads: ``(addresses, first, last)``."""
    if len(addr) < 2:
        return addr[:0], addr[:0], addr[:0]
    order = np.argsort(addr, kind="stable")
    a, t = addr[order], threads[order]
    starts = np.flatnonzero(np.r_[True, a[1:] != a[:-1]])
    lo, hi = np.minimum.reduceat(t, starts), np.maximum.reduceat(t, starts)
    several = lo != hi
    return a[starts][several], lo[several], hi[several]


def fault(kind: str, span, **fields):
    """The interpreter's catalog error ``kind`` at ``span`` (with its source line)."""
    import linecache

    err = error(kind, **fields)
    if span is not None:
        line = linecache.getline(span.path, span.line).rstrip("\n") or None
        err.locate(span, line)
    return err
