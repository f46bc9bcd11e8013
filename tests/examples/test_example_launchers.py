"""The examples' launch helpers (``launch_add``, ``launch_gelu`` …: the grid
arithmetic and the tuned wrappers that the benchmarks and users call), run
in the CPU interpreter through ``KDSL_INTERPRET=1``."""

import numpy as np
import pytest

from examples_index import example_modules

EX = example_modules()
RNG = np.random.default_rng(7)


@pytest.fixture(autouse=True)
def interpret(monkeypatch):
    monkeypatch.setenv("KDSL_INTERPRET", "1")


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8])
def test_launch_add(dtype):
    n = 16 * 256 * 2 + 21  # more than one tile of the first config, a tail
    x = RNG.integers(-50, 50, n).astype(dtype)
    y = RNG.integers(-50, 50, n).astype(dtype)
    out = np.zeros(n, dtype)
    EX["vector_add"].launch_add(x, y, out)
    np.testing.assert_array_equal(out, x + y)


def test_launch_gelu_and_backward():
    g = EX["gelu"]
    n = 3001
    x = RNG.standard_normal(n).astype(np.float32)
    y = np.full(n, np.nan, np.float32)
    g.launch_gelu(x, y)
    xd = x.astype(np.float64)
    want = 0.5 * xd * (1 + np.tanh(np.sqrt(2 / np.pi) * (xd + 0.044715 * xd**3)))
    assert np.abs(y - want).max() < 1e-6
    gi = np.full(n, np.nan, np.float32)
    g.launch_gelu_backward(x, np.ones(n, np.float32), gi)
    assert not np.isnan(gi).any()


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.uint8, np.float64])
def test_launch_transpose_picks_the_odd_kernel_for_ragged_sizes(dtype, monkeypatch):
    mod = EX["transpose"]
    launched = []
    for name in (
        "transpose",
        "transpose_tiled",
        "transpose_odd",
        "transpose_odd4",
        "transpose_vec_tuned",
    ):
        kernel = getattr(mod, name)
        monkeypatch.setattr(mod, name, _Spy(kernel, name, launched))
    # prime sizes, ragged tiles: 16-byte accesses for 2- and 4-byte types
    # from 4 tiles of 120 (60) a side on
    wide = np.dtype(dtype).itemsize in (2, 4)
    shape = (487, 491) if wide else (67, 131)
    a = RNG.integers(0, 100, shape).astype(dtype)
    out = np.zeros(shape[::-1], dtype)
    assert mod.odd_path(a, out) is wide and not mod.vector_path(a, out)
    assert not mod.odd_path(a[:300], np.zeros(shape[::-1], dtype)[:, :300])
    mod.launch_transpose(a, out)
    np.testing.assert_array_equal(out, a.T)
    # one element off 16-byte alignment: the tiled kernel (scalar accesses)
    shifted = np.zeros(a.size + 1, dtype)[1:].reshape(shape)
    shifted[...] = a
    assert not mod.odd_path(shifted, out) and mod.tiled_path(shifted, out)
    mod.launch_transpose(shifted, out)
    np.testing.assert_array_equal(out, a.T)
    strided = a[:, ::2]
    out = np.zeros(strided.shape[::-1], dtype)
    assert not mod.tiled_path(strided, out) and not mod.odd_path(strided, out)
    mod.launch_transpose(strided, out)
    np.testing.assert_array_equal(out, strided.T)
    size = np.dtype(dtype).itemsize
    first = {2: "transpose_odd", 4: "transpose_odd4"}.get(size, "transpose_tiled")
    assert launched == [first, "transpose_tiled", "transpose"]


class _Spy:
    """A kernel whose launches are recorded by name."""

    def __init__(self, kernel, name, log):
        self.kernel, self.name, self.log = kernel, name, log

    def __getitem__(self, where):
        self.log.append(self.name)
        return self.kernel[where]


