"""The interpreter's race report names the threads that raced, in the
block whose shared memory they raced on (issue 15, item 4: with several
readers of an element, a later writer was reported racing with a made-up
thread of the batch's last block)."""

import re

import numpy as np
import pytest

import kdsl
from kdsl import Float32, Int32, Pointer, block_idx, thread_idx


@kdsl.kernel(dtypes=[Float32])
def read_then_write(out: Pointer[Float32], blk: Int32):
    s = kdsl.shared_array(Float32, 32)
    if thread_idx.x == 0:
        s[0] = 1.0
    kdsl.syncthreads()
    if block_idx.x == blk:
        x = s[0]  # every thread of block `blk` reads s[0] ...
        if thread_idx.x == 5:
            s[0] = x + 1.0  # ... and thread 5 writes it: a race
    out[block_idx.x * 32 + thread_idx.x] = s[thread_idx.x]


@kdsl.kernel(dtypes=[Float32])
def two_readers_then_write(out: Pointer[Float32], blk: Int32):
    s = kdsl.shared_array(Float32, 32)
    s[thread_idx.x] = 1.0
    kdsl.syncthreads()
    if block_idx.x == blk and thread_idx.x == 7:
        out[0] = s[3]
    if block_idx.x == blk and thread_idx.x == 9:
        out[1] = s[3]
    if block_idx.x == blk and thread_idx.x == 3:
        s[3] = 2.0


THREAD = re.compile(r"thread \((\d+), 0, 0\) of block \((\d+), 0, 0\)")


@pytest.mark.parametrize("grid", [1, 3])
@pytest.mark.parametrize("blk", [0, 2])
def test_many_readers_then_a_writer(grid, blk):
    if blk >= grid:
        blk = grid - 1
    out = np.zeros(32 * grid, np.float32)
    with pytest.raises(kdsl.InterpretError) as info:
        read_then_write.interpret[grid, 32](out, blk)
    text = str(info.value).splitlines()[0]
    (writer, wb), (other, ob) = THREAD.findall(text)
    assert "s[0]" in text and "writes it" in text, text
    assert (int(writer), int(wb)) == (5, blk), text
    assert int(ob) == blk and int(other) != 5, text


@pytest.mark.parametrize("grid", [1, 3])
def test_two_readers_then_a_writer(grid):
    blk = grid - 1
    out = np.zeros(32 * grid, np.float32)
    with pytest.raises(kdsl.InterpretError) as info:
        two_readers_then_write.interpret[grid, 32](out, blk)
    text = str(info.value).splitlines()[0]
    (writer, wb), (other, ob) = THREAD.findall(text)
    assert (int(writer), int(wb)) == (3, blk), text
    assert (int(other), int(ob)) in {(7, blk), (9, blk)}, text
