"""examples/attention.py on the GPU against
torch.nn.functional.scaled_dot_product_attention and a float64 reference:
head dims 64 and 128, causal and not, seq 128 … 2048 (multiples of 64:
the kernel has no ragged edge, and says so), through the autotuned
``attention`` and with every configuration pinned."""

import math
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from examples_index import example_modules  # noqa: E402

A = example_modules()["attention"]
DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16}
EPS = {torch.bfloat16: 2.0**-8, torch.float16: 2.0**-11}


def exact(q, k, v, causal):
    q, k, v = q.double(), k.double(), v.double()
    s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if causal:
        n = s.shape[-1]
        mask = torch.ones(n, n, dtype=torch.bool, device=s.device).tril()
        s = s.masked_fill(~mask, float("-inf"))
    return torch.softmax(s, -1) @ v


def check(o, q, k, v, causal):
    """o within a few units of 16-bit rounding (relative to max |v|: a row
    of o is an average of rows of v) of the exact result, as SDPA is."""
    want = exact(q, k, v, causal)
    sdpa = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
    scale = v.double().abs().max().item()
    ours = (o.double() - want).abs().max().item() / scale
    theirs = (sdpa.double() - want).abs().max().item() / scale
    assert not o.isnan().any()
    bound = 2 * EPS[q.dtype]  # P rounded to 16 bits before P V, then o
    assert theirs <= bound  # the tolerance is one SDPA meets too
    assert ours <= bound, f"error {ours:.3g} (SDPA's {theirs:.3g})"
    diff = (o.double() - sdpa.double()).abs().max().item() / scale
    assert diff <= 2 * bound


def inputs(batch, heads, seq, d, dtype, seed):
    gen = torch.Generator(device="cuda").manual_seed(seed)
    shape = (batch, heads, seq, d)
    return [
        torch.randn(shape, device="cuda", dtype=dtype, generator=gen) for _ in range(3)
    ]


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("d", A.HEAD_DIMS)
@pytest.mark.parametrize(
    "batch, heads, seq", [(2, 4, 128), (2, 3, 512), (1, 2, 2048), (3, 2, 320)]
)
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_attention_matches_sdpa(batch, heads, seq, d, causal, dtype):
    q, k, v = inputs(batch, heads, seq, d, DTYPES[dtype], seq + d + causal)
    o = torch.full_like(q, float("nan"))
    A.attention(q, k, v, causal, out=o)
    torch.cuda.synchronize()
    check(o, q, k, v, causal)


CONFIGS = [(d, shape) for d in A.HEAD_DIMS for shape in A.SHAPES[d]]


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize(
    "d, shape", CONFIGS, ids=[f"d{d}-" + "x".join(map(str, s)) for d, s in CONFIGS]
)
def test_every_configuration(d, shape, causal):
    batch, heads, seq = 2, 2, 512
    q, k, v = inputs(batch, heads, seq, d, torch.bfloat16, 5)
    o = torch.full_like(q, float("nan"))
    tuned = A.TUNED[d, causal]
    tuned.pin(tuned.configs[A.SHAPES[d].index(shape)])
    try:
        tuned[A.grid(seq, batch * heads), A.block](
            q, k, v, o, None, seq, A.LOG2E / math.sqrt(d),
            shared_mem=A.config_shared_mem, stream=torch.cuda.current_stream(),
        )  # fmt: skip
    finally:
        tuned.pin(None)
    torch.cuda.synchronize()
    check(o, q, k, v, causal)


def test_large_scores_keep_the_softmax_finite():
    # scores of several hundred: exp would overflow without the running max
    q, k, v = inputs(1, 2, 256, 64, torch.bfloat16, 9)
    q, k = q * 8, k * 8
    o = A.attention(q, k, v, causal=True)
    torch.cuda.synchronize()
    check(o, q, k, v, True)


def test_a_ragged_seq_is_a_clear_error():
    q = torch.zeros(1, 1, 100, 64, device="cuda", dtype=torch.bfloat16)
    with pytest.raises(ValueError, match="multiple of 64"):
        A.attention(q, q, q)
