"""Random bit-intrinsic expressions (issue 23): Uint32 expressions over two
run-time leaves, built from kdsl's bit and integer built-ins and wrapping
operators, each with its value from an independent model in plain Python
integers (written from CUDA's documented semantics, not from kdsl's code)."""

from __future__ import annotations

import random
from dataclasses import dataclass

M32 = 0xFFFFFFFF
EDGES = [0, 1, 2, 0x7FFFFFFF, 0x80000000, 0x80000001, M32, 0xFFFF, 0x10000, 0x01234567]


def _popc(x):
    return bin(x).count("1")


def _clz(x):
    return 32 - x.bit_length()


def _ffs(x):
    return (x & -x).bit_length()


def _brev(x):
    return int(f"{x:032b}"[::-1], 2)


def _byte_perm(x, y, s):
    pool = (y << 32 | x).to_bytes(8, "little")
    out = 0
    for k in range(4):
        out |= pool[(s >> (4 * k)) & 7] << (8 * k)
    return out


def _funnel_l(lo, hi, n):
    return (((hi << 32 | lo) << n) >> 32) & M32


def _funnel_r(lo, hi, n):
    return ((hi << 32 | lo) >> n) & M32


# name -> (arity, model, the kdsl spelling of a call on rendered arguments)
UNARY = {
    "popc": (_popc, "kdsl.popc({0}).to(Uint32)"),
    "clz": (_clz, "kdsl.clz({0}).to(Uint32)"),
    "ffs": (_ffs, "kdsl.ffs({0}).to(Uint32)"),
    "brev": (_brev, "kdsl.brev({0})"),
    "not": (lambda x: ~x & M32, "~{0}"),
}
BINARY = {
    "and": (lambda a, b: a & b, "({0} & {1})"),
    "or": (lambda a, b: a | b, "({0} | {1})"),
    "xor": (lambda a, b: a ^ b, "({0} ^ {1})"),
    "add": (lambda a, b: (a + b) & M32, "({0} + {1})"),
    "mul": (lambda a, b: (a * b) & M32, "({0} * {1})"),
    "shl": (lambda a, b: (a << (b & 31)) & M32, "({0} << ({1} & 31))"),
    "shr": (lambda a, b: a >> (b & 31), "({0} >> ({1} & 31))"),
    "umulhi": (lambda a, b: (a * b) >> 32, "kdsl.umulhi({0}, {1}).to(Uint32)"),
    "rotl": (lambda a, b: _funnel_l(a, a, b & 31), "kdsl.funnelshift_l({0}, {0}, {1})"),
}
TERNARY = {
    "byte_perm": (_byte_perm, "kdsl.byte_perm({0}, {1}, {2})"),
    "funnelshift_l": (
        lambda lo, hi, n: _funnel_l(lo, hi, n & 31),
        "kdsl.funnelshift_l({0}, {1}, {2})",
    ),
    "funnelshift_r": (
        lambda lo, hi, n: _funnel_r(lo, hi, n & 31),
        "kdsl.funnelshift_r({0}, {1}, {2})",
    ),
    "funnelshift_lc": (
        lambda lo, hi, n: _funnel_l(lo, hi, min(n, 32)),
        "kdsl.funnelshift_lc({0}, {1}, {2})",
    ),
    "funnelshift_rc": (
        lambda lo, hi, n: _funnel_r(lo, hi, min(n, 32)),
        "kdsl.funnelshift_rc({0}, {1}, {2})",
    ),
    "usad": (
        lambda a, b, c: (abs(a - b) + c) & M32,
        "kdsl.usad({0}, {1}, {2})",
    ),
}


@dataclass
class BitExpr:
    text: str  # kdsl source over the names a and b (Uint32)
    model: object  # (a, b) -> the expected Uint32
    ops: set


def random_expr(rng: random.Random, depth: int = 3) -> BitExpr:
    """A random expression over ``a`` and ``b``."""
    if depth == 0 or rng.random() < 0.2:
        leaf = rng.choice(["a", "b", "const"])
        if leaf == "const":
            c = rng.choice(EDGES + [rng.getrandbits(32)])
            return BitExpr(f"Uint32({c:#x})", lambda a, b, c=c: c, set())
        return BitExpr(
            leaf, (lambda a, b: a) if leaf == "a" else (lambda a, b: b), set()
        )
    table = rng.choice([UNARY, BINARY, BINARY, TERNARY])
    name = rng.choice(sorted(table))
    model, spelled = table[name]
    arity = {id(UNARY): 1, id(BINARY): 2, id(TERNARY): 3}[id(table)]
    parts = [random_expr(rng, depth - 1) for _ in range(arity)]
    text = spelled.format(*(p.text for p in parts))
    models = [p.model for p in parts]
    ops = {name}.union(*(p.ops for p in parts))
    return BitExpr(text, lambda a, b: model(*(m(a, b) for m in models)), ops)


def kernel_source(exprs: list[BitExpr]) -> str:
    """A kernel computing each expression per thread from ``x[t]``, ``y[t]``."""
    lines = [
        "import kdsl",
        "from kdsl import Int32, Pointer, Uint32, thread_idx",
        "",
        "",
        "@kdsl.kernel",
        "def k(x: Pointer[Uint32], y: Pointer[Uint32], out: Pointer[Uint32], n: Int32):",
        "    t = thread_idx.x",
        "    if t < n:",
        "        a = x[t]",
        "        b = y[t]",
    ]
    for j, e in enumerate(exprs):
        lines.append(f"        out[{j} * n + t] = {e.text}")
    return "\n".join(lines) + "\n"


def folded_source(exprs: list[BitExpr], a: int, b: int) -> str:
    """The same expressions on compile-time leaves (folded)."""
    lines = [
        "import kdsl",
        "from kdsl import Pointer, Uint32",
        "",
        "",
        "@kdsl.kernel",
        "def k(out: Pointer[Uint32]):",
        f"    a = Uint32({a:#x})",
        f"    b = Uint32({b:#x})",
    ]
    for j, e in enumerate(exprs):
        lines.append(f"    out[{j}] = {e.text}")
    return "\n".join(lines) + "\n"
