"""examples/gemm_mma.py in the interpreter: every configuration of the
autotuned list (pinned in turn), full-tile and ragged sizes, bf16 and f16,
against a numpy model of its arithmetic (each m16n8k16 adds its 16 exact
products to the Float32 accumulator with one rounding, k in order); the
masked-edge instance's CUDA against its golden file (the EDGE=False
instances are checked by tests/golden/test_golden.py)."""

from pathlib import Path

import numpy as np
import pytest

import kdsl
from examples_index import example_modules

G = example_modules()["gemm_mma"]
HERE = Path(__file__).parent
DTYPES = {"bf16": kdsl.BFloat16.np_dtype, "f16": np.dtype(np.float16)}


def run(tuned, config, a, b, M, N, K):
    c = np.full((M, N), np.nan, a.dtype)
    tuned.pin(config)
    try:
        tuned.interpret[G.grid(M, N), G.block](a, b, c, M, N, K)
    finally:
        tuned.pin(None)
    return c


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize(
    "M, N, K, edge",
    [
        (128, 128, 64, False),
        (256, 128, 32, False),
        (100, 72, 40, True),
        (7, 8, 8, True),
    ],
)
@pytest.mark.parametrize("shape", G.SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_every_configuration_gives_the_rounded_exact_product(
    shape, M, N, K, edge, dtype
):
    t = DTYPES[dtype]
    rng = np.random.default_rng(M + N + K)
    a = rng.standard_normal((M, K)).astype(t)
    b = rng.standard_normal((K, N)).astype(t)
    tuned = G.gemm_edge if edge else G.gemm_full
    config = tuned.configs[G.SHAPES.index(shape)]
    c = run(tuned, config, a, b, M, N, K)
    np.testing.assert_array_equal(c.view(np.uint16), model(a, b).view(np.uint16))


def model(a, b):
    """D of the GEMM: a Float32 accumulator to which each k step of 16 adds
    its exact products (float64 holds these sums exactly), rounded once."""
    acc = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for k0 in range(0, a.shape[1], 16):
        part = a[:, k0 : k0 + 16].astype(np.float64) @ b[k0 : k0 + 16].astype(
            np.float64
        )
        acc = (acc.astype(np.float64) + part).astype(np.float32)
    return acc.astype(a.dtype)


def test_the_host_function_picks_the_variant():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((40, 16)).astype(np.float16)
    b = rng.standard_normal((16, 24)).astype(np.float16)
    c = np.zeros((40, 24), np.float16)
    G.gemm(a, b, c, interpret=True)
    np.testing.assert_array_equal(c, model(a, b))
    with pytest.raises(ValueError, match="multiples of 8"):
        G.gemm(a[:, :12], b[:12], c, interpret=True)


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_the_masked_edge_instance_matches_its_golden_file(golden, dtype):
    golden.check(
        G.gemm_mma.dispatch(dtype, EDGE=True),
        HERE.parent / "golden" / "features" / "tensorcores",
    )
