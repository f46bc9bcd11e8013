"""Pointer arithmetic (``p + k``, ``p += k``, ``p - q``, comparisons, into
global, shared, dynamic shared and local memory), the rows of an ``Array``,
``len()``, ``kdsl.grid``/``gridsize`` and shared scalars: their CUDA, NVRTC,
the interpreter against numpy, and its bounds checks through moved
pointers."""

import sys
from pathlib import Path

import numpy as np
import pytest

import kdsl
from kdsl import Float32, Int32, Pointer, Uint32, thread_idx
from kdsl.runtime.nvrtc import compile_to_cubin
from kdsl.transpile.errors import DSLError

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))
import pointer_arith_kernels as K  # noqa: E402

GOLDEN = TESTS / "golden" / "features" / "pointer_arith_kernels"


def body(kernel) -> str:
    return kernel.dispatch().source.split('extern "C"', 1)[1]


# -- the CUDA ---------------------------------------------------------------------
def test_a_moved_pointer_is_cs_pointer_arithmetic():
    src = body(K.scale_rows)
    assert "const float* row = x + kdsl::mul(int32_t(blockIdx.x), cols);" in src
    assert "float* dst = out + kdsl::mul(int32_t(blockIdx.x), cols);" in src
    src = body(K.strided_walk)
    assert "const float* end = x + n;" in src and "while (p < end) {" in src
    assert "p = p + step;" in src and "out[n] = float(p - x);" in src


def test_k_plus_p_is_p_plus_k():
    src = body(K.row_of_int64)
    assert "const float* row = x + kdsl::mul(int64_t(int32_t(blockIdx.x)), cols);" in (
        src
    )


def test_pointers_into_shared_dynamic_shared_and_local_memory():
    src = body(K.histogram)
    assert "uint32_t* mine = s_hist + threadIdx.x / 32 * 256;" in src
    assert "add_bytes__psu32_u32(mine, data[i]);" in src  # a shared pointer
    src = body(K.halves)
    assert "float* second = v + n;" in src and "float* window = w + 2;" in src


def test_a_moved_pointer_keeps_vec():
    src = body(K.vec_rows)
    assert (
        "reinterpret_cast<const kdsl::vec<float, 4>*>(x + kdsl::mul(int32_t("
        "blockIdx.x), cols));" in src
    )


def test_a_row_of_an_array_is_an_array():
    src = body(K.sum_rows)
    assert "row_sum__a1f32(a + kdsl::offset(i, a_stride0), a_shape1," in src
    assert "if (int64_t(i) < a_shape0) {" in src  # len(a)


def test_grid_is_the_plain_cuda_expression():
    src = body(K.grid_stride)
    assert "int32_t i_step = blockDim.x * gridDim.x;" in src
    assert "int32_t i_start = blockIdx.x * blockDim.x + threadIdx.x;" in src
    assert "for (int32_t i = i_start; kdsl::in_range(i, n, i_step);" in src
    src = body(K.transpose_2d)
    assert "int32_t x = blockIdx.x * blockDim.x + threadIdx.x;" in src
    assert "int32_t y = blockIdx.y * blockDim.y + threadIdx.y;" in src


def test_a_shared_scalar_is_a_shared_variable():
    src = body(K.count_positive)
    assert "__shared__ int32_t total;" in src
    assert "total = 0;" in src and "atomicAdd(&total, 1);" in src
    assert "out[blockIdx.x] = total;" in src


@pytest.mark.parametrize("kernel", K.KERNELS, ids=lambda k: k.name)
def test_they_compile(kernel):
    inst = kernel.dispatch()
    compile_to_cubin(inst.source, inst.name)


@pytest.mark.parametrize("kernel", K.KERNELS, ids=lambda k: k.name)
def test_golden(golden, kernel):
    golden.check_kernel(kernel, GOLDEN)


# -- the interpreter against numpy -------------------------------------------------
RNG = np.random.default_rng(25)


def test_scale_rows():
    x = RNG.standard_normal((5, 37)).astype(np.float32)
    out = np.zeros_like(x)
    K.scale_rows.interpret[5, 16](x, out, 37, np.float32(3))
    np.testing.assert_array_equal(out, x * np.float32(3))


