"""Hopper's warpgroup MMA on the GPU (sm_90a, an H100/H200): one warpgroup's
wgmma_tile (tests/tensorcores/wgmma_kernels.py) for every width N and both
16-bit types against numpy, which checks together the 128-byte swizzle the
copies write, the matrix descriptors (start, stride byte offset, the 32-byte
k steps), the K-major A and B^T, scale_d and the accumulator layout
(wgmma.accumulator_layout) kdsl documents.  The GEMM example itself runs in
test_examples_gpu.py (example_checks.gemm_wgmma) and against torch.matmul
here.

Tolerance: the tensor cores sum in their own order; as for mma.sync
(docs/tensor-cores.md), |gpu - exact| <= 2^-20 (|c| + sum |a b|) for f32
accumulators, with inputs in [-1, 1] and K = 64."""

import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tensorcores"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import wgmma_kernels as W  # noqa: E402
from examples_index import example_modules  # noqa: E402

from kdsl.transpile.builtins import wgmma  # noqa: E402


def _hopper():
    return cp.cuda.Device().compute_capability == "90"


@pytest.fixture(autouse=True)
def _needs_sm90():
    if not _hopper():
        pytest.skip("wgmma needs a compute capability 9.0 GPU")


@pytest.mark.parametrize("acc", [False, True], ids=["overwrite", "accumulate"])
@pytest.mark.parametrize("n", wgmma.WIDTHS)
@pytest.mark.parametrize("dtype", ["bf16", "f16"])
def test_one_warpgroup_tile_matches_numpy(dtype, n, acc):
    import torch

    rng = np.random.default_rng(n)
    if dtype == "bf16":  # numpy has no bfloat16: round through torch
        a = torch.tensor(rng.uniform(-1, 1, (64, W.K)), dtype=torch.bfloat16)
        bt = torch.tensor(rng.uniform(-1, 1, (n, W.K)), dtype=torch.bfloat16)
        a_host, bt_host = a.float().numpy(), bt.float().numpy()
        a_dev, bt_dev = a.cuda(), bt.cuda()
    else:
        a_host, bt_host = W.random_inputs(rng, n, np.float16)
        a_dev, bt_dev = cp.asarray(a_host), cp.asarray(bt_host)
    out = cp.full(128 * n // 2, cp.nan, cp.float32)
    W.wgmma_tile[1, 128](a_dev, bt_dev, out, N=n, ACC=acc, shared_mem=W.shared_mem(n))
    got = W.unfragment(cp.asnumpy(out), n)
    a64, b64 = a_host.astype(np.float64), bt_host.astype(np.float64).T
    want = a64 @ b64 + (1.0 if acc else 0.0)
    bound = 2.0**-20 * ((1.0 if acc else 0.0) + np.abs(a64) @ np.abs(b64))
    assert not np.isnan(got).any()
    assert (np.abs(got - want) <= bound + 1e-30).all()


@pytest.mark.parametrize(
    "trans, n", [(True, 64), (True, 128), (True, 256), (False, 8), (False, 256)]
)
@pytest.mark.parametrize("dtype", ["bf16", "f16"])
def test_register_a_and_mn_major_b_match_numpy(dtype, trans, n):
    """wgmma_tile_rs: A's fragments from registers (wgmma.a_fragment_layout)
    and B MN-major (trans_b, the leading byte offset between 64-column
    blocks) or K-major."""
    import torch

    rng = np.random.default_rng(n)
    t = {"bf16": torch.bfloat16, "f16": torch.float16}[dtype]
    a = torch.tensor(rng.uniform(-1, 1, (64, W.K)), dtype=t)
    b = torch.tensor(rng.uniform(-1, 1, (W.K, n)), dtype=t)
    given = b if trans else b.t().contiguous()
    out = cp.full(128 * n // 2, cp.nan, cp.float32)
    W.wgmma_tile_rs[1, 128](
        a.cuda(), given.cuda(), out, N=n, TRANS_B=trans, shared_mem=W.shared_mem_rs(n)
    )
    got = W.unfragment(cp.asnumpy(out), n)
    a64, b64 = a.double().numpy(), b.double().numpy()
    bound = 2.0**-20 * (np.abs(a64) @ np.abs(b64))
    assert not np.isnan(got).any()
    assert (np.abs(got - a64 @ b64) <= bound + 1e-30).all()


G = example_modules()["gemm_wgmma"]


@pytest.mark.parametrize("shape", [(4096, 4096, 4096), (384, 512, 192)])
@pytest.mark.parametrize("dtype", ["bf16", "f16"])
def test_the_gemm_matches_torch_matmul(dtype, shape):
    import torch

    M, N, K = shape
    t = {"bf16": torch.bfloat16, "f16": torch.float16}[dtype]
    g = torch.Generator(device="cuda").manual_seed(0)
    a = torch.rand((M, K), device="cuda", dtype=t, generator=g) * 2 - 1
    b = torch.rand((K, N), device="cuda", dtype=t, generator=g) * 2 - 1
    c = torch.full((M, N), float("nan"), device="cuda", dtype=t)
    G.gemm(a, b.t().contiguous(), c)
    want = a.double() @ b.double()
    scale = a.double().abs().sum(1).max().item()
    tol = {"bf16": 1.6e-2, "f16": 2e-3}[dtype]  # c's rounding, as for torch's
    assert not torch.isnan(c).any()
    assert (c.double() - want).abs().max().item() / scale <= tol
    assert (torch.matmul(a, b).double() - want).abs().max().item() / scale <= tol
