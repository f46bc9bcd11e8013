"""The GPU checks of examples/attention_tma.py, each run by
tests/gpu/test_attention_tma_gpu.py (and example_checks.attention_tma) in a
subprocess of its own, with a timeout: a wrong mbarrier phase or byte count
hangs the kernel rather than failing it.  Each raises AssertionError with
what it saw.  The reference is example_checks' float64 softmax(q k^T /
sqrt(d)) v, the tolerance its ATTENTION_TOL (P and o are rounded to 16
bits)."""

import math
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent))

import cupy as cp  # noqa: E402
import ml_dtypes  # noqa: E402

from example_checks import ATTENTION_TOL, _attention_reference  # noqa: E402
from examples_index import example_modules  # noqa: E402

A = example_modules()["attention_tma"]
NUMPY = {"bf16": ml_dtypes.bfloat16, "f16": np.float16}


def _inputs(seed, dims, dtype):
    """Host (numpy, of ``dtype``) and device q, k, v, uniform in [-2, 2)."""
    rng = np.random.default_rng(seed)
    host = [rng.uniform(-2, 2, dims).astype(NUMPY[dtype]) for _ in range(3)]
    return host, [cp.asarray(x) for x in host]


def _compare(out, host, causal, what, dtype):
    got = cp.asnumpy(out).astype(np.float64)
    want = _attention_reference(*host, causal)
    assert not np.isnan(got).any(), f"{what}: NaN in the output (rows not written)"
    err = np.abs(got - want).max() / np.abs(host[2].astype(np.float64)).max()
    assert err <= ATTENTION_TOL[dtype], f"{what}: relative error {err:.3g}"


def every_configuration(dtype, seq=768):
    """Every configuration of SHAPES, head dims 64 and 128, causal and not,
    on (1, 2, seq, d): seq 768 is 6 query blocks and 3, 6 or 12 key tiles
    (the ring wraps); causal blocks have tiles below, across and (for the
    first consumer warpgroup) entirely above their rows' diagonal, and with
    256-key tiles a last tile past the sequence's end."""
    _compile_all(
        [
            A.constexprs(d, c, s)
            for d in A.HEAD_DIMS
            for c in (0, 1)
            for s in A.SHAPES[d]
        ],
        dtype,
        lse=False,
    )
    failures = []
    for d in A.HEAD_DIMS:
        for causal in (False, True):
            host, (q, k, v) = _inputs(d + causal, (1, 2, seq, d), dtype)
            maps = A.tensor_maps(q, k, v)
            for shape in A.SHAPES[d]:
                m = dict(zip(A.NAMES, shape), HEAD_DIM=d, CAUSAL=causal)
                out = cp.asarray(np.full((1, 2, seq, d), np.nan, NUMPY[dtype]))
                A.attention_tma[A.grid(seq, 2), A.threads(m)](
                    *maps, out, None, seq, A.LOG2E / math.sqrt(d), **m,
                    shared_mem=A.config_shared_mem(m),
                )  # fmt: skip
                try:
                    _compare(out, host, causal, f"{m}", dtype)
                except AssertionError as e:
                    failures.append(str(e))
    assert not failures, "\n".join(failures)


def three_consumers(dtype):
    """The three-consumer blocks (THREADS 512, 192 query rows) on seq 640 =
    3 x 192 + 64: the last block's rows past seq are computed and not
    stored (the NaN-filled output says if a row is missed or one past the
    end written: o is allocated with one (batch, head) more than launched),
    causal and not, with the log-sum-exp checked against float64."""
    seq, d, bh = 640, 64, 3
    shapes = [s for s in A.SHAPES[d] if s[A.NAMES.index("THREADS")] == 512]
    _compile_all([A.constexprs(d, c, s) for c in (0, 1) for s in shapes], dtype, True)
    failures = []
    for causal in (False, True):
        host, (q, k, v) = _inputs(11 + causal, (1, bh, seq, d), dtype)
        maps = A.tensor_maps(q, k, v)
        for shape in A.SHAPES[d]:
            m = A.constexprs(d, causal, shape)
            if m["THREADS"] != 512:
                continue
            out = cp.asarray(np.full((1, bh + 1, seq, d), np.nan, NUMPY[dtype]))
            lse = cp.full((1, bh + 1, seq), np.nan, cp.float32)
            A.attention_tma[A.grid(seq, bh), A.threads(m)](
                *maps, out, lse, seq, A.LOG2E / math.sqrt(d), **m,
                shared_mem=A.config_shared_mem(m),
            )  # fmt: skip
            try:
                assert np.isnan(cp.asnumpy(out[:, bh])).all(), f"{m}: wrote past seq"
                _compare(out[:, :bh], host, causal, f"{m}", dtype)
                want = _lse_reference(*host[:2], causal)
                got = cp.asnumpy(lse[:, :bh]).astype(np.float64)
                err = np.abs(got - want).max()
                assert err <= 1e-2, f"{m}: lse error {err:.3g}"
            except AssertionError as e:
                failures.append(str(e))
    assert not failures, "\n".join(failures)


def _compile_all(configs, dtype, lse):
    """The instances of ``configs`` (with or without lse) compiled side by
    side before the launches (NVRTC releases the GIL; the launches then
    find them in kdsl's cache)."""
    from concurrent.futures import ThreadPoolExecutor

    from kdsl.runtime import compile as kcompile

    arch = kcompile.device_arch(cp.cuda.Device().id)
    absent = {} if lse else {"lse": None}  # (lse=None: the instance without it)

    def one(m):
        m = {**m, "CAUSAL": bool(m["CAUSAL"])}
        kcompile.cubin_for(A.attention_tma.dispatch(dtype, **m, **absent), arch)

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(one, configs))


def _lse_reference(q, k, causal):
    """log2 of each row's sum of exp(q k^T / sqrt(d)), float64 (what
    attention_tma writes to lse: the log2 domain)."""
    q, k = q.astype(np.float64), k.astype(np.float64)
    s = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])
    if causal:
        n = s.shape[-1]
        s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
    top = s.max(-1, keepdims=True)
    return (top[..., 0] + np.log(np.exp(s - top).sum(-1))) / math.log(2)


def host_function(dtype):
    """attention() as users call it: autotuned, the maps built for the call,
    on CuPy arrays, batch and heads > 1."""
    for d in A.HEAD_DIMS:
        for causal in (False, True):
            host, (q, k, v) = _inputs(7 + d + causal, (2, 3, 256, d), dtype)
            out = A.attention(q, k, v, causal)
            _compare(out, host, causal, f"attention() d={d} causal={causal}", dtype)