@pytest.mark.parametrize("n,step", [(0, 1), (1, 1), (10, 3), (12, 4)])
def test_strided_walk(n, step):
    x = RNG.standard_normal(n).astype(np.float32)
    out = np.zeros(n + 1, np.float32)
    K.strided_walk.interpret[1, 1](x, out, n, step)
    taken = x[::step]
    np.testing.assert_array_equal(out[: len(taken)], taken)
    assert out[n] == len(taken) * step  # p - x: where the walk stopped


def test_histogram():
    data = RNG.integers(0, 2**32, 1000, dtype=np.uint32)
    out = np.zeros(256, np.uint32)
    K.histogram.interpret[3, 64](data, out, 1000)
    want = np.bincount(data.view(np.uint8), minlength=256).astype(np.uint32)
    np.testing.assert_array_equal(out, want)


def test_sum_rows_and_a_strided_array():
    a = RNG.standard_normal((9, 13)).astype(np.float32)
    out = np.zeros(9, np.float32)
    K.sum_rows.interpret[1, 32](a, out)
    want = np.zeros(9, np.float32)
    for j in range(13):
        want += a[:, j]
    np.testing.assert_array_equal(out, want)
    b = a[::-1, ::-2]  # negative strides: rows below the view's element 0
    out = np.zeros(9, np.float32)
    K.sum_rows.interpret[1, 32](b, out)
    want = np.zeros(9, np.float32)
    for j in range(b.shape[1]):
        want += b[:, j]
    np.testing.assert_array_equal(out, want)
    t = np.zeros(13, np.float32)
    K.sum_rows.interpret[1, 32](a.T, t)  # rows of the transpose: strided
    want = np.zeros(13, np.float32)
    for i in range(9):
        want += a[i, :]
    np.testing.assert_array_equal(t, want)


def test_grid_stride_and_grid_2d():
    x = RNG.standard_normal(1000).astype(np.float32)
    y = x.copy()
    K.grid_stride.interpret[3, 64](y, 1000)
    np.testing.assert_array_equal(y, x * 2)
    a = RNG.standard_normal((7, 11)).astype(np.float32)
    out = np.zeros((11, 7), np.float32)
    K.transpose_2d.interpret[(2, 1), (8, 8)](a, out)
    np.testing.assert_array_equal(out, a.T)


def test_count_positive():
    x = RNG.standard_normal(1000).astype(np.float32)
    out = np.zeros(8, np.int32)
    K.count_positive.interpret[8, 128](x, out, 1000)
    want = [(x[b * 128 : (b + 1) * 128] > 0).sum() for b in range(8)]
    np.testing.assert_array_equal(out, want)


def test_vec_rows():
    x = RNG.standard_normal((3, 8)).astype(np.float32)
    out = np.zeros_like(x)
    K.vec_rows.interpret[3, 2](x, out, 8)
    np.testing.assert_array_equal(out, x + 1)


def test_halves():
    x = RNG.standard_normal(32).astype(np.float32)
    out = np.zeros(32, np.float32)
    K.halves.interpret[1, 32](x, out, 32, shared_mem=2 * 32 * 4)
    want = (x * np.float32(10) + np.float32(3)) + np.float32(1)  # w[3], then w[1]
    np.testing.assert_array_equal(out, want)


def test_row_of_int64():
    x = RNG.standard_normal((4, 5)).astype(np.float32)
    out = np.zeros(4, np.float32)
    K.row_of_int64.interpret[4, 1](x, out, 5)
    np.testing.assert_array_equal(out, x[:, -1])


# -- what the interpreter checks ---------------------------------------------------
def test_an_access_past_the_allocation_names_it_and_the_offset():
    x = np.zeros((2, 8), np.float32)
    out = np.zeros((3, 8), np.float32)
    with pytest.raises(kdsl.InterpretError) as info:
        K.scale_rows.interpret[3, 8](x, out, 8, np.float32(1))
    message = str(info.value)
    assert "E407" in message
    assert "(x + 16)[0]: element 16 of x, which has 16 elements" in message
    assert "block (2, 0, 0)" in message


def test_a_shared_pointer_is_checked_against_its_array():
    @kdsl.kernel
    def past(out: Pointer[Float32]):
        s = kdsl.shared_array(Float32, 64)
        p = s + 60
        p[thread_idx.x] = 1.0
        out[thread_idx.x] = p[thread_idx.x]

    with pytest.raises(kdsl.InterpretError, match=r"\(s \+ 60\)\[4\]: element 64"):
        past.interpret[1, 8](np.zeros(8, np.float32))


