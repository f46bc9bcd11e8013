"""``kdsl.lanemask_lt()`` … ``lanemask_ge()``: the special registers
``%lanemask_*`` (inline PTX in the prelude), the interpreter's bits per
lane, and NVRTC compiling them.  tests/gpu/test_lanemask_gpu.py compares
the GPU's bits with the interpreter's."""

import numpy as np
import pytest

import kdsl
from kdsl import Int32, Pointer, Uint32, block_dim, block_idx, thread_idx
from kdsl.runtime.nvrtc import compile_to_cubin

NAMES = ["lt", "le", "eq", "gt", "ge"]


@kdsl.kernel
def lanemasks(out: Pointer[Uint32]):
    i = block_idx.x * block_dim.x + thread_idx.x
    out[5 * i] = kdsl.lanemask_lt()
    out[5 * i + 1] = kdsl.lanemask_le()
    out[5 * i + 2] = kdsl.lanemask_eq()
    out[5 * i + 3] = kdsl.lanemask_gt()
    out[5 * i + 4] = kdsl.lanemask_ge()


def expected(lane):
    below = (1 << lane) - 1
    full = 0xFFFFFFFF
    return [below, (2 << lane) - 1, 1 << lane, full & ~((2 << lane) - 1), full & ~below]


@pytest.mark.parametrize("blocks, block", [(1, 32), (2, 48), (1, 1)])
def test_the_interpreter_gives_each_lane_its_masks(blocks, block):
    out = np.zeros(5 * blocks * block, np.uint32)
    lanemasks.interpret[blocks, block](out)
    got = out.reshape(blocks * block, 5)
    for i in range(blocks * block):
        lane = (i % block) % 32
        assert got[i].tolist() == expected(lane), (i, lane)


def test_lanemask_lt_counts_the_lanes_below_with_popc():
    @kdsl.kernel
    def rank(out: Pointer[Int32]):
        t = thread_idx.x
        if t % 3 == 0:
            out[t] = kdsl.popc(kdsl.activemask() & kdsl.lanemask_lt())

    out = np.zeros(64, np.int32)
    rank.interpret[1, 64](out)
    assert out[::3].tolist() == [k % 11 for k in range(22)]


def test_the_cuda_reads_the_special_registers_and_compiles():
    inst = lanemasks.dispatch()
    for name in NAMES:
        assert f"kdsl::lanemask_{name}()" in inst.source
    assert 'asm("mov.u32 %0, %%lanemask_" #name ";" : "=r"(m));' in inst.source
    compile_to_cubin(inst.source, inst.name)


def test_lanemask_takes_no_argument():
    with pytest.raises(kdsl.DSLError) as info:

        @kdsl.kernel
        def bad(out: Pointer[Uint32]):
            out[0] = kdsl.lanemask_lt(3)

        bad.dispatch().source
    assert info.value.code == "E203" and "takes 0 argument" in str(info.value)
