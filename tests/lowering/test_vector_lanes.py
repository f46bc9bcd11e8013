"""Lane stores and arrays of vectors: ``v[2] = x`` on a vector variable
(``v.v[2] = x;``), shared and local arrays whose elements are vectors
(``__shared__ kdsl::vec<float, 4> s[64];``), whole-vector and lane loads
and stores of their elements, on both backends."""

import ml_dtypes
import numpy as np
import pytest

import kdsl
from kdsl import (
    BFloat16,
    BFloat16x8,
    Float16,
    Float32,
    Float32x3,
    Float32x4,
    Int32,
    Pointer,
    thread_idx,
)
from kdsl.runtime.nvrtc import compile_to_cubin
from kdsl.transpile import ir

BF16 = ml_dtypes.bfloat16


def statements(inst) -> list:
    """The kernel's C++ statements, stripped, without comments."""
    src = inst.source.split('extern "C"', 1)[1]
    return [
        s.strip()
        for s in src.splitlines()[1:-1]
        if s.strip() and not s.strip().startswith("//")
    ]


def compiles(kernel, *dtypes):
    inst = kernel.dispatch(*dtypes)
    compile_to_cubin(inst.source, inst.name)
    return inst


# -- lane stores on vector variables -----------------------------------------------
@kdsl.kernel
def lanes_of_a_variable(x: Pointer[Float32], out: Pointer[Float32], n: Int32):
    i = thread_idx.x
    v = x.vec(4)[i]
    v[2] = x[0]  # a run-time value
    v[-1] = 7  # a literal takes the lane's type; -1 is the last lane
    if i < n:  # only these threads
        v[0] = v[1] * 2.0
    v[1] += 0.5
    o = out.vec(4)
    o[i] = v


def test_a_lane_store_is_one_cpp_assignment_to_the_lane():
    inst = compiles(lanes_of_a_variable)
    lines = statements(inst)
    assert "v.v[2] = x[0];" in lines
    assert "v.v[3] = 7.0f;" in lines
    assert "v.v[0] = v.v[1] * 2.0f;" in lines
    assert "v.v[1] = v.v[1] + 0.5f;" in lines
    assert "o[i] = v;" in lines
    stores = [
        s
        for s in ir.statements(inst.lowered.kernel.body)
        if isinstance(s, ir.AssignLane)
    ]
    assert [s.lane for s in stores] == [2, 3, 0, 1]


def test_a_lane_store_runs_under_the_mask():
    x = np.arange(16, dtype=np.float32) + 1
    out = np.zeros(16, np.float32)
    lanes_of_a_variable.interpret[1, 4](x, out, 2)
    want = x.reshape(4, 4).copy()
    want[:, 2] = x[0]
    want[:, 3] = 7
    want[:2, 0] = want[:2, 1] * 2
    want[:, 1] += 0.5
    np.testing.assert_array_equal(out, want.reshape(-1))


@kdsl.kernel
def swap_lanes(x: Pointer[BFloat16], out: Pointer[BFloat16]):
    i = thread_idx.x
    v = x.vec(8)[i]
    v[0], v[7] = v[7], v[0]  # both values first, as in Python
    v[3] = 1.5  # a BFloat16 lane
    o = out.vec(8)
    o[i] = v


def test_a_tuple_of_lane_stores_reads_every_value_first():
    inst = compiles(swap_lanes)
    lines = statements(inst)
    assert "v.v[3] = __float2bfloat16_rn(1.5f);" in lines
    x = (np.arange(16) - 3).astype(BF16)
    out = np.zeros(16, BF16)
    swap_lanes.interpret[1, 2](x, out)
    want = x.reshape(2, 8).copy()
    want[:, [0, 7]] = want[:, [7, 0]]
    want[:, 3] = 1.5
    np.testing.assert_array_equal(out, want.reshape(-1))


@kdsl.func
def with_lane(v, x):
    v[1] = x  # the function's own copy
    return v


@kdsl.kernel
def lane_in_function(x: Pointer[Float32], out: Pointer[Float32]):
    i = thread_idx.x
    v = x.vec(4)[i]
    w = with_lane(v, Float32(-1))
    o = out.vec(4)
    o[2 * i] = v
    o[2 * i + 1] = w


