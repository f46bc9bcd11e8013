"""The interpreter's warp collectives against Python references of the PTX
rules (shfl.sync, vote.sync, match.sync, redux.sync), and the faults it
reports where CUDA leaves a masked collective undefined."""

import numpy as np
import pytest

import kdsl
import warp_kernels as W
from kdsl import Int32, Pointer, Uint32, thread_idx

N = 128  # two blocks of 64: four warps


def source_lane(mode, lane, b, width):
    """PTX shfl.sync's source lane (CUDA's c operand for ``width``)."""
    b &= 31
    seg = (32 - width) & 31
    if mode == "up":
        j = lane - b
        return j if j >= lane & seg else lane
    last = (lane & seg) | (31 & ~seg)
    j = {"down": lane + b, "xor": lane ^ b, "idx": (lane & seg) | (b & ~seg)}[mode]
    return j if j <= last else lane


def bits(a):
    return a.view(f"u{a.dtype.itemsize}")


@pytest.mark.parametrize("d", [1, 3, -1, 33, 17, -7])
@pytest.mark.parametrize("t", [np.int8, np.int32, np.float16, np.float64])
def test_shuffles_follow_the_hardware_rule(t, d):
    x = W.values(t, N, seed=d & 0xFF)
    out = np.zeros(8 * N, t)
    W.shuffles.interpret[2, 64](x, out, d)
    got = bits(out).reshape(N, 8)
    for i in range(N):
        lane, first = i % 32, i - i % 32
        low = lane < 16
        want = [
            ("up", d, 32),
            ("up", d, 8),
            ("down", d, 16),
            ("xor", d, 4),
            ("idx", d, 2),
        ] + (
            [("up", d, 32), ("xor", d & 15, 32), ("idx", d & 15, 16)]
            if low
            else [("down", d, 32), ("xor", d & 15, 32), ("idx", 16 + (d & 15), 32)]
        )
        for k, (mode, b, width) in enumerate(want):
            j = first + source_lane(mode, lane, b, width)
            assert got[i, k] == bits(x)[j], (i, k, mode)


def test_a_prefix_sum_with_shfl_up():
    x = W.values(np.int32, N, seed=3)
    out = np.zeros(N, np.int32)
    W.warp_scan.interpret[2, 64](x, out)
    want = np.concatenate([np.cumsum(w, dtype=np.int32) for w in x.reshape(-1, 32)])
    assert out.tolist() == want.tolist()


