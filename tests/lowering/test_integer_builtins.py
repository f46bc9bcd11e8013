"""kdsl.byte_perm, funnelshift_*, mulhi/umulhi, mul24/umul24, sad/usad
(builtins/integers.py) and kdsl.atomic_inc/atomic_dec (builtins/atomics.py).

The fold agrees with references written from CUDA's documentation and the
PTX NVRTC emits for each (``prmt`` after masking the selector with 0x7777,
``shf.{l,r}.{wrap,clamp}``, ``mul.hi``, ``mul.lo`` of sign-extended or masked
24-bit operands, ``sad``), the interpreter agrees with the fold on edge and
random values, and the generated CUDA compiles for every form.  The GPU
checks are tests/gpu/test_builtins_gpu.py and the differential cases of
tests/gpu/semantics_cases.py."""

import random

import numpy as np
import pytest

import kdsl
from kdsl import Int8, Int32, Int64, Pointer, Uint32, Uint64, thread_idx
from kdsl.runtime.nvrtc import compile_to_cubin
from kdsl.transpile.builtins import integers
from kdsl.transpile.core import values

M32 = 0xFFFFFFFF


# -- references, written from the documentation rather than from the folds --------------
def ref_byte_perm(x, y, s):
    source = (x & M32).to_bytes(4, "little") + (y & M32).to_bytes(4, "little")
    picked = bytes(source[(s >> (4 * k)) & 7] for k in range(4))
    return int.from_bytes(picked, "little")


def ref_funnelshift(name, lo, hi, shift):
    """PTX ``shf``: ``n = c & 31`` (wrap) or ``min(c, 32)`` (clamp); ``.l``:
    ``(b << n) | (a >> (32 - n))``, ``.r``: ``(b << (32 - n)) | (a >> n)``,
    each term 0 when its count is 32 or more."""
    n = min(shift, 32) if name.endswith("c") else shift & 31

    def shl(v, k):
        return (v << k) & M32 if k < 32 else 0

    def shr(v, k):
        return v >> k if k < 32 else 0

    if name.startswith("funnelshift_l"):
        return shl(hi, n) | shr(lo, 32 - n)
    return shl(hi, 32 - n) | shr(lo, n)


def ref_mulhi(x, y, t):
    """The high half of the 2w-bit two's complement product, from its bits."""
    w = t.width
    bits = (x * y) & ((1 << (2 * w)) - 1)
    return values.wrap(bits >> w, t)


def ref_mul24(x, y, signed):
    def low24(v):
        v &= 0xFFFFFF
        return v - (1 << 24) if signed and v >> 23 else v

    return values.wrap(low24(x) * low24(y), Int32 if signed else Uint32)


def ref_sad(x, y, z):
    """PTX ``sad``: ``c + ((a < b) ? b - a : a - b)`` in 32-bit words."""
    difference = (y - x) if x < y else (x - y)
    return (z + (difference & M32)) & M32


def reference(name, args, t):
    if name == "byte_perm":
        return ref_byte_perm(*args)
    if name.startswith("funnelshift"):
        return ref_funnelshift(name, *args)
    if name in ("mulhi", "umulhi"):
        return ref_mulhi(*args, t)
    if name in ("mul24", "umul24"):
        return ref_mul24(*args, signed=name == "mul24")
    return ref_sad(*args)


def edges(t) -> list[int]:
    lo, hi = t.min(), t.max()
    picks = {lo, lo + 1, hi - 1, hi, 0, 1, 2, 3, 0xFF, 0x100, 0x7FFFFF, 0x800000}
    picks |= {0xFFFFFF, 0x1000000, -1, -2, -0x800000, -0x800001, 31, 32, 33, 64}
    picks |= {0x3210, 0x7654, 0x8888, 0x01234567, 0x89ABCDEF, 1 << 31, 1 << 32}
    return sorted(v for v in picks if lo <= v <= hi)


def operand_rows(form, n_random=300, seed=0):
    """Edge-value rows (every pair, the third argument cycling) and random rows."""
    rng = random.Random(seed)
    columns = [edges(t) for t in form.params]
    rows = [
        tuple(c[(i + k * j) % len(c)] for k, c in enumerate(columns))
        for i in range(len(columns[0]))
        for j in range(len(columns[-1]))
    ]
    for _ in range(n_random):
        rows.append(tuple(rng.randint(t.min(), t.max()) for t in form.params))
    return rows


