"""wgmma with 8-bit inputs (transpile/builtins/wgmma.py) without a GPU: every
width compiles for sm_90a to one QGMMA (ptxas's name for 8-bit HGMMA) per
k32 step with the fp8 types and no spills, the helpers are generated per
call (only those a file uses), transposed 8-bit operands are E626, and the
interpreter's model (exact products summed in float64, rounded to f32 once
per instruction) on a warpgroup's tile, through the hardware's swizzle, with
A from shared memory or registers, every pair of e4m3/e5m2."""

import ml_dtypes
import numpy as np
import pytest

import kdsl
from kdsl import Float8E4M3FN, Float32, Pointer, Uint8x16, thread_idx
from kdsl.transpile.builtins import wgmma
from sass import sass_of
from wgmma_fp8_kernels import (
    fragment,
    instance,
    model,
    model_f16,
    random_fp8,
    shared_mem,
    tolerance,
    unfragment,
    wgmma_fp8_tile,
    wgmma_fp8_tile_f16,
)

E4M3, E5M2 = ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2
NP = {"f8e4m3fn": E4M3, "f8e5m2": E5M2}
PTX = {"f8e4m3fn": "E4M3", "f8e5m2": "E5M2"}
PAIRS = [(a, b) for a in NP for b in NP]


def test_every_n_the_instruction_takes():
    assert wgmma.FP8_WIDTHS == tuple(range(8, 257, 8))  # PTX: N = 8, 16, … 256


@pytest.mark.parametrize("n", wgmma.FP8_WIDTHS)
def test_each_width_is_one_qgmma_per_k32(n):
    sass = sass_of(instance("f8e4m3fn", "f8e4m3fn", N=n))
    assert sass.count(rf"^QGMMA\.64x{n}x32\.F32\.E4M3\.E4M3 R\d+, gdesc") == 4
    assert sass.spills == 0


@pytest.mark.parametrize("ta, tb", PAIRS)
@pytest.mark.parametrize("regs", [False, True], ids=["smem-a", "register-a"])
def test_each_type_pair_and_operand_form(ta, tb, regs):
    sass = sass_of(instance(ta, tb, N=64, REGS=regs))
    a_operand = r"R\d+, R\d+" if regs else r"R\d+, gdesc\[UR\d+\]"
    kinds = rf"\.F32\.{PTX[ta]}\.{PTX[tb]} {a_operand}"
    assert sass.count(rf"^QGMMA\.64x64x32{kinds}") == 4
    assert sass.spills == 0


def test_the_helpers_are_generated_for_the_calls_only():
    src = instance("f8e5m2", "f8e4m3fn", N=24, REGS=True).source
    assert (
        "void wgmma_m64n24k32_f32_e5m2_e4m3(float* d, const vec<__nv_fp8_e5m2, 16>& a,"
        in src
    )
    assert "wgmma.mma_async.sync.aligned.m64n24k32.f32.e5m2.e4m3 " in src
    # one helper, not one a width (the 16-bit ones stay in wgmma.h)
    assert src.count("void wgmma_m64n24k32_f32_") == 1  # defined once
    assert src.count("kdsl::wgmma_m64n24k32_f32_e5m2_e4m3(&acc[0], frag,") == 4
    assert "m64n32k32" not in src


@kdsl.kernel
def transposed(out: Pointer[Float32]):
    a = kdsl.dynamic_shared_array(Uint8x16, 64 * 8)
    acc = kdsl.local_array(Float32, (64,))
    d = kdsl.wgmma_desc(a, 0)
    kdsl.wgmma_mma_async(acc, d, d, Float8E4M3FN, trans_b=True)


@kdsl.kernel
def mixed_16_bit(out: Pointer[Float32]):
    a = kdsl.dynamic_shared_array(Uint8x16, 64 * 8)
    acc = kdsl.local_array(Float32, (64,))
    d = kdsl.wgmma_desc(a, 0)
    kdsl.wgmma_mma_async(acc, d, d, (Float8E4M3FN, kdsl.BFloat16))


