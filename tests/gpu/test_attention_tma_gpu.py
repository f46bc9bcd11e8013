"""examples/attention_tma.py on an H100/H200 (sm_90a): every configuration
and the autotuned host function against a float64 reference, each in a
process of its own (tests/gpu/attention_tma_checks.py; a kernel hung on an
mbarrier cannot be interrupted in-process)."""

import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import isolated  # noqa: E402


@pytest.fixture(autouse=True)
def _needs_sm90():
    if cp.cuda.Device().compute_capability != "90":
        pytest.skip("TMA and wgmma need a compute capability 9.0 GPU")


@pytest.mark.parametrize("dtype", ["bf16", "f16"])
@pytest.mark.parametrize(
    "check", ["every_configuration", "three_consumers", "host_function"]
)
def test_attention_tma(check, dtype):
    failure = isolated.run("attention_tma_checks", check, dtype, timeout=300)
    if failure is not None:
        pytest.fail(failure)
