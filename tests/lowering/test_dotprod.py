"""kdsl.dp4a, dp2a_lo and dp2a_hi (builtins/dotprod.py): the fold agrees
with a reference written from CUDA's documentation (``__dp4a``: the four
bytes of each word multiplied pairwise and summed into ``c``; ``__dp2a_lo``/
``_hi``: the two 16-bit halves of ``a`` with the two low/high bytes of ``b``),
modulo 2**32, in both the signed and the unsigned forms; the interpreter
agrees with the fold on edge and random words; packed vectors (``Int8x4``,
``Int16x2``) give the same results as their words; the CUDA compiles."""

import random

import numpy as np
import pytest

import kdsl
from kdsl import Int8x4, Int16x2, Int32, Pointer, Uint8x4, Uint32, thread_idx
from kdsl.runtime.nvrtc import compile_to_cubin
from kdsl.transpile.builtins import dotprod
from kdsl.transpile.core import values

M32 = 0xFFFFFFFF
EDGES = [0, 1, M32, 0x7F7F7F7F, 0x80808080, 0x7FFF8000, 0x01020304, 0xFF00FF00]


def ref(name, a, b, c, signed):
    """From the documentation, on the words' bytes (little-endian)."""
    ab = (a & M32).to_bytes(4, "little")
    bb = (b & M32).to_bytes(4, "little")
    if name == "dp4a":
        xs = list(np.frombuffer(ab, np.int8 if signed else np.uint8))
    else:
        xs = list(np.frombuffer(ab, np.int16 if signed else np.uint16))
    ys = list(np.frombuffer(bb, np.int8 if signed else np.uint8))
    if name == "dp2a_hi":
        ys = ys[2:]
    total = int(c) + sum(int(x) * int(y) for x, y in zip(xs, ys))
    return values.wrap(total, Int32 if signed else Uint32)


def _words(count, seed):
    rng = random.Random(seed)
    pairs = [(a, b) for a in EDGES for b in EDGES]
    pairs += [(rng.getrandbits(32), rng.getrandbits(32)) for _ in range(count)]
    return pairs


@pytest.mark.parametrize("name", ["dp4a", "dp2a_lo", "dp2a_hi"])
@pytest.mark.parametrize("signed", [True, False])
def test_fold_matches_reference(name, signed):
    t = Int32 if signed else Uint32
    for k, (a, b) in enumerate(_words(200, 7)):
        c = [0, 1, -1, 0x7FFFFFFF, -0x80000000][k % 5]
        c = values.wrap(c, t)
        got = values.wrap(dotprod.fold(name, a, b, c, signed), t)
        assert got == ref(name, a, b, c, signed), (name, hex(a), hex(b), c)


@kdsl.kernel
def dots(a: Pointer[Int32], b: Pointer[Int32], c: Pointer[Int32], out: Pointer[Int32]):
    i = thread_idx.x
    out[6 * i] = kdsl.dp4a(a[i], b[i], c[i])
    out[6 * i + 1] = kdsl.dp2a_lo(a[i], b[i], c[i])
    out[6 * i + 2] = kdsl.dp2a_hi(a[i], b[i], c[i])
    ua, ub, uc = a[i].bitcast(Uint32), b[i].bitcast(Uint32), c[i].bitcast(Uint32)
    out[6 * i + 3] = kdsl.dp4a(ua, ub, uc).bitcast(Int32)
    out[6 * i + 4] = kdsl.dp2a_lo(ua, ub, uc).bitcast(Int32)
    out[6 * i + 5] = kdsl.dp2a_hi(ua, ub, uc).bitcast(Int32)


@kdsl.kernel
def packed(
    a: Pointer[Int32], b: Pointer[Int32], c: Pointer[Int32], out: Pointer[Int32]
):
    i = thread_idx.x
    va, vb = a[i].bitcast(Int8x4), b[i].bitcast(Int8x4)
    out[4 * i] = kdsl.dp4a(va, vb, c[i])
    out[4 * i + 1] = kdsl.dp2a_lo(a[i].bitcast(Int16x2), vb, c[i])
    ua, ub = a[i].bitcast(Uint8x4), b[i].bitcast(Uint8x4)
    out[4 * i + 2] = kdsl.dp4a(ua, ub, c[i].bitcast(Uint32)).bitcast(Int32)
    out[4 * i + 3] = kdsl.dp2a_hi(a[i], vb, 7)


def test_interpreter_matches_reference():
    pairs = _words(64, 11)
    n = len(pairs)
    a = np.array([p[0] for p in pairs], np.uint32).view(np.int32)
    b = np.array([p[1] for p in pairs], np.uint32).view(np.int32)
    c = np.random.default_rng(3).integers(-(2**31), 2**31, n).astype(np.int32)
    out = np.zeros(6 * n, np.int32)
    dots.interpret[1, n](a, b, c, out)
    for i in range(n):
        for k, (name, signed) in enumerate(
            [(m, s) for s in (True, False) for m in ("dp4a", "dp2a_lo", "dp2a_hi")]
        ):
            want = ref(name, int(a[i]), int(b[i]), int(c[i]), signed)
            assert values.wrap(int(out[6 * i + k]), Int32) == values.wrap(want, Int32)
    out = np.zeros(4 * n, np.int32)
    packed.interpret[1, n](a, b, c, out)
    for i in range(n):
        ai, bi, ci = int(a[i]), int(b[i]), int(c[i])
        wants = [
            ref("dp4a", ai, bi, ci, True),
            ref("dp2a_lo", ai, bi, ci, True),
            ref("dp4a", ai, bi, ci & M32, False),
            ref("dp2a_hi", ai, bi, 7, True),
        ]
        got = [values.wrap(int(v), Int32) for v in out[4 * i : 4 * i + 4]]
        assert got == [values.wrap(w, Int32) for w in wants]


@kdsl.kernel
def folded(out: Pointer[Int32]):
    out[0] = kdsl.dp4a(0x01020304, -1, 5)
    out[1] = kdsl.dp2a_hi(0x00020003, 0x7F800000, -1)
    out[2] = kdsl.dp4a(Uint32(0xFFFFFFFF), Uint32(0xFFFFFFFF), Uint32(0)).bitcast(Int32)


def test_static_arguments_fold():
    src = folded.dispatch().source
    assert "__dp4a" not in src and "__dp2a" not in src
    out = np.zeros(3, np.int32)
    folded.interpret[1, 1](out)
    want = [
        ref("dp4a", 0x01020304, -1, 5, True),
        ref("dp2a_hi", 0x00020003, 0x7F800000, -1, True),
        values.wrap(ref("dp4a", M32, M32, 0, False), Int32),
    ]
    assert out.tolist() == want


def test_rendering_and_nvrtc():
    for k in (dots, packed):
        inst = k.dispatch()
        assert "__dp4a(" in inst.source
        compile_to_cubin(inst.source, inst.name)
    assert "__dp2a_lo(a[i], b[i], c[i])" in dots.dispatch().source


def test_wrong_operand_type():
    @kdsl.kernel
    def bad(x: Pointer[kdsl.Float32], out: Pointer[Int32]):
        out[0] = kdsl.dp4a(x[0], 1, 2)

    with pytest.raises(kdsl.DSLError) as e:
        bad.dispatch().source
    assert e.value.code == "E250" and "Int8x4" in str(e.value)
