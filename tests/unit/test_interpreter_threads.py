"""The interpreter's thread state is a component: ``together.Threads`` is
built from its geometry, its memory and its race report alone, has every
member of the ``registry.Threads`` protocol the built-ins' ``interpret`` use
(with as many parameters, the same ones optional), and works without a running ``simt.Batch``.
"""

import inspect

import numpy as np
import pytest

from kdsl.runtime.interpreter.memory import BatchMemory
from kdsl.runtime.interpreter.together import Geometry, RaceReport, Threads
from kdsl.transpile.builtins import registry


def protocol_members():
    members = dict(registry.Threads.__annotations__)
    for name, value in vars(registry.Threads).items():
        if callable(value) and not name.startswith("_"):
            members[name] = value
    return members


def make(grid=(2, 1, 1), block=(48, 1, 1)):
    geometry = Geometry.of(grid, block, 0, grid[0])
    return Threads(geometry, BatchMemory(0), RaceReport(geometry))


@pytest.mark.parametrize("name", sorted(protocol_members()))
def test_threads_has_every_member_of_the_protocol(name):
    threads = make()
    assert hasattr(threads, name), name
    want = protocol_members()[name]
    if callable(want):
        got = inspect.signature(getattr(Threads, name))
        expected = inspect.signature(want)
        assert len(got.parameters) == len(expected.parameters), name
        optional = [
            p.default is inspect.Parameter.empty for p in got.parameters.values()
        ]
        want_optional = [
            p.default is inspect.Parameter.empty for p in expected.parameters.values()
        ]
        assert optional == want_optional, name


def test_the_geometry_places_each_thread():
    g = Geometry.of((3, 2, 1), (4, 2, 1), 1, 2)  # blocks 1 and 2 of 6
    assert g.n == 16 and g.count == 2 and g.per_block == 8
    assert g.specials["block_idx.x"].tolist() == [1] * 8 + [2] * 8
    assert g.specials["thread_idx.y"].tolist() == ([0] * 4 + [1] * 4) * 2
    assert g.lane.tolist() == list(range(8)) * 2  # a block of 8: one warp
    assert g.warp.tolist() == [0] * 8 + [1] * 8
    assert g.who(9) == "thread (1, 0, 0) of block (2, 0, 0)"


def test_threads_work_without_a_batch():
    threads = make()
    everyone = np.ones(threads.n, np.bool_)
    full = np.full(threads.n, 0xFFFFFFFF, np.uint32)
    value = np.arange(threads.n, dtype=np.int32)
    sums = threads.warp_reduce(full, everyone, value, np.add)
    # warps of 32 and 16 threads (a block of 48), two blocks
    assert sums[0] == sum(range(32)) and sums[32] == sum(range(32, 48))
    assert sums[48] == sum(range(48, 80))
    source = (threads.lane + 1) % 16  # within each half warp
    got = threads.from_lanes(None, everyone, value, source)
    assert got[0] == 1 and got[15] == 0 and got[47] == 32


def test_a_thread_that_returned_is_named_by_the_collective_check():
    from kdsl.transpile import builtins

    threads = make(grid=(1, 1, 1), block=(32, 1, 1))
    threads.returned[5] = True
    here = ~threads.returned
    full = np.full(threads.n, 0xFFFFFFFF, np.uint32)
    threads.check_collective(builtins.get("syncwarp"), _Node(), here, [full])
    partial = here.copy()
    partial[7] = False  # running, but elsewhere
    with pytest.raises(Exception, match=r"thread \(7, 0, 0\)"):
        threads.check_collective(builtins.get("syncwarp"), _Node(), partial, [full])


class _Node:
    span = None
