"""Kernels that use every warp collective, with masks, and the inputs the
interpreter tests and the GPU tests (tests/gpu/test_warp_gpu.py) run them on.
Each kernel needs whole warps of a block to be running (block sizes are
multiples of 32 unless a test says otherwise)."""

import numpy as np

import kdsl
from kdsl import (
    Float16,
    Float32,
    Float64,
    Int8,
    Int32,
    Int64,
    Pointer,
    Uint32,
    block_dim,
    block_idx,
    thread_idx,
)

T = kdsl.TypeVar("T", bound=kdsl.Dtype)
SHUFFLED = [Int8, Int32, Int64, Float16, Float32, Float64]
MATCHED = [Int32, Int64, Float32, Float64]
REDUCED = [Int32, Uint32]
LOW, HIGH = 0x0000FFFF, 0xFFFF0000
THIRDS = sum(1 << k for k in range(0, 32, 3))  # lanes 0, 3, ..., 30


@kdsl.kernel(dtypes=SHUFFLED)
def shuffles(x: Pointer[T], out: Pointer[T], d: Int32):
    i = block_idx.x * block_dim.x + thread_idx.x
    v = x[i]
    out[8 * i] = kdsl.shfl_up(v, d)
    out[8 * i + 1] = kdsl.shfl_up(v, d, width=8)
    out[8 * i + 2] = kdsl.shfl_down(v, d, width=16)
    out[8 * i + 3] = kdsl.shfl_xor(v, d, width=4)
    out[8 * i + 4] = kdsl.shfl_idx(v, d, width=2)
    if kdsl.lane_id() < 16:  # each half of the warp on its own
        out[8 * i + 5] = kdsl.shfl_up(v, d, mask=LOW)
        out[8 * i + 6] = kdsl.shfl_xor(v, d & 15, mask=LOW)
        out[8 * i + 7] = kdsl.shfl_idx(v, d & 15, width=16, mask=LOW)
    else:
        out[8 * i + 5] = kdsl.shfl_down(v, d, mask=HIGH)
        out[8 * i + 6] = kdsl.shfl_xor(v, d & 15, mask=HIGH)
        out[8 * i + 7] = kdsl.shfl_idx(v, 16 + (d & 15), mask=HIGH)


@kdsl.kernel(dtypes=[Int32, Float32])
def warp_scan(x: Pointer[T], out: Pointer[T]):
    """The inclusive prefix sum of each warp (CUDA samples' shfl_scan)."""
    i = block_idx.x * block_dim.x + thread_idx.x
    lane = kdsl.lane_id()
    v = x[i]
    for k in kdsl.range_constexpr(5):
        n = kdsl.shfl_up(v, 1 << k)
        if lane >= (1 << k):
            v += n
    out[i] = v


@kdsl.kernel
def votes(x: Pointer[Int32], out: Pointer[Uint32]):
    i = block_idx.x * block_dim.x + thread_idx.x
    p = x[i] > 0
    if kdsl.lane_id() % 3 == 0:
        out[7 * i + 4] = kdsl.ballot(p, mask=THIRDS)
        out[7 * i + 5] = kdsl.any_sync(p, mask=THIRDS).to(Uint32)
        out[7 * i + 6] = kdsl.all_sync(p, mask=THIRDS).to(Uint32)
    if x[i] < -90:
        return  # lanes that returned take no part in a full-warp vote
    out[7 * i] = kdsl.ballot(p)
    out[7 * i + 1] = kdsl.any_sync(p).to(Uint32)
    out[7 * i + 2] = kdsl.all_sync(x[i] > -80).to(Uint32)
    out[7 * i + 3] = kdsl.popc(kdsl.ballot(p)).to(Uint32)


@kdsl.kernel
def uniform(x: Pointer[Int32], out: Pointer[Uint32]):
    """kdsl.uni_sync with the full mask (lanes that returned take no part)
    and with the mask of every third lane."""
    i = block_idx.x * block_dim.x + thread_idx.x
    p = x[i] > 0
    if kdsl.lane_id() % 3 == 0:
        out[2 * i + 1] = kdsl.uni_sync(p, mask=THIRDS).to(Uint32)
    if x[i] < -90:
        return
    out[2 * i] = kdsl.uni_sync(p).to(Uint32)


