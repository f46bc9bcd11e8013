"""A module-level numpy scalar read in a kernel is a compile-time value of
its own type (``np.float32`` a Float32, ``np.uint32`` a Uint32), as a
numpy scalar argument of a kdsl call already is; it was E106 ("got a
Python float32")."""

import numpy as np
import pytest

import kdsl
from kdsl import Float32, Int32, Pointer, Uint32, thread_idx

SCALE = np.sqrt(np.float32(2.0 / np.pi))  # np.float32
FULL = np.uint32(0xFFFFFFFF)
BIG = np.int64(1) << 40
HALF = np.float16(0.5)
NAME = np.str_("x")


@kdsl.kernel
def scaled(x: Pointer[Float32], out: Pointer[Float32], bits: Pointer[Uint32]):
    t = thread_idx.x
    out[t] = x[t] * SCALE + HALF
    bits[t] = kdsl.ballot(x[t] > 0, mask=FULL) & FULL


def test_numpy_scalars_are_constants_of_their_type():
    x = np.linspace(-1, 1, 32, dtype=np.float32)
    out, bits = np.zeros(32, np.float32), np.zeros(32, np.uint32)
    scaled.interpret[1, 32](x, out, bits)
    assert out.tobytes() == (x * SCALE + np.float32(HALF)).tobytes()
    assert bits.tolist() == [sum(1 << k for k in range(32) if x[k] > 0)] * 32
    src = scaled.dispatch().source
    assert "x[t] * 0.7978845f" in src and "__ballot_sync(0xffffffffu," in src


def test_an_int64_scalar_keeps_its_type():
    @kdsl.kernel
    def wide(out: Pointer[kdsl.Int64]):
        out[0] = BIG + 1

    out = np.zeros(1, np.int64)
    wide.interpret[1, 1](out)
    assert out[0] == (1 << 40) + 1


def test_a_numpy_string_is_still_refused():
    @kdsl.kernel
    def bad(out: Pointer[Int32]):
        out[0] = NAME

    with pytest.raises(kdsl.DSLError):
        bad.dispatch().source
