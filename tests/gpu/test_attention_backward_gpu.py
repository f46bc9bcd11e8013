"""The attention backward on an H100/H200 (sm_90a): the kdsl.torch
operator's gradients (TMA forward saving the log-sum-exp, then the three
backward passes) against PyTorch's SDPA, with FlashAttention's tolerance
(tests/gpu/attention_backward_checks.py), each check in a process of its
own.  Every configuration of each pass: tests/example_checks.attention_backward."""

import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import isolated  # noqa: E402


@pytest.fixture(autouse=True)
def _needs_sm90():
    if not torch.cuda.is_available() or torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("TMA and wgmma need a compute capability 9.0 GPU")


@pytest.mark.parametrize("dtype", ["bf16", "f16"])
@pytest.mark.parametrize("check", ["gradients", "lse"])
def test_attention_backward(check, dtype):
    failure = isolated.run("attention_backward_checks", check, dtype, timeout=240)
    if failure is not None:
        pytest.fail(failure)
