"""Built-ins added through the registry give the interpreter's bits on the GPU."""

import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lowering"))
from test_bit_builtins import TYPES, bit_ops, inputs  # noqa: E402
from test_integer_builtins import (  # noqa: E402
    counters,
    edges,
    high_words,
    word_inputs,
    word_ops,
)
from test_math_builtins import FLOATS, new_math  # noqa: E402
from test_math_builtins import inputs as math_inputs  # noqa: E402

from kdsl import Int32, Int64, Uint32, Uint64  # noqa: E402
from kdsl.transpile.core import lanes  # noqa: E402


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


def test_integer_intrinsics_on_the_gpu_match_the_interpreter():
    cols = word_inputs(n=4096, seed=19)
    n = cols["a"].size
    host = [np.zeros(9 * n, np.uint32), np.zeros(2 * n, np.int32)]
    args = [cols[k] for k in "abcst"]
    word_ops.interpret[(n + 127) // 128, 128](*args, *host, n)
    dev = [cp.zeros_like(cp.asarray(h)) for h in host]
    word_ops[(n + 127) // 128, 128](*(cp.asarray(a) for a in args), *dev, n)
    for h, d in zip(host, dev):
        assert d.get().tobytes() == h.tobytes()


@pytest.mark.parametrize("w, u", [(Int32, Uint32), (Int64, Uint64)], ids=str)
def test_mulhi_and_umulhi_on_the_gpu_match_the_interpreter(w, u):
    rng = np.random.default_rng(23)
    count = 900  # threads of one block, each reading its element and the next
    x = np.array(edges(w), w.np_dtype)
    x = np.concatenate([x, rng.integers(w.min(), w.max(), count, w.np_dtype, True)])
    y = np.array(edges(u), u.np_dtype)
    y = np.concatenate([y, rng.integers(0, u.max(), count, u.np_dtype, True)])
    x, y = x[: count + 1], y[: count + 1]
    n = count
    host = [np.zeros(n, w.np_dtype), np.zeros(n, u.np_dtype)]
    inst = high_words.dispatch(w, u)
    inst.interpret[1, n](x, y, *host)
    dev = [cp.zeros(n, w.np_dtype), cp.zeros(n, u.np_dtype)]
    inst[1, n](cp.asarray(x), cp.asarray(y), *dev)
    for h, d in zip(host, dev):
        assert d.get().tobytes() == h.tobytes()


@pytest.mark.parametrize("t", FLOATS, ids=lambda t: t.__name__)
def test_exact_math_on_the_gpu_matches_the_interpreter(t):
    """round, rint, fmax, fmin, copysign, ldexp, frexp_*, isnan/isinf/isfinite:
    the GPU's bits are the interpreter's (any NaN equals any NaN)."""
    xs, ys, ns = math_inputs(t, seed=29)
    count = len(xs)
    x, y = lanes.from_values(xs, t), lanes.from_values(ys, t)
    n = np.array(ns, np.int32)
    grid = (count + 63) // 64
    out, exponent = np.zeros(7 * count, t.np_dtype), np.zeros(count, np.int32)
    flags = np.zeros(3 * count, np.bool_)
    inst = new_math.dispatch(t)
    inst.interpret[grid, 64](x, y, n, out, exponent, flags, count)
    d_out = cp.zeros(7 * count, t.np_dtype)
    d_exponent, d_flags = cp.zeros(count, np.int32), cp.zeros(3 * count, np.bool_)
    inst[grid, 64](
        cp.asarray(x), cp.asarray(y), cp.asarray(n), d_out, d_exponent, d_flags, count
    )
    dev = d_out.get()
    unsigned = f"u{out.itemsize}"
    h, d = out.astype(np.float64), dev.astype(np.float64)
    same = (out.view(unsigned) == dev.view(unsigned)) | (np.isnan(h) & np.isnan(d))
    bad = np.flatnonzero(~same)
    assert not len(bad), [(xs[k // 7], ys[k // 7], k % 7, h[k], d[k]) for k in bad[:10]]
    assert d_exponent.get().tobytes() == exponent.tobytes()
    assert d_flags.get().tobytes() == flags.tobytes()


def test_atomic_inc_and_dec_on_the_gpu_visit_the_interpreters_values():
    """The GPU orders the threads its own way: with one limit per counter
    the final values and each counter's multiset of old values do not
    depend on the order, so they equal the interpreter's."""
    limits = np.array([0, 5, 0xFFFFFFFF, 3], np.uint32)
    start = np.array([0, 9, 0xFFFFFFFE, 2, 0, 9, 1, 2], np.uint32)
    n = 1000
    c, old = start.copy(), np.zeros(2 * n, np.uint32)
    counters.interpret[1, 1024](c, limits, old, n)
    d_c, d_old = cp.asarray(start), cp.zeros(2 * n, np.uint32)
    counters[1, 1024](d_c, cp.asarray(limits), d_old, n)
    assert d_c.get().tobytes() == c.tobytes()
    dev_old = d_old.get()
    for k in range(4):  # thread i used counters k = i % 4 and 4 + k
        for j in (0, 1):
            mine = np.sort(old[j::2][k::4])
            assert np.sort(dev_old[j::2][k::4]).tolist() == mine.tolist(), (k, j)
