"""kdsl.cp_async / cp_async_commit / cp_async_wait and kdsl.swizzle: the
interpreter's copies (zero-fill included, an out-of-range source index
never read when pred is False), the generated CUDA through NVRTC, the
swizzle's bank-conflict freedom, and the errors."""

import ml_dtypes
import numpy as np
import pytest

import kdsl
from kdsl import (
    BFloat16,
    BFloat16x8,
    Constexpr,
    Float32,
    Int32,
    Pointer,
    block_idx,
    thread_idx,
)
from kdsl.runtime.nvrtc import compile_to_cubin

BF16 = ml_dtypes.bfloat16


@kdsl.kernel
def stage_rows(
    src: Pointer[BFloat16],
    out: Pointer[BFloat16],
    rows: Int32,
    ROWS: Constexpr[int] = 16,
    CHUNKS: Constexpr[int] = 8,
):
    """A ROWS x (8 CHUNKS) bf16 tile through shared memory with cp.async
    (rows at or past `rows` zero-filled), stored swizzled, read back."""
    tid = thread_idx.x
    tile = kdsl.shared_array(BFloat16x8, (ROWS, CHUNKS))
    for k in kdsl.range_constexpr(ROWS * CHUNKS // 32):
        i = k * 32 + tid
        r = i // CHUNKS
        c = i % CHUNKS
        kdsl.cp_async(
            tile,
            (r, kdsl.swizzle(r, c, CHUNKS)),
            src.vec(8),
            r * CHUNKS + c,
            pred=r < rows,
        )
    kdsl.cp_async_commit()
    kdsl.cp_async_wait(0)
    kdsl.syncthreads()
    for k in kdsl.range_constexpr(ROWS * CHUNKS // 32):
        i = k * 32 + tid
        r = i // CHUNKS
        c = i % CHUNKS
        out.vec(8)[i] = tile[r, kdsl.swizzle(r, c, CHUNKS)]


@pytest.mark.parametrize("rows", [16, 11, 0])
@pytest.mark.parametrize("chunks", [2, 4, 8])
def test_cp_async_copies_and_zero_fills(rows, chunks):
    rng = np.random.default_rng(rows)
    src = rng.standard_normal(rows * 8 * chunks).astype(BF16)  # only `rows` rows
    src = np.concatenate([src, np.zeros(8, BF16)])  # (index 0 must exist)
    out = np.full(16 * 8 * chunks, 7, BF16)
    stage_rows.interpret[1, 32](src, out, rows, CHUNKS=chunks)
    want = np.zeros((16, 8 * chunks), BF16)
    want[:rows] = src[: rows * 8 * chunks].reshape(rows, 8 * chunks)
    np.testing.assert_array_equal(out.reshape(16, 8 * chunks), want)


@pytest.mark.parametrize("chunks", [2, 4, 8])
def test_the_generated_cuda_compiles(chunks):
    inst = stage_rows.dispatch(16, chunks)
    src = inst.source
    assert "kdsl::cp_async_cg<16>(&tile[" in src
    assert "kdsl::cp_async_wait<0>();" in src
    compile_to_cubin(src, inst.name)


@kdsl.kernel
def small_copies(src: Pointer[Float32], out: Pointer[Float32]):
    tid = thread_idx.x
    s4 = kdsl.shared_array(Float32, (32,))
    s8 = kdsl.shared_array(kdsl.Float32x2, (32,))
    kdsl.cp_async(s4, tid, src, tid)
    kdsl.cp_async(s8, tid, src.vec(2), tid, cache="ca")
    kdsl.cp_async_commit()
    kdsl.cp_async_wait(0)
    out[tid] = s4[tid] + s8[tid][1]


def test_four_and_eight_byte_copies():
    src = np.arange(64, dtype=np.float32)
    out = np.zeros(32, np.float32)
    small_copies.interpret[1, 32](src, out)
    np.testing.assert_array_equal(out, src[:32] + src[1::2])
    inst = small_copies.dispatch()
    assert "kdsl::cp_async_ca<4>(&s4[tid], &src[tid]);" in inst.source
    compile_to_cubin(inst.source, inst.name)


@pytest.mark.parametrize("chunks", [1, 2, 4, 8, 16])
def test_the_swizzle_spreads_eight_rows_over_the_banks(chunks):
    """ldmatrix reads one 16-byte chunk from each of 8 consecutive rows: the
    8 chunks must lie in different 16-byte slots of the 128-byte bank line."""

    def swizzle(row, chunk):
        span, per_line = min(chunks, 8), max(1, 8 // chunks)
        return chunk ^ ((row // per_line) % span)

    for first in range(0, 32, 8):
        for chunk in range(chunks):
            slots = {
                (row * chunks + swizzle(row, chunk)) % 8
                for row in range(first, first + 8)
            }
            assert len(slots) == 8, (first, chunk)
    # and it is a permutation of each row's chunks
    for row in range(16):
        assert sorted(swizzle(row, c) for c in range(chunks)) == list(range(chunks))


@kdsl.kernel
def swizzled(out: Pointer[Int32], CHUNKS: Constexpr[int]):
    tid = thread_idx.x
    out[tid] = kdsl.swizzle(tid // CHUNKS, tid % CHUNKS, CHUNKS) + block_idx.x


@pytest.mark.parametrize("chunks", [1, 2, 4, 8, 16])
def test_the_swizzle_builtin_matches(chunks):
    out = np.zeros(64, np.int32)
    swizzled.interpret[1, 64](out, CHUNKS=chunks)
    row, c = np.arange(64) // chunks, np.arange(64) % chunks
    want = c ^ ((row // max(1, 8 // chunks)) % min(chunks, 8))
    np.testing.assert_array_equal(out, want)


@kdsl.kernel
def copy_to_global(src: Pointer[Float32], out: Pointer[Float32]):
    tid = thread_idx.x
    kdsl.cp_async(out, tid, src, tid)


@kdsl.kernel
def cg_of_four_bytes(src: Pointer[Float32], out: Pointer[Float32]):
    tid = thread_idx.x
    s = kdsl.shared_array(Float32, (32,))
    kdsl.cp_async(s, tid, src, tid, cache="cg")


@kdsl.kernel
def wait_dynamic(src: Pointer[Float32], n: Int32):
    kdsl.cp_async_wait(n)


@kdsl.kernel
def swizzle_three(out: Pointer[Int32]):
    tid = thread_idx.x
    out[tid] = kdsl.swizzle(tid, 0, 3)


@pytest.mark.parametrize(
    "kernel, code",
    [
        (copy_to_global, "E804"),
        (cg_of_four_bytes, "E805"),
        (wait_dynamic, "E806"),
        (swizzle_three, "E807"),
    ],
    ids=["E804", "E805", "E806", "E807"],
)
def test_errors(kernel, code):
    with pytest.raises(kdsl.DSLError) as info:
        kernel.dispatch().source
    assert info.value.code == code
    assert "^" in info.value.render()


@kdsl.kernel
def past_the_end(src: Pointer[Float32], out: Pointer[Float32]):
    tid = thread_idx.x
    s = kdsl.shared_array(Float32, (32,))
    kdsl.cp_async(s, tid, src, tid + 1)
    kdsl.cp_async_commit()
    kdsl.cp_async_wait(0)
    out[tid] = s[tid]


def test_an_out_of_bounds_source_names_cp_async():
    with pytest.raises(kdsl.DSLError) as info:
        past_the_end.interpret[1, 32](
            np.zeros(32, np.float32), np.zeros(32, np.float32)
        )
    assert info.value.code == "E407"
    assert "out-of-bounds kdsl.cp_async of src[32]" in str(info.value)
