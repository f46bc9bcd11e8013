"""wgmma with 8-bit inputs on the GPU (sm_90a, an H100/H200): one
warpgroup's wgmma_fp8_tile (tests/tensorcores/wgmma_fp8_kernels.py) for
every pair of e4m3/e5m2, several widths N (odd multiples of 8 among them),
A from shared memory and from registers, against the interpreter's model —
which checks the 8-bit swizzle, descriptors, k32 steps, the register
fragment and the accumulator layout — and the hardware's precision against
the stated tolerance (docs/tensor-cores.md, "fp8"):

    |gpu - exact| <= sum over k32 instructions of
                     33 * 2^-12 * max(|D|, max_k |a_k b_k|) + 2^-23 |D'|

(``wgmma_fp8_kernels.tolerance``).  The PTX ISA does not document the
precision of the tensor cores' internal sum of 8-bit products;
DeepSeek-V3 (sec. 3.3.2) reports that about 14 bits are kept, SageAttention2
an FP22 accumulator (13 mantissa bits).  Float16 accumulators (PTX's .f16
D): the same with 2^-11 |D'| for their rounding.  Each case also reports, in the -s
output, whether the GPU agreed with the interpreter bit for bit, the share
of elements that did and the largest difference in units of the bound."""

import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")
torch = pytest.importorskip("torch")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tensorcores"))
import wgmma_fp8_kernels as W  # noqa: E402

NP = {"f8e4m3fn": ml_dtypes.float8_e4m3fn, "f8e5m2": ml_dtypes.float8_e5m2}
TORCH = {"f8e4m3fn": torch.float8_e4m3fn, "f8e5m2": torch.float8_e5m2}
PAIRS = [(a, b) for a in NP for b in NP]
# (TA, TB, N, K, A from registers): every type pair, odd and full widths
CASES = [(a, b, n, k, False) for a, b in PAIRS for n, k in ((24, 128), (256, 256))]
CASES += [
    ("f8e4m3fn", "f8e4m3fn", 136, 128, True),
    ("f8e5m2", "f8e4m3fn", 8, 256, True),
]


@pytest.fixture(autouse=True)
def _needs_sm90():
    if cp.cuda.Device().compute_capability != "90":
        pytest.skip("wgmma needs a compute capability 9.0 GPU")


@pytest.fixture(scope="module", autouse=True)
def _compiled():
    """The instances compiled first, in parallel (NVRTC releases the GIL)."""
    from concurrent.futures import ThreadPoolExecutor

    from kdsl.runtime import compile as kcompile

    insts = [W.instance(a, b, N=n, K=k, ACC=True, REGS=r) for a, b, n, k, r in CASES]
    insts += [W.instance(a, b, N=128, K=128) for a, b in PAIRS]
    insts += [
        W.wgmma_fp8_tile_f16.dispatch(a, b, N=n) for a, b in PAIRS for n in (24, 256)
    ]
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda i: kcompile.cubin_for(i, "sm_90"), insts))


def _device(host, name):
    bits = torch.from_numpy(np.ascontiguousarray(host).view(np.uint8).copy())
    return bits.cuda().view(TORCH[name])