FORMS = [
    (name, form) for name, spec in integers.INTRINSICS.items() for form in spec.forms
]
FORM_IDS = [f"{name}-{form.params[0].__name__}" for name, form in FORMS]


@pytest.mark.parametrize("name, form", FORMS, ids=FORM_IDS)
def test_the_fold_is_cudas_documented_value(name, form):
    spec = integers.INTRINSICS[name]
    for row in operand_rows(form):
        got = values.wrap(spec.fold(list(row), form.params[0].width), form.result)
        assert got == values.wrap(reference(name, row, form.result), form.result), row


@pytest.mark.parametrize("name, form", FORMS, ids=FORM_IDS)
def test_the_lanes_equal_the_fold(name, form):
    spec = integers.INTRINSICS[name]
    rows = operand_rows(form, n_random=2000, seed=1)
    columns = [np.array(c, dtype=t.np_dtype) for c, t in zip(zip(*rows), form.params)]
    got = spec.lanes(*columns)
    assert got.dtype == form.result.np_dtype
    want = [
        values.wrap(spec.fold(list(r), form.params[0].width), form.result) for r in rows
    ]
    assert got.tolist() == want


# -- through kernels: the interpreter and NVRTC ---------------------------------------
@kdsl.kernel
def word_ops(
    a: Pointer[Uint32],
    b: Pointer[Uint32],
    c: Pointer[Uint32],
    s: Pointer[Int32],
    t: Pointer[Int32],
    out: Pointer[Uint32],
    signed_out: Pointer[Int32],
    n: Int32,
):
    i = thread_idx.x + kdsl.block_idx.x * kdsl.block_dim.x
    if i < n:
        x, y, z = a[i], b[i], c[i]
        out[9 * i] = kdsl.byte_perm(x, y, z)
        out[9 * i + 1] = kdsl.funnelshift_l(x, y, z)
        out[9 * i + 2] = kdsl.funnelshift_lc(x, y, z)
        out[9 * i + 3] = kdsl.funnelshift_r(x, y, z)
        out[9 * i + 4] = kdsl.funnelshift_rc(x, y, z)
        out[9 * i + 5] = kdsl.umulhi(x, y)
        out[9 * i + 6] = kdsl.umul24(x, y)
        out[9 * i + 7] = kdsl.usad(x, y, z)
        out[9 * i + 8] = kdsl.sad(s[i], t[i], z)
        signed_out[2 * i] = kdsl.mulhi(s[i], t[i])
        signed_out[2 * i + 1] = kdsl.mul24(s[i], t[i])


WORD_COLUMNS = [
    ("byte_perm", "abc"),
    ("funnelshift_l", "abc"),
    ("funnelshift_lc", "abc"),
    ("funnelshift_r", "abc"),
    ("funnelshift_rc", "abc"),
    ("umulhi", "ab"),
    ("umul24", "ab"),
    ("usad", "abc"),
    ("sad", "stc"),
]


