"""The fast elementwise, transpose, histogram, SGEMM and smooth examples on
PyTorch tensors, against PyTorch, through their launch helpers (the tuned
configurations, as the benchmarks run them). Tolerances are relative to
the largest reference value."""

import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device", allow_module_level=True)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import example_checks  # noqa: E402

EX = example_checks.EX
DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
# one rounding of a Float32 result to the dtype, plus Float32 math inside
TOL = {"f32": 2e-6, "f16": 1e-3, "bf16": 8e-3}
SIZES = [1, 7, 1000, (1 << 20) + 3, (1 << 24) + 17]


def _rel(got, want):
    g, w = got.double(), want.double()
    # relative to the largest value, or absolute below 1 (a lone tiny output)
    return float((g - w).abs().max() / w.abs().max().clamp_min(1.0))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_add_equals_torch_add(dtype, n):
    x = torch.randn(n, device="cuda", dtype=DTYPES[dtype])
    y = torch.randn(n, device="cuda", dtype=DTYPES[dtype])
    out = torch.full_like(x, float("nan"))
    EX["vector_add"].launch_add(x, y, out)
    torch.cuda.synchronize()
    assert torch.equal(out, x + y)  # one correctly rounded add: exact


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_gelu_forward_and_backward_match_torch(dtype, n):
    g = EX["gelu"]
    x = torch.randn(n, device="cuda", dtype=DTYPES[dtype]) * 3
    y = torch.full_like(x, float("nan"))
    g.launch_gelu(x, y)
    want = torch.nn.functional.gelu(x.double(), approximate="tanh")
    assert _rel(y, want) <= TOL[dtype] * 2
    go = torch.randn_like(x)
    gi = torch.full_like(x, float("nan"))
    g.launch_gelu_backward(x, go, gi)
    want = torch.ops.aten.gelu_backward(go.double(), x.double(), approximate="tanh")
    assert _rel(gi, want) <= TOL[dtype] * 4


