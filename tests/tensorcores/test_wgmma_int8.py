"""wgmma with integer 8-bit inputs (transpile/builtins/wgmma.py) without a
GPU: every N the integer instruction takes compiles for sm_90a to one IGMMA
per k32 step with no spills, each s8/u8 pair and both operand forms, the
widths PTX does not take (40, 56 …) and mixed fp8/integer operands are
located errors, and the interpreter's rule — exact products summed in Int32
with wraparound — on a warpgroup's tile, through the hardware's swizzle."""

import numpy as np
import pytest

import kdsl
from kdsl import Float8E4M3FN, Float32, Int8, Int32, Pointer, Uint8x16
from kdsl.transpile.builtins import wgmma
from sass import sass_of
from wgmma_int8_kernels import (
    fragment,
    instance,
    model,
    shared_mem,
    unfragment,
    wgmma_int8_tile,
)

NP = {"i8": np.int8, "u8": np.uint8}
PTX = {"i8": "S8", "u8": "U8"}
PAIRS = [(a, b) for a in NP for b in NP]


def test_the_integer_widths_are_ptx_s():
    # PTX ISA, wgmma.mma_async, integer shapes: m64n8k32, n16, n24, then
    # n32 … n256 in steps of 16
    assert wgmma.INT8_WIDTHS == (8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144) + (
        160,
        176,
        192,
        208,
        224,
        240,
        256,
    )


@pytest.mark.parametrize("n", [8, 16, 24, 32, 48, 128, 208, 256])
def test_each_width_is_one_igmma_per_k32(n):
    sass = sass_of(instance("i8", "i8", N=n))
    assert sass.count(rf"^IGMMA\.64x{n}x32\.S8\.S8 R\d+, gdesc") == 4
    assert sass.spills == 0


@pytest.mark.parametrize("ta, tb", PAIRS)
@pytest.mark.parametrize("regs", [False, True], ids=["smem-a", "register-a"])
def test_each_type_pair_and_operand_form(ta, tb, regs):
    sass = sass_of(instance(ta, tb, N=64, REGS=regs))
    a_operand = r"R\d+, R\d+" if regs else r"R\d+, gdesc\[UR\d+\]"
    assert sass.count(rf"^IGMMA\.64x64x32\.{PTX[ta]}\.{PTX[tb]} {a_operand}") == 4
    assert sass.spills == 0


def test_the_helper_wraps_and_takes_no_scale_immediates():
    src = instance("u8", "i8", N=48).source
    assert "void wgmma_m64n48k32_s32_u8_s8(int32_t* d, uint64_t a, uint64_t b," in src
    assert "wgmma.mma_async.sync.aligned.m64n48k32.s32.u8.s8 " in src
    assert '", %24, %25, p;\\n"' in src  # no imm-scale-a/b, no .satfinite
    assert "void wgmma_wait(int32_t* d)" in src


@kdsl.kernel
def width_40(out: Pointer[Float32]):
    a = kdsl.dynamic_shared_array(Uint8x16, 64 * 8)
    acc = kdsl.local_array(Int32, (20,))
    d = kdsl.wgmma_desc(a, 0)
    kdsl.wgmma_mma_async(acc, d, d, Int8)


@kdsl.kernel
def float_accumulator(out: Pointer[Float32]):
    a = kdsl.dynamic_shared_array(Uint8x16, 64 * 8)
    acc = kdsl.local_array(Float32, (32,))
    d = kdsl.wgmma_desc(a, 0)
    kdsl.wgmma_mma_async(acc, d, d, Int8)


@kdsl.kernel
def int_accumulator_fp8(out: Pointer[Float32]):
    a = kdsl.dynamic_shared_array(Uint8x16, 64 * 8)
    acc = kdsl.local_array(Int32, (32,))
    d = kdsl.wgmma_desc(a, 0)
    kdsl.wgmma_mma_async(acc, d, d, Float8E4M3FN)


