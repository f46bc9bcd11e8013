"""Several ranks (GPUs) in one process: ``kdsl.run_ranks(size, launch)``.

``launch(rank)`` runs once for each rank, each in its own Python thread,
and makes that rank's interpreted launches (``kernel.interpret[grid,
block](...)``, any number of them).  The ranks take turns: exactly one runs
at a time, and it runs until it finishes or waits for a signal that has not
arrived (``kdsl.wait_signal``, or a peer's array not launched yet); then
the next rank in order that can run does.  The schedule is therefore the
same on every run.  When no rank can run and some wait, the wait can never
end: the lowest waiting rank raises the located error (E762) naming every
waiting rank's thread, line and signal; the others stop.

Peer memory: every array a launch is given is registered under its address
(a numpy array's ``ctypes.data``; a CuPy or PyTorch array's device address,
whose host copy the interpreter runs on), so ``kdsl.peer_pointer(address,
like)`` finds the array of the rank that owns it.  Outside ``run_ranks``
one launch is one rank: its own arrays are its peers.
"""

from __future__ import annotations

import threading

import numpy as np

from kdsl.runtime.interpreter.memory import Memory, fault
from kdsl.transpile.errors import CATALOG

_local = threading.local()  # .world and .rank in a rank's thread; .solo else


class _Stopped(Exception):
    """A rank stopped because another rank's error ended the run."""


class World:
    """The ranks of one ``run_ranks`` and whose turn it is."""

    def __init__(self, size: int):
        self.size = size
        self.cond = threading.Condition()
        self.turn = 0
        self.state = ["run"] * size  # "run", "wait" or "done"
        self.waits = [None] * size  # a waiting rank's (arrived, describe)
        self.arrays = {}  # address -> (host array, label)
        self.deadlock = None  # (the rank that reports it, the message)

    def take_turn(self, rank: int) -> None:
        """Block until it is ``rank``'s turn (the start of its thread)."""
        with self.cond:
            while self.turn != rank and self.deadlock is None:
                self.cond.wait()
            if self.deadlock is not None:
                raise _Stopped()

    def block(self, rank: int, arrived, describe) -> None:
        """``rank`` waits until ``arrived()``: the others run meanwhile."""
        with self.cond:
            self.state[rank], self.waits[rank] = "wait", (arrived, describe)
            self._pass_turn(rank)
            while True:
                if self.deadlock is not None:
                    reporter, message = self.deadlock
                    if reporter == rank:
                        return message
                    raise _Stopped()
                if self.turn == rank:
                    self.state[rank], self.waits[rank] = "run", None
                    return None
                self.cond.wait()

    def finish(self, rank: int) -> None:
        with self.cond:
            self.state[rank], self.waits[rank] = "done", None
            self._pass_turn(rank)

    def _pass_turn(self, rank: int) -> None:
        """Give the turn to the next rank after ``rank`` (itself last) that
        can run, or find the deadlock."""
        if self.deadlock is not None:  # found: the ranks are stopping
            self.cond.notify_all()
            return
        for k in range(1, self.size + 1):
            r = (rank + k) % self.size
            if self.state[r] == "run" or (
                self.state[r] == "wait" and self.waits[r][0]()
            ):
                self.turn = r
                self.cond.notify_all()
                return
        waiting = [r for r in range(self.size) if self.state[r] == "wait"]
        if waiting:
            message = "; ".join(f"rank {r}: {self.waits[r][1]()}" for r in waiting)
            self.deadlock = (waiting[0], message)
        self.cond.notify_all()


