"""@kdsl.func takes what kernels take: pointers, Arrays, shared and local
arrays (by reference), and returns several results (``a, b = f(x)``).
Each kernel runs in the interpreter against numpy and compiles with NVRTC;
tests/gpu/test_device_functions_gpu.py runs them on the GPU."""

import re

import numpy as np
import pytest

import kdsl
from kdsl import Array, Float32, Int32, Pointer, block_idx, thread_idx
from kdsl.runtime.nvrtc import compile_to_cubin

BLOCK = 256
RNG = np.random.default_rng(5)


@kdsl.func
def block_sum(scratch, v):
    """Sum of ``v`` over a block of BLOCK threads; ``scratch`` holds a value
    per warp."""
    for k in kdsl.range_constexpr(5):
        v = v + kdsl.shfl_xor(v, 16 >> k)
    if kdsl.lane_id() == 0:
        scratch[thread_idx.x // 32] = v
    kdsl.syncthreads()
    total = scratch[0]
    for w in kdsl.range_constexpr(1, BLOCK // 32):
        total = total + scratch[w]
    kdsl.syncthreads()
    return total


@kdsl.func
def block_max(scratch, v):
    for k in kdsl.range_constexpr(5):
        v = max(v, kdsl.shfl_xor(v, 16 >> k))
    if kdsl.lane_id() == 0:
        scratch[thread_idx.x // 32] = v
    kdsl.syncthreads()
    best = scratch[0]
    for w in kdsl.range_constexpr(1, BLOCK // 32):
        best = max(best, scratch[w])
    kdsl.syncthreads()
    return best


@kdsl.kernel
def softmax_rows(x: Pointer[Float32], y: Pointer[Float32], cols: Int32):
    scratch = kdsl.shared_array(Float32, BLOCK // 32)
    base = block_idx.x * cols
    m = Float32(-3.0e38)
    for c in range(thread_idx.x, cols, BLOCK):
        m = max(m, x[base + c])
    m = block_max(scratch, m)
    s = Float32(0)
    for c in range(thread_idx.x, cols, BLOCK):
        s += kdsl.math.exp(x[base + c] - m)
    s = block_sum(scratch, s)
    for c in range(thread_idx.x, cols, BLOCK):
        y[base + c] = kdsl.math.exp(x[base + c] - m) / s


@kdsl.kernel
def rms_norm(
    x: Pointer[Float32], w: Pointer[Float32], y: Pointer[Float32], cols: Int32
):
    scratch = kdsl.shared_array(Float32, BLOCK // 32)
    base = block_idx.x * cols
    ss = Float32(0)
    for c in range(thread_idx.x, cols, BLOCK):
        ss += x[base + c] * x[base + c]
    ss = block_sum(scratch, ss)
    inv = 1.0 / kdsl.math.sqrt(ss / cols.to(Float32) + 1e-6)
    for c in range(thread_idx.x, cols, BLOCK):
        y[base + c] = x[base + c] * inv * w[c]


def test_one_block_reduction_serves_two_kernels():
    rows, cols = 3, 1000
    x = RNG.standard_normal((rows, cols)).astype(np.float32)
    y = np.zeros_like(x)
    softmax_rows.interpret[rows, BLOCK](x, y, cols)
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-7)
    w = RNG.standard_normal(cols).astype(np.float32)
    rms_norm.interpret[rows, BLOCK](x, w, y, cols)
    ref = x / np.sqrt((x.astype(np.float64) ** 2).mean(1, keepdims=True) + 1e-6) * w
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-6)
    for k in (softmax_rows, rms_norm):
        src = k.dispatch().source
        assert "float block_sum__s8f32_f32(float (&scratch)[8], float v)" in src
        compile_to_cubin(src, k.name)


@kdsl.func
def axpy_at(out, x, i, a):
    out[i] = out[i] + a * x[i]


@kdsl.func
def load4(p, i):
    return p.vec(4)[i]


@kdsl.kernel
def pointers(x: Pointer[Float32], out: Pointer[Float32], n: Int32):
    i = thread_idx.x
    if i < n:
        axpy_at(out, x, i, 2.0)
        v = load4(x, 0)
        out[i] = out[i] + v[3]


def test_a_pointer_is_const_where_nothing_stores_through_it():
    inst = pointers.dispatch()
    src = inst.source
    assert "static __device__ void axpy_at__pf32_pf32_i32_f32(" in src
    assert re.search(r"float\* out,\s+const float\* x,", src)
    assert "pointers(const float* x, float* out, int32_t n)" in src
    assert inst.lowered.alignment == {"x": 16}  # load4's .vec(4), on the kernel's x
    compile_to_cubin(src, inst.name)
    x = np.arange(8, dtype=np.float32)
    out = np.ones(8, np.float32)
    pointers.interpret[1, 8](x, out, 8)
    np.testing.assert_array_equal(out, 1 + 2 * x + 3)


@kdsl.func
def trace(a):
    t = a[0, 0]
    for k in range(1, a.shape[0]):
        t += a[k, k]
    return t


@kdsl.func
def fill_local(t, v):
    for k in kdsl.range_constexpr(4):
        t[k] = v * k


@kdsl.kernel
def arrays(m: Array[Float32, 2], out: Pointer[Float32]):
    loc = kdsl.local_array(Float32, 4)
    fill_local(loc, trace(m))
    out[thread_idx.x] = loc[thread_idx.x % 4]


def test_arrays_pass_their_extents_and_fixed_arrays_go_by_reference():
    src = arrays.dispatch().source
    assert "trace__a2f32(\n        const float* a,\n        int64_t a_shape0," in src
    assert "static __device__ void fill_local__l4f32_f32(float (&t)[4], float v)" in src
    compile_to_cubin(src, "arrays")
    m = RNG.standard_normal((5, 5)).astype(np.float32)
    out = np.zeros(8, np.float32)
    arrays.interpret[1, 8](m, out)
    t = np.float32(0) + m[0, 0]
    for k in range(1, 5):
        t = np.float32(t + m[k, k])
    np.testing.assert_array_equal(out, [t * k for k in range(4)] * 2)


@kdsl.func
def bad_index(a, i):
    return a[i, 0]


@kdsl.kernel
def out_of_bounds(m: Array[Float32, 2], out: Pointer[Float32]):
    out[0] = bad_index(m, 7)


def test_the_interpreter_checks_bounds_inside_the_function():
    m = np.zeros((2, 2), np.float32)
    with pytest.raises(
        kdsl.InterpretError, match=r"a\[7, 0\] \(a has shape \(2, 2\)\)"
    ):
        out_of_bounds.interpret[1, 1](m, np.zeros(1, np.float32))


@kdsl.func
def better(best, idx, v, i):
    if v > best:
        return v, i
    return best, idx


@kdsl.kernel
def argmax(
    x: Pointer[Float32], out_v: Pointer[Float32], out_i: Pointer[Int32], n: Int32
):
    best, idx = x[0], Int32(0)
    for j in range(1, n):
        best, idx = better(best, idx, x[j], j)
    out_v[0] = best
    out_i[0] = idx


@kdsl.kernel
def first_results(x: Pointer[Float32], out_i: Pointer[Int32]):
    v, i = better(x[0], Int32(0), x[1], 1)
    out_i[0] = i


def test_several_results_come_back_through_references():
    src = argmax.dispatch().source
    assert "float& result0,\n        int32_t& result1) {" in src
    assert "better__f32_i32_f32_i32(best, idx, x[j], j, best_2, idx_2);" in src
    compile_to_cubin(src, "argmax")
    x = RNG.standard_normal(300).astype(np.float32)
    ov, oi = np.zeros(1, np.float32), np.zeros(1, np.int32)
    argmax.interpret[1, 1](x, ov, oi, 300)
    assert (ov[0], oi[0]) == (x.max(), x.argmax())
    # new names take the results directly: no copies
    src = first_results.dispatch().source
    assert (
        "float v;\n    int32_t i;\n    better__f32_i32_f32_c1(x[0], 0, x[1], v, i);"
        in src
    )


@kdsl.func
def mixed(v):
    if v > 0:
        return v, v
    return v


@kdsl.kernel
def mixed_returns(x: Pointer[Float32]):
    x[0] = mixed(x[0])


def test_a_function_returns_one_value_or_one_tuple_shape():
    with pytest.raises(kdsl.DSLError) as info:
        mixed_returns.dispatch().source
    assert info.value.code == "E316"


@kdsl.func
def first(t):
    return t[0]


@kdsl.kernel
def same_function_two_kinds(x: Pointer[Float32], out: Pointer[Float32]):
    s = kdsl.shared_array(Float32, 4)
    s[thread_idx.x] = x[thread_idx.x]
    kdsl.syncthreads()
    out[thread_idx.x] = first(x) + first(s)


def test_a_function_is_specialised_per_memory_kind():
    src = same_function_two_kinds.dispatch().source
    assert "first__pf32(const float* t)" in src
    assert "first__s4f32(const float (&t)[4])" in src
    compile_to_cubin(src, "same_function_two_kinds")
    x = np.arange(4, dtype=np.float32) + 1
    out = np.zeros(4, np.float32)
    same_function_two_kinds.interpret[1, 4](x, out)
    np.testing.assert_array_equal(out, [2, 2, 2, 2])
