"""Structs (``@kdsl.struct``, core/structs.py): C's layout as a numpy
dtype and a C++ struct, construction, by-value parameters, pointers to
records with field reads and stores, locals, device functions, packed
layouts; the interpreter against numpy, NVRTC, golden files; and the
errors for bad input (each located, nothing launched)."""

import pathlib
import sys

import numpy as np
import pytest

import kdsl
from kdsl import Float16, Float32, Float64, Int8, Int32, Pointer, Uint8, thread_idx
from kdsl.runtime.nvrtc import compile_to_cubin

TESTS = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))
import struct_kernels as K  # noqa: E402

GOLDEN = TESTS / "golden" / "features" / "struct_kernels"
KERNELS = [K.dequantize_q8_0, K.segments, K.read_headers, K.dot_q8_0, K.byte_dots]


# -- layout ---------------------------------------------------------------------------
def test_layout_is_numpy_aligned_and_c():
    @kdsl.struct
    class Mixed:
        a: Int8
        b: Float64
        c: Int32
        d: Float16

    want = np.dtype([("a", "i1"), ("b", "f8"), ("c", "i4"), ("d", "f2")], align=True)
    assert Mixed.dtype == want
    assert Mixed.dtype.itemsize == Mixed.size == 24 and Mixed.align == 8
    assert [f.offset for f in Mixed.fields] == [0, 8, 16, 20]


def test_block_q8_0_is_34_bytes():
    assert K.BlockQ8_0.dtype.itemsize == 34
    assert K.BlockQ8_0.dtype.fields["qs"][1] == 2
    assert K.Header.dtype.itemsize == 9 and K.Header.align == 1
    assert [f.offset for f in K.Header.fields] == [0, 1, 5]
    assert K.Segment.size == 48 and K.Segment.align == 16  # a 16-byte vector


def test_host_records():
    p = K.Pair(1.5, y=2.0)
    assert (p.x, p.y) == (1.5, 2.0)
    p.x = 4.0
    assert p.x == 4.0
    s = K.Segment(K.Pair(1.0, 2.0), K.Pair(3.0, 4.0), [1, 2, 3, 4], 7)
    assert s.b.y == 4.0 and list(s.color) == [1, 2, 3, 4]
    with pytest.raises(kdsl.DSLError) as e:
        K.Pair(1.0, 2.0, 3.0)
    assert e.value.code == "E921"


def test_bad_field_type():
    with pytest.raises(kdsl.DSLError) as e:

        @kdsl.struct
        class Bad:
            x: int

    assert e.value.code == "E920" and "'x'" in str(e.value)


# -- kernels in the interpreter ---------------------------------------------------------------
def _q8_0_blocks(nb, rng):
    blocks = np.zeros(nb, K.BlockQ8_0.dtype)
    blocks["d"] = rng.standard_normal(nb).astype(np.float16)
    blocks["qs"] = rng.integers(-128, 128, (nb, 32))
    return blocks


