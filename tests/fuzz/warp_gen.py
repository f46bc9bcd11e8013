"""Random warp-collective kernels (issue 23): one warp of Uint32 values
through shuffles (every mode and width), votes, matches and reductions, with
the expected lanes from a model of PTX's rules (``shfl.sync``'s segment and
clamp, ``vote.sync``, ``match.sync``, ``redux.sync``), written from the PTX
ISA, not from kdsl's interpreter."""

from __future__ import annotations

import random
from dataclasses import dataclass

M32 = 0xFFFFFFFF
WARP = 32


def _shfl(mode: str, values: list, b: int, width: int) -> list:
    """shfl.sync with the full mask: each lane's source lane ``j`` and
    whether it is inside the lane's segment bounds (else its own value)."""
    out = []
    for lane in range(WARP):
        start = lane & ~(width - 1)
        top = start + width - 1
        if mode == "up":
            j, ok = lane - b, lane - b >= start
        elif mode == "down":
            j, ok = lane + b, lane + b <= top
        elif mode == "xor":
            j = lane ^ b
            ok = j <= top  # earlier segments may be read, later ones not
        else:  # idx
            j, ok = start | (b & (width - 1)), True
        out.append(values[j] if ok and 0 <= j < WARP else values[lane])
    return out


def _bits(flags) -> int:
    return sum(1 << k for k, f in enumerate(flags) if f)


@dataclass
class WarpOp:
    text: str  # over the name v (this lane's Uint32)
    model: object  # values -> the 32 expected results
    kind: str


def random_op(rng: random.Random) -> WarpOp:
    kind = rng.choice(
        ["up", "down", "xor", "idx", "ballot", "any", "all", "match"]
        + ["add", "min", "max", "and", "or", "xor_sync"]
    )
    width = rng.choice([32, 16, 8, 4, 2])
    if kind in ("up", "down", "xor", "idx"):
        b = (
            rng.randrange(0, 32)
            if kind in ("idx", "xor")
            else rng.randrange(0, width + 1)
        )
        name = {
            "up": "shfl_up",
            "down": "shfl_down",
            "xor": "shfl_xor",
            "idx": "shfl_idx",
        }[kind]
        return WarpOp(
            f"kdsl.{name}(v, {b}, width={width})",
            lambda vs, m=kind, b=b, w=width: _shfl(m, vs, b, w),
            kind,
        )
    threshold = rng.getrandbits(32)
    if kind == "ballot":
        return WarpOp(
            f"kdsl.ballot(v > Uint32({threshold:#x}))",
            lambda vs, t=threshold: [_bits(x > t for x in vs)] * WARP,
            kind,
        )
    if kind in ("any", "all"):
        fold = any if kind == "any" else all
        return WarpOp(
            f"kdsl.{kind}_sync(v > Uint32({threshold:#x})).to(Uint32)",
            lambda vs, t=threshold, f=fold: [int(f(x > t for x in vs))] * WARP,
            kind,
        )
    if kind == "match":
        key = rng.choice([3, 7, 0xFF])
        return WarpOp(
            f"kdsl.match_any(v & Uint32({key}))",
            lambda vs, k=key: [_bits((x & k) == (y & k) for x in vs) for y in vs],
            kind,
        )
    reduce = {
        "add": lambda vs: sum(vs) & M32,
        "min": min,
        "max": max,
        "and": lambda vs: _fold(vs, lambda a, b: a & b),
        "or": lambda vs: _fold(vs, lambda a, b: a | b),
        "xor_sync": lambda vs: _fold(vs, lambda a, b: a ^ b),
    }[kind]
    name = kind.replace("_sync", "")
    return WarpOp(
        f"kdsl.reduce_{name}_sync(v)", lambda vs, r=reduce: [r(vs)] * WARP, kind
    )


def _fold(vs, f):
    acc = vs[0]
    for x in vs[1:]:
        acc = f(acc, x)
    return acc


def kernel_source(ops: list[WarpOp]) -> str:
    lines = [
        "import kdsl",
        "from kdsl import Pointer, Uint32, thread_idx",
        "",
        "",
        "@kdsl.kernel",
        "def k(x: Pointer[Uint32], out: Pointer[Uint32]):",
        "    t = thread_idx.x",
        "    v = x[t]",
    ]
    for j, op in enumerate(ops):
        lines.append(f"    out[{j * WARP} + t] = {op.text}")
    return "\n".join(lines) + "\n"
