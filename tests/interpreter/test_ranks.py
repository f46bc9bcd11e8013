"""Several ranks in one process (kdsl.run_ranks): peer pointers, signals
between ranks, the schedule, and a wait that can never end as a located
error (E762) instead of a hang; the CUDA these lower to."""

import sys
from pathlib import Path

import numpy as np
import pytest

import kdsl
from kdsl import Float32, Int32, Pointer, Uint32, Uint64, thread_idx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from sass import sass_of_source  # noqa: E402


@kdsl.kernel
def exchange(
    peers: Pointer[Uint64],
    x: Pointer[Float32],
    pads: Pointer[Uint64],
    pad: Pointer[Uint32],
    out: Pointer[Float32],
    rank: Int32,
    world: Int32,
):
    """out[i] = x[i] of the next rank, after a signal from every rank."""
    if thread_idx.x == 0:
        kdsl.threadfence_system()
        for r in range(world):
            peer = kdsl.peer_pointer(pads[r], pad)
            kdsl.atomic_store(peer, rank, Uint32(1), order="relaxed", scope="system")
        for r in range(world):
            kdsl.wait_signal(pad, r, Uint32(1))  # the wait
    kdsl.syncthreads()
    i = thread_idx.x
    nxt = kdsl.peer_pointer(peers[(rank + 1) % world], x)
    out[i] = nxt[i]


def _tables(arrays):
    return np.array([a.ctypes.data for a in arrays], np.uint64)


def _exchange_setup(world, n=32):
    xs = [np.arange(n, dtype=np.float32) + 100 * r for r in range(world)]
    pads = [np.zeros(world, np.uint32) for _ in range(world)]
    outs = [np.zeros(n, np.float32) for _ in range(world)]
    return xs, pads, outs, _tables(xs), _tables(pads)


@pytest.mark.parametrize("world", [1, 2, 3, 8])
def test_ranks_signal_each_other_and_read_peer_memory(world):
    xs, pads, outs, xt, pt = _exchange_setup(world)

    def launch(r):
        exchange.interpret[1, 32](xt, xs[r], pt, pads[r], outs[r], r, world)

    kdsl.run_ranks(world, launch)
    for r in range(world):
        np.testing.assert_array_equal(outs[r], xs[(r + 1) % world])
        np.testing.assert_array_equal(pads[r], np.ones(world, np.uint32))


@kdsl.kernel
def silent(x: Pointer[Float32], pad: Pointer[Uint32]):
    """Takes a rank's arrays and never signals."""
    x[0] = x[0]


def test_a_rank_that_never_signals_is_a_located_deadlock():
    xs, pads, outs, xt, pt = _exchange_setup(3)

    def launch(r):
        if r == 2:
            silent.interpret[1, 32](xs[r], pads[r])
        else:
            exchange.interpret[1, 32](xt, xs[r], pt, pads[r], outs[r], r, 3)

    with pytest.raises(kdsl.InterpretError) as info:
        kdsl.run_ranks(3, launch)
    text = str(info.value)
    assert "E762" in text and "test_ranks.py:" in text
    assert "kdsl.wait_signal(pad, r, Uint32(1))  # the wait" in text
    assert "rank 0: thread (0, 0, 0) of block (0, 0, 0) waits for pad[2] >= 1" in text
    assert "rank 1: thread (0, 0, 0) of block (0, 0, 0) waits for pad[2] >= 1" in text


def test_a_launch_outside_run_ranks_is_one_rank():
    xs, pads, outs, xt, pt = _exchange_setup(1)
    exchange.interpret[1, 32](xt, xs[0], pt, pads[0], outs[0], 0, 1)
    np.testing.assert_array_equal(outs[0], xs[0])
    # a wait for a second rank: no other rank can raise it
    pad = np.zeros(2, np.uint32)
    xt, pt = _tables([xs[0], xs[0]]), _tables([pad, pad])
    with pytest.raises(
        kdsl.InterpretError, match=r"E762.*pad\[1\] >= 1, which holds 0"
    ):
        exchange.interpret[1, 32](xt, xs[0], pt, pad, outs[0], 0, 2)


def test_a_peer_whose_launch_never_comes_is_a_deadlock():
    xs, pads, outs, xt, pt = _exchange_setup(2)

    def launch(r):
        if r == 0:  # rank 1 never launches: its arrays are never given
            exchange.interpret[1, 32](xt, xs[r], pt, pads[r], outs[r], r, 2)

    with pytest.raises(kdsl.InterpretError, match=r"E762.*looks for an array at 0x"):
        kdsl.run_ranks(2, launch)


