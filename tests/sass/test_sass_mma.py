"""Speed guards of the tensor-core GEMM (examples/gemm_mma.py) read from the
SASS (tests/sass.py), no GPU needed: the hot loop is mma.sync (HMMA) fed by
ldmatrix (LDSM) and cp.async (LDGSTS), and nothing spills to local memory."""

import pytest

from examples_index import example_modules
from sass import sass_of

G = example_modules()["gemm_mma"]


@pytest.mark.parametrize("edge", [False, True], ids=["full", "edge"])
@pytest.mark.parametrize("dtype, hmma", [("bf16", r"\.BF16"), ("f16", "")])
def test_the_gemm_hot_loop_is_hmma_without_spills(dtype, hmma, edge):
    inst = G.gemm_mma.dispatch(dtype, EDGE=edge)
    c = inst.constexprs
    sass = sass_of(inst)
    per_k_tile = (c["WM"] // 16) * (c["WN"] // 8) * (c["BK"] // 16)
    # the k loop's body, once: every m16n8k16 of a k tile, f32 accumulators
    # (nvdisasm spells f16 inputs HMMA.16816.F32, bf16 ones HMMA.16816.F32.BF16)
    assert sass.count(rf"^HMMA\.16816\.F32{hmma}\s") == per_k_tile
    assert sass.count(r"^HMMA") == per_k_tile
    assert sass.count(r"^LDSM\.16\.M88\.4\b") == (c["WM"] // 16) * (c["BK"] // 16)
    assert sass.count(r"^LDSM\.16\.MT88\.2\b") == (c["WN"] // 8) * (c["BK"] // 16)
    assert sass.count(r"^LDGSTS\.E\.BYPASS\.128\b") > 0  # cp.async.cg, 16 bytes
    assert sass.spills == 0


@pytest.mark.parametrize("shape", G.SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_no_configuration_spills(shape):
    names = ("BM", "BN", "BK", "WM", "WN", "STAGES")
    inst = G.gemm_mma.dispatch("bf16", **dict(zip(names, shape)))
    sass = sass_of(inst)
    assert sass.count(r"^HMMA") > 0
    assert sass.spills == 0


GI = example_modules()["gemm_int8"]


@pytest.mark.parametrize("edge", [False, True], ids=["full", "edge"])
def test_the_int8_gemm_hot_loop_is_imma_without_spills(edge):
    inst = GI.gemm_int8.dispatch("i8", EDGE=edge)
    c = inst.constexprs
    sass = sass_of(inst)
    per_k_tile = (c["WM"] // 16) * (c["WN"] // 8) * (c["BK"] // 32)
    assert sass.count(r"^IMMA\.16832\.S8\.S8\s") == per_k_tile
    assert sass.count(r"^LDSM\.16\.M88\.4\b") == (c["WM"] // 16) * (c["BK"] // 32)
    assert sass.count(r"^LDSM\.16\.M88\.2\b") == (c["WN"] // 8) * (c["BK"] // 32)
    assert sass.spills == 0