def test_launch_transpose_histogram_and_sgemm():
    a = RNG.standard_normal((45, 70)).astype(np.float32)
    out = np.zeros((70, 45), np.float32)
    EX["transpose"].launch_transpose(a, out)
    np.testing.assert_array_equal(out, a.T)

    for shape, vec in (((72, 200), True), ((72, 202), False)):
        a = RNG.standard_normal(shape).astype(np.float32)
        out = np.zeros(shape[::-1], np.float32)
        assert EX["transpose"].vector_path(a, out) is vec
        EX["transpose"].launch_transpose(a, out)
        np.testing.assert_array_equal(out, a.T)
    strided = RNG.standard_normal((72, 400)).astype(np.float32)[:, ::2]
    out = np.zeros((200, 72), np.float32)
    assert not EX["transpose"].vector_path(strided, out)  # not contiguous
    EX["transpose"].launch_transpose(strided, out)
    np.testing.assert_array_equal(out, strided.T)

    x = RNG.uniform(-1, 1, 4099).astype(np.float32)
    counts = np.zeros(256, np.int32)
    EX["histogram"].launch_histogram(x, counts, -1.0, 1.0)
    assert counts.sum() == 4099

    M, N, K = 20, 12, 9
    a = RNG.standard_normal((M, K)).astype(np.float32)
    b = RNG.standard_normal((K, N)).astype(np.float32)
    c = np.zeros((M, N), np.float32)
    EX["matmul"].launch_sgemm(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)
    M, N, K = 20, 12, 8  # N and K multiples of 4: sgemm_vec
    a = RNG.standard_normal((M, K)).astype(np.float32)
    b = RNG.standard_normal((K, N)).astype(np.float32)
    c = np.zeros((M, N), np.float32)
    assert EX["matmul"].vector_path(a, b, c)
    EX["matmul"].launch_sgemm(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


def test_launch_sgemm_takes_the_warp_tiled_kernel_for_whole_tiles():
    mod = EX["matmul"]
    M, N, K = 128, 128, 16  # one tile of c and of k: the autotuned sgemm_warp
    a = RNG.standard_normal((M, K)).astype(np.float32)
    b = RNG.standard_normal((K, N)).astype(np.float32)
    c = np.full((M, N), np.nan, np.float32)
    assert mod.warp_path(a, b, c)
    mod.launch_sgemm(a, b, c)
    c0 = np.full((M, N), np.nan, np.float32)
    mod.sgemm.interpret[(1, 1), 256](a, b, c0, None, M, N, K)
    np.testing.assert_array_equal(c, c0)  # the same fmas: the same bits
    for shape in ((M, N, 20), (M + 4, N, K), (M, N + 4, K)):  # not whole tiles
        a, b = np.zeros(shape[::2], np.float32), np.zeros(shape[:0:-1], np.float32)
        assert not mod.warp_path(a, b, np.zeros(shape[:2], np.float32))


def test_launch_sgemm_takes_the_warp_tiled_kernel_with_edges_for_ragged_shapes():
    """Not whole tiles, no split-K wanted: ``sgemm_warp`` with EDGE (VEC
    where rows are 16-byte aligned), the same bits as ``sgemm``."""
    mod = EX["matmul"]
    for M, N, K in ((130, 131, 19), (129, 132, 20)):
        a = RNG.standard_normal((M, K)).astype(np.float32)
        b = RNG.standard_normal((K, N)).astype(np.float32)
        c = np.full((M, N), np.nan, np.float32)
        assert not mod.warp_path(a, b, c) and mod.edge_path(a, b, c)
        assert mod.vector_path(a, b, c) is (N % 4 == 0)
        mod.launch_sgemm(a, b, c)
        c0 = np.full((M, N), np.nan, np.float32)
        mod.sgemm.interpret[(2, 2), 256](a, b, c0, None, M, N, K)
        np.testing.assert_array_equal(c, c0)
    # less than a tile wide: sgemm / sgemm_vec
    for M, N, K in ((1000, 100, 1000), (130, 100, 8)):
        a, b = np.zeros((M, K), np.float32), np.zeros((K, N), np.float32)
        assert not mod.edge_path(a, b, np.zeros((M, N), np.float32))
    # less than a tile high: SHORT, rows past M read row M - 1, not stored
    M, N, K = 21, 130, 19
    a = RNG.standard_normal((M, K)).astype(np.float32)
    b = RNG.standard_normal((K, N)).astype(np.float32)
    c = np.full((M, N), np.nan, np.float32)
    assert mod.edge_path(a, b, c)
    mod.launch_sgemm(a, b, c)
    c0 = np.full((M, N), np.nan, np.float32)
    mod.sgemm.interpret[(2, 1), 256](a, b, c0, None, M, N, K)
    np.testing.assert_array_equal(c, c0)
    # split-K where the busiest SM's blocks leave the others idle
    assert mod.warp_split(3000, 2050, 1500, 132) == 3  # 408 tiles: 1224 blocks
    assert mod.warp_split(1009, 3001, 2053, 132) == 2  # 192 tiles: 384 blocks
    assert mod.warp_split(1000, 1000, 1000, 132) == 2  # 64 tiles
    assert mod.warp_split(4096, 4096, 4096, 132) == 1
    assert mod.warp_split(127, 4096, 4096, 132) == 8  # 32 tiles: 256 blocks


def test_launch_sgemm_splits_k_of_the_warp_tiled_kernel():
    """``sgemm_warp`` with EDGE split in 2 (warp_split: 4 tiles, k 520 on
    132 SMs), its slices summed by split_sum: as in the interpreter."""
    mod = EX["matmul"]
    M, N, K = 130, 130, 520
    assert mod.warp_split(M, N, K, 132) == 2
    a = RNG.standard_normal((M, K)).astype(np.float32)
    b = RNG.standard_normal((K, N)).astype(np.float32)
    c = np.full((M, N), np.nan, np.float32)
    mod.launch_sgemm(a, b, c)
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-4)


