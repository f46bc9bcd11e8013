"""Every example, every supported dtype, on the GPU against a float64
reference (the checks are shared with the interpreter's: example_checks)."""

import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

cp = pytest.importorskip("cupy")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import example_checks  # noqa: E402

EX = example_checks.EX
GPU = example_checks.gpu_backend(cp)


@pytest.mark.parametrize("case", example_checks.cases(), ids=example_checks.case_id)
def test_example_on_the_gpu(case):
    check, t = case
    check(GPU, t, np.random.default_rng(1234))


def test_pytorch_tensors_and_stream():
    torch = pytest.importorskip("torch")
    mod = EX["vector_add"]
    n = 10_000
    x = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    y = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    out = torch.full((n,), float("nan"), device="cuda", dtype=torch.bfloat16)
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        mod.vector_add[(n + 255) // 256, 256](x, y, out, n, stream=stream)
    stream.synchronize()
    assert torch.equal(out, x + y)
