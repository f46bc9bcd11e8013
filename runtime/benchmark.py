"""What the autotuner does on the device around the launches it times.

A :class:`Bench` belongs to one search.  It copies the arrays a launch may
change (device to device, the bytes each array spans) before any launch, and
before each timed launch it puts them back and flushes the L2 cache (it
writes a buffer twice the size of L2, as ``triton.testing.do_bench`` does), so
that every timed launch starts from the caller's data with nothing of it
cached.  CUDA events on the launch stream time each launch; the median
counts.  :meth:`Bench.close` puts the arrays back a last time: after the
search they hold what they held before it.
"""

from __future__ import annotations

import statistics

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

        for _ in range(warmup):
            run()
        events = [(cupy.cuda.Event(), cupy.cuda.Event()) for _ in range(reps)]
        for start, stop in events:
            self.restore()
            self.flush_buffer.data.memset_async(
                0, self.flush_buffer.nbytes, self.stream
            )
            start.record(self.stream)
            run()
            stop.record(self.stream)
        events[-1][1].synchronize()
        return statistics.median(
            cupy.cuda.get_elapsed_time(start, stop) for start, stop in events
        )

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
