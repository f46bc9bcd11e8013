"""kdsl.grid_sync on the GPU: a kernel that grid-syncs is launched
cooperatively and gives the interpreter's bytes (Numba's laplace steps in one
launch, blocks reading each other's data); a grid that cannot be resident at
once is refused before anything runs."""

import sys
from pathlib import Path

import numpy as np
import pytest

import kdsl

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
from test_grid_sync import (  # noqa: E402
    next_block_reversed,
    rod,
    solve_heat_equation,
)


def test_laplace_steps_in_one_launch_give_the_interpreters_bytes():
    buf_0, buf_1 = rod()
    d_0, d_1 = cp.asarray(buf_0), cp.asarray(buf_1)
    solve_heat_equation.interpret[4, 256](buf_0, buf_1, buf_0.size, 1000, 0.25)
    solve_heat_equation[4, 256](d_0, d_1, buf_0.size, 1000, 0.25)
    assert d_0.get().tobytes() == buf_0.tobytes()
    assert d_1.get().tobytes() == buf_1.tobytes()
    assert 0 < buf_0[400] < buf_0[500] < 10000  # the heat spread


def test_every_block_reads_the_next_blocks_data_as_in_the_interpreter():
    blocks = 2 * cp.cuda.Device().attributes["MultiProcessorCount"]  # fits
    x = np.zeros(blocks * 256, np.int32)
    out = np.full_like(x, -1)
    d_x, d_out = cp.asarray(x), cp.asarray(out)
    next_block_reversed.interpret[blocks, 256](x, out)
    for _ in range(2):  # the plan's first launch, then the cached fast path
        next_block_reversed[blocks, 256](d_x, d_out)
        assert d_out.get().tobytes() == out.tobytes()
        d_out.fill(-1)


def test_a_grid_that_cannot_be_resident_at_once_is_a_launch_error():
    blocks = 100_000  # far beyond 32 blocks a multiprocessor on any GPU
    d_x = cp.zeros(blocks * 256, np.int32)
    d_out = cp.full(blocks * 256, -1, np.int32)
    with pytest.raises(kdsl.LaunchError) as info:
        next_block_reversed[blocks, 256](d_x, d_out)
    assert info.value.code == "E458"
    assert f"all {blocks} blocks of grid ({blocks},) must be resident" in str(
        info.value
    )
    cp.cuda.Device().synchronize()
    assert int(d_out.min()) == -1 == int(d_out.max())  # nothing ran