def test_a_moved_dynamic_view_is_checked_against_the_view():
    @kdsl.kernel
    def past(out: Pointer[Float32], n: Int32):
        v = kdsl.dynamic_shared_array(Float32, n)
        p = v + 4
        p[thread_idx.x] = 1.0

    with pytest.raises(kdsl.InterpretError, match=r"\(v \+ 4\)\[4\]: element 8 of v"):
        past.interpret[1, 8](np.zeros(8, np.float32), 8, shared_mem=64)


def test_a_row_index_past_the_first_extent_is_caught():
    out = np.zeros(12, np.float32)

    @kdsl.kernel
    def row_past(a: kdsl.Array[Float32, 2], out: Pointer[Float32]):
        r = a[thread_idx.x]
        out[thread_idx.x] = r[0]

    with pytest.raises(kdsl.InterpretError, match=r"a\[3\] \(a has shape \(3\)\)"):
        row_past.interpret[1, 4](np.zeros((3, 4), np.float32), out)


def test_a_misaligned_vector_view_of_a_moved_pointer_is_caught():
    x = np.zeros((3, 6), np.float32)
    with pytest.raises(kdsl.InterpretError, match=r"E900.*'x \+ 6'.*vectors of 4"):
        K.vec_rows.interpret[3, 2](x, np.zeros_like(x), 6)


def test_threads_moving_one_pointer_by_different_amounts():
    @kdsl.kernel
    def odd_ahead(x: Pointer[Float32], out: Pointer[Float32]):
        p = x
        if thread_idx.x % 2 == 1:
            p += 1
        out[thread_idx.x] = p[thread_idx.x]

    x = np.arange(70, dtype=np.float32)
    out = np.zeros(32, np.float32)
    odd_ahead.interpret[1, 32](x, out)
    t = np.arange(32)
    np.testing.assert_array_equal(out, x[t + t % 2])
    inst = odd_ahead.dispatch()
    compile_to_cubin(inst.source, inst.name)


def test_two_allocations_compare_unequal_and_refuse_order():
    @kdsl.kernel
    def compare(a: Pointer[Float32], b: Pointer[Float32], out: Pointer[Int32]):
        out[0] = Int32(1) if a == b else Int32(0)
        out[1] = Int32(1) if a != b else Int32(0)
        out[2] = Int32(1) if a + 1 == a + 1 else Int32(0)

    out = np.full(3, 7, np.int32)
    compare.interpret[1, 1](np.zeros(2, np.float32), np.zeros(2, np.float32), out)
    np.testing.assert_array_equal(out, [0, 1, 1])

    @kdsl.kernel
    def order(a: Pointer[Float32], b: Pointer[Float32], out: Pointer[kdsl.Int64]):
        out[0] = b - a

    with pytest.raises(kdsl.InterpretError, match=r"E901.*'-'.*\(b and a\)"):
        order.interpret[1, 1](
            np.zeros(2, np.float32), np.zeros(2, np.float32), np.zeros(1, np.int64)
        )


# -- bad input ---------------------------------------------------------------------
def _error(kernel) -> DSLError:
    with pytest.raises(DSLError) as info:
        kernel.dispatch().source
    return info.value


def test_an_offset_must_be_an_integer():
    @kdsl.kernel
    def bad(x: Pointer[Float32], f: Float32):
        p = x + f
        p[0] = 1.0

    err = _error(bad)
    assert err.code == "E345" and "got a Float32" in str(err)


def test_two_pointers_of_different_types_or_spaces():
    @kdsl.kernel
    def types(x: Pointer[Float32], y: Pointer[Uint32], out: Pointer[kdsl.Int64]):
        out[0] = x - y

    err = _error(types)
    assert err.code == "E346" and "element types Float32 and Uint32" in str(err)

    @kdsl.kernel
    def spaces(x: Pointer[Float32], out: Pointer[Int32]):
        s = kdsl.shared_array(Float32, 4)
        out[0] = Int32(1) if x < s else Int32(0)

    err = _error(spaces)
    assert err.code == "E346" and "memory spaces global and shared" in str(err)


@kdsl.func
def first_two(p: Pointer[Float32]) -> Float32:
    return p[0] + p[1]


