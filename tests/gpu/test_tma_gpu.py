"""TMA, mbarriers, tensor maps and the warp-specialised GEMM
(examples/gemm_tma.py) on an H100/H200, from the simplest to the whole:

1. one 64 x 64 box through TMA into shared memory, unswizzled and with the
   128-byte swizzle (where every element lands), and past the array's edges
   (zeros);
2. a box loaded and stored back by TMA several times over one mbarrier (its
   phase parity alternates);
3. kdsl.tensor_map's refusals on device arrays;
4. each GEMM configuration on one tile (one k tile: the pipeline's first
   stage only), then on 10 x several tiles with 16 k tiles (the ring wraps,
   the grouped tile order has a partial group), then the same with a
   persistent grid of 7 blocks (each loops over several tiles, the ring's
   phases running on across them);
5. the autotuned gemm() at 4096^3 against torch.matmul.

Each check (tma_gpu_checks.py) runs in a subprocess with a timeout: a wrong
phase or byte count deadlocks a kernel instead of failing it, and the
timeout turns that into a failure that names the check.
"""

import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import isolated  # noqa: E402
from examples_index import example_modules  # noqa: E402

G = example_modules()["gemm_tma"]


@pytest.fixture(autouse=True)
def _needs_sm90():
    if cp.cuda.Device().compute_capability != "90":
        pytest.skip("TMA and wgmma need a compute capability 9.0 GPU")


def _run(check, *args, timeout=180):
    """``tma_gpu_checks.<check>(*args)`` in a fresh process."""
    failure = isolated.run("tma_gpu_checks", check, *args, timeout=timeout)
    if failure is not None:
        pytest.fail(failure)


DTYPES = ["bf16", "f16"]


@pytest.mark.parametrize("swizzle", [0, 128])
@pytest.mark.parametrize("dtype", DTYPES)
def test_1_a_box_lands_where_the_map_says(dtype, swizzle):
    _run("box_copy", dtype, swizzle, 64, 128)


def test_1_a_box_past_the_edges_reads_zeros():
    _run("box_copy", "bf16", 128, 160, -16)


@pytest.mark.parametrize("dtype", DTYPES)
def test_2_boxes_stored_back_over_alternating_phases(dtype):
    _run("box_move", dtype, 3)


def test_3_tensor_map_refusals():
    _run("tensor_map_errors")


CONFIGS = [(bn, s) for bn, s in G.SHAPES]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"BN{c[0]}-S{c[1]}")
@pytest.mark.parametrize("dtype", DTYPES)
def test_4_one_tile_one_k_tile(dtype, config):
    bn, stages = config
    _run("gemm_config", dtype, 128, 256, 64, bn, stages)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"BN{c[0]}-S{c[1]}")
@pytest.mark.parametrize("dtype", DTYPES)
def test_4_many_tiles_and_a_wrapping_ring(dtype, config):
    bn, stages = config
    _run("gemm_config", dtype, 1280, 768, 1024, bn, stages)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"BN{c[0]}-S{c[1]}")
@pytest.mark.parametrize("dtype", DTYPES)
def test_4_a_persistent_grid(dtype, config):
    bn, stages = config
    _run("gemm_config", dtype, 1280, 768, 1024, bn, stages, 7)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"BN{c[0]}-S{c[1]}")
@pytest.mark.parametrize("shape", [(200, 130, 72), (1000, 776, 1000), (64, 8, 8)])
def test_4_ragged_sizes_with_edge_tiles(shape, config):
    _run("gemm_ragged", "bf16", *shape, *config)


@pytest.mark.parametrize("dtype", DTYPES)
def test_4_the_autotuned_gemm_on_ragged_sizes(dtype):
    _run("gemm_ragged_autotuned", dtype, 1000, 3000, 520)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"BN{c[0]}-S{c[1]}")
@pytest.mark.parametrize("dtype", DTYPES)
def test_4_a_row_major_b_read_mn_major(dtype, config):
    bn, stages = config
    _run("gemm_config", dtype, 1280, 768, 1024, bn, stages, 7, True)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"BN{c[0]}-S{c[1]}")
@pytest.mark.parametrize(
    "shape, split, blocks, edge",
    [
        ((256, 512, 1024), 3, 7, False),  # 16 k tiles in slices of 5, 5, 6
        ((100, 776, 1000), 4, 132, True),  # ragged; 16 k tiles (the last of 40)
        ((16, 512, 520), 8, 5, True),  # decoding rows; slices of 1 and 2 k tiles
    ],
)
def test_4_split_k(shape, split, blocks, edge, config):
    _run("gemm_split", "bf16", *shape, *config, split, blocks, edge)


@pytest.mark.parametrize("shape", [(16, 4096, 14336), (128, 1024, 14336)])
def test_4_matmul_splits_k_for_few_tiles(shape):
    assert G.most_split(*shape, 132) > 1
    _run("matmul_example", "bf16", *shape, timeout=300)


@pytest.mark.parametrize(
    "shape", [(16, 4096, 4096), (100, 776, 1000), (64, 4096, 14336)]
)
def test_4_matmul_adds_the_slices_as_split_sum_does(shape):
    _run("matmul_bits", "bf16", *shape, timeout=300)


@pytest.mark.parametrize("shape", [(4096, 4096, 4096), (1000, 776, 1000)])
def test_4_matmul_takes_b_as_it_is(shape):
    _run("matmul_example", "bf16", *shape, timeout=300)


@pytest.mark.parametrize("dtype", DTYPES)
def test_5_the_autotuned_gemm_matches_torch_matmul(dtype):
    _run("gemm_vs_torch", dtype, 4096, timeout=300)
