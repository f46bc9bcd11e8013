"""Work limits: caps that turn a runaway compile or interpreted launch into a
clear error (docs/reliability.md).

Each cap is read from its environment variable when it is checked, so a
program can raise it for one compile (``os.environ["KDSL_MAX_UNROLL"] =
"1000000"``) and a shell for one run.  A value of 0 turns the cap off.
"""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Limit:
    env: str
    default: int
    what: str

    def value(self) -> int:
        """The cap in force (0: no cap); a malformed setting is the default."""
        text = os.environ.get(self.env, "").strip().replace("_", "")
        try:
            return max(0, int(text)) if text else self.default
        except ValueError:
            return self.default

    def exceeded(self, amount: int) -> bool:
        cap = self.value()
        return cap > 0 and amount > cap


# the statements an unrolled loop (range_constexpr) may produce in all
UNROLLED_STATEMENTS = Limit(
    "KDSL_MAX_UNROLL", 20_000, "statements produced by unrolled loops"
)
# the nesting depth of one expression (a + b + c + ... nests to the left)
EXPRESSION_DEPTH = Limit("KDSL_MAX_EXPRESSION_DEPTH", 200, "expression depth")
# the bytes of one thread's local arrays (kdsl.local_array)
LOCAL_ARRAY_BYTES = Limit(
    "KDSL_MAX_LOCAL_BYTES", 512 * 1024, "bytes of one shared or local array"
)
# the threads of one interpreted launch (grid size times block size)
INTERPRETED_THREADS = Limit(
    "KDSL_MAX_INTERPRETED_THREADS", 1 << 22, "threads of one interpreted launch"
)

# CUDA's static __shared__ memory a block (ptxas refuses more: beyond it the
# memory is dynamic, up to the device's opt-in maximum); a hardware limit,
# not a cap
STATIC_SHARED_BYTES = 48 * 1024

# the loop iterations of one interpreted launch (each lock-step iteration of
# a batch of blocks is one step): a loop that never ends, even one writing
# memory every iteration, stops with a clear error
INTERPRETED_STEPS = Limit(
    "KDSL_MAX_INTERPRETED_STEPS", 1 << 22, "loop iterations of one interpreted launch"
)

ALL = (
    UNROLLED_STATEMENTS,
    EXPRESSION_DEPTH,
    LOCAL_ARRAY_BYTES,
    INTERPRETED_THREADS,
    INTERPRETED_STEPS,
)
