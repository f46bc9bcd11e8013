"""Seeded random kernels that mix today's features (issue 23).

``feature_kernel(seed)`` makes one kernel ``k(xu, xf, m, out)`` launched as
``GRID`` blocks of ``BLOCK`` threads (one warp each): a few random *pieces*,
each writing its own words of ``out`` (``out[base + j * THREADS + t]`` for
thread ``t = kdsl.grid(1)``), so no two threads or pieces write the same word
and nothing depends on the order threads run in (no atomics):

- ``bits``: a bit-intrinsic expression (tests/fuzz/bits_gen.py);
- ``warp``: a shuffle, vote, match or reduction of a full warp
  (tests/fuzz/warp_gen.py);
- ``func``: a device function taking two moved pointers and returning a
  tuple ``(Uint32, Float32)``;
- ``vector``: a ``.vec(4)`` load, a lane store into the local vector, the
  vector stored through a moved ``out`` pointer, then one lane of it again;
- ``smem``: a dynamic shared array a piece, written, ``syncthreads``, read
  at another thread's index;
- ``table``: a module-level numpy array read as a ``__constant__`` table;
- ``int128``: an ``Int128`` expression (wrapping ``* + - ^``, shifts, floor
  ``//`` and ``%``);
- ``narrow``: Float32 values through Float16, BFloat16 and fp8 conversions
  and half arithmetic, seen through ``.bitcast`` (NaNs included: their bits
  are the GPU's, docs/types.md "NaN payloads");
- ``rows``: ``m[i]``, a row of a 2-D ``Array``, passed to a device function
  that loops over ``len(row)``;
- ``pointer``: pointer arithmetic (``p = xu + k``, ``p += s``, ``p - xu``,
  ``kdsl.gridsize(1)``);
- ``struct``: an ``@kdsl.struct`` value made by a device function, a field
  updated.

Every piece has its own oracle computed here: folding (the expression
evaluated on kdsl's static values, the arithmetic the compiler folds with)
or a plain-Python model (bits_gen's, warp_gen's, numpy for memory).  The CPU
test compares the interpreter with the oracle; the GPU test compares the GPU
with the interpreter, bit for bit (every output is a Uint32 word).
"""

from __future__ import annotations

import random
import struct
from dataclasses import dataclass, field

import numpy as np

import kdsl

import bits_gen
import gen
import warp_gen

GRID, BLOCK = 2, 32
THREADS = GRID * BLOCK
PIECES = [
    "bits",
    "warp",
    "func",
    "vector",
    "smem",
    "table",
    "int128",
    "narrow",
    "rows",
    "pointer",
    "struct",
]
NARROW = ["Float16", "BFloat16", "Float8E4M3FN", "Float8E5M2", "Float8E4M3"]
NARROW += ["Float8E4M3FNUZ", "Float8E8M0FNU"]
UINT = {"Float16": 16, "BFloat16": 16}  # bit widths (the others: 8)
FLOAT_EDGES = [0.0, -0.0, 1.0, -1.5, 0.1, 3.0, 1e-3, 65504.0, 1e-7, 2.0**-140]
FLOAT_EDGES += [float("inf"), float("-inf"), float("nan"), 1e30, -7.25, 448.0]
FEATURE_GPU_SEEDS = range(800_000, 801_600)  # tests/gpu/test_fuzz_features_gpu.py


def _f32_bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


@dataclass
class Inputs:
    xu: np.ndarray  # Uint32, 4 * THREADS words
    xf: np.ndarray  # Float32, 2 * THREADS values
    m: np.ndarray  # Uint32 rows (a 2-D Array)


@dataclass
class Piece:
    kind: str
    lines: list  # the kernel's lines (one indent level)
    words: int  # words of out a thread
    model: object  # (Inputs, t) -> list of ``words`` ints
    helpers: list = field(default_factory=list)  # module-level lines
    per_thread: bool = False  # words at base + words * t + j (a vector store)

    def word(self, base: int, j: int, t: int) -> int:
        """Where word ``j`` of thread ``t`` lies in ``out``."""
        return base + self.words * t + j if self.per_thread else base + j * THREADS + t


