"""The layout of a kernel's dynamic shared memory.

``kdsl.dynamic_shared_array(T, n)`` views cut one buffer (the launch's
``shared_mem`` bytes a block) in the order the kernel declares them: each
starts where the one before it ends, aligned up to its element size, and a
view without a size takes the rest.  Offsets known at compile time fold.  A
run-time size is read where its view is declared: the end of that view is
then a C++ variable declared with it (``a_end``; dropped if no later view
needs it), and later offsets add to it, aligned up only where the views
before do not already leave them aligned.  Offsets are Int32 (the buffer is
a few hundred KB).
"""

from __future__ import annotations

from dataclasses import dataclass

from kdsl.transpile.core import arith
from kdsl.transpile.core.types import Int32
from kdsl.transpile.errors import error

BUFFER = "kdsl_dynamic_smem"  # the buffer's C++ name (reserved in frontend.names)
MIN_ALIGN = 16  # the buffer's alignment when no view needs more
_ALIGNED = 1 << 30  # the alignment of offset 0


@dataclass
class DynamicLayout:
    """Where the next view of one kernel's dynamic shared memory starts:
    at ``base + addend`` (``base`` None for 0), rounded up."""

    base: object = None  # a run-time Int32 value (a variable)
    base_align: int = _ALIGNED  # a power of two that ``base`` is a multiple of
    addend: int = 0
    unused: object = None  # the declaration of ``base`` while no view uses it
    rest: tuple | None = None  # (name, line) of a view that took the rest
    align: int = MIN_ALIGN  # what the buffer is declared aligned to

    def place(self, name: str, nbytes: int, size, line: int) -> tuple:
        """``(start, end)`` of a new view of ``nbytes``-byte elements: its
        byte offset (an int or an Int32 value) and, when ``size`` (its
        element count: a positive int or a run-time integer value, None for
        the rest) is a run-time value, its end, which the caller declares as
        a variable and passes to :meth:`named`."""
        if self.rest is not None:
            rest, rest_line = self.rest
            raise error(
                "dynamic-shared-after-rest", name=name, rest=rest, line=rest_line
            )
        self.unused = None
        base, addend, align = self._aligned(nbytes)
        start = addend if base is None else _plus(base, addend)
        self.align = max(self.align, nbytes)
        if size is None:
            self.rest = (name, line)
        elif isinstance(size, int):
            self.base, self.base_align = base, align
            self.addend = addend + size * nbytes
        else:
            span = arith.convert(size, Int32)
            span = span if nbytes == 1 else arith.binary("*", span, nbytes)
            first = base is None and addend == 0
            end = span if first else arith.binary("+", start, span)
            self.base_align, self.addend = min(align, nbytes), 0
            return start, end
        return start, None

    def named(self, variable, declaration) -> None:
        """The end :meth:`place` returned is now ``variable``, declared by
        ``declaration`` (dropped if no later view uses it)."""
        self.base, self.unused = variable, declaration

    def _aligned(self, nbytes: int) -> tuple:
        """``base + addend`` rounded up to a multiple of ``nbytes`` (a power
        of two), as ``(base, addend, alignment of base)``."""
        if self.base is None:
            return None, -(-self.addend // nbytes) * nbytes, _ALIGNED
        if self.base_align >= nbytes and self.addend % nbytes == 0:
            return self.base, self.addend, self.base_align
        up = _plus(self.base, self.addend + nbytes - 1)
        return arith.binary("&", up, -nbytes), 0, nbytes


def _plus(value, k: int):
    return value if k == 0 else arith.binary("+", value, k)
