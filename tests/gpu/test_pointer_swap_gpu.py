"""Pointer variables reassigned in run-time control flow on the GPU: the
result bytes equal the interpreter's (tests/pointer_swap_kernels.py); a
per-thread choice, which the interpreter refuses (E722), against numpy."""

import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import pointer_swap_kernels as K  # noqa: E402

RNG = np.random.default_rng(314)


@pytest.mark.parametrize("steps", [0, 1, 6, 7])
def test_ping_pong(steps):
    a0 = RNG.standard_normal(1000).astype(np.float32)
    ha, hb = a0.copy(), np.zeros_like(a0)
    K.ping_pong.interpret[1, 1024](ha, hb, 1000, steps)
    da, db = cp.asarray(a0), cp.zeros(1000, np.float32)
    K.ping_pong[1, 1024](da, db, 1000, steps)
    cp.cuda.Device().synchronize()
    assert da.get().tobytes() == ha.tobytes() and db.get().tobytes() == hb.tobytes()


def test_pick_by_step():
    a0 = RNG.standard_normal(900).astype(np.float32)
    ha, hb = a0.copy(), np.zeros_like(a0)
    K.pick_by_step.interpret[1, 1024](ha, hb, 900, 5)
    da, db = cp.asarray(a0), cp.zeros(900, np.float32)
    K.pick_by_step[1, 1024](da, db, 900, 5)
    cp.cuda.Device().synchronize()
    assert da.get().tobytes() == ha.tobytes() and db.get().tobytes() == hb.tobytes()


def test_read_either_and_a_device_functions_choice():
    a = RNG.standard_normal(64).astype(np.float32)
    b = RNG.standard_normal(64).astype(np.float32)
    for k in (0, 1):
        host = np.zeros(64, np.float32)
        K.read_either.interpret[1, 64](a, b, host, k)
        out = cp.zeros(64, np.float32)
        K.read_either[1, 64](cp.asarray(a), cp.asarray(b), out, k)
        assert out.get().tobytes() == host.tobytes()
        host = np.zeros(64, np.float32)
        K.pick_in_a_function.interpret[1, 64](a, b, host, k)
        out = cp.zeros(64, np.float32)
        K.pick_in_a_function[1, 64](cp.asarray(a), cp.asarray(b), out, k)
        assert out.get().tobytes() == host.tobytes()


def test_each_thread_its_own_array_runs_on_the_gpu():
    a = RNG.standard_normal(64).astype(np.float32)
    b = RNG.standard_normal(64).astype(np.float32)
    out = cp.zeros(64, np.float32)
    K.per_thread_choice[1, 64](cp.asarray(a), cp.asarray(b), out)
    want = np.where(np.arange(64) % 2 == 1, b, a)
    assert out.get().tobytes() == want.tobytes()