def _run(ta, tb, n, k, regs, acc, seed):
    rng = np.random.default_rng(seed)
    a = W.random_fp8(rng, (64, k), NP[ta])
    bt = W.random_fp8(rng, (n, k), NP[tb])
    c = rng.uniform(-64, 64, (64, n)).astype(np.float32) if acc else None
    c_frag = W.fragment(c) if acc else np.zeros(128 * n // 2, np.float32)
    out = torch.full((128 * n // 2,), float("nan"), device="cuda")
    W.wgmma_fp8_tile[1, 128](
        _device(a, ta), _device(bt, tb), torch.from_numpy(c_frag).cuda(), out,
        N=n, K=k, ACC=acc, REGS=regs, shared_mem=W.shared_mem(n, k),
    )  # fmt: skip
    gpu = W.unfragment(out.cpu().numpy(), n)
    interp = np.full(128 * n // 2, np.nan, np.float32)
    W.wgmma_fp8_tile.interpret[1, 128](
        a, bt, c_frag, interp, N=n, K=k, ACC=acc, REGS=regs,
        shared_mem=W.shared_mem(n, k),
    )  # fmt: skip
    interp = W.unfragment(interp, n)
    exact = a.astype(np.float64) @ bt.astype(np.float64).T
    if acc:
        exact += c
    return gpu, interp, exact, W.tolerance(a, bt, c), W.model(a, bt, c)


@pytest.mark.parametrize("ta, tb, n, k, regs", CASES, ids=str)
def test_the_gpu_is_within_the_stated_tolerance_of_the_interpreter(ta, tb, regs, n, k):
    gpu, interp, exact, tol, model = _run(ta, tb, n, k, regs, acc=True, seed=n + k)
    assert not np.isnan(gpu).any()
    # the interpreter's model: the exact sum rounded once per instruction
    np.testing.assert_array_equal(interp, model)
    err = np.abs(gpu - exact)
    assert (err <= tol).all(), f"worst {np.max(err / tol):.3g} x the bound"
    same = gpu == interp
    print(
        f"\nfp8 wgmma {ta} x {tb} N={n} K={k} {'regs' if regs else 'smem'}: "
        f"bit-exact={bool(same.all())} equal={same.mean():.3f} "
        f"max|gpu-interp|/bound={np.max(np.abs(gpu - interp) / tol):.3g}"
    )


@pytest.mark.parametrize("ta, tb", PAIRS)
def test_scale_d_false_overwrites(ta, tb):
    gpu, interp, exact, tol, _ = _run(ta, tb, 128, 128, False, acc=False, seed=3)
    assert (np.abs(gpu - exact) <= tol).all()


def test_products_that_need_more_than_14_bits():
    """1 + 2^-24 + 2^-24 in one instruction (e4m3 x e5m2 subnormal
    products): the exact sum, 1 + 2^-23, is an f32. The interpreter gives it;
    a 14-bit internal sum drops the small products (1.0). Either is within
    the bound; the output says which the hardware does."""
    a = np.zeros((64, 128), NP["f8e4m3fn"])
    bt = np.zeros((8, 128), NP["f8e5m2"])
    a[:, 0], bt[:, 0] = 1.0, 1.0
    a[:, 1:3], bt[:, 1:3] = 2.0**-9, 2.0**-15
    out = torch.full((128 * 4,), float("nan"), device="cuda")
    zeros = torch.zeros(128 * 4, device="cuda")
    W.wgmma_fp8_tile[1, 128](
        _device(a, "f8e4m3fn"), _device(bt, "f8e5m2"), zeros, out, N=8,
        shared_mem=W.shared_mem(8),
    )  # fmt: skip
    got = W.unfragment(out.cpu().numpy(), 8)
    assert np.isin(got, [1.0, np.float32(1 + 2.0**-23)]).all()
    print(f"\nfp8 wgmma 1 + 2 x 2^-24 gives {float(got[0, 0])!r} on the GPU")


@pytest.mark.parametrize("ta, tb", PAIRS)
@pytest.mark.parametrize("n", [24, 256])
def test_f16_accumulators(ta, tb, n):
    """PTX's .f16 D: the tolerance with the f16 rounding of each
    instruction's result (2^-11 |D'|)."""
    rng = np.random.default_rng(n + 1)
    a = W.random_fp8(rng, (64, 128), NP[ta])
    bt = W.random_fp8(rng, (n, 128), NP[tb])
    c = rng.uniform(-4, 4, (64, n)).astype(np.float16)
    c_frag = W.fragment(c).astype(np.float16)
    out = torch.full((128 * n // 2,), float("nan"), device="cuda", dtype=torch.float16)
    W.wgmma_fp8_tile_f16[1, 128](
        _device(a, ta), _device(bt, tb), torch.from_numpy(c_frag).cuda(), out, N=n,
        shared_mem=W.shared_mem(n),
    )  # fmt: skip
    gpu = W.unfragment(out.cpu().numpy(), n)
    exact = c + a.astype(np.float64) @ bt.astype(np.float64).T
    tol = W.tolerance(a, bt, c, rounding=2.0**-11)
    assert not np.isnan(gpu).any()
    assert (
        np.abs(gpu - exact) <= tol
    ).all(), f"worst {np.max(np.abs(gpu - exact) / tol):.3g} x"
    model = W.model_f16(a, bt, c)
    same = gpu == model
    print(
        f"\nfp8 wgmma f16 D {ta} x {tb} N={n}: bit-exact={bool(same.all())} "
        f"equal={same.mean():.3f}"
    )


@pytest.mark.parametrize("block_scaled", [False, True], ids=["per-tensor", "block"])
def test_the_interpreted_scaled_gemm_on_the_gpu(block_scaled):
    """wgmma_fp8_kernels.scaled_gemm (gemm_fp8's arithmetic, fed by
    cp.async) on the GPU against the float64 reference and the
    interpreter's result (tests/tensorcores/test_gemm_fp8.py runs it
    there)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import fp8_gpu_checks as C

    M, N, K = 128, 256, 384
    a, b, sa, sb = C.operands(M, N, K, seed=5, block_scaled=block_scaled)
    c = torch.full((M, N), float("nan"), device="cuda")
    W.scaled_gemm[(M // 64, N // 128), 128](
        a, b.t().contiguous(), sa, sb, c, N, K, BLOCK_SCALED=block_scaled,
        shared_mem=W.SCALED_GEMM_SHARED,
    )  # fmt: skip
    worst = C._check(c, a, b, sa, sb, "f32", block_scaled, "scaled_gemm on the GPU")
    host = [t.cpu() for t in (a, b.t().contiguous(), sa, sb)]
    to_np = lambda t: t.view(torch.uint8).numpy().view(NP["f8e4m3fn"])  # noqa: E731
    interp = np.full((M, N), np.nan, np.float32)
    W.scaled_gemm.interpret[(M // 64, N // 128), 128](
        to_np(host[0]), to_np(host[1]), host[2].numpy(), host[3].numpy(), interp, N, K,
        BLOCK_SCALED=block_scaled, shared_mem=W.SCALED_GEMM_SHARED,
    )  # fmt: skip
    same = c.cpu().numpy() == interp
    print(
        f"\nfp8 scaled_gemm block_scaled={block_scaled}: worst {worst:.3g} x the "
        f"bound, bit-exact with the interpreter={bool(same.all())} "
        f"equal={same.mean():.3f}"
    )
