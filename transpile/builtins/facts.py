"""``kdsl.assume(cond)``: a fact about integer values that the range
analysis (``passes.ranges``) uses from the call on; lowered by the front end
(``lower_debug``) into an :class:`ir.Assume`, checked by the interpreter and
by debug builds, and never a call in C++."""

from __future__ import annotations

from kdsl.transpile.builtins.registry import register, want_args


def _lower_assume(lw, entry, args, kwargs):
    want_args(entry, args, 1)
    lw.assume(entry, args[0])


register(
    "assume",
    "`kdsl.assume(cond)`: states that `cond` (integer comparisons joined by "
    "`and`: `n >= 0`, `0 <= i < n`) holds here; the range analysis uses it "
    "until a variable it names is assigned again, the interpreter and debug "
    "builds check it",
    _lower_assume,
    kind="syntax",
)
