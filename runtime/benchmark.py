"""What the autotuner does on the device around the launches it times.

A :class:`Bench` belongs to one search.  It copies the arrays a launch may
change (device to device, the bytes each array spans) before any launch, and
before each timed launch it puts them back and flushes the L2 cache (it
writes a buffer twice the size of L2, as ``triton.testing.do_bench`` does), so
that every timed launch starts from the caller's data with nothing of it
cached.  CUDA events on the launch stream time each launch; the median
counts.  :meth:`Bench.close` puts the arrays back a last time: after the
search they hold what they held before it.

Events time the stream, not the kernel: if the host takes longer to queue a
launch than the GPU takes to finish what was queued before it, the GPU
waits between the start event and the kernel, and the wait is counted (on
the H200 the autotuner timed 20 us GEMMs, whose launches take tens of
microseconds of Python, at 66-127 us).  So before each start event a
one-thread kernel holds the stream, spinning on the GPU's global timer for
twice the longest host time of a launch seen so far plus 20 us (200 us
before any was seen; at most 2 ms): the start event, the launch and the
stop event are queued while it spins, and the kernel runs right after the
start event.
"""

from __future__ import annotations

import statistics
import time

from kdsl.runtime import arrays
from kdsl.runtime.launch import as_cupy_stream
from kdsl.transpile.errors import error


class Bench:
    """Save ``written`` (parameter name -> array) now; time launches on
    ``stream`` (None: CuPy's current stream, where such launches go)."""

    def __init__(self, kernel: str, written: dict, stream):
        import cupy

        self.stream = (
            as_cupy_stream(stream)
            if stream is not None
            else cupy.cuda.get_current_stream()
        )
        spans = {}
        for name, array in written.items():
            span = _span(array)
            if span is not None and span[1] and span not in spans.values():
                spans[name] = span
        runtime = cupy.cuda.runtime
        l2 = runtime.deviceGetAttribute(
            runtime.cudaDevAttrL2CacheSize, runtime.getDevice()
        )
        flush = 2 * l2
        need = sum(size for _, size in spans.values()) + flush
        try:
            self.flush_buffer = cupy.empty(flush, dtype=cupy.uint8)
            self.saved = [
                (ptr, size, cupy.empty(size, dtype=cupy.uint8))
                for ptr, size in spans.values()
            ]
        except cupy.cuda.memory.OutOfMemoryError:
            raise error(
                "autotune-memory",
                kernel=kernel,
                size=need,
                names=", ".join(spans) or "none",
                flush=flush,
            ) from None
        for ptr, size, copy in self.saved:
            self._copy(copy.data.ptr, ptr, size)

    def time(self, run, warmup: int, reps: int) -> float:
        """Median milliseconds of ``run()`` (one launch) over ``reps`` timed
        runs after ``warmup`` untimed ones."""
        import cupy

        host = None  # the longest host time of a run() seen, seconds
        for _ in range(warmup):
            host = _longest(host, run)
        events = [(cupy.cuda.Event(), cupy.cuda.Event()) for _ in range(reps)]
        for start, stop in events:
            self.restore()
            self.flush_buffer.data.memset_async(
                0, self.flush_buffer.nbytes, self.stream
            )
            self._hold(host)
            start.record(self.stream)
            host = _longest(host, run)
            stop.record(self.stream)
        events[-1][1].synchronize()
        return statistics.median(
            cupy.cuda.get_elapsed_time(start, stop) for start, stop in events
        )

    def _hold(self, host) -> None:
        """Queue the hold kernel on the stream for long enough to queue a
        launch taking ``host`` seconds (None: not known yet) behind it."""
        import cupy

        if not _HOLD:
            _HOLD.append(cupy.RawKernel(_HOLD_SOURCE, "kdsl_bench_hold"))
        us = HOLD_DEFAULT_US if host is None else 2 * host * 1e6 + HOLD_MARGIN_US
        ns = round(min(us, HOLD_MAX_US) * 1000)
        with self.stream:  # a RawKernel launches on CuPy's current stream
            _HOLD[0]((1,), (1,), (ns,))

    def restore(self) -> None:
        """Put every saved array back (queued on the stream)."""
        for ptr, size, copy in self.saved:
            self._copy(ptr, copy.data.ptr, size)

    def close(self) -> None:
        """Put the arrays back and wait for it; the copies are freed."""
        self.restore()
        self.stream.synchronize()
        self.saved, self.flush_buffer = [], None

    def _copy(self, dst: int, src: int, size: int) -> None:
        import cupy

        runtime = cupy.cuda.runtime
        runtime.memcpyAsync(
            dst, src, size, runtime.memcpyDeviceToDevice, self.stream.ptr
        )


HOLD_DEFAULT_US = 200.0  # before any launch's host time was seen
HOLD_MARGIN_US = 20.0
HOLD_MAX_US = 2000.0
_HOLD: list = []  # the hold kernel, compiled by CuPy at the first search
_HOLD_SOURCE = r"""
extern "C" __global__ void kdsl_bench_hold(unsigned long long ns)
{
    // one thread spins until the GPU's global timer (nanoseconds) has moved
    // ns past where it started
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}
"""


def _longest(host, run):
    """``run()``, and the longer of ``host`` (None: none yet) and the host
    seconds it took."""
    t0 = time.perf_counter()
    run()
    took = time.perf_counter() - t0
    return took if host is None else max(host, took)


def _span(array) -> tuple[int, int] | None:
    """The first address and the byte length of the memory ``array`` spans
    (a view's gaps included); None for what is not a device array of a kdsl
    dtype (the launch refuses it with the parameter's name)."""
    try:
        info = arrays.describe(array)
    except Exception:  # noqa: BLE001 - whatever a foreign object raises
        return None
    if info is None or info.device is None or info.dtype is None:
        return None
    if info.strides is None or info.dtype.np_dtype is None:
        return None
    if 0 in info.shape:
        return info.ptr, 0
    low = sum((n - 1) * s for n, s in zip(info.shape, info.strides) if s < 0)
    high = sum((n - 1) * s for n, s in zip(info.shape, info.strides) if s > 0)
    itemsize = info.dtype.np_dtype.itemsize
    return info.ptr + low * itemsize, (high - low + 1) * itemsize
