"""examples/allreduce.py on one GPU, 2, 4 and 8 buffers standing in for as
many ranks, each rank's kernel on its own stream (allreduce_ranks_one_gpu.py,
in a subprocess under a timeout: a barrier that never completes spins for
ever): every rank's result is the rank-order sum bit for bit, three calls
running (the barrier's generations)."""

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")

HERE = Path(__file__).resolve().parent


def test_ranks_as_streams_on_one_gpu_sum_bit_for_bit():
    if not torch.cuda.is_available():
        pytest.skip("no GPU")
    command = [sys.executable, str(HERE / "allreduce_ranks_one_gpu.py")]
    try:
        got = subprocess.run(command, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"a barrier did not complete in 300 s:\n{e.stdout or ''}")
    assert got.returncode == 0, got.stdout[-4000:] + got.stderr[-4000:]
    assert "ranks on one GPU: all equal" in got.stdout
