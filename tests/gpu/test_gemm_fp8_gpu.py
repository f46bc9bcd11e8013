"""examples/gemm_fp8.py on an H100/H200: each configuration of both
variants on one tile, on ragged sizes (EDGE: TMA's zero fill, stores only
inside c) with a block a tile and a persistent grid, then the autotuned
host functions against torch._scaled_mm (per-tensor) and a float64 torch
reference of the block-scaled product at odd sizes and 4096^3, and the
kdsl.torch operator.  Each check runs in a subprocess with a timeout
(fp8_gpu_checks.py; a hung mbarrier fails instead of stalling)."""

import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")
pytest.importorskip("torch")

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import isolated  # noqa: E402
from examples_index import example_modules  # noqa: E402

F = example_modules()["gemm_fp8"]


@pytest.fixture(autouse=True)
def _needs_sm90():
    if cp.cuda.Device().compute_capability != "90":
        pytest.skip("gemm_fp8 needs a compute capability 9.0 GPU")


def _passes(check, *args, timeout=120):
    failure = isolated.run("fp8_gpu_checks", check, *args, timeout=timeout)
    assert failure is None, failure


CONFIGS = [(n, s, False) for n, s in F.SHAPES] + [
    (n, s, True) for n, s in F.BLOCK_SHAPES
]


@pytest.mark.parametrize("bn, stages, block_scaled", CONFIGS, ids=str)
def test_each_configuration(bn, stages, block_scaled):
    _passes("config", "bf16", bn, stages, block_scaled, 128, bn, 128, False, False)
    _passes("config", "f32", bn, stages, block_scaled, 1024, 3 * bn, 2048, False, True)
    _passes(
        "config", "bf16", bn, stages, block_scaled, 333, 2 * bn - 6, 784, True, False
    )
    _passes(
        "config", "f32", bn, stages, block_scaled, 1000, 5 * bn + 2, 1040, True, True
    )


@pytest.mark.parametrize("out", ["bf16", "f32"])
@pytest.mark.parametrize(
    "shape", [(4096, 4096, 4096), (200, 520, 4112), (1, 64, 16)], ids=str
)
def test_host_functions(out, shape):
    _passes("scaled_mm", out, *shape)
    _passes("block_scaled", out, *shape)


def test_the_operator():
    _passes("op", 512, 768, 1024)
