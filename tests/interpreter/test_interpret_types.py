"""The interpreter on every scalar type through memory (loads, conversions,
stores, narrow floats and Int4 included), vectors, bitcasts and Int128 —
each against kdsl's folding (``kdsl.transpile.core.values``)."""

import math
import sys
from pathlib import Path

import numpy as np

import kdsl
from kdsl import Int64, Pointer, Uint8, thread_idx
from kdsl.transpile.core import lanes
from kdsl.transpile.core import types as T
from kdsl.transpile.core import values

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "gpu"))
import semantics_cases as sc  # noqa: E402

STORED = [t for t in T.SCALAR_TYPES if t.np_dtype is not None]
S = kdsl.TypeVar("S", bound=kdsl.Dtype)
D = kdsl.TypeVar("D", bound=kdsl.Dtype)


@kdsl.kernel(dtypes={"S": STORED, "D": STORED})
def convert(x: Pointer[S], out: Pointer[D]):
    i = kdsl.block_idx.x * kdsl.block_dim.x + thread_idx.x
    out[i] = x[i].to(D)


def _same(want, got) -> bool:
    if isinstance(want, float) and math.isnan(want):
        return math.isnan(got)
    if isinstance(want, float):
        return want == got and math.copysign(1, want) == math.copysign(1, got)
    return want == got


def test_every_conversion_between_stored_types_equals_folding():
    failures = []
    for s in STORED:
        edges = sc.edge_values(s)
        x = lanes.from_values(edges, s)
        if s is T.Int4:
            x = x.astype(s.np_dtype)  # held in int8 lanes, stored as int4
        for d in STORED:
            if d is s:
                continue
            out = np.zeros(len(edges), d.np_dtype)
            convert.interpret[len(edges), 1](x, out)
            got = lanes.to_values(lanes.from_memory(out, d), d)
            for v, g in zip(edges, got):
                want = values.convert(v, s, d)
                if not _same(want, g):
                    failures.append((s.__name__, d.__name__, v, want, g))
    assert not failures, f"{len(failures)} differ, e.g. {failures[:5]}"


@kdsl.kernel
def vectors(x: Pointer[kdsl.Float16], out: Pointer[kdsl.Float32], bits: Pointer[Uint8]):
    i = thread_idx.x
    v = x.vec(8)[i]  # one Float16x8 load
    w = (v * 2 + v).to(kdsl.Float32)  # Float16x8 * Int32 computes in Float32
    o = out.vec(8)
    o[i] = w - kdsl.Float32x8(0.5)
    b = v.bitcast(Uint8)  # Uint8x16
    for k in kdsl.range_constexpr(16):
        bits[16 * i + k] = b[k]


def test_vector_loads_arithmetic_stores_and_bitcasts():
    x = np.random.default_rng(3).standard_normal(32).astype(np.float16)
    out = np.zeros(32, np.float32)
    bits = np.zeros(64, np.uint8)
    vectors.interpret[1, 4](x, out, bits)
    f = x.astype(np.float32)
    want = (f * np.float32(2) + f) - np.float32(0.5)
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(bits, x.view(np.uint8))


@kdsl.kernel
def wide(a: Pointer[Int64], b: Pointer[Int64], out: Pointer[Int64]):
    i = thread_idx.x
    p = a[i].to(kdsl.Int128) * b[i].to(kdsl.Int128)  # exact 128-bit product
    out[2 * i] = (p >> 64).to(Int64)
    out[2 * i + 1] = p.to(Int64)  # the low bits, wrapped


def test_int128_arithmetic():
    rng = np.random.default_rng(5)
    a = rng.integers(-(2**63), 2**63 - 1, 16, dtype=np.int64, endpoint=True)
    b = rng.integers(-(2**63), 2**63 - 1, 16, dtype=np.int64, endpoint=True)
    out = np.zeros(32, np.int64)
    wide.interpret[1, 16](a, b, out)
    for k in range(16):
        p = int(a[k]) * int(b[k])
        assert int(out[2 * k]) == p >> 64
        assert int(out[2 * k + 1]) == values.wrap(p, T.Int64)


@kdsl.kernel
def nan_payload(out: Pointer[kdsl.Int32]):
    v = kdsl.Int32(0x7F800001).bitcast(kdsl.Float32)  # folded: a signalling NaN
    w = v if thread_idx.x < 100 else kdsl.Float32(0)  # a run-time value
    out[thread_idx.x] = w.bitcast(kdsl.Int32)  # __int_as_float keeps the bits


def test_a_folded_nan_keeps_its_bits_at_run_time():
    out = np.zeros(2, np.int32)
    nan_payload.interpret[1, 2](out)
    assert out.tolist() == [0x7F800001] * 2