@kdsl.kernel
def odd_width_16_bit(out: Pointer[Float32]):
    a = kdsl.dynamic_shared_array(Uint8x16, 64 * 8)
    acc = kdsl.local_array(Float32, (10,))
    d = kdsl.wgmma_desc(a, 0)
    kdsl.wgmma_mma_async(acc, d, d, kdsl.BFloat16)


@kdsl.func
def finish(acc, out):
    """Waits for the group writing ``acc``, then reads it (never writes it)."""
    kdsl.wgmma_wait(0, acc)
    for i in kdsl.range_constexpr(len(acc)):
        out[thread_idx.x * len(acc) + i] = acc[i]


@kdsl.kernel
def waited_in_a_function(out: Pointer[Float32]):
    a = kdsl.dynamic_shared_array(Uint8x16, 64 * 8)
    acc = kdsl.local_array(Float32, (8,))
    d = kdsl.wgmma_desc(a, 0)
    kdsl.wgmma_fence()
    kdsl.wgmma_mma_async(acc, d, d, Float8E4M3FN, scale_d=False)
    kdsl.wgmma_commit()
    finish(acc, out)


def test_a_device_function_waiting_on_an_accumulator_takes_it_writable():
    """The wait's helper takes a float* (its register holds write the
    accumulator): a function that only waits on and reads one must not
    declare it const (NVRTC refused that)."""
    inst = waited_in_a_function.dispatch()
    assert "void finish__l8f32_pf32(float (&acc)[8], float* out)" in inst.source
    sass = sass_of(inst)
    assert sass.count(r"^QGMMA\.64x16x32\.F32\.E4M3\.E4M3 ") == 1
    assert sass.count(r"^WARPGROUP\.DEPBAR\.LE gsb0, 0x0") == 1


def test_located_errors():
    with pytest.raises(kdsl.DSLError, match=r"E626.*K-major only") as info:
        transposed.dispatch().lowered
    assert "test_wgmma_fp8.py" in str(info.value)
    with pytest.raises(kdsl.DSLError, match=r"E809.*\(Float8E4M3FN, BFloat16\)"):
        mixed_16_bit.dispatch().lowered
    # N = 20 is no multiple of 8: no width, of 8-bit or 16-bit inputs
    with pytest.raises(kdsl.DSLError, match=r"E808"):
        odd_width_16_bit.dispatch().lowered


def test_the_fp8_a_fragment_layout_covers_a_once():
    row, col = wgmma.a_fragment_layout(fp8=True)
    seen = np.zeros((64, 32), int)
    np.add.at(seen, (row, col), 1)
    assert (seen == 1).all()
    # lane l of warp w: 4 bytes of row 16 w + l // 4 at columns 4 (l % 4) …
    assert list(row[5, :4]) == [1] * 4 and list(col[5, :4]) == [4, 5, 6, 7]
    assert list(row[37, 4:8]) == [17 + 8] * 4 and list(col[37, 12:]) == [20, 21, 22, 23]


CASES = [(8, 128), (24, 128), (64, 256), (136, 128), (256, 128)]


