"""Structs on the GPU (tests/struct_kernels.py): records by value, pointers
to records as CuPy structured arrays and as their bytes, the same bytes as
the interpreter's."""

import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import struct_kernels as K  # noqa: E402


def test_segments_match_the_interpreter():
    n = 1000
    r = np.random.default_rng(0)
    segs = np.frombuffer(r.bytes(n * K.Segment.size), K.Segment.dtype).copy()
    for part in ("a", "b"):
        for f in ("x", "y"):
            segs[part][f] = r.standard_normal(n).astype(np.float32)
    segs["color"] = r.standard_normal((n, 4)).astype(np.float32)
    # a copy of the bytes: numpy's copy() of records need not keep padding
    want_segs = segs.view(np.uint8).copy().view(K.Segment.dtype)
    want_mids = np.zeros(n, K.Pair.dtype)
    K.segments.interpret[-(-n // 128), 128](want_segs, want_mids, K.Pair(0.5, -1.0), n)
    # the records as bytes both ways: CuPy's copies of records need not keep
    # their padding either
    d_segs, d_mids = cp.asarray(segs.view(np.uint8)), cp.zeros(n, K.Pair.dtype)
    K.segments[-(-n // 128), 128](d_segs, d_mids, K.Pair(0.5, -1.0), n)
    assert d_segs.get().tobytes() == want_segs.tobytes()
    assert d_mids.get().tobytes() == want_mids.tobytes()


def test_q8_0_blocks_as_bytes_and_packed_headers():
    n = 1000
    r = np.random.default_rng(1)
    blocks = np.zeros(-(-n // 32), K.BlockQ8_0.dtype)
    blocks["d"] = r.standard_normal(len(blocks)).astype(np.float16)
    blocks["qs"] = r.integers(-128, 128, (len(blocks), 32))
    want = np.zeros(n, np.float32)
    K.dequantize_q8_0.interpret[-(-n // 256), 256](blocks, want, n)
    y = cp.zeros(n, np.float32)
    K.dequantize_q8_0[-(-n // 256), 256](cp.asarray(blocks.view(np.uint8)), y, n)
    assert y.get().tobytes() == want.tobytes()
    h = np.zeros(n, K.Header.dtype)
    h["tag"], h["count"], h["scale"] = np.arange(n) % 256, np.arange(n), 0.5
    want_h = h.view(np.uint8).copy().view(K.Header.dtype)
    want_out = np.zeros(n, np.float32)
    K.read_headers.interpret[-(-n // 128), 128](want_h, want_out, n)
    d_h, out = cp.asarray(h), cp.zeros(n, np.float32)
    K.read_headers[-(-n // 128), 128](d_h, out, n)
    assert out.get().tobytes() == want_out.tobytes()
    assert d_h.get().tobytes() == want_h.tobytes()
