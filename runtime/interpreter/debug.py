"""``print``, ``assert`` and ``kdsl.assume`` in the lock-step interpreter
(the ``Batch`` handlers of :class:`ir.Print`, :class:`ir.Assert` and
:class:`ir.Assume`).

A print writes, for each thread that runs it, the text printf would write
on the GPU (``core.printf``), one thread after another in thread order; a
batch runs a statement for all its threads before the next statement, so
two prints of one thread are not adjacent when several threads print.  (On
the GPU the order between threads is unspecified.)  An assertion that fails
in any running thread raises :class:`DeviceAssertionError` at once, naming
the first such thread in thread order.  So does an assumption
(``kdsl.assume``) that is false, in every build: :class:`AssumptionError`
names the values its condition reads in that thread; and so does, in a
function compiled with ``no_overflow=True``, a signed ``+ - *`` or
negation whose exact result leaves its type (E903, naming the operands).
"""

from __future__ import annotations

import sys

import numpy as np

from kdsl.runtime.errors import device_assertion, false_assumption, overflow
from kdsl.transpile.core import printf
from kdsl.transpile.passes.ranges import is_int


class Debug:
    """The print and assert handlers of ``simt.Batch`` (a mixin)."""

    def s_Print(self, s, m, frame):
        if s.once:
            m = m & self._first_thread()
            if not m.any():
                return
        values = [self.eval(v, m, frame) for v in s.values]
        lines = []
        for lane in np.flatnonzero(m).tolist():
            parts = [s.text[0]]
            for value, e, conversion, text in zip(
                values, s.values, s.formats, s.text[1:]
            ):
                parts.append(printf.format_value(value[lane], e.type, conversion))
                parts.append(text)
            lines.append("".join(parts))
        sys.stdout.write("".join(lines))

    def _first_thread(self):
        """Whether each lane is thread (0, 0, 0) of block (0, 0, 0)."""
        first = np.ones(self.n, np.bool_)
        for name in ("thread_idx", "block_idx"):
            for axis in "xyz":
                first &= self.specials[f"{name}.{axis}"] == 0
        return first

    def _where(self, lane: int) -> tuple:
        """``(thread_idx, block_idx)`` of a lane, as tuples of x, y, z."""
        return tuple(
            tuple(int(self.specials[f"{name}.{axis}"][lane]) for axis in "xyz")
            for name in ("thread_idx", "block_idx")
        )

    def s_Assert(self, s, m, frame):
        failed = m & ~self.eval(s.cond, m, frame)
        if failed.any():
            thread, block = self._where(int(np.argmax(failed)))
            raise device_assertion(s.span or self.span, s.message, thread, block)

    def s_Assume(self, s, m, frame):
        failed = m & ~self.eval(s.cond, m, frame)
        if failed.any():
            lane = int(np.argmax(failed))
            thread, block = self._where(lane)
            values = [
                (name, self.eval(v, m, frame)[lane])
                for name, v in zip(s.names, s.values)
            ]
            raise false_assumption(s.span or self.span, s.text, values, thread, block)

    def check_overflow(self, e, m, operands, result, t):
        """The lanes ``m`` of a signed ``+ - *`` or negation ``e`` of a
        function stated not to overflow (``no_overflow=True``): E903 at the
        first lane whose exact result leaves ``t`` (``result`` is wrapped)."""
        if not (is_int(t) and t.signed and e.op in ("+", "-", "*")):
            return
        bad = m & _overflowed(e.op, operands, result, t)
        if bad.any():
            lane = int(np.argmax(bad))
            thread, block = self._where(lane)
            values = [int(x[lane]) for x in operands]
            raise overflow(self.threads.where(e), e.op, values, t, thread, block)


def _overflowed(op, operands, r, t):
    """Where the exact ``op`` of ``operands`` (one: a negation) is not the
    wrapped result ``r`` of signed type ``t``."""
    if len(operands) == 1:
        return operands[0] == np.iinfo(np.int64).min >> (64 - t.width)
    a, b = operands
    if t.width <= 32:  # exact in 64 bits
        x, y = a.astype(np.int64), b.astype(np.int64)
        exact = x + y if op == "+" else x - y if op == "-" else x * y
        return exact != r.astype(np.int64)
    if op == "+":
        return ((a ^ r) & (b ^ r)) < 0
    if op == "-":
        return ((a ^ b) & (a ^ r)) < 0
    least = np.iinfo(np.int64).min  # a * b: r // a == b exactly when it fits
    plain = (a != 0) & (a != -1)
    with np.errstate(all="ignore"):
        back = np.floor_divide(r, np.where(plain, a, 1))
        rem = np.remainder(r, np.where(plain, a, 1))
    return np.where(plain, (back != b) | (rem != 0), (a == -1) & (b == least))
