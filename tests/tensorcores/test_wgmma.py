"""Hopper's wgmma built-ins (transpile/builtins/wgmma.py) without a GPU: the
sm_90a requirement (recorded on the instance, compiled for, refused on other
architectures: E361), the prelude header against its generator, the layout
models (descriptor bits, accumulator layout, 128-byte swizzle) against
independent statements of them, NVRTC compiles and SASS (HGMMA, no spills),
the interpreter's model of wgmma (and E362 where it has none), its no-op
fences."""

import json

import numpy as np
import pytest

import kdsl
from kdsl import BFloat16, BFloat16x8, Float32, Int32, Pointer, thread_idx
from kdsl.runtime import compile as kcompile
from kdsl.runtime import nvrtc
from kdsl.transpile.builtins import mma, wgmma
from kdsl.transpile.cli.work import instance_arch
from kdsl.transpile.pipeline import Transpiled
from examples_index import ROOT, example_modules
from sass import sass_of
import ml_dtypes
from wgmma_kernels import (
    random_inputs,
    shared_mem,
    shared_mem_rs,
    unfragment,
    wgmma_tile,
    wgmma_tile_rs,
)


# -- the architecture --------------------------------------------------------------------
@kdsl.kernel
def plain(out: Pointer[Float32]):
    out[thread_idx.x] = 1.0


@kdsl.kernel
def fences_only(out: Pointer[Float32]):
    kdsl.fence_proxy_async()
    kdsl.wgmma_fence()
    kdsl.wgmma_commit()
    kdsl.wgmma_wait(1)
    kdsl.setmaxnreg(232)
    kdsl.setmaxnreg(40, inc=False)
    out[thread_idx.x] = 2.0


def test_an_instance_calling_wgmma_needs_sm_90a():
    inst = wgmma_tile.dispatch("bf16")
    assert inst.lowered.arch == "sm_90a"
    assert inst.transpiled.arch == "sm_90a"
    assert plain.dispatch().lowered.arch is None
    # fence.proxy.async is plain sm_90; the others are sm_90a
    assert fences_only.dispatch().lowered.arch == "sm_90a"


def test_the_disk_cache_keeps_the_arch():
    t = wgmma_tile.dispatch("f16").transpiled
    assert json.loads(t.to_json())["arch"] == "sm_90a"
    assert Transpiled.from_json(t.to_json().encode()).arch == "sm_90a"


def test_the_runtime_compiles_it_for_sm_90a(monkeypatch):
    seen = []
    compile_one = nvrtc.compile_to_cubin

    def logged(source, name, arch="sm_90", options=()):
        seen.append(arch)
        return compile_one(source, name, arch=arch, options=options)

    monkeypatch.setattr(nvrtc, "compile_to_cubin", logged)
    monkeypatch.setattr(kcompile.cache, "BINARIES", _NoCache())
    cubin = kcompile.cubin_for(wgmma_tile.dispatch("bf16", N=64), "sm_90")
    assert cubin[:4] == b"\x7fELF"
    kcompile.cubin_for(plain.dispatch(), "sm_90")
    assert seen == ["sm_90a", "sm_90"]


class _NoCache:
    def get(self, key, decode):
        return None

    def put(self, key, payload):
        pass


@pytest.mark.parametrize("arch", ["sm_80", "sm_89", "sm_100"])
def test_another_gpu_is_a_clear_error(arch):
    with pytest.raises(kdsl.LaunchError, match=r"E361.*wgmma_tile.*compute capability"):
        kcompile.cubin_for(wgmma_tile.dispatch("bf16"), arch)
    assert kcompile.target_arch(plain.dispatch(), arch) == arch


def test_transpile_check_compiles_for_sm_90a():
    inst = wgmma_tile.dispatch("bf16")
    assert instance_arch(inst, "sm_90") == "sm_90a"
    assert instance_arch(inst, "sm_90a") == "sm_90a"
    assert instance_arch(plain.dispatch(), "sm_80") == "sm_80"
    with pytest.raises(kdsl.DSLError, match=r"E361.*--arch is sm_80"):
        instance_arch(inst, "sm_80")


