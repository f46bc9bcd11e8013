"""examples/gemm_fp8.py's int8 instance (``int_mm``: TMA + wgmma with Int8
tiles, Int32 c) on an H100/H200: each configuration on one tile, whole
tiles with a persistent grid and ragged sizes (EDGE), exactly equal to the
product; the autotuned ``int_mm`` and ``gemm_int8.gemm`` (which launches
it on Hopper) equal to torch._int_mm, and the wraparound of Int32 sums.
Each check runs in a subprocess with a timeout (fp8_gpu_checks.py)."""

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
        pytest.skip("gemm_fp8's int8 instance needs a compute capability 9.0 GPU")


@pytest.fixture(scope="module", autouse=True)
def _compiled():
    """The int8 instances compiled first, in parallel, into kdsl's disk
    cache, where the checks' subprocesses find them."""
    from concurrent.futures import ThreadPoolExecutor

    from kdsl.runtime import compile as kcompile

    insts = [
        F.gemm_fp8.dispatch("i32", scale_a=None, scale_b=None, BN=n, STAGES=s, EDGE=e)
        for n, s in F.SHAPES
        for e in (False, True)
    ]
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda i: kcompile.cubin_for(i, "sm_90"), insts))


def _passes(check, *args, timeout=120):
    failure = isolated.run("fp8_gpu_checks", check, *args, timeout=timeout)
    assert failure is None, failure


@pytest.mark.parametrize("bn, stages", F.SHAPES, ids=str)
def test_each_int8_configuration(bn, stages):
    _passes("int8_configuration", bn, stages)


def test_int_mm_against_torch():
    _passes("int_mm", timeout=150)
