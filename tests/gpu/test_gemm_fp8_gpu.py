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
CONFIGS = [(n, s, False) for n, s in F.SHAPES] + [
    (n, s, True) for n, s in F.BLOCK_SHAPES
]


@pytest.fixture(autouse=True)
def _needs_sm90():
    if cp.cuda.Device().compute_capability != "90":
        pytest.skip("gemm_fp8 needs a compute capability 9.0 GPU")


@pytest.fixture(scope="module", autouse=True)
def _compiled():
    """Every instance compiled first, in parallel (NVRTC releases the GIL),
    into kdsl's disk cache, where the checks' subprocesses find them."""
    from concurrent.futures import ThreadPoolExecutor

    from kdsl.runtime import compile as kcompile

    insts = [
        F.gemm_fp8.dispatch(o, BN=n, STAGES=s, EDGE=e, BLOCK_SCALED=b)
        for o in ("bf16", "f32")
        for n, s, b in CONFIGS
        for e in (False, True)
    ]
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda i: kcompile.cubin_for(i, "sm_90"), insts))


def _passes(check, *args, timeout=120):
    failure = isolated.run("fp8_gpu_checks", check, *args, timeout=timeout)
    assert failure is None, failure


@pytest.mark.parametrize("bn, stages, block_scaled", CONFIGS, ids=str)
def test_each_configuration(bn, stages, block_scaled):
    _passes("configuration", bn, stages, block_scaled)


@pytest.mark.parametrize("out", ["bf16", "f32"])
def test_host_functions_against_torch(out):
    """At 4096^3, (200, 528, 4112), (72, 520, 208) and (1, 64, 16): scaled_mm against
    torch._scaled_mm and float64, block_scaled_mm against float64."""
    _passes("host_functions", out, timeout=240)


def test_the_operator():
    _passes("op", 512, 768, 1024)
