"""Warp MMA on the GPU (kdsl.mma_m16n8k16 / m16n8k8 / m16n8k32): for every
shape and type, D from the tensor cores against the numpy reference of the
PTX ISA's fragment layouts and against the interpreter (kernels and
reference: tests/tensorcores/mma_kernels.py).

Integer MMA must give the interpreter's bits.  Floating MMA sums in the
tensor cores' own order and precision: D must lie within the tolerance
docs/tensor-cores.md states of the exact result: |gpu - exact| <= eps *
(|c| + sum |a*b|), eps 2^-20 for f32 accumulators (2^-13 with fp8 inputs,
whose sums Hopper keeps to fewer bits) and 2^-9 for f16 ones."""

import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tensorcores"))
import mma_kernels as K  # noqa: E402

WARPS = 4  # four warps, each its own tile


def tolerance(a, b, c, tc):
    """The bound on |gpu - exact| of each element of D."""
    scale = np.abs(c.astype(np.float64)) + np.abs(a.astype(np.float64)) @ np.abs(
        b.astype(np.float64)
    )
    if tc == K.F16:
        return scale * 2.0**-9
    return scale * (2.0**-13 if a.dtype.itemsize == 1 else 2.0**-20)


def on_gpu(a):
    """A device copy of ``a``: CuPy has no 8-bit floats, PyTorch does."""
    if a.dtype.name.startswith("float8"):
        torch = pytest.importorskip("torch")
        bits = torch.from_numpy(a.view(np.uint8)).cuda()
        return bits.view(getattr(torch, a.dtype.name))
    return cp.asarray(a)


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("k, ta, tb, tc", [c[:4] for c in K.CASES], ids=K.IDS)
def test_mma_on_the_gpu(k, ta, tb, tc, seed):
    tiles = [K.random_inputs(k, ta, tb, tc, 100 * seed + w) for w in range(WARPS)]
    frags = [
        np.concatenate([K.fragments(op, k, t, tile[j]) for tile in tiles])
        for j, (op, t) in enumerate((("a", ta), ("b", tb), ("c", tc)))
    ]
    host = np.zeros_like(frags[2])
    K.mma_tile.interpret[1, 32 * WARPS](*(f.ravel() for f in frags), host.ravel(), K=k)
    device = cp.zeros(host.size, host.dtype)
    K.mma_tile[1, 32 * WARPS](*(on_gpu(f.ravel()) for f in frags), device, K=k)
    got = device.get().reshape(host.shape)
    for w, (a, b, c) in enumerate(tiles):
        d_gpu = K.unfragment(got[32 * w : 32 * w + 32], k, tc)
        d_cpu = K.unfragment(host[32 * w : 32 * w + 32], k, tc)
        exact = K.reference(a, b, c, tc)
        if tc == K.I32:
            np.testing.assert_array_equal(d_gpu, exact)
            np.testing.assert_array_equal(d_cpu, exact)
            continue
        bound = tolerance(a, b, c, tc)
        err = np.abs(d_gpu.astype(np.float64) - exact.astype(np.float64))
        assert (err <= bound).all(), f"warp {w}: worst {np.max(err - bound)}"
        err = np.abs(d_gpu.astype(np.float64) - d_cpu.astype(np.float64))
        assert (err <= 2 * bound).all(), f"warp {w}: GPU vs interpreter"


def test_integer_mma_wraps_on_the_gpu():
    k = 32
    a = np.full((16, k), 127, np.int8)
    b = np.full((k, 8), 127, np.int8)
    c = np.full((16, 8), 2**31 - 100, np.int32)
    frags = [K.fragments(op, k, m.dtype, m) for op, m in zip("abc", (a, b, c))]
    device = cp.zeros(128, np.int32)
    K.mma_tile[1, 32](*(cp.asarray(f.ravel()) for f in frags), device, K=k)
    d = K.unfragment(device.get().reshape(32, 4), k, np.dtype(np.int32))
    np.testing.assert_array_equal(d, K.reference(a, b, c, np.dtype(np.int32)))


# -- ldmatrix / stmatrix ----------------------------------------------------------------
import test_ldmatrix as L  # noqa: E402  (tests/tensorcores)


@pytest.mark.parametrize("trans", [False, True])
@pytest.mark.parametrize("count", [1, 2, 4])
def test_ldmatrix_and_stmatrix_give_the_interpreters_bytes(count, trans):
    src = np.random.default_rng(count).integers(-30000, 30000, 256).astype(np.int16)
    for kernel, n_in, n_out in (
        (L.load_matrices, 256, 64 * count),
        (L.store_matrices, 64 * count, 256),
    ):
        host = np.zeros(n_out, np.int16)
        kernel.interpret[1, 32](src[:n_in], host, COUNT=count, TRANS=trans)
        device = cp.zeros(n_out, np.int16)
        kernel[1, 32](cp.asarray(src[:n_in]), device, COUNT=count, TRANS=trans)
        assert device.get().tobytes() == host.tobytes(), kernel.name


def test_ldmatrix_feeds_mma_on_the_gpu():
    a, b = L.tile_inputs(3)
    host = np.zeros(128, np.float32)
    L.tile_gemm.interpret[1, 32](a.ravel(), b.ravel(), host)
    device = cp.zeros(128, np.float32)
    L.tile_gemm[1, 32](cp.asarray(a.ravel()), cp.asarray(b.ravel()), device)
    zero = np.zeros((16, 8), np.float32)
    bound = tolerance(a, b, zero, K.F32).ravel()
    assert (np.abs(device.get().astype(np.float64) - host) <= bound).all()


# -- cp.async and the swizzle ------------------------------------------------------------
import test_cp_async as A  # noqa: E402  (tests/tensorcores)


@pytest.mark.parametrize("rows", [16, 11, 0])
@pytest.mark.parametrize("chunks", [2, 4, 8])
def test_cp_async_gives_the_interpreters_bytes(rows, chunks):
    rng = np.random.default_rng(rows)
    src = rng.standard_normal(rows * 8 * chunks + 8).astype(A.BF16)
    host = np.full(16 * 8 * chunks, 7, A.BF16)
    A.stage_rows.interpret[1, 32](src, host, rows, CHUNKS=chunks)
    device = cp.asarray(np.full(16 * 8 * chunks, 7, A.BF16))
    A.stage_rows[1, 32](cp.asarray(src), device, rows, CHUNKS=chunks)
    assert device.get().tobytes() == host.tobytes()


def test_four_and_eight_byte_cp_async_on_the_gpu():
    src = np.arange(64, dtype=np.float32)
    host = np.zeros(32, np.float32)
    A.small_copies.interpret[1, 32](src, host)
    device = cp.zeros(32, np.float32)
    A.small_copies[1, 32](cp.asarray(src), device)
    assert device.get().tobytes() == host.tobytes()