@dataclass
class FeatureKernel:
    seed: int
    source: str
    inputs_: Inputs
    pieces: list
    bases: list
    size: int  # words of out
    shared_mem: int  # dynamic shared bytes a block

    def inputs(self):
        """Fresh copies of ``xu``, ``xf``, ``m`` and a zeroed ``out``."""
        i = self.inputs_
        return i.xu.copy(), i.xf.copy(), i.m.copy(), np.zeros(self.size, np.uint32)

    def launch_kwargs(self) -> dict:
        return {"shared_mem": self.shared_mem} if self.shared_mem else {}

    def expected(self) -> np.ndarray:
        """The oracles' words (folding and the models)."""
        out = np.zeros(self.size, np.uint32)
        for piece, base in zip(self.pieces, self.bases):
            for t in range(THREADS):
                for j, w in enumerate(piece.model(self.inputs_, t)):
                    out[piece.word(base, j, t)] = int(w) & 0xFFFFFFFF
        return out

    def mismatches(self, got, want) -> list:
        """``(piece kind, word, thread, got, want)`` wherever they differ."""
        bad = []
        for piece, base in zip(self.pieces, self.bases):
            for j in range(piece.words):
                for t in range(THREADS):
                    s = piece.word(base, j, t)
                    if int(got[s]) != int(want[s]):
                        bad.append((piece.kind, j, t, int(got[s]), int(want[s])))
        return bad

    def describe(self, bad, got="interpreter", want="oracle") -> str:
        lines = [f"feature kernel seed {self.seed}:"]
        lines += [
            f"  {kind} word {j} thread {t}: {got} {g:#010x}, {want} {w:#010x}"
            for kind, j, t, g, w in bad[:12]
        ]
        return "\n".join(lines) + "\n--- source:\n" + self.source


# -- folding: an expression on kdsl's static values -------------------------------------
def fold_u32(text: str, **leaves) -> int:
    """The Uint32 value of ``text`` folded with the given static leaves."""
    env = {"kdsl": kdsl, "Uint32": kdsl.Uint32, "Float32": kdsl.Float32}
    env["Int32"] = kdsl.Int32
    env.update(leaves)
    r = eval(text, env)  # noqa: S307 - our own generated text
    assert type(r).__name__ == "Uint32", (text, type(r))
    return int(r.value)


def _su(v) -> kdsl.Uint32:
    return kdsl.Uint32(int(v))


def _sf(v) -> kdsl.Float32:
    """A static Float32 with the exact bits of ``v`` (NaN payloads kept)."""
    bits = int(np.float32(v).view(np.uint32))
    return kdsl.Uint32(bits).bitcast(kdsl.Float32)


