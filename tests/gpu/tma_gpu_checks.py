"""The GPU checks of TMA, mbarriers and the warp-specialised GEMM, each run by
tests/gpu/test_tma_gpu.py in a subprocess of its own (with a timeout: a
wrong mbarrier phase or byte count hangs the kernel rather than failing it).
Each raises AssertionError with what it saw; from the simplest (one box into
shared memory) to the whole autotuned GEMM."""

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
for path in (HERE.parent, HERE.parent / "tensorcores"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import cupy as cp  # noqa: E402
import ml_dtypes  # noqa: E402

import kdsl  # noqa: E402
import tma_kernels as T  # noqa: E402
from examples_index import example_modules  # noqa: E402
from kdsl.transpile.builtins import wgmma  # noqa: E402

G = example_modules()["gemm_tma"]
MM = example_modules()["matmul"]  # split_sum: split-K's second launch
NUMPY = {"bf16": ml_dtypes.bfloat16, "f16": np.float16}
TOL = {"bf16": 1.6e-2, "f16": 2e-3}  # c's rounding, as for torch.matmul


def _random(seed, shape, dtype):
    """(host float64, device array) of uniform [-1, 1) values of ``dtype``."""
    rng = np.random.default_rng(seed)
    host = rng.uniform(-1, 1, shape).astype(NUMPY[dtype])
    return host.astype(np.float64), cp.asarray(host)


def _filled(shape, value, dtype):
    """A device array of ``value`` (made on the host: bf16 is ml_dtypes')."""
    return cp.asarray(np.full(shape, value, NUMPY[dtype]))


def box_copy(dtype, swizzle, x, y):
    """One box (64 x 64) of a (256, 192) array through TMA into shared memory,
    copied out byte for byte: where TMA put each element (with the 128-byte
    swizzle: chunk q of row r at chunk q ^ r % 8, what wgmma_desc reads), and
    zeros past the array's edges."""
    host, dev = _random(1, (256, 192), dtype)
    tmap = kdsl.tensor_map(dev, box=(64, 64), swizzle=swizzle)
    out = _filled(64 * 64, np.nan, dtype)
    T.box_copy[1, T.THREADS](tmap, out, x, y, shared_mem=64 * 64 * 2)
    got = cp.asnumpy(out).astype(np.float64)
    box = np.zeros((64, 64))
    part = host[max(y, 0) : y + 64, max(x, 0) : x + 64]
    box[
        max(-y, 0) : max(-y, 0) + part.shape[0], max(-x, 0) : max(-x, 0) + part.shape[1]
    ] = part
    want = np.empty(64 * 64)
    if swizzle == 128:
        want[wgmma.swizzled_128(64).reshape(-1)] = box.reshape(-1)
    else:
        want = box.reshape(-1)
    bad = np.flatnonzero(~(got == want))
    assert bad.size == 0, (
        f"{bad.size} of 4096 elements differ; first at buffer element {bad[0]} "
        f"(row {bad[0] // 64}, chunk {bad[0] % 64 // 8}): got {got[bad[0]]}, "
        f"want {want[bad[0]]}; unswizzled box row 0: {got[:8]}"
    )


def box_move(dtype, rounds):
    """A box loaded and stored back by TMA ``rounds`` times over one mbarrier
    (phases 0, 1, 0, …): the store lands where the map says, nothing else
    is written, and the kernel finishes (flag)."""
    host, src = _random(2, (256, 192), dtype)
    dst = _filled((256, 192), 0, dtype)
    flag = _filled(1, 0, dtype)
    maps = [kdsl.tensor_map(a, box=(64, 64), swizzle=128) for a in (src, dst)]
    T.box_move[1, T.THREADS](
        *maps, flag, 64, 128, 128, 64, ROUNDS=rounds, shared_mem=64 * 64 * 2
    )
    got = cp.asnumpy(dst).astype(np.float64)
    want = np.zeros((256, 192))
    want[64:128, 128:192] = host[128:192, 64:128]
    assert float(cp.asnumpy(flag)[0]) == 1.0, "the kernel did not finish"
    bad = np.argwhere(got != want)
    assert bad.size == 0, f"{len(bad)} elements differ, first at {tuple(bad[0])}"


def tensor_map_errors():
    """What kdsl.tensor_map refuses on a device array (E842 … E844)."""
    a = cp.zeros((128, 128), cp.float16)
    for bad, code in (
        (lambda: kdsl.tensor_map(a[:, 1:], box=(64, 64)), "E844"),  # odd start
        (lambda: kdsl.tensor_map(a.T, box=(64, 64)), "E844"),  # columns strided
        (lambda: kdsl.tensor_map(cp.zeros((64, 64), cp.int8), box=(64, 64)), "E842"),
        (lambda: kdsl.tensor_map(a, box=(64, 128)), "E843"),  # 256 B > swizzle
    ):
        try:
            bad()
        except kdsl.DSLError as e:
            assert code in str(e), f"wanted {code}, got {e}"
        else:
            raise AssertionError(f"no {code}")
    m = kdsl.tensor_map(a, box=(64, 64))
    assert m.param.dtype.itemsize == 128 and m.box_bytes == 8192


def _compare(c, a, bt, dtype, what):
    """c against a @ bt.T in float64, scaled by max row sum |a|; on failure
    say which 64 x 64 blocks of c are wrong (a consumer's rows, a stage…)."""
    want = a @ bt.T
    got = cp.asnumpy(c).astype(np.float64)
    scale = np.abs(a).sum(1).max()
    err = np.abs(got - want) / scale
    err[np.isnan(got)] = np.inf
    if err.max() <= TOL[dtype]:
        return
    M, N = want.shape
    padded = np.zeros((-(-M // 64) * 64, -(-N // 64) * 64))  # ragged: whole blocks
    padded[:M, :N] = err
    blocks = padded.reshape(padded.shape[0] // 64, 64, -1, 64).max(axis=(1, 3))
    wrong = np.argwhere(blocks > TOL[dtype])
    names = ", ".join(f"rows {64 * i}-{64 * i + 63} cols {64 * j}-{64 * j + 63}"
                      for i, j in wrong[:6])  # fmt: skip
    raise AssertionError(
        f"{what}: max scaled error {err.max():.3g} > {TOL[dtype]} "
        f"({np.isnan(got).sum()} NaN, i.e. never written); "
        f"{len(wrong)} of {blocks.size} 64x64 blocks wrong: {names}"
    )


def gemm_config(dtype, M, N, K, bn, stages, blocks=None, row_major_b=False):
    """One configuration of gemm_tma, launched directly (no autotuning): one
    block a tile, or ``blocks`` blocks looping over the tiles (a persistent
    grid: the ring's phases run on from one tile to the next); B given
    transposed (N, K), or ``row_major_b`` as it is (K, N), read MN-major."""
    a, a_dev = _random(3, (M, K), dtype)
    bt, bt_dev = _random(4, (N, K), dtype)
    b_dev = cp.ascontiguousarray(bt_dev.T) if row_major_b else bt_dev
    c = _filled((M, N), np.nan, dtype)
    tma_a, tma_b = G.tensor_maps(a_dev, b_dev)
    grid = ((M // G.BM) * (N // bn),) if blocks is None else (blocks,)
    G.gemm_tma[grid, G.THREADS](
        tma_a, tma_b, c, None, None, M, N, K, BN=bn, STAGES=stages,
        B_ROW_MAJOR=row_major_b,
        shared_mem=G.shared_mem(bn, stages),
    )  # fmt: skip
    what = f"BN={bn} STAGES={stages} M={M} N={N} K={K} grid={grid[0]}"
    _compare(c, a, bt, dtype, what + (" row-major b" if row_major_b else ""))


def gemm_split(dtype, M, N, K, bn, stages, split, blocks, edge):
    """One configuration split-K: ``split`` slices of each tile's k tiles,
    ``blocks`` blocks looping over the (slice, tile) units.  First without
    ``arrived``: the Float32 partial sums, then added by split_sum; c is the
    first M rows of a NaN buffer 16 rows longer (a store past c shows), and
    the kernel must leave c alone (its sums go to the slices).  Then with
    ``arrived`` (the slices added in the kernel, one launch), twice: the
    same bits as split_sum's, and every counter zero again after each."""
    a, a_dev = _random(13, (M, K), dtype)
    bt, bt_dev = _random(14, (N, K), dtype)
    buf = _filled((M + 16, N), np.nan, dtype)
    c = buf[:M]
    part = MM.partial_sums(c, M, N, split)
    tma_a, tma_b = G.tensor_maps(a_dev, bt_dev)
    launch = G.gemm_tma[(blocks,), G.THREADS]
    config = dict(BN=bn, STAGES=stages, EDGE=edge, SPLIT=split)
    shared = G.shared_mem(bn, stages)
    launch(tma_a, tma_b, c, part, None, M, N, K, **config, shared_mem=shared)
    untouched = np.isnan(cp.asnumpy(buf).astype(np.float64)).all()
    assert untouched, "the split kernel wrote c"
    MM.sum_slices(part, c, M, N, split)
    what = f"BN={bn} STAGES={stages} SPLIT={split} M={M} N={N} K={K} grid={blocks}"
    _compare(c, a, bt, dtype, what)
    past = cp.asnumpy(buf[M:]).astype(np.float64)
    assert np.isnan(past).all(), f"{what}: stores past c's last row"
    want = cp.asnumpy(c).view(np.uint16).copy()
    arrived = cp.zeros(8 * G.tiles(M, N, 128), dtype=cp.int32)
    for turn in range(2):
        buf.fill(np.nan)
        part.fill(np.nan)  # the slices stored again, or NaN shows
        launch(tma_a, tma_b, c, part, arrived, M, N, K, **config, shared_mem=shared)
        got = cp.asnumpy(c).view(np.uint16)
        assert np.array_equal(
            got, want
        ), f"{what} in-kernel sum, turn {turn}: not split_sum's bits"
        assert not cp.asnumpy(arrived).any(), f"{what}: a counter left non-zero"
        past = cp.asnumpy(buf[M:]).astype(np.float64)
        assert np.isnan(past).all(), f"{what} in-kernel sum: stores past c's last row"


def matmul_bits(dtype, M, N, K):
    """matmul() with each split forced (one launch, the slices added in the
    kernel) against split_sum's two launches: the same bits; and twice in
    a row on the cached workspace.  Then matmul() as the plan chooses (one
    launch or two, whichever it timed faster) against the same split's
    other way: the same bits."""
    a, a_dev = _random(15, (M, K), dtype)
    bt, bt_dev = _random(16, (N, K), dtype)
    b_dev = cp.ascontiguousarray(bt_dev.T)
    c = _filled((M, N), np.nan, dtype)
    G.matmul(a_dev, b_dev, c)
    _compare(c, a, bt, dtype, f"matmul() M={M} N={N} K={K}")
    chosen = cp.asnumpy(c).view(np.uint16).copy()
    plan = G._PLANS[a_dev.shape, b_dev.shape, c.shape, True, None]
    tma_a, tma_b = G.tensor_maps(a_dev, b_dev)
    two = plan[-1]
    if two is not None:  # two launches chosen: the in-kernel sum of that split
        split = two.config["SPLIT"]
    else:
        args = (tma_a, tma_b, c, *G.workspace(c, plan[5], plan[6]), M, N, K)
        tuned = G.TUNED[not G.whole_tiles(M, N, K), True, None]
        split = tuned.best_config(*args).constexprs["SPLIT"]
    print(f"matmul() {M}x{N}x{K}: split {split}, {'two launches' if two else 'one'}")
    for split_ in sorted({2, 4, split} - {1}):
        part = MM.partial_sums(c, M, N, split_)
        G.gemm_tma[(132,), G.THREADS](
            tma_a, tma_b, c, part, None, M, N, K, BN=128, STAGES=4, EDGE=True,
            B_ROW_MAJOR=True, SPLIT=split_, shared_mem=G.shared_mem(128, 4),
        )  # fmt: skip
        MM.sum_slices(part, c, M, N, split_)
        want = cp.asnumpy(c).view(np.uint16).copy()
        for turn in range(2):
            c.fill(np.nan)
            G.matmul(a_dev, b_dev, c, split=split_)
            got = cp.asnumpy(c).view(np.uint16)
            assert np.array_equal(got, want), f"matmul split={split_} turn {turn}"
        if split_ == split:
            assert np.array_equal(chosen, want), f"matmul() (split {split}) bits"


def matmul_example(dtype, M, N, K):
    """matmul(a, b, c): b row-major, autotuned (whole tiles or EDGE)."""
    a, a_dev = _random(11, (M, K), dtype)
    bt, bt_dev = _random(12, (N, K), dtype)
    c = _filled((M, N), np.nan, dtype)
    G.matmul(a_dev, cp.ascontiguousarray(bt_dev.T), c)
    _compare(c, a, bt, dtype, f"matmul() M={M} N={N} K={K}")


def gemm_vs_torch(dtype, size):
    """The autotuned gemm() on PyTorch tensors against torch.matmul and the
    float64 product."""
    import torch

    t = {"bf16": torch.bfloat16, "f16": torch.float16}[dtype]
    g = torch.Generator(device="cuda").manual_seed(0)
    a = torch.rand((size, size), device="cuda", dtype=t, generator=g) * 2 - 1
    b = torch.rand((size, size), device="cuda", dtype=t, generator=g) * 2 - 1
    c = torch.full((size, size), float("nan"), device="cuda", dtype=t)
    G.gemm(a, b.t().contiguous(), c)
    want = a.double() @ b.double()
    scale = a.double().abs().sum(1).max().item()
    err = (c.double() - want).abs().max().item() / scale
    ref = (torch.matmul(a, b).double() - want).abs().max().item() / scale
    assert not torch.isnan(c).any(), "NaN in c: a tile was never written"
    assert err <= TOL[dtype], f"gemm error {err:.3g} (torch.matmul's {ref:.3g})"


def gemm_example(dtype, M, N, K):
    """examples/gemm_tma.py's gemm() (autotuned) on CuPy arrays, as the
    example checks run every example (example_checks.gemm_tma)."""
    a, a_dev = _random(5, (M, K), dtype)
    bt, bt_dev = _random(6, (N, K), dtype)
    c = _filled((M, N), np.nan, dtype)
    G.gemm(a_dev, bt_dev, c)
    _compare(c, a, bt, dtype, f"gemm() M={M} N={N} K={K}")


def gemm_ragged(dtype, M, N, K, bn, stages):
    """One EDGE configuration on sizes that are not multiples of the tiles:
    c is the first M rows of a NaN buffer 16 rows longer, so a store past c's
    end (or a pair past a row's end, which lands in the next row) shows."""
    a, a_dev = _random(7, (M, K), dtype)
    bt, bt_dev = _random(8, (N, K), dtype)
    buf = _filled((M + 16, N), np.nan, dtype)
    c = buf[:M]
    tma_a, tma_b = G.tensor_maps(a_dev, bt_dev)
    G.gemm_tma[(G.tiles(M, N, bn),), G.THREADS](
        tma_a, tma_b, c, None, None, M, N, K, BN=bn, STAGES=stages, EDGE=True,
        shared_mem=G.shared_mem(bn, stages),
    )  # fmt: skip
    what = f"EDGE BN={bn} STAGES={stages} M={M} N={N} K={K}"
    _compare(c, a, bt, dtype, what)
    past = cp.asnumpy(buf[M:]).astype(np.float64)
    assert np.isnan(past).all(), f"{what}: stores past c's last row"


def gemm_ragged_autotuned(dtype, M, N, K):
    """gemm() picks the EDGE kernel for ragged sizes (autotuned, persistent)."""
    a, a_dev = _random(9, (M, K), dtype)
    bt, bt_dev = _random(10, (N, K), dtype)
    c = _filled((M, N), np.nan, dtype)
    G.gemm(a_dev, bt_dev, c)
    _compare(c, a, bt, dtype, f"gemm() M={M} N={N} K={K}")
