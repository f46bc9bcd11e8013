"""examples/attention.py without a GPU: the host function in the CPU
interpreter against a float64 reference (the per-configuration checks are
in example_checks.attention, run by tests/examples/test_interpret_examples.py), its
argument checks, the CUDA of the causal head-dim-128 instance and of a
two-row-tiles-a-warp one against their golden files, and the SASS of every
configuration: the hot loop is mma.sync (HMMA) fed by ldmatrix (LDSM) and
cp.async (LDGSTS), with nothing in local memory."""

import math
from pathlib import Path

import numpy as np
import pytest

import kdsl
from examples_index import example_modules
from sass import sass_of

A = example_modules()["attention"]
HERE = Path(__file__).parent
DTYPES = {"bf16": kdsl.BFloat16.np_dtype, "f16": np.dtype(np.float16)}


def reference(q, k, v, causal):
    q, k, v = (x.astype(np.float64) for x in (q, k, v))
    s = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])
    if causal:
        n = s.shape[-1]
        s = np.where(np.tril(np.ones((n, n), dtype=bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_the_host_function_in_the_interpreter(dtype, causal):
    # seq 64: one key tile, BLOCK_M 64 (the first configuration's 128 does
    # not divide it); two heads: block_idx.y picks the head's rows
    rng = np.random.default_rng(7)
    shape = (1, 2, 64, 64)
    q, k, v = (rng.uniform(-2, 2, shape).astype(DTYPES[dtype]) for _ in range(3))
    o = A.attention(q, k, v, causal, interpret=True)
    assert o.dtype == q.dtype and o.shape == shape
    err = np.abs(o.astype(np.float64) - reference(q, k, v, causal)).max()
    assert err <= 2.0**-7 * np.abs(v.astype(np.float64)).max()


def test_the_running_maximum_grows_from_tile_to_tile():
    # scores that rise with the key index: every new key tile raises each
    # row's maximum, so O and l are rescaled (alpha < 1) at every tile; the
    # last tile holds nearly all of the probability
    rng = np.random.default_rng(3)
    seq, d = 256, 64
    q = np.ones((1, 1, seq, d)).astype(DTYPES["bf16"])
    ramp = np.linspace(0.0, 1.5, seq)[:, None] * np.ones(d)
    k = ramp[None, None].astype(DTYPES["bf16"])
    v = rng.uniform(-1, 1, (1, 1, seq, d)).astype(DTYPES["bf16"])
    for causal in (False, True):
        o = A.attention(q, k, v, causal, interpret=True)
        err = np.abs(o.astype(np.float64) - reference(q, k, v, causal)).max()
        assert err <= 2.0**-7


@pytest.mark.parametrize(
    "shape, message",
    [
        ((1, 2, 96, 64), "seq a multiple of 64"),
        ((1, 2, 64, 96), "head_dim 64 or 128"),
        ((2, 64, 64), "one shape"),
    ],
)
def test_shapes_it_does_not_take_are_a_clear_error(shape, message):
    x = np.zeros(shape, DTYPES["bf16"])
    with pytest.raises(ValueError, match=message):
        A.attention(x, x, x, interpret=True)


def test_q_k_v_and_out_must_have_one_shape():
    x = np.zeros((1, 1, 64, 64), DTYPES["bf16"])
    y = np.zeros((1, 1, 128, 64), DTYPES["bf16"])
    with pytest.raises(ValueError, match="one shape"):
        A.attention(x, y, x, interpret=True)


def test_two_row_tiles_a_warp_instance_matches_its_golden_file(golden):
    inst = A.attention_fwd.dispatch("bf16", **A.constexprs(64, False, (128, 64, 2, 2)))
    golden.check(inst, HERE.parent / "golden" / "features" / "tensorcores")


def test_a_configuration_the_kernel_cannot_run_is_a_clear_error():
    # 16 keys of 64 dims are 128 chunks: fewer than the 256 threads
    with pytest.raises(ValueError, match="a multiple of the threads"):
        A.constexprs(64, False, (128, 16, 2, 1))
    assert A.constexprs(64, True, (128, 16, 2, 2))["WARP_M"] == 2


def test_arrays_that_are_not_contiguous_are_a_clear_error():
    x = np.zeros((1, 1, 64, 64), DTYPES["bf16"])
    y = np.zeros((1, 1, 64, 64), DTYPES["bf16"]).transpose(0, 1, 3, 2)
    with pytest.raises(ValueError, match="contiguous arrays: k is not"):
        A.attention(x, y, x, interpret=True)


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_the_causal_head_dim_128_instance_matches_its_golden_file(golden, dtype):
    inst = A.attention_fwd.dispatch(dtype, HEAD_DIM=128, BLOCK_M=128, CAUSAL=True)
    golden.check(inst, HERE.parent / "golden" / "features" / "tensorcores")


CONFIGS = [(d, shape) for d in A.HEAD_DIMS for shape in A.SHAPES[d]]


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize(
    "head_dim, shape",
    CONFIGS,
    ids=[f"d{d}-" + "x".join(map(str, s)) for d, s in CONFIGS],
)
def test_the_hot_loop_is_hmma_without_spills(head_dim, shape, causal):
    _, bn, _, warp_m = shape
    inst = A.attention_fwd.dispatch("bf16", **A.constexprs(head_dim, causal, shape))
    sass = sass_of(inst)
    # one key tile, once: S = Q K^T and O += P V, each (BLOCK_N / 8) x
    # (HEAD_DIM / 16) (resp. (HEAD_DIM / 8) x (BLOCK_N / 16)) m16n8k16 for
    # each of the warp's WARP_M 16-row tiles
    per_tile = 2 * (bn // 8) * (head_dim // 16) * warp_m
    assert sass.count(r"^HMMA\.16816\.F32\.BF16\s") == per_tile
    assert sass.count(r"^HMMA") == per_tile
    # K by ldmatrix x4, V by ldmatrix x4 .trans, each 16 x 16 at a time and
    # shared by the warp's tiles
    assert sass.count(r"^LDSM\.16\.M88\.4\b") == (bn // 16) * (head_dim // 16)
    assert sass.count(r"^LDSM\.16\.MT88\.4\b") == (bn // 16) * (head_dim // 16)
    assert sass.count(r"^LDGSTS\.E\.BYPASS\.128\b") > 0  # cp.async.cg, 16 bytes
    # P to 16 bits two at a time (and O's pairs at the end)
    assert sass.count(r"^F2FP\.BF16\.F32\.PACK_AB\b") >= bn // 2 * warp_m
    assert sass.spills == 0


def test_two_row_tiles_a_warp_spill_with_head_dim_128():
    """Why SHAPES[128] has no WARP_M=2: its accumulators, scores and Q
    fragments (128 + 64 + 64 registers a lane) do not fit."""
    inst = A.attention_fwd.dispatch("bf16", **A.constexprs(128, False, (128, 64, 2, 2)))
    assert sass_of(inst).spills > 0
