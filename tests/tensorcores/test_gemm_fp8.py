"""examples/gemm_fp8.py without a GPU: every configuration of both variants
compiles for sm_90a to the pipeline it describes (4 QGMMA.64xBNx32 with the
e4m3 types a k tile — ptxas's 8-bit HGMMA —, the wgmma waits that keep one
k tile's group in flight; block-scaled 4 QGMMA.64x64x32 for each 64
columns, the first 64 of each 128 promoted while the second's are in
flight, one FFMA an element; the whole-tile epilogue's 16-byte stores, the TMA boxes,
setmaxnreg, no local memory), the whole-tile epilogue's transpose in the
interpreter, the host functions' shape and dtype checks, the float64
references the GPU tests hold it to, the GPU checks' tolerance on CPU
tensors, and the kdsl.torch operator's shape inference.  The kernel itself
runs only on an H100/H200 (the interpreter refuses its tensor maps, E836):
tests/gpu/test_gemm_fp8_gpu.py."""

import re
import sys

import pytest

from examples_index import ROOT, example_modules
from sass import sass_of

torch = pytest.importorskip("torch")
sys.path.insert(0, str(ROOT / "tests" / "gpu"))
import fp8_gpu_checks as C  # noqa: E402

F = example_modules()["gemm_fp8"]
CONFIGS = [(n, s, False) for n, s in F.SHAPES] + [
    (n, s, True) for n, s in F.BLOCK_SHAPES
]


