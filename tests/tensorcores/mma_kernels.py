"""Kernels and a numpy reference for the warp MMA tests (CPU and GPU): one
warp multiplies one tile, each lane loading its fragments from arrays the
host laid out with the PTX ISA's fragment layouts, written here a second
time (independently of transpile/builtins/mma.py) from the PTX ISA's
"Matrix Fragments for mma.m16n8kK" sections."""

import ml_dtypes
import numpy as np

import kdsl
from kdsl import Constexpr, Pointer, thread_idx

TA = kdsl.TypeVar("TA", bound=kdsl.Dtype)
TB = kdsl.TypeVar("TB", bound=kdsl.Dtype)
TC = kdsl.TypeVar("TC", bound=kdsl.Dtype)

# (shape K, A, B, C numpy dtypes, id)
BF16, F16 = np.dtype(ml_dtypes.bfloat16), np.dtype(np.float16)
E4M3, E5M2 = np.dtype(ml_dtypes.float8_e4m3fn), np.dtype(ml_dtypes.float8_e5m2)
I8, U8 = np.dtype(np.int8), np.dtype(np.uint8)
F32, I32 = np.dtype(np.float32), np.dtype(np.int32)
CASES = [
    (16, F16, F16, F32, "m16n8k16-f16-f32"),
    (16, BF16, BF16, F32, "m16n8k16-bf16-f32"),
    (16, F16, F16, F16, "m16n8k16-f16-f16"),
    (8, F16, F16, F32, "m16n8k8-f16-f32"),
    (8, BF16, BF16, F32, "m16n8k8-bf16-f32"),
    (8, F16, F16, F16, "m16n8k8-f16-f16"),
    (8, F32, F32, F32, "m16n8k8-tf32-f32"),
    (32, I8, I8, I32, "m16n8k32-s8-s8"),
    (32, U8, U8, I32, "m16n8k32-u8-u8"),
    (32, I8, U8, I32, "m16n8k32-s8-u8"),
    (32, U8, I8, I32, "m16n8k32-u8-s8"),
    (32, E4M3, E4M3, F32, "m16n8k32-e4m3-e4m3"),
    (32, E5M2, E5M2, F32, "m16n8k32-e5m2-e5m2"),
    (32, E4M3, E5M2, F32, "m16n8k32-e4m3-e5m2"),
]
IDS = [case[-1] for case in CASES]
SHORT = {
    F16: "f16",
    BF16: "bf16",
    F32: "f32",
    I8: "i8",
    U8: "u8",
    I32: "i32",
    E4M3: "f8e4m3fn",
    E5M2: "f8e5m2",
}


_INPUTS = ["f16", "bf16", "f32", "i8", "u8", "f8e4m3fn", "f8e5m2"]


@kdsl.kernel(dtypes={"TA": _INPUTS, "TB": _INPUTS, "TC": ["f16", "f32", "i32"]})
def mma_tile(
    a: Pointer[TA],
    b: Pointer[TB],
    c: Pointer[TC],
    d: Pointer[TC],
    K: Constexpr[int],
):
    """Each lane: its fragments in, its fragment of D = A * B + C out."""
    lane = thread_idx.x
    if K == 16:
        fd = kdsl.mma_m16n8k16(a.vec(8)[lane], b.vec(4)[lane], c.vec(4)[lane])
    elif K == 8:
        fd = kdsl.mma_m16n8k8(a.vec(4)[lane], b.vec(2)[lane], c.vec(4)[lane])
    else:
        fd = kdsl.mma_m16n8k32(a.vec(16)[lane], b.vec(8)[lane], c.vec(4)[lane])
    d.vec(4)[lane] = fd


def instance(k, ta, tb, tc):
    return mma_tile.dispatch(SHORT[ta], SHORT[tb], SHORT[tc], k)


# -- the PTX ISA's layouts: (row, col) of element i of lane l -----------------------
def coords(operand, k, elem, lane, i):
    g, t = lane // 4, lane % 4
    if operand == "c":  # c0, c1: row g; c2, c3: row g + 8; columns 2t, 2t + 1
        return g + 8 * (i // 2), 2 * t + i % 2
    if elem == F32:  # tf32 m16n8k8: one element a register
        if operand == "a":  # a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4)
            return g + 8 * (i % 2), t + 4 * (i // 2)
        return t + 4 * i, g  # b0 (t, g), b1 (t + 4, g)
    per = 4 // elem.itemsize  # elements in a 32-bit register
    reg, e = i // per, i % per
    if operand == "a":  # rows g, g + 8, g, g + 8 by register; k's second half last
        return g + 8 * (reg % 2), per * t + e + (k // 2) * (reg // 2)
    return per * t + e + (k // 2) * reg, g  # b: down k, column g


def fragments(operand, k, elem, matrix):
    """The (32, lanes) fragments of ``matrix`` (numpy, M x K, K x N or M x N)."""
    count = {"a": 16 * k, "b": k * 8, "c": 128}[operand] // 32
    out = np.zeros((32, count), matrix.dtype)
    for lane in range(32):
        for i in range(count):
            out[lane, i] = matrix[coords(operand, k, elem, lane, i)]
    return out


def unfragment(frags, k, elem):
    d = np.zeros((16, 8), frags.dtype)
    for lane in range(32):
        for i in range(4):
            d[coords("c", k, elem, lane, i)] = frags[lane, i]
    return d


def random_inputs(k, ta, tb, tc, seed):
    """Random A (16 x k), B (k x 8), C (16 x 8) of the types."""
    rng = np.random.default_rng(seed)

    def draw(shape, t):
        if t.kind in "iu":
            info = np.iinfo(t)
            return rng.integers(info.min, info.max, shape, endpoint=True).astype(t)
        if t == F32:  # tf32-representable: the low 13 bits clear
            x = rng.standard_normal(shape).astype(np.float32)
            return (x.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)
        return rng.standard_normal(shape).astype(t)

    return draw((16, k), ta), draw((k, 8), tb), draw((16, 8), tc)


def reference(a, b, c, tc):
    """D = A * B + C, exact (integers: wrapped to int32; floats: the exact
    sum rounded once to C's type)."""
    if tc == I32:
        d = a.astype(np.int64) @ b.astype(np.int64) + c.astype(np.int64)
        return ((d + (1 << 31)) % (1 << 32) - (1 << 31)).astype(np.int32)
    from fractions import Fraction

    af, bf, cf = (x.astype(np.float64) for x in (a, b, c))
    d = np.zeros((16, 8), np.float64)
    for i in range(16):
        for j in range(8):
            exact = Fraction(cf[i, j]) + sum(
                Fraction(af[i, kk]) * Fraction(bf[kk, j]) for kk in range(a.shape[1])
            )
            d[i, j] = float(exact)  # correctly rounded to float64
    if tc == F16:
        return d.astype(np.float16)
    return d.astype(np.float32)