def test_launch_sgemm_splits_k_when_the_tiles_leave_sms_idle():
    mod = EX["matmul"]
    # one tile of c on 132 SMs: two slices of k (the most MIN_SLICE_K allows)
    assert mod.sgemm_split(4, 8, 520, 132) == 2
    assert mod.sgemm_split(127, 4096, 4096, 132) == 4  # 32 tiles: 128 blocks
    assert mod.sgemm_split(1000, 1000, 1000, 132) == 2  # 64 tiles
    assert mod.sgemm_split(4104, 4104, 4104, 132) == 1  # 1089 tiles: no gain
    assert mod.sgemm_split(127, 4096, 300, 132) == 1  # k too short to split
    M, N, K = 4, 8, 520
    a = RNG.standard_normal((M, K)).astype(np.float32)
    b = RNG.standard_normal((K, N)).astype(np.float32)
    c = np.full((M, N), np.nan, np.float32)
    mod.launch_sgemm(a, b, c)  # sgemm_vec, grid (1, 1, 2), then split_sum
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-4)


def test_launch_helpers_refuse_mismatched_shapes():
    a = np.zeros((4, 3), np.float32)
    with pytest.raises(ValueError, match="sgemm"):
        EX["matmul"].launch_sgemm(a, np.zeros((4, 5), np.float32), np.zeros((4, 5)))
    with pytest.raises(ValueError, match="transpose"):
        EX["transpose"].launch_transpose(a, np.zeros((4, 3), np.float32))


def test_in_place_add_is_one_add():
    x = np.arange(5000, dtype=np.float32)
    EX["vector_add"].launch_add(x, x, x)
    np.testing.assert_array_equal(x, 2 * np.arange(5000, dtype=np.float32))


def test_the_sgemm_sweep_times_every_autotuned_configuration():
    """benchmarks/sgemm_sweep.py (the one GPU run that picks WARP_CONFIGS)
    times each configuration the autotuner may choose, with the grid and
    block launch_sgemm gives it."""
    import importlib.util
    import sys

    from examples_index import ROOT

    path = ROOT / "benchmarks" / "sgemm_sweep.py"
    spec = importlib.util.spec_from_file_location("sgemm_sweep", path)
    sweep = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("sgemm_sweep", sweep)  # its dataclasses look it up
    spec.loader.exec_module(sweep)
    mod = EX["matmul"]
    names = ("BM", "BK", "GROUP", "UNROLL")
    timed = {
        tuple(c.constexprs[n] for n in names): c
        for c in sweep.candidates()
        if c.kernel.name == "sgemm_warp" and not c.constexprs.get("EDGE")
    }
    for config in mod.WARP_CONFIGS:
        cand = timed[config]
        m = dict(zip(names, config), BN=128)
        assert cand.grid(4096, 2048) == mod.sgemm_warp_grid(4096, 2048)(m)
        assert cand.block == mod.sgemm_warp_block(m)
