"""examples/allreduce.py on 2, 4 and 8 ranks in the interpreter
(kdsl.run_ranks): every rank's result is the numpy sum in rank order, bit
for bit (Float32, and BFloat16 summed in Float32 then rounded once), on a
second call too (the barrier's next generation); mismatched launches are a
located deadlock, not a hang.  (One rank, which one GPU runs, is in
example_checks.)"""

import ml_dtypes
import numpy as np
import pytest

import kdsl
from examples_index import example_modules

AR = example_modules()["allreduce"]
KERNELS = [AR.all_reduce_one_shot, AR.all_reduce_two_shot]
DTYPES = {"f32": np.float32, "bf16": ml_dtypes.bfloat16}


def _interpret(kernel, grid, block):
    return kernel.interpret[grid, block]


def _ranks(world, n, dtype, seed):
    rng = np.random.default_rng(seed)
    xs = [rng.standard_normal(n).astype(np.float32).astype(dtype) for _ in range(world)]
    bufs = [np.empty(n, dtype) for _ in range(world)]
    pads = [np.zeros(AR.PAD_WORDS, np.uint32) for _ in range(world)]
    return xs, bufs, pads, AR.address_table(bufs, np), AR.address_table(pads, np)


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.name)
@pytest.mark.parametrize("dtype", list(DTYPES), ids=str)
@pytest.mark.parametrize("world", [2, 4, 8])
def test_all_reduce_is_the_rank_order_sum_bit_for_bit(kernel, dtype, world):
    t = DTYPES[dtype]
    n = 2048 + 3 * world + 1  # chunks of unequal size; more than one pass a block
    xs, bufs, pads, buf_table, pad_table = _ranks(world, n, t, seed=world)
    want = AR.rank_order_sum(xs, t)
    for call in range(2):
        outs = [np.full(n, np.nan, t) for _ in range(world)]
        for r in range(world):
            bufs[r][:] = xs[r]

        def launch(r):
            AR.launch_all_reduce(
                kernel, _interpret, buf_table, bufs[r], pad_table, pads[r], outs[r],
                r, world, grid=3,
            )  # fmt: skip

        kdsl.run_ranks(world, launch)
        for r in range(world):
            assert (
                outs[r].view(np.uint8).tobytes() == want.view(np.uint8).tobytes()
            ), f"rank {r}, call {call}"
        # every block passed the kernel's barriers on every rank
        barriers = 2 if kernel is AR.all_reduce_one_shot else 3
        for pad in pads:
            np.testing.assert_array_equal(pad[:3], barriers * (call + 1))


def test_one_shot_and_two_shot_agree_on_a_tiny_array():
    world, n = 4, 3  # fewer elements than ranks: empty chunks
    xs, bufs, pads, buf_table, pad_table = _ranks(world, n, np.float32, seed=7)
    results = []
    for kernel in KERNELS:
        outs = [np.zeros(n, np.float32) for _ in range(world)]
        for r in range(world):
            bufs[r][:] = xs[r]
        kdsl.run_ranks(
            world,
            lambda r: AR.launch_all_reduce(
                kernel, _interpret, buf_table, bufs[r], pad_table, pads[r], outs[r],
                r, world, grid=2,
            ),  # fmt: skip
        )
        results.append(outs)
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, AR.rank_order_sum(xs, np.float32))


def test_ranks_launching_different_grids_deadlock_at_the_barrier():
    world, n = 2, 512
    xs, bufs, pads, buf_table, pad_table = _ranks(world, n, np.float32, seed=1)
    outs = [np.zeros(n, np.float32) for _ in range(world)]

    def launch(r):  # rank 1 launches one block fewer: rank 0's block 2 waits
        AR.launch_all_reduce(
            AR.all_reduce_one_shot, _interpret, buf_table, bufs[r], pad_table,
            pads[r], outs[r], r, world, grid=3 - r,
        )  # fmt: skip

    with pytest.raises(kdsl.InterpretError) as info:
        kdsl.run_ranks(world, launch)
    text = str(info.value)
    assert "E762" in text and "allreduce.py:" in text
    assert "kdsl.wait_signal(pad, flags + r, generation" in text
    assert "rank 0: thread (0, 0, 0) of block (2, 0, 0) waits for pad[" in text


def test_launch_checks_the_pad_layout():
    xs, bufs, pads, buf_table, pad_table = _ranks(2, 8, np.float32, seed=1)
    args = (buf_table, bufs[0], pad_table, pads[0], np.zeros(8, np.float32), 0)
    kernel = AR.all_reduce_one_shot
    with pytest.raises(ValueError, match="grid of 33 blocks"):
        AR.launch_all_reduce(kernel, _interpret, *args, 2, grid=33)
    with pytest.raises(ValueError, match="world of 9 ranks"):
        AR.launch_all_reduce(kernel, _interpret, *args, 9, grid=1)
    small = (buf_table, bufs[0], pad_table, pads[0][:10], np.zeros(8, np.float32), 0)
    with pytest.raises(ValueError, match="signal pad holds 10 words"):
        AR.launch_all_reduce(kernel, _interpret, *small, 2, grid=1)


def test_the_docs_run_ranks_example_runs(tmp_path, monkeypatch):
    import re
    import runpy

    from examples_index import EXAMPLES, ROOT

    text = (ROOT / "docs" / "distributed.md").read_text()
    (code,) = [
        b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "run_ranks" in b
    ]
    monkeypatch.syspath_prepend(str(EXAMPLES))
    script = tmp_path / "ranks_doc.py"
    script.write_text(code)
    env = runpy.run_path(str(script))
    want = env["xs"][0].copy()
    for x in env["xs"][1:]:
        want = want + x
    for out in env["outs"]:
        assert out.tobytes() == want.tobytes()


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.name)
def test_each_barrier_fences_once_and_signals_at_system_scope_in_sass(kernel):
    """A barrier costs one system fence, not one per peer (a release store
    per peer would fence each); the signals and the waits are strong
    system-scope accesses; no multicast instruction."""
    from sass import sass_of_source

    inst = kernel.dispatch("f32")
    text = sass_of_source(inst.source, inst.name).text
    barriers = 2 if kernel is AR.all_reduce_one_shot else 3
    assert text.count("MEMBAR.SC.SYS") == barriers
    assert text.count("MEMBAR") == barriers
    assert text.count("LD.E.STRONG.SYS") == barriers  # each barrier's spin loop
    assert "ST.E.STRONG.SYS" in text and "MULTIMEM" not in text