def test_an_error_in_one_rank_stops_the_others_and_names_the_rank():
    xs, pads, outs, xt, pt = _exchange_setup(2)
    short = np.zeros(8, np.float32)  # rank 1's output is too short

    def launch(r):
        out = outs[r] if r == 0 else short
        exchange.interpret[1, 32](xt, xs[r], pt, pads[r], out, r, 2)

    with pytest.raises(kdsl.InterpretError, match="out-of-bounds store") as info:
        kdsl.run_ranks(2, launch)
    assert "(in rank 1 of 2)" in info.value.__notes__


def test_an_address_of_no_launched_array_is_refused():
    xs, pads, outs, xt, pt = _exchange_setup(1)
    stray = np.zeros(32, np.float32)
    inside = np.array([xs[0].ctypes.data + 8], np.uint64)
    with pytest.raises(kdsl.InterpretError, match=r"E763.*8 bytes into x"):
        exchange.interpret[1, 32](inside, xs[0], pt, pads[0], outs[0], 0, 1)
    with pytest.raises(kdsl.InterpretError, match="E763"):
        exchange.interpret[1, 32](_tables([stray]), xs[0], pt, pads[0], outs[0], 0, 1)


@kdsl.kernel
def per_thread_peer(peers: Pointer[Uint64], x: Pointer[Float32], out: Pointer[Float32]):
    p = kdsl.peer_pointer(peers[thread_idx.x % 2], x)
    out[thread_idx.x] = p[0]


def test_threads_choosing_different_peers_run_on_the_gpu_only():
    a, b, out = np.ones(4, np.float32), np.ones(4, np.float32), np.zeros(4, np.float32)
    with pytest.raises(kdsl.InterpretError, match=r"E764.*thread \(1, 0, 0\)"):
        per_thread_peer.interpret[1, 4](_tables([a, b]), a, out)


def test_run_ranks_wants_a_count():
    with pytest.raises(ValueError, match="number of ranks"):
        kdsl.run_ranks(0, print)


# -- lowering --------------------------------------------------------------------------
def test_peer_pointer_and_wait_signal_lower_to_plain_cuda():
    source = exchange.dispatch().source
    assert "reinterpret_cast<uint32_t*>(pads[r])" in source
    assert "reinterpret_cast<float*>(peers[" in source
    assert "kdsl::wait_signal<__NV_THREAD_SCOPE_SYSTEM>(&pad[r], 1u);" in source
    assert "multimem" not in source and "Multicast" not in source


def test_signals_are_strong_system_scope_accesses_in_sass():
    inst = exchange.dispatch()
    text = sass_of_source(inst.source, inst.name).text
    assert "ST.E.STRONG.SYS" in text  # the relaxed system-scope signal store
    assert "LD.E.STRONG.SYS" in text  # the wait's acquire load ...
    assert "MEMBAR" in text and ".SYS" in text  # ... and the fences


def _lower_error(source_fn):
    with pytest.raises(kdsl.DSLError) as info:
        source_fn.dispatch().source
    return str(info.value)


@kdsl.kernel
def peer_of_int(x: Pointer[Float32], k: Int32):
    kdsl.peer_pointer(k, x)[0] = 1.0


@kdsl.kernel
def peer_like_number(peers: Pointer[Uint64], k: Int32):
    kdsl.peer_pointer(peers[0], k)


@kdsl.kernel
def wait_on_float(x: Pointer[Float32]):
    kdsl.wait_signal(x, 0, 1.0)


@kdsl.kernel
def wait_bad_scope(x: Pointer[Uint32]):
    kdsl.wait_signal(x, 0, 1, scope="galaxy")


def test_peer_pointer_and_wait_signal_errors_are_located():
    text = _lower_error(peer_of_int)
    assert "E761" in text and "Int32" in text and "^" in text
    assert "E760" in _lower_error(peer_like_number)
    assert "E230" in _lower_error(wait_on_float)
    assert "E336" in _lower_error(wait_bad_scope)


@kdsl.kernel
def wide_signal(flags: Pointer[Uint64], x: Pointer[Float32], peers: Pointer[Uint64]):
    """A Uint64 signal at device scope, and a peer typed like a moved pointer."""
    if thread_idx.x == 0:
        kdsl.atomic_store(flags, 1, flags[0] + 1, scope="device")
        kdsl.wait_signal(flags, 1, flags[0] + 1, scope="device")
    kdsl.syncthreads()
    p = kdsl.peer_pointer(peers[0], x + 4)
    p[thread_idx.x] = 2.0


def test_a_uint64_device_scope_signal_and_a_moved_like():
    flags, x = np.array([5, 0], np.uint64), np.zeros(8, np.float32)
    wide_signal.interpret[1, 4](flags, x, _tables([x]))
    np.testing.assert_array_equal(flags, [5, 6])
    np.testing.assert_array_equal(x, [2, 2, 2, 2, 0, 0, 0, 0])  # the address's array
    source = wide_signal.dispatch().source
    assert "kdsl::wait_signal<__NV_THREAD_SCOPE_DEVICE>(&flags[1]" in source
    assert "reinterpret_cast<float*>(peers[0])" in source