def run_ranks(size: int, launch) -> None:
    """Run ``launch(rank)`` for every rank of ``range(size)`` in the
    interpreter, one rank at a time, switching at waits (module doc).  The
    first error of the lowest rank that failed is raised (a note names the
    rank); a deadlock is E762 at the lowest waiting rank's call."""
    if not isinstance(size, int) or size < 1:
        raise ValueError(f"run_ranks() needs a number of ranks >= 1, got {size!r}")
    world = World(size)
    errors = [None] * size

    def body(rank):
        _local.world, _local.rank = world, rank
        try:
            world.take_turn(rank)
            launch(rank)
        except _Stopped:
            pass
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller
            errors[rank] = e
        finally:
            world.finish(rank)

    threads = [
        threading.Thread(target=body, args=(r,), name=f"kdsl rank {r}", daemon=True)
        for r in range(size)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # an error that stopped a rank first; a deadlock it caused after it
    failed = sorted(
        (getattr(e, "code", None) == CATALOG["interpret-deadlock"].code, rank)
        for rank, e in enumerate(errors)
        if e is not None
    )
    for _, rank in failed[:1]:
        e = errors[rank]
        if e is not None:
            if size > 1:
                e.add_note(f"(in rank {rank} of {size})")
            raise e


# -- what the interpreter calls ----------------------------------------------------------
def new_launch() -> None:
    """Forget the arrays of a launch outside ``run_ranks`` (called as one
    starts and ends: its peers are its own arrays, and only while it runs)."""
    if getattr(_local, "world", None) is None:
        _local.solo = {}


def register(value, host: np.ndarray, label: str) -> None:
    """Record ``host`` (the array the interpreter runs on) under the address
    of the launch argument ``value``."""
    if isinstance(value, np.ndarray):
        address = value.ctypes.data
    elif type(value).__module__.split(".")[0] == "cupy":
        address = value.data.ptr
    else:
        address = value.data_ptr()
    world = getattr(_local, "world", None)
    if world is not None:
        label = f"{label} of rank {_local.rank}"
        with world.cond:
            world.arrays[address] = (host, label)
    else:
        _local.__dict__.setdefault("solo", {})[address] = (host, label)


def _arrays() -> dict:
    world = getattr(_local, "world", None)
    return world.arrays if world is not None else _local.__dict__.get("solo", {})


def wait(t, call, arrived, describe) -> None:
    """The threads of a batch wait until ``arrived()``; ``describe()`` says
    what they wait for (E762 when it can never arrive)."""
    if arrived():
        return
    world = getattr(_local, "world", None)
    if world is None:
        message, note = describe(), " (a launch outside kdsl.run_ranks is one rank)"
    else:
        message, note = world.block(_local.rank, arrived, describe), ""
        if message is None:
            return
    raise fault(
        "interpret-deadlock",
        t.where(call),
        callee=call.builtin,
        waiting=message,
        note=note
        + "; the interpreter runs the threads of a batch of blocks in lock-step: "
        "a wait for a later statement of the same rank never ends there",
    )


def peer_memory(t, call, address, mask) -> Memory:
    """The array at ``address`` (one for every thread of ``mask``), typed
    as the call's pointer: a launch's argument, maybe another rank's."""
    elem = call.type.elem
    idx = np.flatnonzero(mask)
    if not len(idx):
        return Memory(np.zeros(0, elem.np_dtype), elem, "no peer")
    got = address[idx].astype(np.uint64)
    differs = got != got[0]
    if differs.any():
        other = int(idx[int(np.argmax(differs))])
        raise fault(
            "interpret-peer-diverged",
            t.where(call),
            callee=call.builtin,
            thread=t.who(int(idx[0])),
            address=int(got[0]),
            other=t.who(other),
            other_address=int(address[other]),
        )
    at = int(got[0])

    def found():
        entry = _arrays().get(at)
        return entry is not None and entry[0].dtype == elem.np_dtype

    if not found() and getattr(_local, "world", None) is not None:
        # a peer's array its launch has not bound yet: let the others run
        def describe():
            return f"{t.who(int(idx[0]))} looks for an array at {at:#x}"

        wait(t, call, lambda: at in _arrays(), describe)
    if not found():
        world = getattr(_local, "world", None)
        raise fault(
            "interpret-peer-address",
            t.where(call),
            callee=call.builtin,
            thread=t.who(int(idx[0])),
            address=at,
            type=elem.__name__,
            ranks="any rank" if world is not None else "this launch (one rank)",
            note=_near(at, elem),
        )
    host, label = _arrays()[at]
    return Memory(host.reshape(-1), elem, label)


def _near(at: int, elem) -> str:
    """Why ``at`` is not an array of ``elem``: it is one of another type,
    or inside one."""
    for address, (host, label) in _arrays().items():
        if address == at:
            return f"; {label} starts there but holds {host.dtype}"
        if address < at < address + host.nbytes:
            return f"; it is {at - address} bytes into {label}"
    return ""
