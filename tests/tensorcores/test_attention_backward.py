"""examples/attention_backward.py without a GPU: the SASS of its passes
(HGMMA with both operands from shared memory for S and dP, from registers
with an MN-major B for dV, dK and dQ; no spills), their shared memory and
the host function's checks.  Against float64 gradients in the interpreter:
tests/example_checks.attention_backward and tests/pytorch/test_example_ops;
on the GPU: tests/gpu/test_attention_backward_gpu.py."""

import numpy as np
import pytest

from examples_index import example_modules
from sass import sass_of

B = example_modules()["attention_backward"]


@pytest.mark.parametrize(
    "dtype, hgmma, d, shape, causal",
    [
        ("bf16", r"\.BF16", 128, (64, 2), False),
        ("bf16", r"\.BF16", 128, (64, 3), True),
        ("f16", "", 64, (128, 2), True),
    ],
)
def test_the_dkdv_loop_is_hgmma_without_spills(dtype, hgmma, d, shape, causal):
    block_m, stages = shape
    inst = B.attention_bwd_dkdv.dispatch(
        dtype, HEAD_DIM=d, BLOCK_M=block_m, STAGES=stages, CAUSAL=causal
    )
    assert inst.lowered.arch == "sm_90a"
    sass = sass_of(inst)
    # S^T = K Q^T and dP^T = V dO^T: d / 16 wgmma each, from descriptors
    st = rf"^HGMMA\.64x{block_m}x16\.F32{hgmma} R\d+, gdesc\[UR\d+\], "
    assert sass.count(st) == 2 * d // 16
    # dV += P^T dO and dK += dS^T Q: BLOCK_M / 16 each, A from registers
    dkv = rf"^HGMMA\.64x{d}x16\.F32{hgmma} R\d+, R\d+, gdesc\[UR\d+\]\.tnspB, "
    assert sass.count(dkv) == 2 * block_m // 16
    assert sass.spills == 0


@pytest.mark.parametrize(
    "dtype, hgmma, d, shape, causal",
    [
        ("bf16", r"\.BF16", 128, (64, 2), True),
        ("bf16", r"\.BF16", 128, (128, 2), False),
        ("f16", "", 64, (128, 2), False),
    ],
)
def test_the_dq_loop_is_hgmma_without_spills(dtype, hgmma, d, shape, causal):
    block_n, stages = shape
    inst = B.attention_bwd_dq.dispatch(
        dtype, HEAD_DIM=d, BLOCK_N=block_n, STAGES=stages, CAUSAL=causal
    )
    sass = sass_of(inst)
    s = rf"^HGMMA\.64x{block_n}x16\.F32{hgmma} R\d+, gdesc\[UR\d+\], "
    assert sass.count(s) == 2 * d // 16  # S = Q K^T, dP = dO V^T
    dq = rf"^HGMMA\.64x{d}x16\.F32{hgmma} R\d+, R\d+, gdesc\[UR\d+\]\.tnspB, "
    assert sass.count(dq) == block_n // 16  # dQ += dS K
    assert sass.spills == 0


def test_a_128_row_query_tile_at_head_dim_128_spills():
    """Why DKDV_SHAPES[128] keeps BLOCK_M = 64: four accumulators of 64
    floats a thread do not fit with the fragments."""
    assert (128, 2) not in B.DKDV_SHAPES[128]
    inst = B.attention_bwd_dkdv.dispatch("bf16", HEAD_DIM=128, BLOCK_M=128)
    assert sass_of(inst).spills > 0


def test_each_configuration_fits_in_shared_memory():
    for d in B.HEAD_DIMS:
        for bm, stages in B.DKDV_SHAPES[d]:
            m = dict(HEAD_DIM=d, BLOCK_M=bm, STAGES=stages)
            lse_delta = 2 * stages * bm * 4  # the static arrays
            assert B.dkdv_shared_mem(m) + lse_delta <= 227 * 1024
            assert B.dkdv_shared_mem(m) % 1024 == 0  # each tile on the swizzle
        for bn, stages in B.DQ_SHAPES[d]:
            m = dict(HEAD_DIM=d, BLOCK_N=bn, STAGES=stages)
            assert B.dq_shared_mem(m) <= 227 * 1024
            assert B.dq_shared_mem(m) % 1024 == 0


