"""The iterables of ``for`` loops: ``kdsl.range`` and ``kdsl.range_constexpr``
(lowered by the front end's loop lowering, never called)."""

from __future__ import annotations

from kdsl.transpile.builtins.registry import register
from kdsl.transpile.errors import error


def _only_in_for(lw, entry, args, kwargs):
    raise error("range-outside-for", callee=entry.spelled)


register(
    "range",
    "`kdsl.range(start, stop, step, unroll=k)`: a run-time loop, unrolled by k",
    _only_in_for,
    kind="syntax",
)
register(
    "range_constexpr",
    "`kdsl.range_constexpr(...)`: a loop unrolled at compile time",
    _only_in_for,
    kind="syntax",
)
