"""examples/gemm_mma.py on the GPU against torch.matmul (cuBLAS) at bf16 / f16
tolerance, square and ragged sizes, through the autotuned `gemm` (which
picks the full-tile or the masked-edge variant), and every configuration
pinned on one size of each kind."""

import sys
from pathlib import Path

import numpy as np
import pytest

import kdsl

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from examples_index import example_modules  # noqa: E402

G = example_modules()["gemm_mma"]
DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16}


def check(c, a, b):
    """c within rounding of D's type of the exact product, as torch's is."""
    exact = a.double() @ b.double()
    scale = a.double().abs() @ b.double().abs()
    eps = 2.0**-8 if a.dtype == torch.bfloat16 else 2.0**-11
    bound = eps * exact.abs() + 2.0**-18 * scale  # D's rounding + f32 sums
    ours = (c.double() - exact).abs()
    theirs = ((a @ b).double() - exact).abs()
    assert (ours <= bound).all(), f"worst {(ours - bound).max().item()}"
    assert (theirs <= bound).all()  # the tolerance is one cuBLAS meets too


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize(
    "M, N, K",
    [
        (1024, 1024, 1024),
        (2048, 2048, 2048),
        (4096, 4096, 4096),
        (1000, 1016, 520),
        (333, 200, 120),
        (1, 8, 8),
        (4097, 136, 4104),
    ],
)
def test_gemm_matches_torch_matmul(M, N, K, dtype):
    gen = torch.Generator(device="cuda").manual_seed(M + N + K)
    t = DTYPES[dtype]
    a = torch.randn(M, K, device="cuda", dtype=t, generator=gen)
    b = torch.randn(K, N, device="cuda", dtype=t, generator=gen)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=t)
    G.gemm(a, b, c)
    torch.cuda.synchronize()
    check(c, a, b)


@pytest.mark.parametrize("edge", [False, True])
@pytest.mark.parametrize("shape", G.SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_every_configuration(shape, edge):
    M, N, K = (512, 256, 512) if not edge else (300, 264, 200)
    a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
    tuned = G.gemm_edge if edge else G.gemm_full
    tuned.pin(tuned.configs[G.SHAPES.index(shape)])
    try:
        tuned[G.grid(M, N), G.block](
            a, b, c, M, N, K, stream=torch.cuda.current_stream()
        )
    finally:
        tuned.pin(None)
    torch.cuda.synchronize()
    check(c, a, b)


def test_the_gpu_and_the_interpreter_agree_bit_for_bit_on_a_small_size():
    """Both sum each k step's products in float32 accumulators; the tensor
    cores' own order may change the last bits: at most 1 ulp of bf16 here."""
    rng = np.random.default_rng(0)
    M, N, K = 64, 72, 48
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    ta, tb = (torch.from_numpy(x).to("cuda", torch.bfloat16) for x in (a, b))
    c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
    G.gemm(ta, tb, c)
    torch.cuda.synchronize()
    ha, hb = (
        x.cpu().view(torch.int16).numpy().view(kdsl.BFloat16.np_dtype) for x in (ta, tb)
    )
    hc = np.zeros((M, N), ha.dtype)
    G.gemm(ha, hb, hc, interpret=True)
    gpu = c.cpu().view(torch.int16).numpy().astype(np.int32)
    cpu = hc.view(np.int16).astype(np.int32)
    assert np.abs(gpu - cpu).max() <= 1


# -- the int8 GEMM (examples/gemm_int8.py) ---------------------------------------------
GI = example_modules()["gemm_int8"]


@pytest.mark.parametrize(
    "M, N, K",
    [(1024, 1024, 1024), (4096, 4096, 4096), (1000, 1016, 528), (33, 200, 112)],
)
def test_int8_gemm_matches_torch_int_mm(M, N, K):
    gen = torch.Generator(device="cuda").manual_seed(M + N + K)
    a = torch.randint(-128, 128, (M, K), device="cuda", dtype=torch.int8, generator=gen)
    bt = torch.randint(
        -128, 128, (N, K), device="cuda", dtype=torch.int8, generator=gen
    )
    c = torch.full((M, N), 77, device="cuda", dtype=torch.int32)
    GI.gemm(a, bt, c)
    torch.cuda.synchronize()
    want = (a.double() @ bt.double().T).int()  # exact: the sums fit in 2^53 and 2^31
    assert torch.equal(c, want)
    if M >= 17 and N % 8 == 0 and K % 8 == 0:
        assert torch.equal(c, torch._int_mm(a, bt.T))
