"""Issue 23: random bit-intrinsic expressions (tests/fuzz/bits_gen.py), run
in the interpreter on edge and random inputs and folded on compile-time
ones, both checked against the generator's independent model in Python
integers; every 5th kernel is compiled with NVRTC too.  The default run is
short (BIT_KERNELS); ``--fuzz-examples=N`` runs N kernels."""

import random
import sys
from pathlib import Path

import numpy as np
import pytest

from kdsl.runtime.nvrtc import compile_to_cubin

sys.path.insert(0, str(Path(__file__).parent))
import bits_gen  # noqa: E402
import gen  # noqa: E402

pytestmark = pytest.mark.fuzz
BIT_KERNELS = 24  # kernels in the default run (a few seconds)
EXPRS = 4  # expressions a kernel
THREADS = 64


def pytest_generate_tests(metafunc):
    if "bits_seed" in metafunc.fixturenames:
        n = metafunc.config.getoption("--fuzz-examples")
        metafunc.parametrize("bits_seed", range(BIT_KERNELS if n is None else n))


def test_random_bit_expressions_match_the_model(tmp_path, bits_seed):
    rng = random.Random(90_000 + bits_seed)
    exprs = [bits_gen.random_expr(rng) for _ in range(EXPRS)]
    path = tmp_path / f"bits_{bits_seed}.py"
    path.write_text(bits_gen.kernel_source(exprs))
    module = gen.load_file(path)
    edges = bits_gen.EDGES
    a = [*edges, *(rng.getrandbits(32) for _ in range(THREADS - len(edges)))]
    b = [*reversed(edges), *(rng.getrandbits(32) for _ in range(THREADS - len(edges)))]
    x, y = np.array(a, np.uint32), np.array(b, np.uint32)
    out = np.zeros(EXPRS * THREADS, np.uint32)
    module.k.interpret[1, THREADS](x, y, out, THREADS)
    got = out.reshape(EXPRS, THREADS)
    for j, e in enumerate(exprs):
        want = [e.model(int(p), int(q)) for p, q in zip(a, b)]
        bad = [(hex(a[i]), hex(b[i])) for i in range(THREADS) if got[j, i] != want[i]]
        assert not bad, f"{e.text}: interpreter differs at (a, b) = {bad[:3]}"
    if bits_seed % 5 == 0:
        inst = module.k.dispatch()
        compile_to_cubin(inst.source, inst.name)
    # folding: the same expressions on one pair of compile-time values
    pa, pb = a[bits_seed % THREADS], b[bits_seed % THREADS]
    folded = tmp_path / f"bits_folded_{bits_seed}.py"
    folded.write_text(bits_gen.folded_source(exprs, pa, pb))
    fmod = gen.load_file(folded)
    source = fmod.k.dispatch().source
    body = source[source.index('extern "C"') :]
    for j, e in enumerate(exprs):
        assert f"out[{j}] = {e.model(pa, pb)}u;" in body, (e.text, body)


def test_the_bit_generator_covers_every_operation():
    seen = set()
    for seed in range(BIT_KERNELS):
        rng = random.Random(90_000 + seed)
        for _ in range(EXPRS):
            seen |= bits_gen.random_expr(rng).ops
    every = set(bits_gen.UNARY) | set(bits_gen.BINARY) | set(bits_gen.TERNARY)
    assert seen == every, sorted(every - seen)