@pytest.mark.parametrize("ta, tb", PAIRS)
@pytest.mark.parametrize("regs", [False, True], ids=["smem-a", "register-a"])
@pytest.mark.parametrize("n, k", CASES, ids=lambda v: str(v))
def test_the_interpreter_multiplies_an_fp8_tile(ta, tb, regs, n, k):
    rng = np.random.default_rng(n + k)
    a = random_fp8(rng, (64, k), NP[ta])
    bt = random_fp8(rng, (n, k), NP[tb])
    c = rng.uniform(-8, 8, (64, n)).astype(np.float32)
    out = np.full(128 * n // 2, np.nan, np.float32)
    run = wgmma_fp8_tile.interpret[1, 128]
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
    got = unfragment(out, n)
    np.testing.assert_array_equal(got, model(a, bt, c))
    # the model is within the stated tolerance of the exact product (which
    # the GPU test holds the hardware to)
    exact = c + a.astype(np.float64) @ bt.astype(np.float64).T
    assert (np.abs(got - exact) <= tolerance(a, bt, c)).all()


def test_the_interpreter_overwrites_with_scale_d_false():
    rng = np.random.default_rng(7)
    a = random_fp8(rng, (64, 128), E4M3)
    bt = random_fp8(rng, (32, 128), E4M3)
    out = np.full(128 * 16, np.nan, np.float32)
    junk = np.full(128 * 16, 1e30, np.float32)
    wgmma_fp8_tile.interpret[1, 128](a, bt, junk, out, N=32, shared_mem=shared_mem(32))
    np.testing.assert_array_equal(unfragment(out, 32), model(a, bt))


def test_products_are_exact_and_the_sum_is_rounded_once_per_instruction():
    """One k32 instruction: 1 + 2^-24 + 2^-24 (the small products of an
    e4m3 and an e5m2 subnormal) is 1 + 2^-23 exactly, an f32; summed in f32
    one product at a time it would stay 1 (each 2^-24 a tie to even)."""
    a = np.zeros((64, 128), E4M3)
    bt = np.zeros((8, 128), E5M2)
    a[:, 0], bt[:, 0] = 1.0, 1.0
    a[:, 1:3], bt[:, 1:3] = 2.0**-9, 2.0**-15  # e4m3's and e5m2's subnormals
    out = np.full(128 * 4, np.nan, np.float32)
    c = np.zeros(128 * 4, np.float32)
    wgmma_fp8_tile.interpret[1, 128](a, bt, c, out, N=8, shared_mem=shared_mem(8))
    assert (unfragment(out, 8) == np.float32(1 + 2.0**-23)).all()


@pytest.mark.parametrize("n", [8, 24, 128, 256])
def test_f16_accumulators_are_one_qgmma_f16_per_k32(n):
    sass = sass_of(wgmma_fp8_tile_f16.dispatch("f8e4m3fn", "f8e5m2", N=n))
    assert sass.count(rf"^QGMMA\.64x{n}x32\.F16\.E4M3\.E5M2 R\d+, gdesc") == 4
    assert sass.spills == 0


@pytest.mark.parametrize("ta, tb", PAIRS)
@pytest.mark.parametrize("n", [8, 24, 128, 256])
def test_the_interpreter_rounds_f16_accumulators_once_per_instruction(ta, tb, n):
    rng = np.random.default_rng(n)
    a = random_fp8(rng, (64, 128), NP[ta])
    bt = random_fp8(rng, (n, 128), NP[tb])
    c = rng.uniform(-4, 4, (64, n)).astype(np.float16)
    out = np.full(128 * n // 2, np.nan, np.float16)
    run = wgmma_fp8_tile_f16.interpret[1, 128]
    run(a, bt, fragment(c).astype(np.float16), out, N=n, shared_mem=shared_mem(n))
    got = unfragment(out, n)
    np.testing.assert_array_equal(got, model_f16(a, bt, c))
    exact = c + a.astype(np.float64) @ bt.astype(np.float64).T
    assert (np.abs(got - exact) <= tolerance(a, bt, c, rounding=2.0**-11)).all()


@kdsl.kernel
def f16_pairs_for_16_bit(out: Pointer[Float32]):
    a = kdsl.dynamic_shared_array(Uint8x16, 64 * 8)
    acc = kdsl.local_array(kdsl.Float16x2, (32,))
    d = kdsl.wgmma_desc(a, 0)
    kdsl.wgmma_mma_async(acc, d, d, kdsl.BFloat16)


def test_f16_accumulators_are_for_8_bit_inputs():
    with pytest.raises(kdsl.DSLError, match=r"E808.*Float16x2"):
        f16_pairs_for_16_bit.dispatch().lowered