def test_a_moved_pointer_views_its_bytes_and_goes_to_a_function():
    @kdsl.kernel
    def bytes_at(raw: Pointer[kdsl.Uint8], out: Pointer[Float32], at: Int32):
        out[0] = (raw + at).view(Float32)[0]
        out[1] = first_two(out + 2)

    src = bytes_at.dispatch().source
    assert "reinterpret_cast<const float*>(raw + at)[0]" in src
    assert "first_two__pf32(out + 2)" in src
    compile_to_cubin(src, bytes_at.dispatch().name)
    floats = np.array([1.5, -2.25, 3.0], np.float32)
    out = np.array([0, 0, 10, 20], np.float32)
    bytes_at.interpret[1, 1](floats.view(np.uint8), out, 4)
    np.testing.assert_array_equal(out, [-2.25, 30, 10, 20])
    with pytest.raises(kdsl.InterpretError, match=r"E900.*viewed as Float32"):
        bytes_at.interpret[1, 1](floats.view(np.uint8), out, 3)


def test_a_parameter_moved_in_place_stays_const_when_only_read():
    @kdsl.kernel
    def moved(x: Pointer[Float32], out: Pointer[Float32], k: Int32):
        x += k  # a new pointer variable: the parameter itself is never stored to
        out += k
        out[0] = x[0]

    src = body(moved)
    assert "(const float* x, float* out, int32_t k)" in src
    assert "const float* x_2 = x + k;" in src and "float* out_2 = out + k;" in src
    x, out = np.arange(4, dtype=np.float32), np.zeros(4, np.float32)
    moved.interpret[1, 1](x, out, 2)
    np.testing.assert_array_equal(out, [0, 0, 2, 0])


@kdsl.func
def bump(total, v):
    kdsl.atomic_add(total, (), v)


def test_a_shared_scalar_goes_to_a_function_by_reference():
    @kdsl.kernel
    def block_sum(out: Pointer[Int32]):
        total = kdsl.shared_scalar(Int32)
        if thread_idx.x == 0:
            total[()] = 0
        kdsl.syncthreads()
        bump(total, thread_idx.x)
        kdsl.syncthreads()
        if thread_idx.x == 0:
            out[0] = total[()]

    src = block_sum.dispatch().source
    assert "static __device__ void bump__si32_i32(int32_t& total, int32_t v) {" in src
    assert "bump__si32_i32(total, int32_t(threadIdx.x));" in src
    compile_to_cubin(src, block_sum.dispatch().name)
    out = np.zeros(1, np.int32)
    block_sum.interpret[1, 64](out)
    assert out[0] == sum(range(64))


def test_len_of_arrays_and_what_has_none():
    @kdsl.kernel
    def lengths(a: kdsl.Array[Float32, 2], out: Pointer[kdsl.Int64]):
        s = kdsl.shared_array(Float32, (6, 2))
        out[0] = len(a)
        out[1] = kdsl.Int64(len(s))
        out[2] = len(a[0])

    out = np.zeros(3, np.int64)
    lengths.interpret[1, 1](np.zeros((4, 5), np.float32), out)
    np.testing.assert_array_equal(out, [4, 6, 5])

    @kdsl.kernel
    def of_pointer(x: Pointer[Float32], out: Pointer[Float32]):
        out[0] = Float32(len(x))

    err = _error(of_pointer)
    assert err.code == "E228" and "pointer 'x'" in str(err)


def test_the_ir_checker_catches_a_mistyped_pointer_node():
    from kdsl.transpile import ir
    from kdsl.transpile.passes.verify import verify

    p = ir.Var(ir.PointerType(Float32), "p")
    params = (ir.Param("p", p.type),)
    shared = ir.PointerType(Float32, space="shared")
    bad = ir.PointerOffset(shared, p, "+", ir.Const(Int32, 1))  # the space changed
    f = ir.Function("f", params, (ir.ExprStmt(bad),))
    with pytest.raises(DSLError, match="E999"):
        verify(f)
    good = ir.PointerOffset(p.type, p, "+", ir.Const(Int32, 1))
    verify(ir.Function("f", params, (ir.ExprStmt(good),)))


def test_a_moved_pointer_indexed_in_place_is_parenthesised():
    @kdsl.kernel
    def at(x: Pointer[Float32], out: Pointer[Float32]):
        out[0] = (x + 1)[2]

    src = at.dispatch().source
    assert "out[0] = (x + 1)[2];" in src, src
    compile_to_cubin(src, at.dispatch().name)
    x, out = np.arange(8, dtype=np.float32), np.zeros(1, np.float32)
    at.interpret[1, 1](x, out)
    assert out[0] == 3.0
