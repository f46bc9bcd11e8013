"""examples/gemm_fp8.py's int8 instance (``int_mm``: an Int32 c, Int8
tiles, no scales) without a GPU: every configuration compiles for sm_90a to
the per-tensor pipeline with 4 IGMMA.64xBNx32.S8.S8 a k tile (no float
GMMA), the wait that keeps one k tile's group in flight, the TMA boxes,
the whole-tile epilogue's 16-byte stores and no local memory; its source
defines the one integer helper and the Int32 wait; its arithmetic (the
wgmma of wgmma_int8_kernels.int_gemm over several k tiles) in the
interpreter exactly equal to numpy's; the host function's checks, and
gemm_int8.gemm's choice of it.  The kernel itself runs only on an
H100/H200: tests/gpu/test_gemm_int8_gpu.py."""

import numpy as np
import pytest

from examples_index import example_modules
from sass import sass_of

F = example_modules()["gemm_fp8"]
G = example_modules()["gemm_int8"]


def _instance(bn=256, stages=4, edge=False):
    return F.gemm_fp8.dispatch(
        "i32", scale_a=None, scale_b=None, BN=bn, STAGES=stages, EDGE=edge
    )


@pytest.mark.parametrize("edge", [False, True], ids=["whole", "edge"])
@pytest.mark.parametrize("bn, stages", F.SHAPES, ids=str)
def test_each_configuration_is_the_pipeline(bn, stages, edge):
    inst = _instance(bn, stages, edge)
    assert inst.lowered.arch == "sm_90a"
    sass = sass_of(inst)
    assert sass.count(rf"^IGMMA\.64x{bn}x32\.S8\.S8 R\d+, gdesc") == 4
    assert sass.count(r"^[HQ]GMMA\b") == 0
    assert sass.count(r"^WARPGROUP\.DEPBAR\.LE gsb0, 0x1\b") == 1
    assert sass.count(r"^UTMALDG\.2D\b") == (F.BM + bn) // F.BOX
    assert sass.count(r"^USETMAXREG\b") == 2
    assert sass.spills == 0
    # whole tiles: Int32 as f32, one 32-byte row of 8 a lane (two 16-byte
    # stores) after quad_transpose; edges: an 8-byte store a pair
    assert sass.count(r"^STG\.E\.128\b") == (0 if edge else 4 * bn // 32)
    assert sass.count(r"^SHFL\.BFLY\b") == (0 if edge else 8 * 2 * bn // 32)
    assert sass.count(r"^[FI]MUL\b") == 0  # no scale


def test_the_source_defines_the_integer_helper_and_wait():
    src = _instance().source
    assert src.count("void wgmma_m64n256k32_s32_s8_s8(int32_t* d, uint64_t a,") == 1
    assert "wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8 " in src
    assert "void wgmma_wait(int32_t* d)" in src
    kernel = src.split('extern "C"')[1]
    assert "float* scale_a" not in kernel and "scale_a[" not in kernel  # no scales


@pytest.mark.parametrize("M, N, K", [(64, 128, 128), (128, 256, 384)])
def test_the_arithmetic_in_the_interpreter(M, N, K):
    """The wgmma of the int8 instance over several k tiles (scale_d=False
    first, then accumulating), extreme values included: exactly numpy's
    product."""
    import wgmma_int8_kernels as W

    rng = np.random.default_rng(M + K)
    a = rng.integers(-128, 128, (M, K)).astype(np.int8)
    bt = rng.integers(-128, 128, (N, K)).astype(np.int8)
    a[0, :] = -128
    bt[0, :] = -128  # c[0, 0] = K * 2^14
    c = np.full((M, N), -7, np.int32)
    W.int_gemm.interpret[(M // 64, N // 128), 128](
        a, bt, c, N, K, shared_mem=W.INT_GEMM_SHARED
    )
    want = a.astype(np.int64) @ bt.astype(np.int64).T
    np.testing.assert_array_equal(c, want)
    assert c[0, 0] == K * 2**14


def test_int_mm_checks_its_operands():
    torch = pytest.importorskip("torch")
    a = torch.zeros((64, 32), dtype=torch.int8)
    bt = torch.zeros((48, 32), dtype=torch.int8)
    c = torch.zeros((64, 48), dtype=torch.int32)
    with pytest.raises(TypeError, match="int8 a and bt and an int32 c"):
        F.int_mm(a.to(torch.uint8), bt, c)
    with pytest.raises(TypeError, match="int32 c"):
        F.int_mm(a, bt, c.float())
    with pytest.raises(ValueError, match="multiple of 16"):
        F.int_mm(a[:, :24].contiguous(), bt[:, :24].contiguous(), c)
    with pytest.raises(ValueError, match="N even"):
        F.int_mm(a, bt[:47], c[:, :47].contiguous())
    with pytest.raises(ValueError, match="contiguous"):
        F.int_mm(a, bt, c.t().contiguous().t())
    with pytest.raises(ValueError, match=r"c must be \(64, 48\)"):
        F.int_mm(a, bt, c[:32])


def test_gemm_int8_takes_the_wgmma_path_only_for_hopper_int8_tensors():
    torch = pytest.importorskip("torch")
    a = torch.zeros((64, 32), dtype=torch.int8)
    bt = torch.zeros((48, 32), dtype=torch.int8)
    c = torch.zeros((64, 48), dtype=torch.int32)
    assert not G.hopper_operands(a, bt, c)  # CPU tensors
    assert not G.hopper_operands(a.numpy(), bt.numpy(), c.numpy())
