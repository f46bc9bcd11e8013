"""Issue 23: random warp-collective kernels (tests/fuzz/warp_gen.py) run in
the interpreter and checked against the generator's model of PTX's rules;
every 5th kernel is compiled with NVRTC too.  The default run is short
(WARP_KERNELS); ``--fuzz-examples=N`` runs N kernels."""

import random
import sys
from pathlib import Path

import numpy as np
import pytest

from kdsl.runtime.nvrtc import compile_to_cubin

sys.path.insert(0, str(Path(__file__).parent))
import gen  # noqa: E402
import warp_gen  # noqa: E402

pytestmark = pytest.mark.fuzz
WARP_KERNELS = 20
OPS = 4


def pytest_generate_tests(metafunc):
    if "warp_seed" in metafunc.fixturenames:
        n = metafunc.config.getoption("--fuzz-examples")
        metafunc.parametrize("warp_seed", range(WARP_KERNELS if n is None else n))


def test_random_warp_collectives_match_the_ptx_model(tmp_path, warp_seed):
    rng = random.Random(70_000 + warp_seed)
    ops = [warp_gen.random_op(rng) for _ in range(OPS)]
    path = tmp_path / f"warp_{warp_seed}.py"
    path.write_text(warp_gen.kernel_source(ops))
    module = gen.load_file(path)
    values = [rng.choice([0, 1, 0xFFFFFFFF, rng.getrandbits(32)]) for _ in range(32)]
    out = np.zeros(OPS * 32, np.uint32)
    module.k.interpret[1, 32](np.array(values, np.uint32), out)
    for j, op in enumerate(ops):
        want = op.model(values)
        got = out[32 * j : 32 * (j + 1)].tolist()
        assert (
            got == want
        ), f"{op.text}: lanes {[k for k in range(32) if got[k] != want[k]]}"
    if warp_seed % 5 == 0:
        inst = module.k.dispatch()
        compile_to_cubin(inst.source, inst.name)


def test_the_warp_generator_covers_every_collective():
    kinds = set()
    for seed in range(WARP_KERNELS):
        rng = random.Random(70_000 + seed)
        kinds |= {warp_gen.random_op(rng).kind for _ in range(OPS)}
    assert len(kinds) == 14, kinds
