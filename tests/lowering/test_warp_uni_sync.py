"""kdsl.uni_sync, the worked example of a warp intrinsic in
docs/contributing.md: one registry entry in builtins/warp.py.  The CUDA it
becomes (compiled by NVRTC), the interpreter against a Python reference
with the full mask, a partial mask and lanes that returned, and its
argument errors; tests/gpu/test_warp_gpu.py checks that the GPU gives the
interpreter's bytes."""

import numpy as np
import pytest

import kdsl
import warp_kernels as W
from kdsl.runtime.nvrtc import compile_to_cubin
from snippets import make_kernel

uniform = W.uniform  # in warp_kernels.py, which the GPU test runs too


def reference(x):
    """What __uni_sync gives each lane: whether the lanes taking part agree."""
    out = np.zeros(2 * len(x), np.uint32)
    for w in range(0, len(x), 32):
        warp = x[w : w + 32]
        running = [k for k in range(32) if warp[k] >= -90]
        full = {bool(warp[k] > 0) for k in running}
        thirds = {bool(warp[k] > 0) for k in range(0, 32, 3)}
        for k in range(32):
            if k % 3 == 0:
                out[2 * (w + k) + 1] = len(thirds) == 1
            if k in running:
                out[2 * (w + k)] = len(full) == 1
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_the_interpreter_gives_whether_the_lanes_agree(seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(-100, 100, 256).astype(np.int32)
    x[32:64] = 5  # a warp whose lanes all agree (true)
    x[64:96] = -5  # and one whose lanes all agree (false)
    x[96:128:3] = 7  # the thirds of one warp agree, the warp does not
    out = np.zeros(2 * len(x), np.uint32)
    uniform.interpret[4, 64](x, out)
    want = reference(x)
    assert np.array_equal(out, want)
    assert out[64] == 1 and out[128] == 1 and out[2 * 96 + 1] == 1 and out[192] == 0


def test_the_cuda_reads_like_cuda_and_compiles():
    inst = uniform.dispatch()
    src = inst.source
    assert "__uni_sync(0xffffffffu, p) != 0" in src, src
    assert "__uni_sync(0x49249249u, p) != 0" in src
    compile_to_cubin(src, inst.name)


def test_a_float_predicate_is_refused(tmp_path):
    kernel, _ = make_kernel(tmp_path, "v = kdsl.uni_sync(x[0])")
    with pytest.raises(kdsl.DSLError, match="E244"):
        kernel.dispatch(kdsl.Float32).source
