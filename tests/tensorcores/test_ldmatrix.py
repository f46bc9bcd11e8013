"""kdsl.ldmatrix / kdsl.stmatrix: the interpreter against the PTX ISA's
layout (written again here), ldmatrix feeding kdsl.mma_m16n8k16 the A
fragment of a row-major tile and (trans) the B fragment of a row-major
K x N tile, stmatrix storing D back, NVRTC compiles and the errors."""

import ml_dtypes
import numpy as np
import pytest

import kdsl
from kdsl import (
    BFloat16,
    BFloat16x8,
    Constexpr,
    Float32,
    Float32x4,
    Int16,
    Int16x8,
    Pointer,
    thread_idx,
)
from kdsl.runtime.nvrtc import compile_to_cubin

BF16 = ml_dtypes.bfloat16


@kdsl.kernel
def load_matrices(
    src: Pointer[Int16],
    out: Pointer[Int16],
    COUNT: Constexpr[int],
    TRANS: Constexpr[bool],
):
    """32 rows of 8 (four 8 x 8 matrices) into shared memory; each lane
    gives row `lane` and gets its ldmatrix fragment."""
    lane = thread_idx.x
    tile = kdsl.shared_array(Int16x8, (32,))
    tile[lane] = src.vec(8)[lane]
    kdsl.syncthreads()
    got = kdsl.ldmatrix(tile, lane, count=COUNT, trans=TRANS)
    for i in kdsl.range_constexpr(2 * COUNT):
        out[lane * 2 * COUNT + i] = got[i]