def test_a_vector_argument_is_a_copy_the_function_may_change():
    inst = compiles(lane_in_function)
    assert "v.v[1] = x;" in inst.source
    x = np.arange(8, dtype=np.float32)
    out = np.zeros(16, np.float32)
    lane_in_function.interpret[1, 2](x, out)
    got = out.reshape(2, 2, 4)
    np.testing.assert_array_equal(got[:, 0], x.reshape(2, 4))
    want = x.reshape(2, 4).copy()
    want[:, 1] = -1
    np.testing.assert_array_equal(got[:, 1], want)


# -- arrays of vectors ----------------------------------------------------------------
@kdsl.kernel
def shared_vectors(x: Pointer[Float32], out: Pointer[Float32]):
    i = thread_idx.x
    s = kdsl.shared_array(Float32x4, 64)
    s[i] = x.vec(4)[i]  # a whole vector
    s[i][2] = s[i][1] + s[i][0]  # a lane of an element, read and written
    kdsl.syncthreads()
    v = s[63 - i]  # another thread's element
    o = out.vec(4)
    o[i] = v
    o[i][3] = s[i][2]  # a lane of a global vector


def test_a_shared_array_of_vectors_is_one_cpp_array_of_vecs():
    inst = compiles(shared_vectors)
    lines = statements(inst)
    assert "__shared__ kdsl::vec<float, 4> s[64];" in lines
    assert "s[i] = reinterpret_cast<kdsl::vec<float, 4>*>(x)[i];" in lines or (
        "s[i] = reinterpret_cast<const kdsl::vec<float, 4>*>(x)[i];" in lines
    )
    assert "s[i].v[2] = s[i].v[1] + s[i].v[0];" in lines
    assert "kdsl::vec<float, 4> v = s[63 - i];" in lines
    assert "o[i].v[3] = s[i].v[2];" in lines
    assert "float* out" in inst.source  # stored to: not const


def test_a_shared_array_of_vectors_runs_on_the_interpreter():
    x = np.arange(256, dtype=np.float32)
    out = np.zeros(256, np.float32)
    shared_vectors.interpret[1, 64](x, out)
    s = x.reshape(64, 4).copy()
    s[:, 2] = s[:, 1] + s[:, 0]
    want = s[::-1].copy()
    want[:, 3] = s[:, 2]
    np.testing.assert_array_equal(out.reshape(64, 4), want)


@kdsl.kernel
def local_vectors(x: Pointer[BFloat16], out: Pointer[BFloat16]):
    i = thread_idx.x
    a = kdsl.local_array(BFloat16x8, (2, 4))
    for r in kdsl.range_constexpr(2):
        for c in kdsl.range_constexpr(4):
            a[r, c] = x.vec(8)[i] * BFloat16(r * 4 + c)
    a[1, 3][7] = a[0, 1][0]
    total = BFloat16x8(0)
    for r in range(2):
        for c in range(4):
            total = total + a[r, c]
    o = out.vec(8)
    o[i] = total
    out[8 * i + 1] = a[1, 3][7]


def test_a_local_array_of_vectors_has_two_indices_and_lanes():
    inst = compiles(local_vectors)
    lines = statements(inst)
    assert "kdsl::vec<__nv_bfloat16, 8> a[2][4];" in lines
    assert "a[1][3].v[7] = a[0][1].v[0];" in lines


def test_a_local_array_of_vectors_runs_on_the_interpreter():
    x = (np.arange(32) % 7 - 3).astype(BF16)
    out = np.zeros(32, BF16)
    local_vectors.interpret[1, 4](x, out)
    v = x.reshape(4, 8).astype(np.float32)
    a = np.stack([(v * k).astype(BF16) for k in range(8)], axis=1)  # (4, 8, 8)
    a[:, 7, 7] = a[:, 1, 0]
    total = np.zeros((4, 8), BF16)
    for k in range(8):  # summed in BFloat16, in order
        total = (total.astype(np.float32) + a[:, k].astype(np.float32)).astype(BF16)
    want = total.copy()
    want[:, 1] = a[:, 7, 7]
    np.testing.assert_array_equal(out.reshape(4, 8), want)


@kdsl.func
def fill(s, v):
    s[thread_idx.x] = v
    s[thread_idx.x][0] = Float32(0)