def test_transpile_check_end_to_end(tmp_path):
    import subprocess
    import sys

    path = ROOT / "examples" / "gemm_wgmma.py"
    run = subprocess.run(
        [sys.executable, "-m", "kdsl.transpile.cli", str(path), "-k", "gemm_wgmma"]
        + ["--dtypes", "bf16", "--check", "-o", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    bad = subprocess.run(
        [sys.executable, "-m", "kdsl.transpile.cli", str(path), "-k", "gemm_wgmma"]
        + ["--dtypes", "bf16", "--check", "--arch", "sm_80", "-o", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert bad.returncode != 0 and "E361" in bad.stderr


# -- the prelude and the layout models -----------------------------------------------------
def test_the_prelude_header_is_its_generators():
    header = ROOT / "templates" / "prelude" / "wgmma.h"
    assert header.read_text() == wgmma.prelude_text()


def test_descriptor_bits():
    # CuTe's GmmaDescriptor: start >> 4 in bits 0-13, LBO >> 4 in 16-29, SBO >> 4
    # in 32-45, base offset in 49-51, layout (1 = 128-byte swizzle) in 62-63
    d = wgmma.descriptor(0x1400, 16, 1024, 128)
    assert d & 0x3FFF == 0x140
    assert (d >> 16) & 0x3FFF == 1
    assert (d >> 32) & 0x3FFF == 64
    assert (d >> 49) & 7 == 0
    assert d >> 62 == 1
    assert wgmma.descriptor(0x1400 + 32, 16, 1024, 128) == d + 2  # k += 16
    assert [wgmma.descriptor(0, 0, 0, s) >> 62 for s in (0, 128, 64, 32)] == [
        0,
        1,
        2,
        3,
    ]


@pytest.mark.parametrize("n", wgmma.WIDTHS)
def test_the_accumulator_layout_covers_d_once_as_mma_c_fragments(n):
    row, col = wgmma.accumulator_layout(n)
    seen = np.zeros((64, n), int)
    np.add.at(seen, (row, col), 1)
    assert (seen == 1).all()
    # warp w's elements 4j .. 4j + 3 are the m16n8 C fragment of rows 16 w ..,
    # columns 8 j .. (PTX's wgmma D layout is mma.sync's, tiled)
    c_row, c_col = mma.layout("m16n8k16", "c", BFloat16)
    for w in range(4):
        for j in range(n // 8):
            lanes = slice(32 * w, 32 * w + 32)
            block = slice(4 * j, 4 * j + 4)
            assert (row[lanes, block] == 16 * w + c_row).all()
            assert (col[lanes, block] == 8 * j + c_col).all()


@kdsl.kernel
def swizzled(out: Pointer[Int32]):
    t = thread_idx.x  # element (r, c) of a 16 x 64 tile
    r = t // 64
    c = t % 64
    out[t] = (r * 8 + kdsl.swizzle(r, c // 8, 8)) * 8 + c % 8


def test_the_swizzle_model_is_kdsl_swizzle_and_the_hardware_xor():
    out = np.zeros(16 * 64, np.int32)
    swizzled.interpret[1, 16 * 64](out)
    model = wgmma.swizzled_128(16)
    np.testing.assert_array_equal(out.reshape(16, 64), model)
    # the 128-byte swizzle: byte address bits 4-6 XOR bits 7-9
    r, c = np.meshgrid(np.arange(16), np.arange(64), indexing="ij")
    plain_bytes = r * 128 + c * 2
    hardware = plain_bytes ^ (((plain_bytes >> 7) & 7) << 4)
    np.testing.assert_array_equal(model * 2, hardware)


# -- compiles, SASS, the interpreter ------------------------------------------------------
@pytest.mark.parametrize("n", wgmma.WIDTHS)
@pytest.mark.parametrize("dtype, hgmma", [("bf16", r"\.BF16"), ("f16", "")])
def test_each_width_is_one_hgmma_per_k16(n, dtype, hgmma):
    sass = sass_of(wgmma_tile.dispatch(dtype, N=n))
    assert sass.count(rf"^HGMMA\.64x{n}x16\.F32{hgmma}\b") == 4
    assert sass.spills == 0


@pytest.mark.parametrize("acc", [False, True], ids=["overwrite", "accumulate"])
@pytest.mark.parametrize("n", wgmma.WIDTHS)
@pytest.mark.parametrize("dtype", ["bf16", "f16"])
def test_the_interpreter_multiplies_a_warpgroup_tile(dtype, n, acc):
    """Copies with kdsl.swizzle, descriptors, k steps and the accumulator
    layout, through the interpreter's model of the hardware's swizzle (an
    XOR of address bits, not kdsl.swizzle), against numpy: exact products
    summed in float64, rounded to f32 once per wgmma."""
    np_dtype = np.dtype(ml_dtypes.bfloat16) if dtype == "bf16" else np.float16
    a, bt = random_inputs(np.random.default_rng(n), n, np_dtype)
    out = np.full(128 * n // 2, np.nan, np.float32)
    wgmma_tile.interpret[1, 128](a, bt, out, N=n, ACC=acc, shared_mem=shared_mem(n))
    got = unfragment(out, n)
    a64, b64 = a.astype(np.float64), bt.astype(np.float64).T
    d = np.full((64, n), 1.0 if acc else 0.0)
    for k0 in range(0, 64, 16):  # one rounding to f32 per k16 instruction
        d = (d + a64[:, k0 : k0 + 16] @ b64[k0 : k0 + 16]).astype(np.float32)
    np.testing.assert_allclose(got, d, rtol=0, atol=2e-6)


RS_CASES = [(True, n) for n in (64, 128, 256)] + [(False, n) for n in (8, 64, 256)]


@pytest.mark.parametrize("dtype, hgmma", [("bf16", r"\.BF16"), ("f16", "")])
@pytest.mark.parametrize("trans, n", RS_CASES, ids=lambda v: str(v))
def test_a_from_registers_and_an_mn_major_b_are_hgmma_operands(trans, n, dtype, hgmma):
    sass = sass_of(wgmma_tile_rs.dispatch(dtype, N=n, TRANS_B=trans))
    # A in registers (R.., not a descriptor); B's descriptor .tnspB if MN-major
    tnsp = r"\.tnspB" if trans else ""
    pattern = rf"^HGMMA\.64x{n}x16\.F32{hgmma} R\d+, R\d+, gdesc\[UR\d+\]{tnsp}, "
    assert sass.count(pattern) == 4
    assert sass.spills == 0


def test_the_register_form_renders_as_an_overload():
    source = wgmma_tile_rs.dispatch("bf16", N=64, TRANS_B=True).source
    assert "kdsl::wgmma_m64n64k16_f32_bf16<1>(&acc[0], frag, db, false);" in (source)
    plain_b = wgmma_tile_rs.dispatch("bf16", N=64, TRANS_B=False).source
    assert "kdsl::wgmma_m64n64k16_f32_bf16(&acc[0], frag, db, false);" in (plain_b)


@pytest.mark.parametrize("trans, n", RS_CASES, ids=lambda v: str(v))
@pytest.mark.parametrize("dtype", ["bf16", "f16"])
def test_the_interpreter_multiplies_register_a_and_mn_major_b(dtype, trans, n):
    """A's fragments from registers (wgmma.a_fragment_layout), B read
    MN-major through the descriptor's leading and stride byte offsets (or
    K-major), against numpy."""
    np_dtype = np.dtype(ml_dtypes.bfloat16) if dtype == "bf16" else np.float16
    rng = np.random.default_rng(n)
    a = rng.uniform(-1, 1, (64, 64)).astype(np_dtype)
    b = rng.uniform(-1, 1, (64, n)).astype(np_dtype)
    given = b if trans else np.ascontiguousarray(b.T)
    out = np.full(128 * n // 2, np.nan, np.float32)
    wgmma_tile_rs.interpret[1, 128](
        a, given, out, N=n, TRANS_B=trans, shared_mem=shared_mem_rs(n)
    )
    d = np.zeros((64, n))
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    for k0 in range(0, 64, 16):  # one rounding to f32 per k16 instruction
        d = (d + a64[:, k0 : k0 + 16] @ b64[k0 : k0 + 16]).astype(np.float32)
    np.testing.assert_array_equal(unfragment(out, n), d)


# 16-bit widths whose helpers are not in wgmma.h: each file defines its own
OTHER_WIDTHS = (24, 96, 192)


@pytest.mark.parametrize("n", OTHER_WIDTHS)
def test_other_widths_are_one_hgmma_per_k16_with_a_helper_of_their_own(n):
    assert n in wgmma.WIDTHS_16 and n not in wgmma.WIDTHS
    inst = wgmma_tile.dispatch("bf16", N=n)
    assert (
        inst.source.count(f"void wgmma_m64n{n}k16_f32_bf16(float* d, uint64_t a,") == 1
    )
    assert f"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.bf16.bf16" in inst.source
    sass = sass_of(inst)
    assert sass.count(rf"^HGMMA\.64x{n}x16\.F32\.BF16\b") == 4
    assert sass.spills == 0
    trans = n % 64 == 0  # (the test kernel copies an MN-major B by 64 columns)
    rs = wgmma_tile_rs.dispatch("f16", N=n, TRANS_B=trans)
    assert rs.source.count(f"void wgmma_m64n{n}k16_f32_f16(float* d, const vec<") == 1
    tnsp = r"\.tnspB" if trans else ""
    pattern = rf"^HGMMA\.64x{n}x16\.F32 R\d+, R\d+, gdesc\[UR\d+\]{tnsp}, "
    assert sass_of(rs).count(pattern) == 4


@pytest.mark.parametrize("n", OTHER_WIDTHS)
def test_the_interpreter_multiplies_other_widths(n):
    """As for the widths of wgmma.h: A and B from shared memory, then A from
    registers and B MN-major, against numpy."""
    np_dtype = np.dtype(ml_dtypes.bfloat16)
    a, bt = random_inputs(np.random.default_rng(n), n, np_dtype)
    out = np.full(128 * n // 2, np.nan, np.float32)
    wgmma_tile.interpret[1, 128](a, bt, out, N=n, ACC=False, shared_mem=shared_mem(n))
    a64, b64 = a.astype(np.float64), bt.astype(np.float64).T
    d = np.zeros((64, n))
    for k0 in range(0, 64, 16):  # one rounding to f32 per k16 instruction
        d = (d + a64[:, k0 : k0 + 16] @ b64[k0 : k0 + 16]).astype(np.float32)
    np.testing.assert_allclose(unfragment(out, n), d, rtol=0, atol=2e-6)
    trans = n % 64 == 0  # (the test kernel copies an MN-major B by 64 columns)
    b = np.ascontiguousarray(bt.T) if trans else bt
    out[:] = np.nan
    wgmma_tile_rs.interpret[1, 128](
        a, b, out, N=n, TRANS_B=trans, shared_mem=shared_mem_rs(n)
    )
    np.testing.assert_array_equal(unfragment(out, n), d)


def test_the_a_fragment_layout_covers_a_once_as_mma_a_fragments():
    row, col = wgmma.a_fragment_layout()
    seen = np.zeros((64, 16), int)
    np.add.at(seen, (row, col), 1)
    assert (seen == 1).all()
    # and it is the accumulator's layout of 16 columns: an accumulator
    # converted to 16 bits is an A fragment (attention's P)
    acc_row, acc_col = wgmma.accumulator_layout(16)
    np.testing.assert_array_equal(row, acc_row)
    np.testing.assert_array_equal(col, acc_col)


def test_the_interpreter_needs_a_dynamic_view_for_a_descriptor():
    out = np.zeros(4, np.float32)
    with pytest.raises(kdsl.InterpretError, match=r"E362.*static shared") as info:
        static_desc.interpret[1, 32](out)
    assert "test_wgmma.py" in str(info.value)


@kdsl.kernel
def static_desc(out: Pointer[Float32]):
    tile = kdsl.shared_array(BFloat16x8, (64, 8))
    d = kdsl.wgmma_desc(tile, (0, 0))
    out[0] = Float32(d & 1)


def test_a_warpgroup_must_be_whole():
    a, bt = random_inputs(np.random.default_rng(0), 64, np.float16)
    out = np.zeros(96 * 32, np.float32)
    with pytest.raises(kdsl.InterpretError, match=r"E360.*warpgroup"):
        wgmma_tile.interpret[1, 96](a, bt, out, N=64, shared_mem=shared_mem(64))


def test_the_interpreter_runs_the_fences_as_no_ops():
    out = np.zeros(128, np.float32)
    fences_only.interpret[1, 128](out)
    assert (out == 2.0).all()


G = example_modules()["gemm_wgmma"]


@pytest.mark.parametrize("dtype, hgmma", [("bf16", r"\.BF16"), ("f16", "")])
@pytest.mark.parametrize("shape", G.SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_the_gemm_hot_loop_is_hgmma_without_spills(shape, dtype, hgmma):
    bm, bn, stages = shape
    inst = G.gemm_wgmma.dispatch(dtype, BM=bm, BN=bn, STAGES=stages)
    assert inst.lowered.arch == "sm_90a"
    sass = sass_of(inst)
    # one k tile: BK / 16 wgmma of m64nBNk16 per warpgroup
    assert sass.count(rf"^HGMMA\.64x{bn}x16\.F32{hgmma}\b") == G.BK // 16
    # each thread's 16-byte copies of a k tile (ptxas may peel the loop's
    # first iterations: whole copies of the tile's, then)
    copies = sass.count(r"^LDGSTS\.E\.BYPASS\.128\b")
    assert copies > 0 and copies % ((bm + bn) * 8 // (bm * 2)) == 0
    assert sass.count(r"^WARPGROUP\.DEPBAR\.LE gsb0, 0x1\b") == 1  # wait(1)
    assert sass.spills == 0


def test_the_gemm_buffer_is_aligned_to_the_swizzle_pattern():
    source = G.gemm_wgmma.dispatch("bf16").source
    assert (
        "extern __shared__ __align__(1024) unsigned char kdsl_dynamic_smem[];" in source
    )


def test_the_fences_and_setmaxnreg_compile():
    inst = fences_only.dispatch()
    source = inst.source
    for helper in (
        "kdsl::fence_proxy_async();",
        "kdsl::wgmma_wait<1>();",
        "kdsl::setmaxnreg_inc<232>();",
        "kdsl::setmaxnreg_dec<40>();",
    ):
        assert helper in source
    sass = sass_of(inst)
    assert sass.count(r"^FENCE\.VIEW\.ASYNC\.S\b") == 1  # fence.proxy.async
    assert sass.count(r"^WARPGROUP\.ARRIVE\b") == 1  # wgmma.fence
    assert sass.count(r"^WARPGROUP\.DEPBAR\.LE gsb0, 0x1\b") == 1  # wait_group 1
    # without launch bounds of (threads, 1) ptxas cannot tell the register
    # count at entry and drops setmaxnreg (warning C7508): the PTX has it
    ptx = _ptx(source, inst.name)
    assert "setmaxnreg.inc.sync.aligned.u32 232;" in ptx
    assert "setmaxnreg.dec.sync.aligned.u32 40;" in ptx


def _ptx(source: str, name: str) -> str:
    from cupy.cuda import nvrtc as cupy_nvrtc

    prog = cupy_nvrtc.createProgram(source, f"{name}.cu", [], [])
    try:
        options = ["-arch=compute_90a", *nvrtc.include_options(), *nvrtc.EXACT_OPTIONS]
        cupy_nvrtc.compileProgram(prog, options)
        return cupy_nvrtc.getPTX(prog).decode()
    finally:
        cupy_nvrtc.destroyProgram(prog)


def test_the_generated_file_says_it_needs_sm_90a():
    header = "// Compile for sm_90a (nvcc: -arch=sm_90a)"
    assert header in wgmma_tile.dispatch("bf16").source
    assert header not in plain.dispatch().source


@kdsl.kernel(launch_bounds=(384, 1))
def specialised(out: Pointer[Float32]):
    if thread_idx.x < 128:  # the producer warpgroup gives registers away
        kdsl.setmaxnreg(40, inc=False)
        out[thread_idx.x] = 1.0
    else:  # the two consumer warpgroups take them
        kdsl.setmaxnreg(232)
        out[thread_idx.x] = 2.0


def test_setmaxnreg_reaches_the_sass_with_launch_bounds():
    sass = sass_of(specialised.dispatch())
    assert sass.count(r"^USETMAXREG\.TRY_ALLOC\.CTAPOOL\b.*0xe8$") == 1  # 232
    assert sass.count(r"^USETMAXREG\.DEALLOC\.CTAPOOL 0x28$") == 1  # 40
