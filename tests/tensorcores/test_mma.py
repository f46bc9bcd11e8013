"""kdsl.mma_m16n8k16 / m16n8k8 / m16n8k32 (transpile/builtins/mma.py): the
interpreter against a numpy reference of the PTX ISA's fragment layouts for
every shape and type, the layout tables of the entry against the test's own,
the generated CUDA through NVRTC, and the errors."""

import numpy as np
import pytest

import kdsl
from kdsl import BFloat16x4, BFloat16x8, Float32x4, Pointer, Float32, thread_idx
from kdsl.runtime.nvrtc import compile_to_cubin
from kdsl.transpile.builtins import mma
from kdsl.transpile.core.types import BY_SHORT
from mma_kernels import (
    CASES,
    IDS,
    SHORT,
    coords,
    fragments,
    instance,
    mma_tile,
    random_inputs,
    reference,
    unfragment,
)


def run_interpreter(k, ta, tb, tc, a, b, c, warps=1):
    fa = np.concatenate([fragments("a", k, ta, a)] * warps)
    fb = np.concatenate([fragments("b", k, tb, b)] * warps)
    fc = np.concatenate([fragments("c", k, tc, c)] * warps)
    fd = np.zeros_like(fc)
    mma_tile.interpret[1, 32 * warps](
        fa.ravel(), fb.ravel(), fc.ravel(), fd.ravel(), K=k
    )
    return [unfragment(fd[32 * w : 32 * w + 32], k, tc) for w in range(warps)]


@pytest.mark.parametrize("k, ta, tb, tc", [c[:4] for c in CASES], ids=IDS)
def test_the_interpreter_computes_a_tile_with_the_ptx_layouts(k, ta, tb, tc):
    for seed in range(3):
        a, b, c = random_inputs(k, ta, tb, tc, seed)
        (d,) = run_interpreter(k, ta, tb, tc, a, b, c)
        want = reference(a, b, c, tc)
        np.testing.assert_array_equal(
            d.view(f"u{d.itemsize}"), want.view(f"u{d.itemsize}")
        )


def test_each_warp_multiplies_its_own_tile():
    k, t = 16, np.dtype("float16")
    a, b, c = random_inputs(k, t, t, np.dtype(np.float32), 5)
    fa = np.concatenate([fragments("a", k, t, a), fragments("a", k, t, 2 * a)])
    fb = np.concatenate([fragments("b", k, t, b)] * 2)
    fc = np.concatenate([fragments("c", k, t, c)] * 2)
    fd = np.zeros_like(fc)
    mma_tile.interpret[1, 64](fa.ravel(), fb.ravel(), fc.ravel(), fd.ravel(), K=k)
    np.testing.assert_array_equal(
        unfragment(fd[:32], k, t), reference(a, b, c, fc.dtype)
    )
    np.testing.assert_array_equal(
        unfragment(fd[32:], k, t), reference(2 * a, b, c, fc.dtype)
    )


def test_integer_mma_wraps_like_int32():
    k = 32
    a = np.full((16, k), 127, np.int8)
    b = np.full((k, 8), 127, np.int8)
    c = np.full((16, 8), 2**31 - 100, np.int32)
    (d,) = run_interpreter(k, a.dtype, b.dtype, c.dtype, a, b, c)
    want = np.int64(2**31 - 100) + 32 * 127 * 127 - 2**32
    assert (d == want).all()


def test_tf32_reads_the_top_19_bits():
    k, t = 8, np.dtype(np.float32)
    a = np.full((16, k), 1.0 + 2.0**-12, np.float32)  # below tf32's precision
    b = np.ones((k, 8), np.float32)
    c = np.zeros((16, 8), np.float32)
    (d,) = run_interpreter(k, t, t, t, a, b, c)
    assert (d == 8.0).all()


@pytest.mark.parametrize("k, ta, tb, tc", [c[:4] for c in CASES], ids=IDS)
def test_the_entry_layouts_are_the_ptx_layouts(k, ta, tb, tc):
    shape = f"m16n8k{k}"
    for operand, t in (("a", ta), ("b", tb), ("c", tc)):
        elem = BY_SHORT[SHORT[t]]
        row, col = mma.layout(shape, operand, elem)
        for lane in range(32):
            for i in range(row.shape[1]):
                assert (row[lane, i], col[lane, i]) == coords(operand, k, t, lane, i)


def test_each_element_is_held_by_exactly_one_lane():
    for shape, combos in mma._TYPES.items():
        k = mma.shape_k(shape)
        for ta, tb, tc in combos:
            for op, elem, size in (
                ("a", ta, (16, k)),
                ("b", tb, (k, 8)),
                ("c", tc, (16, 8)),
            ):
                row, col = mma.layout(shape, op, elem)
                seen = np.zeros(size, int)
                np.add.at(seen, (row.ravel(), col.ravel()), 1)
                assert (seen == 1).all(), (shape, op, elem)


@pytest.mark.parametrize("k, ta, tb, tc", [c[:4] for c in CASES], ids=IDS)
def test_the_generated_cuda_compiles(k, ta, tb, tc):
    inst = instance(k, ta, tb, tc)
    name = mma.helper(f"m16n8k{k}", *(BY_SHORT[SHORT[t]] for t in (ta, tb, tc)))
    assert f"{name}(" in inst.source.split("end of kdsl prelude")[1]
    compile_to_cubin(inst.source, inst.name)


@kdsl.kernel
def half_warp(a: Pointer[Float32], d: Pointer[Float32]):
    lane = thread_idx.x
    fa = BFloat16x8(a[lane])
    fb = BFloat16x4(a[lane])
    d.vec(4)[lane] = kdsl.mma_m16n8k16(fa, fb, Float32x4(0.0))


def test_a_partial_warp_is_an_interpreter_error():
    a = np.zeros(16, np.float32)
    d = np.zeros(64, np.float32)
    with pytest.raises(kdsl.DSLError) as info:
        half_warp.interpret[1, 16](a, d)
    assert info.value.code == "E360"
    assert "beyond the block" in str(info.value)


@kdsl.kernel
def wrong_types(a: Pointer[Float32], d: Pointer[Float32]):
    lane = thread_idx.x
    fa = BFloat16x8(a[lane])
    d.vec(4)[lane] = kdsl.mma_m16n8k16(fa, fa, Float32x4(0.0))


def test_fragments_of_the_wrong_types_are_a_located_error():
    with pytest.raises(kdsl.DSLError) as info:
        wrong_types.dispatch().source
    err = info.value
    assert err.code == "E800"
    assert "BFloat16x8, BFloat16x4, Float32x4" in str(err)
    assert "got BFloat16x8, BFloat16x8, Float32x4" in str(err)
    assert err.span is not None and err.span.line > 0
    assert "^" in err.render()