def test_votes_count_and_test_the_lanes_of_their_mask():
    x = W.votes_input(N, seed=4)
    out = np.zeros(7 * N, np.uint32)
    W.votes.interpret[2, 64](x, out)
    got = out.reshape(N, 7)
    for w in range(N // 32):
        lanes = range(32 * w, 32 * w + 32)
        live = [i for i in lanes if x[i] >= -90]
        ballot = sum(1 << (i % 32) for i in live if x[i] > 0)
        thirds = [i for i in lanes if (i % 32) % 3 == 0]
        for i in lanes:
            if x[i] < -90:  # returned: its full-warp slots stay 0
                assert got[i, :4].tolist() == [0, 0, 0, 0]
            else:
                assert got[i, 0] == ballot
                assert got[i, 1] == any(x[j] > 0 for j in live)
                assert got[i, 2] == all(x[j] > -80 for j in live)
                assert got[i, 3] == bin(ballot).count("1")
            if i in thirds:
                assert got[i, 4] == sum(1 << (j % 32) for j in thirds if x[j] > 0)
                assert got[i, 5] == any(x[j] > 0 for j in thirds)
                assert got[i, 6] == all(x[j] > 0 for j in thirds)
    assert got[32:64, 2].tolist() == [1] * 32  # the warp where all hold


@pytest.mark.parametrize("block, k", [(64, 13), (48, 32), (32, 0)])
def test_activemask_gives_the_lanes_at_the_call(block, k):
    out = np.zeros(2 * block, np.uint32)
    W.active.interpret[1, block](out, k)
    got = out.reshape(block, 2)
    for i in range(block):
        lanes = min(32, block - (i - i % 32))
        assert got[i, 0] == (1 << lanes) - 1
        assert got[i, 1] == ((1 << min(k, lanes)) - 1 if i % 32 < k else 0)


@pytest.mark.parametrize("t", [np.int32, np.int64, np.float32, np.float64])
def test_match_any_and_match_all_compare_bits(t):
    x = W.keys(t, N, seed=5)
    out = np.zeros(4 * N, np.uint32)
    W.matches.interpret[2, 64](x, out)
    got = out.reshape(N, 4)
    b = bits(x)
    for i in range(N):
        first = i - i % 32
        same = sum(1 << k for k in range(32) if b[first + k] == b[i])
        assert got[i, 0] == same
        uniform = same == 0xFFFFFFFF
        assert got[i, 1:3].tolist() == ([0xFFFFFFFF, 1] if uniform else [0, 0])
        if i % 32 >= 8:
            assert got[i, 3] == same & 0xFFFFFF00
    assert got[0:32, 2].tolist() == [1] * 32  # warp 0 holds one value


def test_match_any_tells_zero_from_negative_zero():
    x = np.zeros(32, np.float32)
    x[1::2] = -0.0
    out = np.zeros(4 * 32, np.uint32)
    W.matches.interpret[1, 32](x, out)
    assert out[0] == 0x55555555 and out[4] == 0xAAAAAAAA


@pytest.mark.parametrize("t", [np.int32, np.uint32])
def test_reductions_over_the_mask_and_over_match_any_groups(t):
    x = W.values(t, N, seed=6)
    key = W.keys(np.int32, N, seed=7)
    out = np.zeros(9 * N, t)
    W.reductions.interpret[2, 64](x, key, out)
    got = out.reshape(N, 9)
    u = x.astype(np.int64) & 0xFFFFFFFF
    for i in range(N):
        first = i - i % 32
        warp = range(first, first + 32)
        group = [j for j in warp if key[j] == key[i]]
        high = range(first + 20, first + 32)
        want = [
            x[warp].sum(dtype=t),
            x[warp].min(),
            x[warp].max(),
            x[group].sum(dtype=t),
            np.array(np.bitwise_and.reduce(u[warp]), np.uint32).astype(t),
            np.array(np.bitwise_or.reduce(u[group]), np.uint32).astype(t),
            np.array(np.bitwise_xor.reduce(u[warp]), np.uint32).astype(t),
        ]
        want += [x[high].max(), x[high].min()] if i % 32 >= 20 else [0, 0]
        assert got[i].tolist() == [int(w) for w in want], i


def test_syncwarp_orders_shared_memory_within_its_mask():
    x = W.values(np.int32, N, seed=8)
    out = np.zeros(N, np.int32)
    W.warp_exchange.interpret[2, 64](x, out)
    with np.errstate(over="ignore"):
        for i in range(N):
            t, base = i % 64, i - i % 64
            other = t ^ 3 if t % 32 < 16 else t ^ 5
            want = x[base + (t ^ 1)] + np.int32(3) * x[base + (other ^ 1)]
            assert out[i] == want


# -- what the interpreter reports ------------------------------------------------------
@kdsl.kernel
def half_warp(x: Pointer[Int32], out: Pointer[Int32]):
    i = thread_idx.x
    if kdsl.lane_id() < 16:
        out[i] = kdsl.shfl_down(x[i], 1, width=16, mask=0x0000FFFF)


@kdsl.kernel
def half_warp_without_mask(x: Pointer[Int32], out: Pointer[Int32]):
    i = thread_idx.x
    if kdsl.lane_id() < 16:
        out[i] = kdsl.shfl_down(x[i], 1)


@kdsl.kernel
def mask_without_self(x: Pointer[Int32], out: Pointer[Int32]):
    i = thread_idx.x
    if kdsl.lane_id() < 16:
        out[i] = kdsl.shfl_down(x[i], 1, mask=0xFFFF0000)


@kdsl.kernel
def named_lane_returned(x: Pointer[Int32], out: Pointer[Int32]):
    i = thread_idx.x
    if i == 5:
        return
    if i < 8:
        out[i] = kdsl.reduce_add_sync(x[i], mask=0xFF)


@kdsl.kernel
def full_mask_after_return(x: Pointer[Int32], out: Pointer[Uint32]):
    i = thread_idx.x
    if i == 5:
        return
    out[i] = kdsl.ballot(x[i] > 0, mask=0xFFFFFFFF)


@kdsl.kernel
def masks_differ(x: Pointer[Int32], out: Pointer[Uint32]):
    i = thread_idx.x
    m = Uint32(0x0000FFFF) if kdsl.lane_id() < 4 else Uint32(0xFFFFFFFF)
    out[i] = kdsl.ballot(x[i] > 0, mask=m)


@kdsl.kernel
def past_the_half(x: Pointer[Int32], out: Pointer[Int32]):
    i = thread_idx.x
    if kdsl.lane_id() < 16:  # lane 15 reads lane 16 (width=16 would not)
        out[i] = kdsl.shfl_down(x[i], 1, mask=0x0000FFFF)


@kdsl.kernel
def source_outside_mask(x: Pointer[Int32], out: Pointer[Int32]):
    i = thread_idx.x
    if kdsl.lane_id() < 8:
        out[i] = kdsl.shfl_idx(x[i], 9, mask=0xFF)


@kdsl.kernel
def mask_beyond_block(x: Pointer[Int32], out: Pointer[Uint32]):
    i = thread_idx.x
    out[i] = kdsl.ballot(x[i] > 0, mask=0x000FFFFF)


@kdsl.kernel
def no_syncwarp(x: Pointer[Int32], out: Pointer[Int32]):
    s = kdsl.shared_array(Int32, 32)
    s[thread_idx.x] = x[thread_idx.x]
    out[thread_idx.x] = s[thread_idx.x ^ 1]


@kdsl.kernel
def syncwarp_of_the_other_half(x: Pointer[Int32], out: Pointer[Int32]):
    s = kdsl.shared_array(Int32, 32)
    t = thread_idx.x
    v = x[t]
    if t < 16:
        s[t] = v
        kdsl.syncwarp(mask=0x0000FFFF)
    else:
        kdsl.syncwarp(mask=0xFFFF0000)
        v = s[t - 16]  # written by the other half: needs syncthreads
    out[t] = v


@kdsl.kernel
def syncwarp_across_warps(x: Pointer[Int32], out: Pointer[Int32]):
    s = kdsl.shared_array(Int32, 64)
    t = thread_idx.x
    s[t] = x[t]
    kdsl.syncwarp()
    out[t] = s[63 - t]  # the other warp's: needs syncthreads


@kdsl.kernel
def syncwarp_then_half(x: Pointer[Int32], out: Pointer[Int32]):
    s = kdsl.shared_array(Int32, 32)
    t = thread_idx.x
    s[t] = x[t]
    kdsl.syncwarp()
    if t < 16:
        kdsl.syncwarp(mask=0x0000FFFF)
    out[t] = s[31 - t]  # ordered for the whole warp by the first syncwarp


def test_a_later_syncwarp_of_some_lanes_keeps_an_earlier_ones_order():
    x = np.arange(32, dtype=np.int32)
    out = np.zeros(32, np.int32)
    syncwarp_then_half.interpret[1, 32](x, out)
    assert out.tolist() == x[::-1].tolist()


def test_half_a_warp_shuffles_with_its_mask():
    x = np.arange(32, dtype=np.int32)
    out = np.full(32, -1, np.int32)
    half_warp.interpret[1, 32](x, out)
    assert out.tolist() == list(range(1, 16)) + [15] + [-1] * 16


def run_fault(kernel, out_type=np.int32, block=32):
    x = np.arange(1, block + 1, dtype=np.int32)
    with pytest.raises(kdsl.InterpretError) as info:
        kernel.interpret[1, block](x, np.zeros(block, out_type))
    return info.value


FAULTS = [
    (half_warp_without_mask, np.int32, 32, "E448", "thread (16, 0, 0)"),
    (mask_without_self, np.int32, 32, "E452", "leaves out its own lane 0"),
    (named_lane_returned, np.int32, 32, "E453", "lane 5 in its mask 0x000000ff"),
    (masks_differ, np.uint32, 32, "E454", "passes 0xffffffff"),
    (source_outside_mask, np.int32, 32, "E455", "reads lane 9"),
    (past_the_half, np.int32, 32, "E455", "thread (15, 0, 0)"),
    (mask_beyond_block, np.uint32, 16, "E453", "lane 16 in its mask 0x000fffff"),
    (no_syncwarp, np.int32, 32, "E450", "data race on shared array s"),
    (syncwarp_of_the_other_half, np.int32, 32, "E450", "data race on shared array s"),
    (syncwarp_across_warps, np.int32, 64, "E450", "data race on shared array s"),
]


@pytest.mark.parametrize(
    "kernel, out_type, block, code, says", FAULTS, ids=[f[0].name for f in FAULTS]
)
def test_undefined_warp_cooperation_is_an_error(kernel, out_type, block, code, says):
    exc = run_fault(kernel, out_type, block)
    assert exc.code == code and says in str(exc), str(exc)
    assert "test_warp_interpreter.py" in str(exc)  # located on the Python line


def test_a_returned_lane_is_left_out_of_the_full_warp():
    x = np.arange(1, 33, dtype=np.int32)
    x[7] = -1
    out = np.zeros(32, np.uint32)
    full_mask_after_return.interpret[1, 32](x, out)
    assert out[0] == 0xFFFFFFFF & ~(1 << 5) & ~(1 << 7) and out[5] == 0
