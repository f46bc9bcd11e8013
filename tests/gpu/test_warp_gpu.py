"""Warp collectives with masks give the interpreter's bytes on the GPU: every
shuffle (and shfl_up), the votes (uni_sync too), activemask, match_any/match_all, the
reductions and syncwarp, on random inputs (kernels: tests/lowering/warp_kernels.py)."""

import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lowering"))
import warp_kernels as W  # noqa: E402

N = 256  # two blocks of 128: eight warps


def same_bytes(kernel, grid, block, arrays, scalars=()):
    """Run ``kernel`` in the interpreter and on the GPU on copies of
    ``arrays`` (then ``scalars``); every array must end with the same bytes."""
    host = [a.copy() for a in arrays]
    kernel.interpret[grid, block](*host, *scalars)
    device = [cp.asarray(a) for a in arrays]
    kernel[grid, block](*device, *scalars)
    cp.cuda.Device().synchronize()
    for k, (want, got) in enumerate(zip(host, device)):
        assert got.get().tobytes() == want.tobytes(), f"argument {k}"


@pytest.mark.parametrize("d", [1, 2, 5, 16, 31, -1, 37])
@pytest.mark.parametrize("t", W.SHUFFLED, ids=lambda t: t.__name__)
def test_shuffles(t, d):
    x = W.values(np.dtype(t.np_dtype), N, seed=d & 0xFF)
    same_bytes(W.shuffles, 2, 128, [x, np.zeros(8 * N, x.dtype)], (d,))


@pytest.mark.parametrize("t", [np.int32, np.float32])
def test_prefix_sum_with_shfl_up(t):
    x = W.values(t, N, seed=11)
    if x.dtype.kind == "f":
        x = np.random.default_rng(11).standard_normal(N).astype(t)
    same_bytes(W.warp_scan, 2, 128, [x, np.zeros(N, t)])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_votes(seed):
    x = W.votes_input(N, seed)
    same_bytes(W.votes, 2, 128, [x, np.zeros(7 * N, np.uint32)])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_uni_sync(seed):
    x = W.votes_input(N, seed)
    x[96:128:3] = 7  # every third lane of one warp agrees
    same_bytes(W.uniform, 2, 128, [x, np.zeros(2 * N, np.uint32)])


@pytest.mark.parametrize("block, k", [(128, 13), (96, 32), (48, 7), (64, 0)])
def test_activemask(block, k):
    same_bytes(W.active, 2, block, [np.zeros(4 * block, np.uint32)], (k,))


@pytest.mark.parametrize("t", W.MATCHED, ids=lambda t: t.__name__)
@pytest.mark.parametrize("seed", [4, 5])
def test_match_any_and_match_all(t, seed):
    x = W.keys(np.dtype(t.np_dtype), N, seed)
    same_bytes(W.matches, 2, 128, [x, np.zeros(4 * N, np.uint32)])


@pytest.mark.parametrize("t", W.REDUCED, ids=lambda t: t.__name__)
@pytest.mark.parametrize("seed", [6, 7])
def test_reductions(t, seed):
    x = W.values(np.dtype(t.np_dtype), N, seed)
    key = W.keys(np.int32, N, seed + 100)
    same_bytes(W.reductions, 2, 128, [x, key, np.zeros(9 * N, x.dtype)])


def test_syncwarp_exchange():
    x = W.values(np.int32, N, seed=9)
    same_bytes(W.warp_exchange, 2, 128, [x, np.zeros(N, np.int32)])