class _Builder:
    def __init__(self, rng: random.Random):
        self.rng = rng
        self.u = 0
        self.shared = 0  # dynamic shared bytes

    def _k(self) -> int:
        return self.rng.choice(
            [0, 1, 3, 0x80000000, 0xFFFFFFFF, self.rng.getrandbits(32)]
        )

    # -- pieces ------------------------------------------------------------------------
    def bits(self, u):
        e = bits_gen.random_expr(self.rng, self.rng.randint(1, 3))
        lines = [
            f"a{u} = xu[t]",
            f"b{u} = xu[t + {THREADS}]",
            f"o{u}_0 = {_rn(e.text, u)}",
        ]
        return (
            lines,
            1,
            lambda i, t: [e.model(int(i.xu[t]), int(i.xu[t + THREADS]))],
            [],
        )

    def warp(self, u):
        op = warp_gen.random_op(self.rng)
        text = _rename_v(op.text, f"v{u}")
        lines = [f"v{u} = xu[t + {2 * THREADS}]", f"o{u}_0 = {text}"]

        def model(i, t, op=op):
            w = t // 32
            values = [
                int(x) for x in i.xu[2 * THREADS + 32 * w : 2 * THREADS + 32 * w + 32]
            ]
            return [op.model(values)[t % 32]]

        return lines, 1, model, []

    def func(self, u):
        rng = self.rng
        k, off, off2 = self._k(), rng.randrange(0, THREADS), rng.randrange(0, THREADS)
        scale = rng.choice(["2.0", "0.5", "-3.0", "1e30"])
        helper = [
            "@kdsl.func",
            f"def f{u}(p: Pointer[Uint32], q: Pointer[Float32], i: Int32):",
            f"    x = p[i] ^ Uint32({k:#x})",
            f"    y = q[i] * {scale}",
            "    if x > p[i + 1]:",
            "        x = x - p[i + 1]",
            "    return x + p[i + 1], y",
            "",
        ]
        lines = [
            f"r{u}, s{u} = f{u}(xu + {off}, xf + {off2}, t)",
            f"o{u}_0 = r{u}",
            f"o{u}_1 = s{u}.bitcast(Uint32)",
        ]

        def model(i, t):
            p0, p1 = _su(i.xu[off + t]), _su(i.xu[off + t + 1])
            x = p0 ^ kdsl.Uint32(k)
            if x.value > p1.value:
                x = x - p1
            y = fold_u32(f"(q * {scale}).bitcast(Uint32)", q=_sf(i.xf[off2 + t]))
            return [(x + p1).value, y]

        return lines, 2, model, helper

    def vector(self, u):
        rng = self.rng
        k1, k2, k3, k4 = (rng.randrange(4) for _ in range(4))
        c = self._k()
        lines = [
            f"v{u} = xu.vec(4)[t]",
            f"v{u}[{k1}] = v{u}[{k2}] ^ Uint32({c:#x})",
            f"q{u} = (out + BASE{u}).vec(4)",
            f"q{u}[t] = v{u} + v{u}",
            f"q{u}[t][{k3}] = v{u}[{k4}] * Uint32(3)",
        ]

        def model(i, t):
            v = [int(x) for x in i.xu[4 * t : 4 * t + 4]]
            v[k1] = v[k2] ^ c
            q = [(x + x) & 0xFFFFFFFF for x in v]
            q[k3] = (v[k4] * 3) & 0xFFFFFFFF
            return q

        return lines, 4, model, []  # (laid out per thread: see _layout)

    def smem(self, u):
        rng = self.rng
        r, c = rng.randrange(1, 32), self._k()
        self.shared += 4 * BLOCK
        lines = [
            f"sh{u} = kdsl.dynamic_shared_array(Uint32, {BLOCK})",
            f"sh{u}[lane] = xu[t] * Uint32({c:#x})",
            "kdsl.syncthreads()",
            f"o{u}_0 = sh{u}[(lane + {r}) % {BLOCK}] ^ sh{u}[{BLOCK - 1} - lane]",
        ]

        def model(i, t):
            b = t - t % BLOCK

            def s(j):
                return (int(i.xu[b + j]) * c) & 0xFFFFFFFF

            return [s(((t % BLOCK) + r) % BLOCK) ^ s(BLOCK - 1 - t % BLOCK)]

        return lines, 1, model, []

    def table(self, u):
        rng = self.rng
        n = rng.randint(3, 17)
        values = [rng.getrandbits(32) for _ in range(n)]
        fixed = rng.randrange(n)
        helper = [f"TAB{u} = np.array({values}, np.uint32)", ""]
        lines = [f"o{u}_0 = TAB{u}[(xu[t] % Uint32({n})).to(Int32)] + TAB{u}[{fixed}]"]
        return (
            lines,
            1,
            lambda i, t: [values[int(i.xu[t]) % n] + values[fixed]],
            helper,
        )

    def int128(self, u):
        text = _int128_expr(self.rng, 3)
        shift = self.rng.choice([0, 1, 31, 64, 90])
        text = f"(({text}) >> {shift}).to(Uint32)"
        lines = [f"a{u} = xu[t + {THREADS}]", f"b{u} = xu[t + {3 * THREADS}]"]
        lines.append(f"o{u}_0 = {_rn(text, u)}")
        return (
            lines,
            1,
            lambda i, t: [
                fold_u32(text, a=_su(i.xu[t + THREADS]), b=_su(i.xu[t + 3 * THREADS]))
            ],
            [],
        )

    def narrow(self, u):
        texts = [_narrow_expr(self.rng) for _ in range(self.rng.randint(1, 3))]
        lines = [f"f{u} = xf[t]", f"g{u} = xf[t + {THREADS}]"]
        lines += [f"o{u}_{j} = {_rn(x, u, 'fg')}" for j, x in enumerate(texts)]

        def model(i, t):
            f, g = _sf(i.xf[t]), _sf(i.xf[t + THREADS])
            return [fold_u32(x, f=f, g=g) for x in texts]

        return lines, len(texts), model, []

    def rows(self, u):
        c = self._k()
        helper = [
            "@kdsl.func",
            f"def rs{u}(row: Array[Uint32, 1]) -> Uint32:",
            f"    acc = Uint32({c:#x})",
            "    for j in range(len(row)):",
            "        acc = acc * Uint32(31) + row[j]",
            "    return acc",
            "",
        ]
        lines = [
            f"w{u} = m[t % len(m)]",
            f"o{u}_0 = rs{u}(w{u}) ^ w{u}[t % len(w{u})]",
        ]

        def model(i, t):
            row = [int(x) for x in i.m[t % i.m.shape[0]]]
            acc = c
            for x in row:
                acc = (acc * 31 + x) & 0xFFFFFFFF
            return [acc ^ row[t % len(row)]]

        return lines, 1, model, helper

    def pointer(self, u):
        rng = self.rng
        k, step = rng.randrange(1, 6), rng.randrange(0, 4)
        lines = [
            f"p{u} = xu + t % {k}",
            f"p{u} += {step}",
            f"if p{u} > xu + {step}:",
            f"    p{u} = p{u} + kdsl.gridsize(1)",
            f"o{u}_0 = p{u}[0] + (p{u} - xu).to(Uint32)",
        ]

        def model(i, t):
            at = t % k + step
            if at > step:
                at += THREADS
            return [int(i.xu[at]) + at]

        return lines, 1, model, []

    def struct(self, u):
        k, scale = self._k(), self.rng.choice(["3.0", "-0.5", "1e-30"])
        helper = [
            "@kdsl.struct",
            f"class P{u}:",
            "    a: Uint32",
            "    b: Float32",
            "",
            "",
            "@kdsl.func",
            f"def mk{u}(x: Uint32, y: Float32) -> P{u}:",
            f"    return P{u}(x ^ Uint32({k:#x}), y * {scale})",
            "",
        ]
        lines = [
            f"st{u} = mk{u}(xu[t], xf[t])",
            f"st{u}.a += Uint32(1)",
            f"o{u}_0 = st{u}.a",
            f"o{u}_1 = st{u}.b.bitcast(Uint32)",
        ]

        def model(i, t):
            b = fold_u32(f"(y * {scale}).bitcast(Uint32)", y=_sf(i.xf[t]))
            return [((int(i.xu[t]) ^ k) + 1) & 0xFFFFFFFF, b]

        return lines, 2, model, helper