@pytest.mark.parametrize("n", [32, 100, 1000])
def test_dequantize_q8_0(n):
    rng = np.random.default_rng(n)
    nb = -(-n // 32)
    blocks = _q8_0_blocks(nb, rng)
    y = np.zeros(n, np.float32)
    K.dequantize_q8_0.interpret[-(-n // 256), 256](blocks, y, n)
    want = blocks["d"].astype(np.float32)[:, None] * blocks["qs"].astype(np.float32)
    np.testing.assert_array_equal(y, want.reshape(-1)[:n])
    # the same bytes as a uint8 array (a file's contents)
    y2 = np.zeros(n, np.float32)
    K.dequantize_q8_0.interpret[-(-n // 256), 256](blocks.view(np.uint8), y2, n)
    np.testing.assert_array_equal(y2, y)


def test_segments():
    n = 37
    rng = np.random.default_rng(1)
    segs = np.zeros(n, K.Segment.dtype)
    for part in ("a", "b"):
        for f in ("x", "y"):
            segs[part][f] = rng.standard_normal(n).astype(np.float32)
    segs["color"] = rng.standard_normal((n, 4)).astype(np.float32)
    before = segs.copy()
    mids = np.zeros(n, K.Pair.dtype)
    K.segments.interpret[2, 32](segs, mids, K.Pair(0.5, -1.0), n)
    f32 = np.float32
    mx = (before["a"]["x"] + before["b"]["x"]) * f32(0.5) + f32(0.5)
    my = (before["a"]["y"] + before["b"]["y"]) * f32(0.5) - f32(1.0)
    np.testing.assert_array_equal(mids["x"], mx)
    np.testing.assert_array_equal(mids["y"], my)
    assert segs["id"].tolist() == list(range(n))
    assert (segs["color"][:, 3] == 1).all()
    np.testing.assert_array_equal(segs["color"][:, :3], before["color"][:, :3])
    np.testing.assert_array_equal(
        segs["b"]["x"], before["b"]["x"] * before["color"][:, 0]
    )
    np.testing.assert_array_equal(segs["a"], before["a"])  # untouched
    # a numpy scalar of the dtype is a struct argument too
    shift = np.array([(0.5, -1.0)], K.Pair.dtype)[0]
    mids2 = np.zeros(n, K.Pair.dtype)
    K.segments.interpret[2, 32](before.copy(), mids2, shift, n)
    np.testing.assert_array_equal(mids2, mids)


def test_packed_records():
    n = 10
    h = np.zeros(n, K.Header.dtype)
    h["tag"] = np.arange(n)
    h["count"] = np.arange(n) * 3
    h["scale"] = np.linspace(0, 1, n).astype(np.float32)
    out = np.zeros(n, np.float32)
    before = h.copy()
    K.read_headers.interpret[1, 32](h, out, n)
    want = before["scale"] * before["count"].astype(np.float32) + before["tag"].astype(
        np.float32
    )
    np.testing.assert_array_equal(out, want)
    assert (h["count"] == before["count"] + 1).all()
    assert (h["tag"] == before["tag"]).all() and (h["scale"] == before["scale"]).all()


def test_a_field_index_out_of_bounds_is_located():
    @kdsl.kernel
    def over(x: Pointer[K.BlockQ8_0], out: Pointer[Int32], k: Int32):
        out[0] = x[0].qs[k].to(Int32)

    with pytest.raises(kdsl.InterpretError) as e:
        over.interpret[1, 1](np.zeros(1, K.BlockQ8_0.dtype), np.zeros(1, np.int32), 32)
    assert "qs[32]" in str(e.value) and "32 elements" in str(e.value)


def test_dot_q8_0_with_dp4a():
    r = np.random.default_rng(5)
    nb = 70
    x, y = _q8_0_blocks(nb, r), _q8_0_blocks(nb, r)
    out = np.zeros(nb, np.float32)
    K.dot_q8_0.interpret[2, 64](x, y, out, nb)
    sumi = (x["qs"].astype(np.int64) * y["qs"].astype(np.int64)).sum(axis=1)
    want = (
        x["d"].astype(np.float32) * y["d"].astype(np.float32) * sumi.astype(np.float32)
    )
    assert out.tobytes() == want.tobytes()
    assert "__dp4a(kdsl::bitcast<int32_t>(a), kdsl::bitcast<int32_t>(b), sumi)" in (
        K.dot_q8_0.dispatch().source
    )


def test_byte_dots_unsigned():
    r = np.random.default_rng(6)
    n = 50
    a = r.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    b = r.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    out = np.zeros(3 * n, np.uint32)
    K.byte_dots.interpret[1, 64](a, b, out, n)
    ab, bb = a.view(np.uint8).reshape(n, 4).astype(np.int64), b.view(np.uint8).reshape(
        n, 4
    ).astype(np.int64)
    ah = a.view(np.uint16).reshape(n, 2).astype(np.int64)
    d4 = (ab * bb).sum(axis=1)
    lo = ah[:, 0] * bb[:, 0] + ah[:, 1] * bb[:, 1] + d4
    hi = ah[:, 0] * bb[:, 2] + ah[:, 1] * bb[:, 3] + 1
    want = np.stack([d4, lo, hi], axis=1).reshape(-1) % 2**32
    assert out.tolist() == want.tolist()


# -- CUDA ---------------------------------------------------------------------------
@pytest.mark.parametrize("k", KERNELS, ids=lambda k: k.name)
def test_nvrtc_compiles(k):
    inst = k.dispatch(*k.combinations()[0])
    compile_to_cubin(inst.source, inst.name)


def test_one_declaration_per_struct_nested_first():
    src = K.segments.dispatch().source
    assert src.count("struct Pair {") == 1 and src.count("struct Segment {") == 1
    assert src.index("struct Pair {") < src.index("struct Segment {")
    assert "static_assert(sizeof(Segment) == 48" in src
    assert "struct __attribute__((packed)) Header {" in K.read_headers.dispatch().source


def test_golden(golden):
    for k in KERNELS:
        golden.check_kernel(k, GOLDEN)
    assert {p.stem for p in GOLDEN.glob("*.cu")} == {
        "dequantize_q8_0__256",
        "segments",
        "read_headers",
        "dot_q8_0",
        "byte_dots",
    }


# -- bad input -----------------------------------------------------------------------------
def _code(fn, *args):
    with pytest.raises(kdsl.DSLError) as e:
        fn(*args)
    return e.value


def test_unknown_field():
    @kdsl.kernel
    def bad(p: Pointer[K.Pair], out: Pointer[Float32]):
        out[0] = p[0].z

    e = _code(lambda: bad.dispatch().source)
    assert e.code == "E922" and "x, y" in str(e) and e.span is not None


def test_wrong_host_object_for_a_struct_parameter():
    mids = np.zeros(4, K.Pair.dtype)
    segs = np.zeros(4, K.Segment.dtype)
    for wrong in ((0.5, 1.0), K.Segment(), np.zeros(1, np.float64)[0]):
        e = _code(lambda: K.segments.interpret[1, 4](segs, mids, wrong, 4))
        assert e.code == "E930" and "'shift'" in str(e) and "Pair" in str(e)
    assert not segs.view(np.uint8).any() and not mids.view(np.uint8).any()


def test_wrong_array_for_a_pointer_to_structs():
    mids = np.zeros(4, K.Pair.dtype)
    e = _code(
        lambda: K.segments.interpret[1, 4](np.zeros(4, np.float32), mids, K.Pair(), 4)
    )
    assert e.code == "E406" and "Segment" in str(e)


def test_the_launch_packs_records_and_accepts_their_bytes():
    from kdsl.runtime.arrays import ArrayInfo
    from kdsl.runtime.launch import _records, check_struct

    packed = check_struct("shift", K.Pair, K.Pair(1.0, 2.0))
    assert packed.shape == (1,) and packed.dtype.itemsize == 8
    assert packed.tobytes() == np.array([(1.0, 2.0)], K.Pair.dtype).tobytes()
    with pytest.raises(kdsl.DSLError) as e:
        check_struct("shift", K.Pair, 3.0)
    assert e.value.code == "E930"

    class Device:  # what _records reads of a device array
        def __init__(self, dtype):
            self.dtype = np.dtype(dtype)

    raw = ArrayInfo(256, None, (68,), (1,), True, 0, "cupy")
    got = _records("x", K.BlockQ8_0, Device(np.uint8), raw)
    assert got.shape == (2,) and got.strides == (1,)
    with pytest.raises(kdsl.DSLError) as e:  # 67 bytes: no whole number of records
        _records(
            "x",
            K.BlockQ8_0,
            Device(np.uint8),
            ArrayInfo(256, None, (67,), (1,), True, 0, "cupy"),
        )
    assert e.value.code == "E406"
    with pytest.raises(kdsl.DSLError):
        _records("x", K.BlockQ8_0, Device(np.float32), raw)


def test_a_struct_types_layout_is_in_the_kernels_cache_key():
    """A struct defined elsewhere (its layout changed, the kernel's file
    not) gives the kernel another fingerprint: no stale cached source."""
    from kdsl.runtime.compile import kernel_fingerprint

    before = kernel_fingerprint(K.segments)
    saved = K.Pair

    @kdsl.struct
    class Pair:  # the same name, another layout
        x: Float64
        y: Float64

    try:
        K.segments.signature.params[1].spec  # (its annotation is the old Pair)
        K.segments.fn.__globals__["Pair"] = Pair
        assert kernel_fingerprint(K.segments) != before
    finally:
        K.segments.fn.__globals__["Pair"] = saved
    assert kernel_fingerprint(K.segments) == before


def test_a_number_stored_as_a_record_is_the_store_type_error():
    @kdsl.kernel
    def wrong(p: Pointer[K.Pair], x: Float32):
        p[0] = x

    with pytest.raises(kdsl.DSLError) as info:
        wrong.dispatch().source
    assert info.value.code == "E305" and "Float32" in str(info.value), str(info.value)


@kdsl.kernel
def _store_pair_field(segs: Pointer[K.Segment], n: Int32):
    i = thread_idx.x
    if i < n:
        s = segs[i]
        segs[i].b = K.Pair(s.b.x * 2.0, s.b.y)


def test_a_struct_field_store_leaves_the_padding_alone():
    """A store of a struct-typed field writes that field's bytes and no
    others, as on the GPU (whose test compares the memory's bytes with the
    interpreter's).  The copy is of the bytes: numpy's ``copy()`` of a
    structured array need not keep its padding (seen with numpy 2.4: 8 of
    129 records' padding bytes differed), which made that GPU test fail."""
    r = np.random.default_rng(0)
    for n in (1, 2, 5, 129):
        segs = np.frombuffer(r.bytes(n * K.Segment.size), K.Segment.dtype).copy()
        segs["b"]["x"] = np.arange(n, dtype=np.float32)
        got = segs.view(np.uint8).copy().view(K.Segment.dtype)  # padding too
        _store_pair_field.interpret[1, 256](got, n)
        before = segs.view(np.uint8).reshape(n, -1)
        after = got.view(np.uint8).reshape(n, -1)
        changed = sorted(set(np.nonzero(before != after)[1]))
        assert set(changed) <= set(range(8, 12)), changed  # b.x alone
        assert (got["b"]["x"] == 2 * segs["b"]["x"]).all()