@kdsl.kernel
def vectors_to_function(out: Pointer[Float32]):
    s = kdsl.shared_array(Float32x4, 32)
    fill(s, Float32x4(2.5))
    o = out.vec(4)
    o[thread_idx.x] = s[thread_idx.x]


def test_a_device_function_takes_an_array_of_vectors_by_reference():
    inst = compiles(vectors_to_function)
    assert (
        "static __device__ void fill__s32f32x4_f32x4(kdsl::vec<float, 4> (&s)[32], "
        "kdsl::vec<float, 4> v) {" in inst.source
    )
    out = np.zeros(128, np.float32)
    vectors_to_function.interpret[1, 32](out)
    assert out.reshape(32, 4).tolist() == [[0.0, 2.5, 2.5, 2.5]] * 32


@kdsl.kernel
def two_threads_two_lanes(out: Pointer[Float32]):
    s = kdsl.shared_array(Float32x4, 1)
    i = thread_idx.x
    if i == 0:
        s[0][0] = Float32(1)
    if i == 1:
        s[0][1] = Float32(2)
    # no barrier: each thread reads the lane it wrote, as s[0].v[k] does
    out[i] = s[0][0] if i == 0 else s[0][1]


def test_threads_writing_different_lanes_of_one_element_do_not_race():
    inst = compiles(two_threads_two_lanes)
    assert "s[0].v[1] = 2.0f;" in statements(inst)
    out = np.zeros(2, np.float32)
    two_threads_two_lanes.interpret[1, 2](out)
    assert out.tolist() == [1.0, 2.0]


@kdsl.kernel
def same_lane_twice(out: Pointer[Float32]):
    s = kdsl.shared_array(Float32x4, 1)
    s[0][1] = Float32(thread_idx.x)
    kdsl.syncthreads()
    out[0] = s[0][1]


def test_threads_writing_one_lane_of_one_element_race():
    with pytest.raises(
        kdsl.InterpretError, match=r"data race on shared array s\[0\]\[1\]"
    ):
        same_lane_twice.interpret[1, 2](np.zeros(1, np.float32))


def test_out_of_bounds_on_an_array_of_vectors_names_the_element():
    @kdsl.kernel
    def past_the_end(out: Pointer[Float32]):
        a = kdsl.local_array(Float32x4, 4)
        a[thread_idx.x] = Float32x4(1.0)
        out[0] = a[0][0]

    with pytest.raises(kdsl.InterpretError, match=r"a\[4\] \(a has 4 elements\)"):
        past_the_end.interpret[1, 5](np.zeros(1, np.float32))


# -- 3-lane arrays -----------------------------------------------------------------------
@kdsl.kernel
def sizes(out: Pointer[Float32]):
    s = kdsl.shared_array(Float32x3, 4)
    h = kdsl.local_array(kdsl.Float16x3, 2)
    s[thread_idx.x] = Float32x3(thread_idx.x.to(Float32))
    h[1] = kdsl.Float16x3(Float16(2))
    h[1][2] = Float16(3)
    kdsl.syncthreads()
    o = out.vec(3)
    o[thread_idx.x] = s[3 - thread_idx.x] + h[1].to(Float32)


def test_three_lane_arrays_have_float3s_size_and_alignment():
    inst = sizes.dispatch()
    src = inst.source
    assert "__shared__ kdsl::vec<float, 3> s[4];" in src
    assert "kdsl::vec<__half, 3> h[2];" in src
    checks = src.replace(
        'extern "C"',
        'static_assert(sizeof(kdsl::vec<float, 3>) == 12, "size");\n'
        'static_assert(alignof(kdsl::vec<float, 3>) == 4, "align");\n'
        'static_assert(sizeof(kdsl::vec<__half, 3>) == 6, "size");\n'
        'static_assert(alignof(kdsl::vec<float, 4>) == 16, "align");\n'
        'extern "C"',
        1,
    )
    compile_to_cubin(checks, inst.name)
    out = np.zeros(12, np.float32)
    sizes.interpret[1, 4](out)
    want = np.repeat(np.arange(4)[::-1, None], 3, axis=1) + np.array([2, 2, 3])
    np.testing.assert_array_equal(out.reshape(4, 3), want.astype(np.float32))
