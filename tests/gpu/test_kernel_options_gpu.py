"""Kernel options on the GPU: launch_bounds and maxrregcount reach the
compiled function (its maximum block, its registers), the launch refuses a
larger block, and the results are the interpreter's bytes."""

import sys
from pathlib import Path

import numpy as np
import pytest

import kdsl
from kdsl.runtime import compile as kcompile, launch

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import option_kernels as K  # noqa: E402

RNG = np.random.default_rng(4)


def test_launch_bounds_reach_the_function_and_the_launch_checks_them():
    x = cp.arange(300, dtype=cp.float32)
    K.bounded_scale[3, 128](x, 300, 2.0)
    assert cp.asnumpy(x).tolist() == [2.0 * i for i in range(300)]
    fn = kcompile.load_function(K.bounded_scale.dispatch(), 0)
    assert launch.function_attribute(fn, "MAX_THREADS_PER_BLOCK") == 128
    with pytest.raises(kdsl.LaunchError, match="launch_bounds allow \\(128\\)"):
        K.bounded_scale[2, 256](x, 300, 2.0)


def test_maxrregcount_caps_the_registers_and_changes_no_result():
    x = RNG.standard_normal(32 * 64).astype(np.float32)
    host = np.zeros(64, np.float32)
    K.capped_registers.interpret[1, 64](x, host)
    out = cp.zeros(64, np.float32)
    K.capped_registers[1, 64](cp.asarray(x), out)
    assert cp.asnumpy(out).tobytes() == host.tobytes()
    fn = kcompile.load_function(K.capped_registers.dispatch(), 0)
    assert launch.function_attribute(fn, "NUM_REGS") <= 24