def ldmatrix_reference(rows, count, trans):
    """rows: (32, 8), row r of matrix j is rows[8 j + r]; lane l's element
    2 j + e is row l // 4, column 2 (l % 4) + e of matrix j (trans: row
    2 (l % 4) + e, column l // 4)."""
    out = np.zeros((32, 2 * count), rows.dtype)
    for lane in range(32):
        for j in range(count):
            for e in range(2):
                m = rows[8 * j : 8 * j + 8]
                if trans:
                    out[lane, 2 * j + e] = m[2 * (lane % 4) + e, lane // 4]
                else:
                    out[lane, 2 * j + e] = m[lane // 4, 2 * (lane % 4) + e]
    return out


@pytest.mark.parametrize("trans", [False, True])
@pytest.mark.parametrize("count", [1, 2, 4])
def test_ldmatrix_follows_the_ptx_layout(count, trans):
    src = np.arange(32 * 8, dtype=np.int16)
    out = np.zeros(32 * 2 * count, np.int16)
    load_matrices.interpret[1, 32](src, out, COUNT=count, TRANS=trans)
    want = ldmatrix_reference(src.reshape(32, 8), count, trans)
    np.testing.assert_array_equal(out.reshape(32, 2 * count), want)


@pytest.mark.parametrize("trans", [False, True])
@pytest.mark.parametrize("count", [1, 2, 4])
def test_ldmatrix_compiles(count, trans):
    inst = load_matrices.dispatch(count, trans)
    call = f"kdsl::ldmatrix_x{count}{'_trans' if trans else ''}(&tile[lane])"
    assert call in inst.source
    compile_to_cubin(inst.source, inst.name)


@kdsl.kernel
def tile_gemm(a: Pointer[BFloat16], b: Pointer[BFloat16], d: Pointer[Float32]):
    """D (16 x 8) = A (16 x 16, row-major) * B (16 x 8, row-major): ldmatrix
    x4 gives A's fragment, x2 with trans=True B's; stmatrix is not used."""
    lane = thread_idx.x
    sa = kdsl.shared_array(BFloat16x8, (16, 2))
    sb = kdsl.shared_array(BFloat16x8, (16,))
    sa[lane // 2, lane % 2] = a.vec(8)[lane]  # row lane // 2, half lane % 2
    if lane < 16:
        sb[lane] = b.vec(8)[lane]
    kdsl.syncthreads()
    fa = kdsl.ldmatrix(sa, (lane % 16, lane // 16))
    fb = kdsl.ldmatrix(sb, lane % 16, count=2, trans=True)
    fd = kdsl.mma_m16n8k16(fa, fb, Float32x4(0.0))
    g = lane // 4
    t = lane % 4
    d[g * 8 + 2 * t] = fd[0]
    d[g * 8 + 2 * t + 1] = fd[1]
    d[(g + 8) * 8 + 2 * t] = fd[2]
    d[(g + 8) * 8 + 2 * t + 1] = fd[3]


def tile_inputs(seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((16, 16)).astype(BF16)
    b = rng.standard_normal((16, 8)).astype(BF16)
    return a, b


def test_ldmatrix_feeds_mma_row_major_a_and_b():
    a, b = tile_inputs()
    d = np.zeros(128, np.float32)
    tile_gemm.interpret[1, 32](a.ravel(), b.ravel(), d)
    want = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(d.reshape(16, 8), want)
    compile_to_cubin(tile_gemm.dispatch().source, "tile_gemm")


@kdsl.kernel
def store_matrices(
    src: Pointer[Int16],
    out: Pointer[Int16],
    COUNT: Constexpr[int],
    TRANS: Constexpr[bool],
):
    """Each lane's fragment (2 COUNT values from src) stored by stmatrix
    into 32 rows of 8, then copied out."""
    lane = thread_idx.x
    tile = kdsl.shared_array(Int16x8, (32,))
    tile[lane] = Int16x8(0)
    kdsl.syncthreads()
    if COUNT == 1:
        v1 = kdsl.Vector[Int16, 2](src[2 * lane], src[2 * lane + 1])
        kdsl.stmatrix(tile, lane, v1, count=1, trans=TRANS)
    elif COUNT == 2:
        kdsl.stmatrix(tile, lane, src.vec(4)[lane], count=2, trans=TRANS)
    else:
        kdsl.stmatrix(tile, lane, src.vec(8)[lane], trans=TRANS)
    kdsl.syncthreads()
    out.vec(8)[lane] = tile[lane]


@pytest.mark.parametrize("trans", [False, True])
@pytest.mark.parametrize("count", [1, 2, 4])
def test_stmatrix_is_ldmatrix_backwards(count, trans):
    frags = np.arange(32 * 2 * count, dtype=np.int16) + 1
    out = np.zeros(32 * 8, np.int16)
    store_matrices.interpret[1, 32](frags, out, COUNT=count, TRANS=trans)
    rows = out.reshape(32, 8)
    np.testing.assert_array_equal(
        ldmatrix_reference(rows, count, trans), frags.reshape(32, 2 * count)
    )
    assert (rows[8 * count :] == 0).all()  # the matrices beyond count: untouched
    inst = store_matrices.dispatch(count, trans)
    compile_to_cubin(inst.source, inst.name)


@kdsl.kernel
def not_shared(a: Pointer[BFloat16], d: Pointer[Float32]):
    lane = thread_idx.x
    fa = kdsl.ldmatrix(a.vec(8), lane)
    d[lane] = Float32(fa[0])


@kdsl.kernel
def bad_count(a: Pointer[BFloat16], d: Pointer[Float32]):
    lane = thread_idx.x
    sa = kdsl.shared_array(BFloat16x8, (32,))
    fa = kdsl.ldmatrix(sa, lane, count=3)
    d[lane] = Float32(fa[0])


@pytest.mark.parametrize(
    "kernel, code", [(not_shared, "E801"), (bad_count, "E802")], ids=["E801", "E802"]
)
def test_errors(kernel, code):
    with pytest.raises(kdsl.DSLError) as info:
        kernel.dispatch().source
    assert info.value.code == code
    assert "^" in info.value.render()


@kdsl.kernel
def load_bytes(src: Pointer[kdsl.Int8], out: Pointer[kdsl.Int8], COUNT: Constexpr[int]):
    """ldmatrix on rows of 16 Int8: 4 bytes of each matrix per lane."""
    lane = thread_idx.x
    tile = kdsl.shared_array(kdsl.Int8x16, (32,))
    tile[lane] = src.vec(16)[lane]
    kdsl.syncthreads()
    got = kdsl.ldmatrix(tile, lane, count=COUNT)
    for i in kdsl.range_constexpr(4 * COUNT):
        out[lane * 4 * COUNT + i] = got[i]


@pytest.mark.parametrize("count", [1, 2, 4])
def test_ldmatrix_of_8_bit_rows_gives_4_bytes_per_matrix(count):
    src = (np.arange(32 * 16) % 251 - 125).astype(np.int8)
    out = np.zeros(32 * 4 * count, np.int8)
    load_bytes.interpret[1, 32](src, out, COUNT=count)
    rows = src.reshape(32, 16)
    want = np.zeros((32, 4 * count), np.int8)
    for lane in range(32):
        for j in range(count):
            want[lane, 4 * j : 4 * j + 4] = rows[8 * j + lane // 4, 4 * (lane % 4) :][
                :4
            ]
    np.testing.assert_array_equal(out.reshape(32, 4 * count), want)
    inst = load_bytes.dispatch(count)
    compile_to_cubin(inst.source, inst.name)


@kdsl.kernel
def transposed_bytes(out: Pointer[kdsl.Int8]):
    lane = thread_idx.x
    tile = kdsl.shared_array(kdsl.Int8x16, (32,))
    got = kdsl.ldmatrix(tile, lane, trans=True)
    out[lane] = got[0]


def test_a_transpose_of_8_bit_rows_is_an_error():
    with pytest.raises(kdsl.DSLError) as info:
        transposed_bytes.dispatch().source
    assert info.value.code == "E802"
    assert "16-bit only" in str(info.value)
