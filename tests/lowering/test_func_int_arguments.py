"""A Python int passed to a ``@kdsl.func`` is a compile-time value in its
body, as the literal is in the caller: the function is specialised on it
(``c4294967295`` in its name, no C++ parameter), so ``0xFFFFFFFF`` is a
warp mask there, and arithmetic on it folds.  A compile-time integer of 32
bits is a mask as a Python int is."""

import numpy as np
import pytest

import kdsl
from kdsl import Float32, Int32, Pointer, thread_idx
from kdsl.runtime.nvrtc import compile_to_cubin


@kdsl.func
def warp_total(v, mask):
    for k in kdsl.range_constexpr(5):
        v += kdsl.shfl_xor(v, 16 >> k, mask=mask)
    return v


@kdsl.func
def scaled(v, k):
    return v * (k + 1)


@kdsl.kernel
def totals(x: Pointer[Float32], out: Pointer[Float32]):
    t = thread_idx.x
    out[t] = warp_total(x[t], 0xFFFFFFFF) + scaled(x[t], 2)


@kdsl.kernel
def local_mask(x: Pointer[Int32], out: Pointer[Int32]):
    full = 0xFFFFFFFF
    out[thread_idx.x] = kdsl.shfl_idx(x[thread_idx.x], 0, mask=full)


def test_a_python_int_argument_is_a_mask_in_the_function():
    x = np.arange(64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    totals.interpret[1, 64](x, out)
    sums = x.reshape(2, 32).sum(axis=1).repeat(32)
    assert out.tolist() == (sums + 3 * x).tolist()


def test_the_function_is_specialised_on_the_value_and_folds_it():
    src = totals.dispatch().source
    assert "static __device__ float warp_total__f32_c4294967295(float v) {" in src
    assert "__shfl_xor_sync(0xffffffffu, v, 16, 32)" in src
    assert "static __device__ float scaled__f32_c2(float v) {" in src
    assert "return v * 3.0f;" in src
    compile_to_cubin(src, totals.dispatch().name)


def test_two_values_are_two_functions():
    @kdsl.kernel
    def two(x: Pointer[Float32], out: Pointer[Float32]):
        out[0] = scaled(x[0], 2) + scaled(x[0], -1)

    src = two.dispatch().source
    assert "scaled__f32_c2(" in src and "scaled__f32_cm1(" in src


def test_a_compile_time_integer_variable_is_a_mask():
    x = np.arange(32, dtype=np.int32) + 5
    out = np.zeros(32, np.int32)
    local_mask.interpret[1, 32](x, out)
    assert out.tolist() == [5] * 32
    assert "__shfl_sync(0xffffffffu," in local_mask.dispatch().source


def test_a_run_time_int64_is_still_not_a_mask():
    @kdsl.kernel
    def bad(x: Pointer[Int32], n: Int32):
        x[0] = kdsl.shfl_idx(x[0], 0, mask=n.to(kdsl.Int64))

    with pytest.raises(kdsl.DSLError) as info:
        bad.dispatch().source
    assert info.value.code == "E242" and "got Int64" in str(info.value)
