"""``kdsl.lanemask_*()`` on the GPU: the special registers give the bits the
interpreter gives (tests/lowering/test_lanemask.py)."""

import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lowering"))
import test_lanemask as L  # noqa: E402


@pytest.mark.parametrize("blocks, block", [(1, 32), (2, 48), (3, 96)])
def test_lanemasks_are_the_interpreters(blocks, block):
    want = np.zeros(5 * blocks * block, np.uint32)
    L.lanemasks.interpret[blocks, block](want)
    out = cp.zeros(5 * blocks * block, np.uint32)
    L.lanemasks[blocks, block](out)
    assert out.get().tolist() == want.tolist()
