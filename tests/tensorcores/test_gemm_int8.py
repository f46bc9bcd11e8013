"""examples/gemm_int8.py in the interpreter: every configuration (pinned in
turn), full-tile and ragged sizes, Int8 and Uint8, exact against numpy's
int64 product (wrapped to Int32; the wrap itself is tested on one MMA in
test_mma.py: a GEMM long enough to wrap is too slow to interpret)."""

import numpy as np
import pytest

from examples_index import example_modules

G = example_modules()["gemm_int8"]


def wrapped(x):
    return ((x + (1 << 31)) % (1 << 32) - (1 << 31)).astype(np.int32)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
@pytest.mark.parametrize(
    "M, N, K, edge", [(128, 128, 128, False), (100, 72, 48, True), (9, 8, 16, True)]
)
@pytest.mark.parametrize("shape", G.SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_every_configuration_is_exact(shape, M, N, K, edge, dtype):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(M * N + K)
    a = rng.integers(info.min, info.max, (M, K), endpoint=True).astype(dtype)
    bt = rng.integers(info.min, info.max, (N, K), endpoint=True).astype(dtype)
    c = np.full((M, N), 77, np.int32)
    tuned = G.gemm_edge if edge else G.gemm_full
    tuned.pin(tuned.configs[G.SHAPES.index(shape)])
    try:
        tuned.interpret[G.grid(M, N), G.block](a, bt, c, M, N, K)
    finally:
        tuned.pin(None)
    np.testing.assert_array_equal(
        c, wrapped(a.astype(np.int64) @ bt.T.astype(np.int64))
    )


@pytest.mark.parametrize("dtype", ["i8", "u8"])
def test_the_masked_edge_instance_matches_its_golden_file(golden, dtype):
    from pathlib import Path

    golden.check(
        G.gemm_int8.dispatch(dtype, EDGE=True),
        Path(__file__).parents[1] / "golden" / "features" / "tensorcores",
    )
