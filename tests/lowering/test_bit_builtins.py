"""kdsl.popc / clz / ffs / brev: each one registry entry (builtins/bits.py).
A static argument folds, the interpreter agrees with the fold lane by lane,
and the generated CUDA compiles for every 32- and 64-bit integer type."""

import numpy as np
import pytest

import kdsl
from kdsl import Int8, Int32, Int64, Pointer, Uint32, Uint64, thread_idx
from kdsl.runtime.nvrtc import compile_to_cubin
from kdsl.transpile.builtins import bits

T = kdsl.TypeVar("T", bound=kdsl.Int)
TYPES = {Int32: np.int32, Uint32: np.uint32, Int64: np.int64, Uint64: np.uint64}


def reference(name, x, t) -> int:
    """The bits of ``name(x)`` for an element ``x`` of numpy type ``t``."""
    width = 8 * np.dtype(t).itemsize
    u = int(x) & ((1 << width) - 1)
    if name == "popc":
        return bin(u).count("1")
    if name == "clz":
        return width - u.bit_length()
    if name == "ffs":
        return (u & -u).bit_length()
    r = int(format(u, f"0{width}b")[::-1], 2)
    return int(np.array(r, np.dtype(f"u{width // 8}")).view(t))


@kdsl.kernel(dtypes=list(TYPES))
def bit_ops(
    x: Pointer[T],
    counts: Pointer[Int32],
    reversed_: Pointer[T],
    n: Int32,
):
    i = thread_idx.x
    if i < n:
        v = x[i]
        counts[3 * i] = kdsl.popc(v)
        counts[3 * i + 1] = kdsl.clz(v)
        counts[3 * i + 2] = kdsl.ffs(v)
        reversed_[i] = kdsl.brev(v)


def inputs(t, n=200, seed=3):
    info = np.iinfo(t)
    edges = [0, 1, 2, info.max, info.min, info.max // 3, 1 << (info.bits - 2)]
    rng = np.random.default_rng(seed)
    rand = rng.integers(info.min, info.max, n - len(edges), endpoint=True, dtype=t)
    return np.concatenate([np.array(edges, t), rand])


@pytest.mark.parametrize("t", list(TYPES.values()), ids=lambda t: np.dtype(t).name)
def test_the_interpreter_gives_each_lanes_bits(t):
    x = inputs(t)
    n = x.size
    counts = np.zeros(3 * n, np.int32)
    rev = np.zeros(n, t)
    bit_ops.interpret[1, 256](x, counts, rev, n)
    for k, v in enumerate(x):
        assert counts[3 * k : 3 * k + 3].tolist() == [
            reference(name, v, t) for name in ("popc", "clz", "ffs")
        ], v
        assert int(rev[k]) == reference("brev", v, t), v


@pytest.mark.parametrize("kt", list(TYPES), ids=lambda t: t.__name__)
def test_the_cuda_compiles_for_each_type(kt):
    inst = bit_ops.dispatch(kt)
    suffix = "ll" if kt.width == 64 else ""
    for name in ("popc", "clz", "ffs", "brev"):
        assert f"__{name}{suffix}(v)" in inst.source
    compile_to_cubin(inst.source, inst.name)


@kdsl.kernel
def folded(out: Pointer[Int64]):
    out[0] = kdsl.popc(Uint64(0xF0F0)).to(Int64)
    out[1] = kdsl.clz(1).to(Int64)
    out[2] = kdsl.ffs(Int64(-(1 << 40))).to(Int64)
    out[3] = kdsl.brev(Int64(1))


def test_a_static_argument_folds():
    src = folded.dispatch().source
    body = src.split("extern")[1]
    assert not any(f"__{name}" in body for name in ("popc", "clz", "ffs", "brev"))
    out = np.zeros(4, np.int64)
    folded.interpret[1, 1](out)
    assert out.tolist() == [8, 31, 41, -(1 << 63)]


@kdsl.kernel
def popc_of_int8(x: Pointer[Int8], out: Pointer[Int32]):
    out[0] = kdsl.popc(x[0])


def test_a_narrow_integer_needs_a_conversion():
    with pytest.raises(kdsl.DSLError, match=r"takes a 32- or 64-bit integer, got Int8"):
        popc_of_int8.dispatch().source


def test_each_fold_matches_its_lanes_on_edge_values():
    for t in TYPES.values():
        x = inputs(t, n=64, seed=5)
        width = 8 * x.dtype.itemsize
        for name, (_, fold, lanes, same) in bits._BITS.items():
            got = lanes(x).tolist()
            want = [reference(name, v, t) for v in x]
            assert got == want, name
            assert [fold(int(v) & ((1 << width) - 1), width) for v in x] == [
                w & ((1 << width) - 1) if same else w for w in want
            ]