def test_the_host_function_checks_the_shapes():
    x = np.zeros((1, 2, 256, 64), np.float16)
    lse = np.zeros((1, 2, 256), np.float32)
    with pytest.raises(ValueError, match="a multiple of 128"):
        y = np.zeros((1, 2, 192, 64), np.float16)
        B.attention_backward(y, y, y, y, lse[:, :, :192], y)
    with pytest.raises(ValueError, match="lse of shape"):
        B.attention_backward(x, x, x, x, lse[:, :1], x)
    with pytest.raises(ValueError, match="one shape"):
        B.attention_backward(x, x, x, x, lse, np.zeros((1, 2, 128, 64), np.float16))


def test_the_mma_forward_saves_the_log_sum_exp_in_the_interpreter():
    from example_checks import attention_gradients_reference

    A = example_modules()["attention"]
    rng = np.random.default_rng(3)
    q, k, v = (rng.uniform(-2, 2, (1, 1, 128, 64)).astype(np.float16) for _ in "qkv")
    lse = np.full((1, 1, 128), np.nan, np.float32)
    A.attention(q, k, v, True, interpret=True, lse=lse)
    _, want, *_ = attention_gradients_reference(q, k, v, q, True)
    np.testing.assert_allclose(lse, want, rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize(
    "seq, d, dkdv, dq",
    [
        (384, 64, (128, 3), (64, 2)),  # three key blocks: causal ones start later
        (256, 128, (64, 3), (128, 2)),
    ],
)
def test_the_other_configurations_in_the_interpreter(seq, d, dkdv, dq):
    """The configurations example_checks leaves to the GPU — a 3-stage ring,
    128-key dq tiles — causal, in bf16, against float64."""
    import math

    import ml_dtypes

    from example_checks import ATTENTION_BWD_TOL, attention_gradients_reference

    rng = np.random.default_rng(5)
    dims = (1, 1, seq, d)
    q, k, v, do = (rng.uniform(-2, 2, dims).astype(ml_dtypes.bfloat16) for _ in "qkvd")
    o, lse, *want = attention_gradients_reference(q, k, v, do, True)
    o, lse = o.astype(q.dtype), lse.astype(np.float32)
    delta = np.full(dims[:3], np.nan, np.float32)
    grid = B.delta_grid(seq, d)
    B.attention_bwd_delta.interpret[grid, B.DELTA_THREADS](o, do, delta, HEAD_DIM=d)
    grads = [np.full(dims, np.nan, q.dtype) for _ in range(3)]
    scale = 1 / math.sqrt(d)
    args = (q, k, v, do, lse, delta)
    tail = (seq, B.LOG2E * scale, scale)
    m = dict(HEAD_DIM=d, CAUSAL=True, BLOCK_M=dkdv[0], STAGES=dkdv[1])
    B.attention_bwd_dkdv.interpret[(seq // B.KV_ROWS, 1), B.THREADS](
        *args, *grads[1:], *tail, **m, shared_mem=B.dkdv_shared_mem(m)
    )
    m = dict(HEAD_DIM=d, CAUSAL=True, BLOCK_N=dq[0], STAGES=dq[1])
    B.attention_bwd_dq.interpret[(seq // B.Q_ROWS, 1), B.THREADS](
        *args, grads[0], *tail, **m, shared_mem=B.dq_shared_mem(m)
    )
    for name, got, ref in zip(("dq", "dk", "dv"), grads, want):
        err = np.abs(got.astype(np.float64) - ref).max() / np.abs(ref).max()
        assert err <= ATTENTION_BWD_TOL["bf16"], f"{name}: relative error {err:.3g}"
