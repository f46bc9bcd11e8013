"""Debug builds on the GPU: a launch's assertion record.

An instance compiled with assertions (``KDSL_DEBUG=1`` or
``@kdsl.kernel(debug=True)``) takes, after the user's arguments, a pointer to
its *assertion record*: 8 int32 in device memory, the number (from 1) of the
assertion that failed and the thread's and the block's x, y and z, which
``kdsl::assert_failed`` writes (``templates/prelude/debug.h``).  Its launch
plan calls the CuPy function through a :class:`CheckedFunction`, which
zeroes the record on the launch's stream, launches with the record's
pointer appended, waits for the stream and reads the record back: a failure
raises :class:`~kdsl.runtime.errors.DeviceAssertionError` at the assert.

There is one record per plan (instance and device): concurrent launches of
one debug instance on several streams share it.  A release instance's plan
calls CuPy's function itself, so its launch path does not change.
"""

from __future__ import annotations

import numpy as np

from kdsl.runtime.errors import device_assertion

RECORD_INTS = 8  # number, thread x y z, block x y z, unused


def checked(function, transpiled, device: int):
    """What a launch plan calls: CuPy's ``function`` itself, or, for an
    instance with assertions, a :class:`CheckedFunction` around it."""
    if not transpiled.assertions:
        return function
    return CheckedFunction(function, transpiled.assertions, Record(device))


class CheckedFunction:
    """A debug instance's function: each call checks its assertion record.
    ``sites`` holds the (span, message) of assertion number k at k - 1."""

    def __init__(self, function, sites, record):
        self.function, self.sites, self.record = function, sites, record

    def __call__(self, grid, block, args, shared_mem, stream):
        self.record.clear(stream)
        self.function(grid, block, (*args, self.record.pointer), shared_mem, stream)
        site, *where = self.record.read(stream)
        if site:
            span, message = self.sites[site - 1]
            raise device_assertion(span, message, tuple(where[:3]), tuple(where[3:6]))


class Record:
    """An assertion record in the memory of ``device``."""

    def __init__(self, device: int):
        import cupy

        with cupy.cuda.Device(device):
            self.array = cupy.zeros(RECORD_INTS, cupy.int32)
        self.pointer = np.uintp(self.array.data.ptr)

    def clear(self, stream) -> None:
        """Zero it, in order on ``stream`` (None: the current stream)."""
        self.array.data.memset_async(0, self.array.nbytes, stream)

    def read(self, stream) -> list:
        """Its ints, once ``stream``'s work so far (the launch) is done."""
        return self.array.get(stream=stream).tolist()