@kdsl.kernel
def active(out: Pointer[Uint32], k: Int32):
    i = block_idx.x * block_dim.x + thread_idx.x
    out[2 * i] = kdsl.activemask()
    if kdsl.lane_id() < k:
        out[2 * i + 1] = kdsl.activemask()


@kdsl.kernel(dtypes=MATCHED)
def matches(x: Pointer[T], out: Pointer[Uint32]):
    i = block_idx.x * block_dim.x + thread_idx.x
    v = x[i]
    out[4 * i] = kdsl.match_any(v)
    m, ok = kdsl.match_all(v)
    out[4 * i + 1] = m
    out[4 * i + 2] = ok.to(Uint32)
    if kdsl.lane_id() >= 8:
        out[4 * i + 3] = kdsl.match_any(v, mask=0xFFFFFF00)


@kdsl.kernel(dtypes=REDUCED)
def reductions(x: Pointer[T], key: Pointer[Int32], out: Pointer[T]):
    i = block_idx.x * block_dim.x + thread_idx.x
    v = x[i]
    out[9 * i] = kdsl.reduce_add_sync(v)
    out[9 * i + 1] = kdsl.reduce_min_sync(v)
    out[9 * i + 2] = kdsl.reduce_max_sync(v)
    group = kdsl.match_any(key[i])  # the lanes holding this lane's key
    out[9 * i + 3] = kdsl.reduce_add_sync(v, mask=group)
    out[9 * i + 4] = kdsl.reduce_and_sync(v).to(T)
    out[9 * i + 5] = kdsl.reduce_or_sync(v, mask=group).to(T)
    out[9 * i + 6] = kdsl.reduce_xor_sync(v).to(T)
    if kdsl.lane_id() >= 20:
        out[9 * i + 7] = kdsl.reduce_max_sync(v, mask=0xFFF00000)
        out[9 * i + 8] = kdsl.reduce_min_sync(v, mask=0xFFF00000)


@kdsl.kernel
def warp_exchange(x: Pointer[Int32], out: Pointer[Int32]):
    """Lanes trade values through shared memory, ordered by syncwarp alone."""
    s = kdsl.shared_array(Int32, 256)
    t = thread_idx.x
    i = block_idx.x * block_dim.x + t
    s[t] = x[i]
    kdsl.syncwarp()
    v = s[t ^ 1]
    kdsl.syncwarp()
    s[t] = v * 3
    if kdsl.lane_id() < 16:
        kdsl.syncwarp(mask=LOW)
        v = v + s[t ^ 3]
    else:
        kdsl.syncwarp(mask=HIGH)
        v = v + s[t ^ 5]
    out[i] = v


# -- inputs ------------------------------------------------------------------------------
def values(t, n, seed):
    """``n`` random values of numpy type ``t`` with its edge values."""
    rng = np.random.default_rng(seed)
    if np.dtype(t).kind == "f":
        x = rng.standard_normal(n).astype(t) * 100
        x[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0]
        return x
    info = np.iinfo(t)
    x = rng.integers(info.min, info.max, n, endpoint=True, dtype=t)
    x[:4] = [info.min, info.max, 0, -1 if info.min < 0 else 1]
    return x


def keys(t, n, seed):
    """Match keys: few distinct values (floats: 0.0, -0.0 and a NaN among
    them), and every other warp holding one value throughout."""
    rng = np.random.default_rng(seed)
    pool = np.array([0.0, -0.0, np.nan, 1.5, 7.0], np.float64)
    pool = pool.astype(t) if np.dtype(t).kind == "f" else np.array([0, 1, -7, 9], t)
    x = pool[rng.integers(0, len(pool), n)]
    for w in range(0, n // 32, 2):
        x[32 * w : 32 * w + 32] = pool[w % len(pool)]
    return x


def votes_input(n, seed):
    x = np.random.default_rng(seed).integers(-100, 100, n).astype(np.int32)
    x[32:64] = 5  # a warp where all_sync holds
    return x