def _rename_v(text: str, name: str) -> str:
    import re

    return re.sub(r"\bv\b", name, text)


def _rn(text: str, u: int, names: str = "ab") -> str:
    """``text`` over the leaves ``a``, ``b`` (or ``f``, ``g``) renamed for
    piece ``u``."""
    import re

    return re.sub(rf"\b([{names}])\b", rf"\g<1>{u}", text)


def _int128_expr(rng: random.Random, depth: int) -> str:
    if depth == 0 or rng.random() < 0.25:
        leaf = rng.choice(["a", "b"])
        return f"{leaf}.to(kdsl.Int128)"
    x = _int128_expr(rng, depth - 1)
    y = _int128_expr(rng, depth - 1)
    form = rng.choice(["*", "*", "+", "-", "^", "<<", ">>", "//", "%"])
    if form in ("<<", ">>"):
        return f"({x} {form} {rng.choice([1, 7, 40, 64, 100])})"
    if form in ("//", "%"):
        return f"({x} {form} ({y} | 1))"
    return f"({x} {form} {y})"


def _narrow_expr(rng: random.Random) -> str:
    """A Uint32 expression over Float32 leaves ``f`` and ``g`` through
    narrow-float conversions (a source of NaN bits: docs/types.md)."""
    x = rng.choice(["f", "g", "(f + g)", "(f * g)", "(f - g)", "(f / g)"])
    n = rng.choice(NARROW)
    w = UINT.get(n, 8)
    form = rng.choice(["back", "bits", "half_op", "narrow_narrow", "mixed"])
    if form == "back":
        return f"{x}.to(kdsl.{n}).to(Float32).bitcast(Uint32)"
    if form == "bits":
        return f"{x}.to(kdsl.{n}).bitcast(kdsl.Uint{w}).to(Uint32)"
    if form == "half_op":
        h = rng.choice(["Float16", "BFloat16"])
        op = rng.choice(["+", "-", "*"])
        return f"(f.to(kdsl.{h}) {op} g.to(kdsl.{h})).bitcast(kdsl.Uint16).to(Uint32)"
    if form == "narrow_narrow":
        m = rng.choice(NARROW)
        return f"{x}.to(kdsl.{n}).to(kdsl.{m}).bitcast(kdsl.Uint{UINT.get(m, 8)}).to(Uint32)"
    return f"({x}.to(kdsl.{n}).to(Float32) * g).bitcast(Uint32)"