@pytest.mark.parametrize("edge", [False, True], ids=["whole", "edge"])
@pytest.mark.parametrize("bn, stages, block_scaled", CONFIGS, ids=str)
def test_each_configuration_is_the_pipeline_it_describes(
    bn, stages, block_scaled, edge
):
    inst = F.gemm_fp8.dispatch(
        "bf16", BN=bn, STAGES=stages, EDGE=edge, BLOCK_SCALED=block_scaled
    )
    assert inst.lowered.arch == "sm_90a"
    sass = sass_of(inst)
    # 4 a k tile; block-scaled 4 m64n64k32 for each 64 columns
    width = 64 if block_scaled else bn
    qgmma = rf"^QGMMA\.64x{width}x32\.F32\.E4M3\.E4M3 R\d+, gdesc"
    assert sass.count(qgmma) == 4 * (bn // width)
    assert sass.count(r"^HGMMA\b") == 0
    if block_scaled:  # each 128 columns' two partial sums: the first waited
        # for with the second's group in flight, then the second; each
        # promoted, one FFMA an element, into the sum's own registers
        assert sass.count(r"^WARPGROUP\.DEPBAR\.LE gsb0, 0x0\b") == bn // 128
        assert sass.count(r"^WARPGROUP\.DEPBAR\.LE gsb0, 0x1\b") == bn // 128
        assert sass.count(r"^FFMA\b") == bn // 2
        assert sass.count(r"^FADD\b") == 0
    else:  # the k tile before is waited for with this one's group in flight
        assert sass.count(r"^WARPGROUP\.DEPBAR\.LE gsb0, 0x1\b") == 1
    assert sass.count(r"^UTMALDG\.2D\b") == (F.BM + bn) // F.BOX
    assert sass.count(r"^USETMAXREG\b") == 2
    if block_scaled:
        # the sum, the partial sums and the scales fill a consumer's 232
        # registers in the k loop: ptxas keeps a few of the tile's own values
        # in local memory, stored and loaded once a tile, never from the first
        # wgmma to the last promotion
        ins = sass.instructions
        first = next(i for i, x in enumerate(ins) if x.startswith("QGMMA"))
        last = max(i for i, x in enumerate(ins) if x.startswith("FFMA"))
        assert not any(re.search(r"\b(LDL|STL)\b", x) for x in ins[first:last])
        assert sass.spills <= (20 if edge else 16)
    else:
        assert sass.spills == 0
    # whole tiles: one 16-byte store a row and 4 column blocks (after
    # quad_transpose's 4 shuffles); edges: a 4-byte store a pair
    wide = sass.count(r"^STG\.E\.128\b")
    assert wide == (0 if edge else 2 * bn // 32)
    assert sass.count(r"^SHFL\.BFLY\b") == (0 if edge else 4 * 2 * bn // 32)
    assert sass.count(r"^(@!?U?P\d+ )?STG\.E\b(?!\.)") == (bn // 4 if edge else 0)


def test_the_f32_output_compiles_too():
    sass = sass_of(F.gemm_fp8.dispatch("f32", EDGE=True))
    assert sass.count(r"^QGMMA\.64x256x32\.F32\.E4M3\.E4M3 ") == 4
    assert sass.spills == 0


def test_the_source_defines_the_one_helper_it_calls():
    src = F.gemm_fp8.dispatch("bf16").source
    assert src.count("void wgmma_m64n256k32_f32_e4m3_e4m3(") == 1
    assert "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3 " in src
    assert "k16_f32_bf16(" in src  # the 16-bit helpers stay in wgmma.h's part


def _operands(M=200, N=136, K=272, block_scaled=False):
    return C.operands(M, N, K, seed=3, block_scaled=block_scaled, device="cpu")


def test_check_shapes():
    a, b, sa, sb = _operands()
    c = torch.empty((200, 136), dtype=torch.bfloat16)
    assert F.check_shapes(a, b, sa, sb, c, False)[:3] == (200, 136, 272)
    with pytest.raises(ValueError, match="column-major"):
        F.check_shapes(a, b.contiguous(), sa, sb, c, False)
    with pytest.raises(TypeError, match="float8_e4m3fn"):
        F.check_shapes(a.to(torch.bfloat16), b, sa, sb, c, False)
    with pytest.raises(ValueError, match="multiple of 16"):
        F.check_shapes(a[:, :264], b[:264], sa, sb, c, False)
    with pytest.raises(ValueError, match="scale_a must be .* of shape \\(200, 3\\)"):
        F.check_shapes(a, b, sa, sb, c, True)
    a, b, sa, sb = _operands(block_scaled=True)
    assert tuple(sa.shape) == (200, 3) and tuple(sb.shape) == (2, 3)
    assert F.check_shapes(a, b, sa, sb, c, True)[:3] == (200, 136, 272)


def test_the_block_scaled_reference_scales_each_block_of_the_sum():
    a, b, sa, sb = _operands(block_scaled=True)
    want = torch.zeros((200, 136), dtype=torch.float64)
    a64, b64 = a.double(), b.double()
    for kb in range(3):
        ks = slice(128 * kb, 128 * kb + 128)
        part = a64[:, ks] @ b64[ks]
        col_scale = sb.double()[torch.arange(136) // 128, kb]
        want += part * sa.double()[:, kb, None] * col_scale[None, :]
    got = F.reference(a, b, sa, sb, True)
    assert torch.allclose(got, want, rtol=1e-12, atol=1e-9)
    per_tensor = F.reference(a, b, torch.tensor([2.0]), torch.tensor([0.5]), False)
    assert torch.equal(per_tensor, a64 @ b64)


@pytest.mark.parametrize("block_scaled", [False, True])
def test_the_gpu_checks_tolerance_accepts_rounding_and_catches_errors(block_scaled):
    a, b, sa, sb = _operands(block_scaled=block_scaled)
    exact = F.reference(a, b, sa, sb, block_scaled)
    c = exact.to(torch.bfloat16)
    assert C._check(c, a, b, sa, sb, "bf16", block_scaled, "cpu") <= 1
    c[17, 33] += 64  # a wrong element (the bound here is a few units)
    with pytest.raises(AssertionError, match="worst error"):
        C._check(c, a, b, sa, sb, "bf16", block_scaled, "cpu")
    c[17, 33] = float("nan")
    with pytest.raises(AssertionError, match="NaN"):
        C._check(c, a, b, sa, sb, "bf16", block_scaled, "cpu")


def test_the_operator_infers_its_shape_without_running():
    sys.path.insert(0, str(ROOT))
    from examples.pytorch.ops import scaled_mm_fp8
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        a = torch.empty((100, 64), dtype=torch.float8_e4m3fn)
        b = torch.empty((48, 64), dtype=torch.float8_e4m3fn).t()
        one = torch.ones(1)
        out = scaled_mm_fp8(a, b, one, one, torch.float32)
    assert tuple(out.shape) == (100, 48) and out.dtype == torch.float32


@pytest.mark.parametrize("K", [16, 272, 4096])
def test_the_tensor_maps_take_the_fp8_bytes(K):
    """What gemm_fp8.tensor_maps hands TMA (Uint8 views, boxes of 64 rows x
    128 bytes, 128-byte swizzle) passes kdsl.tensor_map's checks (E841-E844)
    for K down to 16; only the device is made up here."""
    from dataclasses import replace

    from kdsl.runtime import arrays, tensormap

    a, b, _, _ = C.operands(200, 136, K, device="cpu")
    for t in (a, b.t()):
        info = replace(arrays.describe(t.view(torch.uint8)), device=0)
        enc = tensormap.plan(info, (F.BOX, F.BK), 128)
        assert enc.data_type == "UINT8"
        assert enc.box == (128, 64) and enc.row_stride == K
    # one stage's expect_tx: every box whole (TMA counts zero-filled bytes)
    assert F.shared_mem(256, 1) == (F.BM + 256) * F.BK


def _interpret_scaled_gemm(M, N, K, block_scaled, seed):
    """wgmma_fp8_kernels.scaled_gemm — the example's arithmetic, fed by
    cp.async — in the interpreter on CPU tensors."""
    import ml_dtypes

    import wgmma_fp8_kernels as W

    a, b, sa, sb = C.operands(
        M, N, K, seed=seed, block_scaled=block_scaled, device="cpu"
    )
    as_np = (
        lambda t: t.contiguous().view(torch.uint8).numpy().view(ml_dtypes.float8_e4m3fn)
    )  # noqa: E731
    c = torch.full((M, N), float("nan"))
    W.scaled_gemm.interpret[(M // 64, N // 128), 128](
        as_np(a), as_np(b.t()), sa.numpy(), sb.numpy(), c.numpy(), N, K,
        BLOCK_SCALED=block_scaled, shared_mem=W.SCALED_GEMM_SHARED,
    )  # fmt: skip
    return c, (a, b, sa, sb)


@pytest.mark.parametrize("block_scaled", [False, True], ids=["per-tensor", "block"])
def test_the_examples_arithmetic_in_the_interpreter(block_scaled):
    """Per-tensor scales applied once after the whole sum, or each 128-deep
    block's partial product promoted with its row's and column block's
    scales (several k tiles, two blocks of rows and of columns): against
    the float64 references the GPU tests use, well inside their bound."""
    c, (a, b, sa, sb) = _interpret_scaled_gemm(128, 256, 384, block_scaled, seed=5)
    worst = C._check(c, a, b, sa, sb, "f32", block_scaled, "interpreter")
    assert worst < 1e-3  # the interpreter's sums are exact but for f32 roundings
    if block_scaled:  # the scales matter: without them the product differs
        plain = F.reference(a, b, torch.ones(1), torch.ones(1), False)
        assert not torch.allclose(c.double(), plain, rtol=1e-2)


def test_the_interpreted_gemm_compiles_to_qgmma():
    import wgmma_fp8_kernels as W

    for block_scaled in (False, True):
        sass = sass_of(W.scaled_gemm.dispatch(BLOCK_SCALED=block_scaled))
        assert sass.count(r"^QGMMA\.64x128x32\.F32\.E4M3\.E4M3 ") == 4
        assert sass.spills == 0


@pytest.mark.parametrize("out", ["bf16", "f32"])
def test_the_whole_tile_epilogue_transposes_each_4_lanes(out):
    """The pairs a thread holds (block b's columns 8 b + 2 (l % 4), + 1)
    land, after quad_transpose, as whole 8-column rows: c equals the
    matrix the pairs came from (interpreter; the shuffles and selects on
    the pairs' bits, Uint32 for bf16 and Uint64 for f32)."""
    import numpy as np

    import wgmma_fp8_kernels as W

    want = np.arange(8 * 32, dtype=np.float32).reshape(8, 32) - 100.5
    acc_in = np.empty(32 * 8, np.float32)  # thread l, pair b, element e
    for lane in range(32):
        for b in range(4):
            for e in range(2):
                acc_in[8 * lane + 2 * b + e] = want[
                    lane // 4, 8 * b + 2 * (lane % 4) + e
                ]
    dtype = {"bf16": torch.bfloat16, "f32": torch.float32}[out]
    c = torch.full((8, 32), float("nan"), dtype=dtype)
    W.epilogue_rows.interpret[1, 32](acc_in, c)
    assert torch.equal(c, torch.from_numpy(want).to(dtype))