@pytest.mark.parametrize("dtype", ["f32", "bf16"])
@pytest.mark.parametrize(
    "shape", [(1, 1), (33, 65), (1000, 777), (4096, 4096), (1000, 520), (8, 16384)]
)
def test_transpose_equals_torch(dtype, shape):
    x = torch.randn(*shape, device="cuda", dtype=DTYPES[dtype])
    out = torch.empty(shape[::-1], device="cuda", dtype=x.dtype)
    mod = EX["transpose"]
    # the 16-byte path wherever both sides are multiples of the lanes
    lanes = 16 // x.element_size()
    assert mod.vector_path(x, out) == (shape[0] % lanes == 0 == shape[1] % lanes)
    mod.launch_transpose(x, out)
    torch.cuda.synchronize()
    assert torch.equal(out, x.t())
    if mod.vector_path(x, out):  # and the autotuned TILES, each of them
        for tiles in (1, 2, 4):
            out.fill_(float("nan"))
            side = 8 * lanes
            grid = (-(-shape[1] // side), -(-shape[0] // (side * tiles)))
            mod.transpose_vec[grid, (8, 8 * tiles)](x, out, *shape, TILES=tiles)
            torch.cuda.synchronize()
            assert torch.equal(out, x.t())


@pytest.mark.parametrize("dtype", ["f32", "bf16", "f16"])
@pytest.mark.parametrize("n", [5, 100_003, 1 << 24])
def test_histogram_equals_a_bincount(dtype, n):
    lo, hi = -2.0, 2.0
    x = torch.randn(n, device="cuda", dtype=DTYPES[dtype])
    counts = torch.zeros(256, device="cuda", dtype=torch.int32)
    EX["histogram"].launch_histogram(x, counts, lo, hi)
    v = x.float()
    inside = v[(v >= lo) & (v < hi)]
    scale = torch.tensor(256.0, device="cuda") / (hi - lo)
    bins = ((inside - lo) * scale).to(torch.int32).clamp_max(255)
    assert torch.equal(counts, torch.bincount(bins, minlength=256).to(torch.int32))
    # torch.histc bins [lo, hi] alike, up to values on a bin edge, except
    # that its last bin also takes hi itself (bf16 and f16 hold 2.0 exactly)
    histc = torch.histc(v, bins=256, min=lo, max=hi)
    histc[-1] -= (v == hi).sum()
    assert float((histc - counts).abs().sum()) <= 1e-4 * n + 2


@pytest.mark.parametrize(
    "M,N,K",
    [
        (128, 128, 8),  # sgemm_warp EDGE (K % 16 != 0)
        (1000, 1000, 1000),  # sgemm_warp EDGE (ragged tiles), split-K in 2
        (3000, 2050, 1500),  # sgemm_warp EDGE, 4-byte accesses, split-K in 3
        (127, 4096, 4096),  # sgemm_warp SHORT split-K in 8: 32 tiles
        (1009, 3001, 2053),  # sgemm_warp EDGE split-K in 2, slices M N + 3 apart
        (100, 100, 100),  # sgemm_vec (c less than a tile wide)
        (120, 61, 300),  # sgemm
        (384, 640, 48),  # sgemm_warp: 3 row tiles, fewer than a group
        (4096, 4096, 4096),  # sgemm_warp, autotuned
        (8192, 8192, 8192),  # sgemm_warp: 8 groups of 8 row tiles
        (2048, 1024, 4096),  # sgemm_warp, not square
    ],
)
def test_sgemm_matches_torch_without_tf32(M, N, K):
    torch.backends.cuda.matmul.allow_tf32 = False
    a = torch.randn(M, K, device="cuda")
    b = torch.randn(K, N, device="cuda")
    c = torch.full((M, N), float("nan"), device="cuda")
    EX["matmul"].launch_sgemm(a, b, c)
    want = a.double() @ b.double()
    err = _rel(c, want)
    # Float32 accumulation over K terms; cuBLAS's own error for comparison
    assert err <= 4 * _rel(torch.matmul(a, b), want) + 1e-6


# sgemm, sgemm_vec, sgemm_warp (launch_sgemm picks by shape)
@pytest.mark.parametrize("M,N,K", [(130, 67, 19), (130, 68, 20), (256, 128, 32)])
def test_sgemm_gives_the_interpreters_bits(M, N, K):
    mod = EX["matmul"]
    rng = np.random.default_rng(5)
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    host = np.zeros((M, N), np.float32)
    grid = ((N + 127) // 128, (M + 127) // 128)
    mod.sgemm.interpret[grid, 256](a, b, host, None, M, N, K)
    dev = torch.zeros(M, N, device="cuda")
    mod.launch_sgemm(torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda(), dev)
    assert dev.cpu().numpy().tobytes() == host.tobytes()


@pytest.mark.parametrize("M,N,K", [(130, 67, 100), (130, 68, 100)])
def test_split_k_sgemm_gives_the_interpreters_bits(M, N, K):
    mod = EX["matmul"]
    rng = np.random.default_rng(6)
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    kernel = mod.sgemm_vec if N % 4 == 0 else mod.sgemm
    part = np.full(2 * ((M * N + 3) // 4 * 4), np.nan, np.float32)
    host = np.zeros((M, N), np.float32)
    kernel.interpret[((N + 127) // 128, (M + 127) // 128, 2), 256](
        a, b, host, part, M, N, K
    )
    mod.split_sum.interpret[(M * N + 255) // 256](part, host, M, N, SPLIT=2)
    dev = torch.zeros(M, N, device="cuda")
    mod.launch_sgemm(
        torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda(), dev, split=2
    )
    assert dev.cpu().numpy().tobytes() == host.tobytes()


def test_smooth_matches_a_torch_convolution():
    mod = EX["smooth"]
    n = (1 << 20) + 5
    x = torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    mod.smooth[(n + 255) // 256, 256](x, out, n)
    taps = torch.from_numpy(mod.TAPS).cuda().double().view(1, 1, -1)
    xd = x.double().view(1, 1, -1)  # float64: no TF32 in the reference
    want = torch.nn.functional.conv1d(xd, taps, padding=mod.RADIUS)
    assert _rel(out, want.view(-1)) <= 1e-6


def test_in_place_add_and_gelu_survive_the_autotune_search():
    n = (1 << 21) + 999  # a size of its own: its first launch searches
    x = torch.randn(n, device="cuda")
    want = x + x
    EX["vector_add"].launch_add(x, x, x)
    torch.cuda.synchronize()
    assert torch.equal(x, want)
    y = torch.randn(n + 1, device="cuda", dtype=torch.bfloat16)
    once = torch.empty_like(y)
    EX["gelu"].gelu[EX["gelu"].gelu_grid(n + 1, 2), 256](y, once, n + 1)
    EX["gelu"].launch_gelu(y, y)  # in place, searched
    assert torch.equal(y, once)  # BLOCK/UNROLL do not change the bits
