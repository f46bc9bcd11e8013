"""Built-ins added through the registry give the interpreter's bits on the GPU."""

import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lowering"))
from test_bit_builtins import TYPES, bit_ops, inputs  # noqa: E402


@pytest.mark.parametrize("t", list(TYPES.values()), ids=lambda t: np.dtype(t).name)
def test_bit_intrinsics_on_the_gpu_match_the_interpreter(t):
    x = inputs(t, n=256, seed=17)
    n = x.size
    counts, rev = np.zeros(3 * n, np.int32), np.zeros(n, t)
    bit_ops.interpret[1, 256](x, counts, rev, n)
    d_counts, d_rev = cp.zeros(3 * n, np.int32), cp.zeros(n, t)
    bit_ops[1, 256](cp.asarray(x), d_counts, d_rev, n)
    assert d_counts.get().tobytes() == counts.tobytes()
    assert d_rev.get().tobytes() == rev.tobytes()
