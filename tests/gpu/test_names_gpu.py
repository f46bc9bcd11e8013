"""Renamed C++ names on the GPU: a kernel named ``exp`` (entry ``exp_``)
with variables named NULL, π, é and ｖ loads under its entry name and gives
the interpreter's bytes."""

import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import name_kernels as K  # noqa: E402


def test_a_renamed_kernel_runs_like_the_interpreter():
    x = np.random.default_rng(16).random(1000).astype(np.float32)
    host = x.copy()
    K.exp.interpret[4, 256](host, 1000)
    dev = cp.asarray(x)
    K.exp[4, 256](dev, 1000)
    assert cp.asnumpy(dev).tobytes() == host.tobytes()