def _inputs(rng: random.Random) -> Inputs:
    edges = bits_gen.EDGES
    xu = [
        rng.choice(edges) if rng.random() < 0.3 else rng.getrandbits(32)
        for _ in range(4 * THREADS)
    ]
    xf = [
        rng.choice(FLOAT_EDGES) if rng.random() < 0.5 else rng.uniform(-1000, 1000)
        for _ in range(2 * THREADS)
    ]
    rows, cols = rng.randint(1, 6), rng.randint(1, 5)
    m = [[rng.getrandbits(32) for _ in range(cols)] for _ in range(rows)]
    return Inputs(
        np.array(xu, np.uint32),
        np.array(xf, np.float32),
        np.array(m, np.uint32),
    )


def feature_kernel(seed: int, pieces: int | None = None) -> FeatureKernel:
    """The random feature kernel of ``seed`` (``pieces`` pieces, else 3 to 6)."""
    rng = random.Random(seed)
    b = _Builder(rng)
    count = pieces if pieces is not None else rng.randint(3, 6)
    kinds = [rng.choice(PIECES) for _ in range(count)]
    made, helpers, body = [], [], []
    base = 0
    bases = []
    for u, kind in enumerate(kinds):
        lines, words, model, helper = getattr(b, kind)(u)
        if kind == "vector":  # four words a thread, as one 16-byte vector
            base = -(-base // 4) * 4
            lines = [x.replace(f"BASE{u}", str(base)) for x in lines]
            piece = Piece(kind, lines, 4, model, helper, per_thread=True)
        else:
            stores = [
                f"out[{base} + {j * THREADS} + t] = o{u}_{j}" for j in range(words)
            ]
            piece = Piece(kind, lines + stores, words, model, helper)
        bases.append(base)
        base += piece.words * THREADS
        made.append(piece)
        helpers += helper
        body += piece.lines
    head = [
        "import numpy as np",
        "",
        "import kdsl",
        "from kdsl import Array, Float32, Int32, Pointer, Uint32, thread_idx",
        "",
    ]
    kernel = [
        "",
        "@kdsl.kernel",
        "def k(xu: Pointer[Uint32], xf: Pointer[Float32], m: Array[Uint32, 2], "
        "out: Pointer[Uint32]):",
        "    t = kdsl.grid(1)",
        "    lane = thread_idx.x",
    ]
    source = "\n".join(head + helpers + kernel + ["    " + x for x in body]) + "\n"
    return FeatureKernel(seed, source, _inputs(rng), made, bases, base, b.shared)


# -- the GPU fuzzer's preparation in worker processes ------------------------------------
def prepare(job):
    """``job`` = (seed, path, arch): write the seed's kernel to ``path``,
    transpile and compile it for ``arch`` into the disk cache
    (``KDSL_CACHE_DIR``) and interpret it.  Returns ``(seed, interpreted
    out, None)`` or ``(seed, None, the traceback)`` (gen.prepare's design)."""
    import traceback
    from pathlib import Path

    from kdsl.runtime import compile as kcompile

    seed, path, arch = job
    try:
        fk = feature_kernel(seed)
        path = Path(path)
        path.write_text(fk.source)
        module = gen.load_file(path)
        kcompile.cubin_for(module.k.dispatch(), arch)
        xu, xf, m, out = fk.inputs()
        module.k.interpret[GRID, BLOCK](xu, xf, m, out, **fk.launch_kwargs())
        return seed, out, None
    except Exception:  # reported by the test of this seed
        return seed, None, traceback.format_exc()
