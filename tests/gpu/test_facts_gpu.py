"""Facts on the GPU: kernels whose index arithmetic ``kdsl.assume`` made
plain C++ give the interpreter's results, and a debug build checks a false
assumption like an assert (DeviceAssertionError at the call)."""

import sys
from pathlib import Path

import numpy as np
import pytest

import kdsl

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import facts_kernels as fk  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ports"))
from attention_permute import permute_kernel  # noqa: E402


def test_permute_with_facts_gives_the_interpreters_result():
    B, N, NH, d = 2, 33, 3, 16
    inp = np.arange(B * N * 3 * NH * d, dtype=np.float32)
    total = B * N * NH * d
    want = [np.zeros(total, np.float32) for _ in range(3)]
    fk.permute.interpret[4, 64](*want, inp, B, N, NH, d)
    ref = inp.reshape(B, N, 3, NH, d).transpose(2, 0, 3, 1, 4).reshape(3, -1)
    for w, r in zip(want, ref):
        np.testing.assert_array_equal(w, r)
    got = [cp.zeros(total, cp.float32) for _ in range(3)]
    fk.permute[7, 128](*got, cp.asarray(inp), B, N, NH, d)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.get(), w)


def test_rows_with_facts_give_the_interpreters_result():
    n, C = 1000, 7
    want = np.zeros(n, np.int32)
    fk.rows.interpret[1, 96](want, n, C)
    got = cp.zeros(n, cp.int32)
    fk.rows[1, 96](got, n, C)
    np.testing.assert_array_equal(got.get(), want)
    assert want.tolist() == [j // C + j % C for j in range(n)]


def test_a_debug_build_raises_at_a_false_assumption():
    out = cp.zeros(1, cp.int32)
    fk.checked[1, 1](out, 12)
    assert out.get().tolist() == [3]
    with pytest.raises(
        kdsl.DeviceAssertionError, match=r"kdsl.assume\(n >= 0\) is false"
    ):
        fk.checked[1, 1](out, -3)
    fk.checked[1, 1](out, 8)  # the context is still usable
    assert out.get().tolist() == [2]


def test_a_no_overflow_permute_gives_the_interpreters_result():
    B, N, NH, d = 2, 33, 3, 16
    inp = np.arange(B * N * 3 * NH * d, dtype=np.float32)
    total = B * N * NH * d
    want = [np.zeros(total, np.float32) for _ in range(3)]
    permute_kernel.interpret[-(-total // 128), 128](*want, inp, B, N, NH, d)
    got = [cp.zeros(total, cp.float32) for _ in range(3)]
    permute_kernel[-(-total // 128), 128](*got, cp.asarray(inp), B, N, NH, d)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.get(), w)


def test_a_debug_build_raises_at_an_overflow_stated_not_to_happen():
    out, wide = cp.zeros(1, cp.int32), cp.zeros(1, cp.int64)
    fk.scaled_checked[1, 1](out, wide, -7, 3)
    assert out.get().tolist() == [-20] and wide.get().tolist() == [-22]
    with pytest.raises(kdsl.DeviceAssertionError, match=r"a \* b overflows Int32"):
        fk.scaled_checked[1, 1](out, wide, 1 << 16, 1 << 15)
    with pytest.raises(kdsl.DeviceAssertionError, match=r"a \* b \+ 1 overflows"):
        fk.scaled_checked[1, 1](out, wide, (1 << 31) - 1, 1)
    fk.scaled_checked[1, 1](out, wide, 5, 5)  # the context is still usable
    assert out.get().tolist() == [26]
