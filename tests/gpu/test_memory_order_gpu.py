"""A spin lock across blocks with acquire/release atomics (the pattern of
layer-norm backward's partial sums) is correct on the GPU; the interpreter
cannot run it (its blocks go in lock-step), so the check is the exact sum."""

import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lowering"))
import test_memory_order as t  # noqa: E402


def test_a_spin_lock_serialises_the_blocks():
    blocks = 512
    x = cp.asarray(np.arange(blocks, dtype=np.float32))
    lock, total = cp.zeros(1, cp.int32), cp.zeros(1, cp.float32)
    t.locked_sum[blocks, 32](lock, total, x)
    assert int(lock.get()[0]) == 0
    assert float(total.get()[0]) == float(sum(range(blocks)))  # exact in float32


def test_scoped_atomics_count_every_thread():
    count, big, seen = (
        cp.zeros(2, cp.int32),
        cp.zeros(1, cp.uint64),
        cp.zeros(8, cp.int32),
    )
    t.scoped[1, 8](count, big, seen)
    assert count.get().tolist() == [8, 8] and int(big.get()[0]) == 7