def word_inputs(n=512, seed=7):
    """Edge values in every position, then random words."""
    rng = np.random.default_rng(seed)
    u, i = edges(Uint32), edges(Int32)
    cols = {}
    for k, (key, pool) in enumerate(zip("abcst", (u, u, u, i, i))):
        edge = [pool[(j * (k + 1) + j // len(pool)) % len(pool)] for j in range(n // 2)]
        kind = np.uint32 if key in "abc" else np.int32
        info = np.iinfo(kind)
        rand = rng.integers(info.min, info.max, n - len(edge), endpoint=True)
        cols[key] = np.array(edge + rand.tolist(), kind)
    return cols


def test_the_interpreter_gives_the_fold_of_every_lane():
    cols = word_inputs()
    n = cols["a"].size
    out, signed_out = np.zeros(9 * n, np.uint32), np.zeros(2 * n, np.int32)
    word_ops.interpret[(n + 127) // 128, 128](
        cols["a"], cols["b"], cols["c"], cols["s"], cols["t"], out, signed_out, n
    )
    for k, (name, keys) in enumerate(WORD_COLUMNS):
        spec = integers.INTRINSICS[name]
        rows = zip(*(cols[key].tolist() for key in keys))
        want = [values.wrap(spec.fold(list(r), 32), Uint32) for r in rows]
        assert out[k::9].tolist() == want, name
    for k, name in enumerate(("mulhi", "mul24")):
        rows = zip(cols["s"].tolist(), cols["t"].tolist())
        want = [reference(name, r, Int32) for r in rows]
        assert signed_out[k::2].tolist() == want, name


W = kdsl.TypeVar("W", bound=kdsl.Int)
U = kdsl.TypeVar("U", bound=kdsl.Int)


@kdsl.kernel(dtypes={"W": [Int32, Int64], "U": [Uint32, Uint64]})
def high_words(x: Pointer[W], u: Pointer[U], out: Pointer[W], uout: Pointer[U]):
    i = thread_idx.x
    out[i] = kdsl.mulhi(x[i], x[i + 1])
    uout[i] = kdsl.umulhi(u[i], u[i + 1])


def test_the_cuda_of_every_form_compiles():
    inst = word_ops.dispatch()
    for name, spec in integers.INTRINSICS.items():
        if spec.forms[0].params[0].width == 32:
            assert f"{spec.forms[0].cuda}(" in inst.source, name
    compile_to_cubin(inst.source, inst.name)
    for w, u in [(Int32, Uint32), (Int64, Uint64)]:
        inst = high_words.dispatch(w, u)
        wide = w.width == 64
        assert ("__mul64hi(" if wide else "__mulhi(") in inst.source
        assert ("__umul64hi(" if wide else "__umulhi(") in inst.source
        compile_to_cubin(inst.source, inst.name)


def test_the_64_bit_forms_on_the_interpreter():
    rng = random.Random(3)
    for w, u in [(Int64, Uint64), (Int32, Uint32)]:
        xs = edges(w) + [rng.randint(w.min(), w.max()) for _ in range(200)]
        us = edges(u) + [rng.randint(0, u.max()) for _ in range(200)]
        n = min(len(xs), len(us)) - 1
        x, y = np.array(xs, w.np_dtype), np.array(us, u.np_dtype)
        out, uout = np.zeros(n, w.np_dtype), np.zeros(n, u.np_dtype)
        high_words.dispatch(w, u).interpret[1, n](x, y, out, uout)
        assert out.tolist() == [ref_mulhi(a, b, w) for a, b in zip(xs, xs[1:])][:n]
        assert uout.tolist() == [ref_mulhi(a, b, u) for a, b in zip(us, us[1:])][:n]


@kdsl.kernel
def folded(out: Pointer[Int64]):
    out[0] = kdsl.byte_perm(0x11223344, 0x55667788, 0x7531).to(Int64)
    out[1] = kdsl.funnelshift_l(0x80000001, 3, 33).to(Int64)
    out[2] = kdsl.funnelshift_rc(0x80000001, 3, 33).to(Int64)
    out[3] = kdsl.umulhi(1 << 40, 3 << 40).to(Int64)
    out[4] = kdsl.mulhi(-1, 5).to(Int64)
    out[5] = kdsl.mul24(0xFFFFFF, 2).to(Int64)
    out[6] = kdsl.sad(-3, 4, 0xFFFFFFFF).to(Int64)
    out[7] = kdsl.umulhi(Uint64(1 << 63), 4).to(Int64)


def test_static_arguments_fold():
    body = folded.dispatch().source.split("extern")[1]
    assert "__" not in body.split("{", 1)[1]
    out = np.zeros(8, np.int64)
    folded.interpret[1, 1](out)
    assert out.tolist() == [
        0x55771133,  # bytes 1, 3, 5, 7 of y:x
        0x7,  # 3:0x80000001 << 1: hi << 1, and lo's top bit
        0x3,  # clamped to 32: hi
        0x30000,  # the high word of 3 << 80: the 64-bit form
        -1,  # the high word of -5
        -2,  # 0xFFFFFF read as -1
        6,  # 7 + 0xFFFFFFFF wraps
        2,  # 2**65 >> 64: Uint64 chooses the 64-bit form
    ]


@kdsl.kernel
def mixed(x: Pointer[Uint32], out: Pointer[Uint32]):
    out[0] = kdsl.umulhi(x[0], 0x9E3779B9)  # an Int64 literal, converted
    out[1] = kdsl.usad(x[0], -1, 0)  # -1 converts to 0xFFFFFFFF


def test_a_static_argument_converts_to_the_form_the_run_time_ones_chose():
    src = mixed.dispatch().source
    assert "__umulhi(x[0], 2654435769u)" in src
    assert "__usad(x[0], 4294967295u, 0u)" in src
    out = np.zeros(2, np.uint32)
    mixed.interpret[1, 1](np.array([7], np.uint32), out)
    assert out.tolist() == [(7 * 0x9E3779B9) >> 32, 0xFFFFFFFF - 7]


@kdsl.kernel
def umulhi_of_int8(x: Pointer[Int8], out: Pointer[Uint32]):
    out[0] = kdsl.umulhi(x[0], x[1])


@kdsl.kernel
def mulhi_of_uint64(x: Pointer[Uint64], out: Pointer[Int64]):
    out[0] = kdsl.mulhi(x[0], x[1])


@kdsl.kernel
def sad_of_int32_z(x: Pointer[Int32], out: Pointer[Uint32]):
    out[0] = kdsl.sad(x[0], x[1], x[2])


@kdsl.kernel
def byte_perm_of_float(out: Pointer[Uint32]):
    out[0] = kdsl.byte_perm(1.5, 0, 0)


@pytest.mark.parametrize(
    "kernel, message",
    [
        (
            umulhi_of_int8,
            r"kdsl\.umulhi\(\) takes \(Uint32, Uint32\) or \(Uint64, Uint64\), "
            r"got \(Int8, Int8\): convert with \.to\(Uint32\)",
        ),
        (mulhi_of_uint64, r"got \(Uint64, Uint64\): convert with \.to\(Int64\)"),
        (
            sad_of_int32_z,
            r"takes \(Int32, Int32, Uint32\), got \(Int32, Int32, Int32\): "
            r"convert with \.to\(Uint32\)",
        ),
        (byte_perm_of_float, r"got \(Float32, Int32, Int32\)"),
    ],
)
def test_another_type_is_a_located_error_naming_the_one_to_convert_to(kernel, message):
    with pytest.raises(kdsl.DSLError, match=message) as info:
        kernel.dispatch().source
    assert info.value.code == "E250" and info.value.span is not None


# -- atomic_inc / atomic_dec ---------------------------------------------------------------
@kdsl.kernel
def counters(
    c: Pointer[Uint32], limits: Pointer[Uint32], old: Pointer[Uint32], n: Int32
):
    i = thread_idx.x
    if i < n:
        old[2 * i] = kdsl.atomic_inc(c, i % 4, limits[i % 4])
        old[2 * i + 1] = kdsl.atomic_dec(c, 4 + i % 4, limits[i % 4])


def inc(v, limit):
    return 0 if v >= limit else v + 1


def dec(v, limit):
    return limit if v == 0 or v > limit else v - 1


def test_atomic_inc_and_dec_wrap_as_cuda_does_in_thread_order():
    limits = np.array([0, 5, 0xFFFFFFFF, 3], np.uint32)
    start = np.array([0, 9, 0xFFFFFFFE, 2, 0, 9, 1, 2], np.uint32)
    n = 50
    c, old = start.copy(), np.zeros(2 * n, np.uint32)
    counters.interpret[1, 64](c, limits, old, n)
    state, want_old = [int(v) for v in start], []
    for i in range(n):
        k = i % 4
        want_old += [state[k], state[4 + k]]
        state[k] = inc(state[k], int(limits[k]))
        state[4 + k] = dec(state[4 + k], int(limits[k]))
    assert c.tolist() == state
    assert old.tolist() == want_old


def test_atomic_inc_and_dec_are_atomicinc_and_atomicdec_on_uint32():
    src = counters.dispatch().source
    assert "atomicInc(&c[i % 4], limits[i % 4])" in src  # i: a thread index
    assert "atomicDec(&c[4 + i % 4]" in src
    compile_to_cubin(src, counters.dispatch().name)
