"""The row-wise and reduction examples against PyTorch on the GPU, PyTorch
tensors in and out (the examples' launch functions take them as they take
CuPy arrays).

Tolerances (the max of |kdsl - torch| / (1 + |torch|)): Float32 2e-6 for
softmax and 1e-5 for the norms (Float32 sums in another order), Float16 1e-3,
BFloat16 8e-3 — one rounding of the output either way (kdsl computes in
Float32 and rounds once; PyTorch's Float32 result rounds to a neighbour when
the two straddle a rounding boundary).
"""

import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from examples_index import example_modules  # noqa: E402

EX = example_modules()
DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
SOFTMAX_TOL = {"f32": 2e-6, "f16": 1e-3, "bf16": 8e-3}
NORM_TOL = {"f32": 1e-5, "f16": 1e-3, "bf16": 8e-3}
# widths of the benchmark, ragged and odd ones (narrower vectors, masked
# threads), one past the register kernel (online softmax) and a vocabulary
# (32000: softmax's 16 chunks a thread for Float32)
WIDTHS = [1024, 4096, 16384, 3000, 1000, 333, 24, 70_000, 32000]


def _max_err(got, want):
    """The largest difference, relative to 1 + |want| (outputs of a norm reach
    ~10, where a rounding of the output is worth ten times one near 1)."""
    want = want.float()
    return ((got.float() - want).abs() / (1 + want.abs())).max().item()


@pytest.mark.parametrize("cols", WIDTHS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_softmax_matches_torch(dtype, cols):
    rows = 257 if cols < 20_000 else 17
    x = torch.randn(rows, cols, device="cuda", dtype=DTYPES[dtype]) * 3
    y = torch.full_like(x, float("nan"))
    EX["softmax"].softmax(x, y)
    want = torch.softmax(x.float(), dim=1).to(x.dtype)
    assert _max_err(y, want) <= SOFTMAX_TOL[dtype]


@pytest.mark.parametrize("cache", [True, False])
def test_softmax_online_matches_torch(cache):
    x = torch.randn(64, 8192, device="cuda", dtype=torch.bfloat16)
    y = torch.full_like(x, float("nan"))
    mod = EX["softmax"]
    mod.softmax_online[64, 256](
        x, y, 8192, VEC=8, WARPS=8, CACHE=cache, shared_mem=8192 * 2 if cache else 0
    )
    want = torch.softmax(x.float(), dim=1).to(x.dtype)
    assert _max_err(y, want) <= SOFTMAX_TOL["bf16"]


@pytest.mark.parametrize("affine", ["both", "none", "weight"])
@pytest.mark.parametrize("cols", [1024, 4096, 8192, 3000, 333])
@pytest.mark.parametrize("dtype", DTYPES)
def test_layer_norm_matches_torch(dtype, cols, affine):
    t = DTYPES[dtype]
    x = torch.randn(300, cols, device="cuda", dtype=t) * 2 + 1
    w = torch.rand(cols, device="cuda", dtype=t) + 0.5
    b = torch.randn(cols, device="cuda", dtype=t)
    weight = None if affine == "none" else w
    bias = b if affine == "both" else None
    y = torch.full_like(x, float("nan"))
    EX["layer_norm"].launch(x, weight, bias, y, 1e-5)
    want = torch.nn.functional.layer_norm(
        x.float(),
        (cols,),
        None if weight is None else weight.float(),
        None if bias is None else bias.float(),
        1e-5,
    ).to(t)
    assert _max_err(y, want) <= NORM_TOL[dtype]


@pytest.mark.parametrize("residual", [True, False])
@pytest.mark.parametrize("cols", [1024, 4096, 8192, 3000, 333])
@pytest.mark.parametrize("dtype", DTYPES)
def test_rms_norm_matches_torch(dtype, cols, residual):
    t = DTYPES[dtype]
    x = torch.randn(300, cols, device="cuda", dtype=t)
    r = torch.randn(300, cols, device="cuda", dtype=t)
    w = torch.rand(cols, device="cuda", dtype=t) + 0.5
    res = r.clone() if residual else None
    y = torch.full_like(x, float("nan"))
    EX["rms_norm"].launch(x, res, w, y, 1e-6)
    h = (x.float() + r.float()).to(t) if residual else x
    if residual:
        assert torch.equal(res, h)  # updated in place
    hf = h.float()
    want = (hf * torch.rsqrt(hf.pow(2).mean(-1, keepdim=True) + 1e-6) * w.float()).to(t)
    assert _max_err(y, want) <= NORM_TOL[dtype]


@pytest.mark.parametrize("n", [1, 7, 4099, 1 << 20, (1 << 24) + 3])
@pytest.mark.parametrize("dtype", DTYPES)
def test_sum_and_max_match_torch(dtype, n):
    x = torch.randn(n, device="cuda", dtype=DTYPES[dtype])
    out = torch.full((1,), float("nan"), device="cuda")
    mod = EX["reduce_sum"]
    mod.max_into(x, out)
    assert out.item() == x.float().max().item()  # exact
    mod.sum_into(x, out)
    want = x.double().sum().item()
    assert abs(out.item() - want) <= 1e-6 * x.double().abs().sum().item() + 1e-6
    mod.sum_into(x, out)  # the counter was reset: a second launch is as good
    assert abs(out.item() - want) <= 1e-6 * x.double().abs().sum().item() + 1e-6