@kdsl.kernel
def mixed_fp8_int8(out: Pointer[Float32]):
    a = kdsl.dynamic_shared_array(Uint8x16, 64 * 8)
    acc = kdsl.local_array(Int32, (32,))
    d = kdsl.wgmma_desc(a, 0)
    kdsl.wgmma_mma_async(acc, d, d, (Int8, Float8E4M3FN))


@kdsl.kernel
def transposed(out: Pointer[Float32]):
    a = kdsl.dynamic_shared_array(Uint8x16, 64 * 8)
    acc = kdsl.local_array(Int32, (32,))
    d = kdsl.wgmma_desc(a, 0)
    kdsl.wgmma_mma_async(acc, d, d, Int8, trans_b=True)


def test_located_errors():
    # N = 40 is a multiple of 8 (fp8 takes it), not one the integer form takes
    with pytest.raises(kdsl.DSLError, match=r"E808.*Int32") as info:
        width_40.dispatch().lowered
    assert "test_wgmma_int8.py" in str(info.value)
    with pytest.raises(kdsl.DSLError, match=r"E808"):
        float_accumulator.dispatch().lowered
    with pytest.raises(kdsl.DSLError, match=r"E808"):
        int_accumulator_fp8.dispatch().lowered
    with pytest.raises(kdsl.DSLError, match=r"E809.*\(Int8, Float8E4M3FN\)"):
        mixed_fp8_int8.dispatch().lowered
    with pytest.raises(kdsl.DSLError, match=r"E626"):
        transposed.dispatch().lowered


CASES = [(8, 128), (24, 128), (48, 256), (128, 128), (256, 128)]


@pytest.mark.parametrize("ta, tb", PAIRS)
@pytest.mark.parametrize("regs", [False, True], ids=["smem-a", "register-a"])
@pytest.mark.parametrize("n, k", CASES, ids=lambda v: str(v))
def test_the_interpreter_multiplies_an_int8_tile(ta, tb, regs, n, k):
    rng = np.random.default_rng(n + k)
    info_a, info_b = np.iinfo(NP[ta]), np.iinfo(NP[tb])
    a = rng.integers(info_a.min, info_a.max + 1, (64, k)).astype(NP[ta])
    bt = rng.integers(info_b.min, info_b.max + 1, (n, k)).astype(NP[tb])
    c = rng.integers(-(2**31), 2**31, (64, n)).astype(np.int32)
    out = np.zeros(128 * n // 2, np.int32)
    run = wgmma_int8_tile.interpret[1, 128]
    run(
        a,
        bt,
        fragment(c),
        out,
        N=n,
        K=k,
        ACC=True,
        REGS=regs,
        shared_mem=shared_mem(n, k),
    )
    np.testing.assert_array_equal(unfragment(out, n), model(a, bt, c))


def test_the_sum_wraps_around_int32():
    """u8 255 * 255 summed 128 times onto 2^31 - 2^20: past 2^31 - 1 it
    wraps (PTX's .satfinite, which would clamp, is off)."""
    a = np.full((64, 128), 255, np.uint8)
    bt = np.full((8, 128), 255, np.uint8)
    c = np.full((64, 8), 2**31 - 2**20, np.int32)
    out = np.zeros(128 * 4, np.int32)
    run = wgmma_int8_tile.interpret[1, 128]
    run(a, bt, fragment(c), out, N=8, ACC=True, shared_mem=shared_mem(8))
    want = (2**31 - 2**20 + 128 * 255 * 255) - 2**32
    assert (unfragment(out, 8) == want).all()


def test_scale_d_false_overwrites():
    rng = np.random.default_rng(3)
    a = rng.integers(-128, 128, (64, 128)).astype(np.int8)
    bt = rng.integers(-128, 128, (32, 128)).astype(np.int8)
    junk = np.full(128 * 16, 12345, np.int32)
    out = np.zeros(128 * 16, np.int32)
    wgmma_int8_tile.interpret[1, 128](a, bt, junk, out, N=32, shared_mem=shared_mem(32))
    np.testing.assert_array_equal(unfragment(out, 32), model(a, bt))
