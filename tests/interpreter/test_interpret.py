"""The CPU interpreter (SPEC section 9): kernels run end to end without a GPU,
with kdsl's exact semantics, shared memory, barriers, atomics and shuffles."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import kdsl
from kdsl import Float32, Int32, Pointer, thread_idx

sys.path.insert(0, str(Path(__file__).parents[1]))
from examples_index import example_modules  # noqa: E402

EX = example_modules()
RNG = np.random.default_rng(7)


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.float16, np.float32])
def test_vector_add_wraps_and_rounds_like_the_type(dtype):
    n = 300
    if np.dtype(dtype).kind == "f":
        x = RNG.standard_normal(n).astype(dtype)
    else:
        info = np.iinfo(dtype)
        x = RNG.integers(info.min, info.max, n, endpoint=True).astype(dtype)
    out = np.zeros(n, dtype)
    EX["vector_add"].vector_add.interpret[2, 256](x, x, out, n)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(out, x + x)  # numpy wraps/rounds the same


def test_softmax_uses_shuffles_shared_memory_and_barriers():
    rows, cols = 3, 77  # odd: scalar accesses; two warps a row, two rows a block
    a = RNG.standard_normal((rows, cols)).astype(np.float32)
    b = np.full_like(a, np.nan)
    kernel = EX["softmax"].softmax_rows
    kernel.interpret[2, (64, 2)](a, b, rows, cols, VEC=1, WARPS=2, ROWS=2, CHUNKS=2)
    e = np.exp(a.astype(np.float64) - a.max(1, keepdims=True))
    np.testing.assert_allclose(b, e / e.sum(1, keepdims=True), rtol=1e-5)


def test_reduce_sum_last_block_adds_the_partials():
    n = 700
    x = RNG.random(n).astype(np.float32)
    out = np.zeros(1, np.float32)
    partials = np.zeros(3, np.float32)
    arrived = np.zeros(1, np.uint32)
    EX["reduce_sum"].reduce_sum.interpret[3, 256](x, out, partials, arrived, n)
    np.testing.assert_allclose(out[0], x.astype(np.float64).sum(), rtol=1e-6)
    np.testing.assert_allclose(partials.sum(), out[0], rtol=1e-6)
    assert arrived[0] == 0  # reset by the last block


def test_transpose_through_arrays_with_strides():
    a = RNG.integers(0, 1000, (40, 33)).astype(np.int32)
    out = np.zeros((33, 40), np.int32)
    EX["transpose"].transpose.interpret[(2, 2), (32, 8)](a, out)
    np.testing.assert_array_equal(out, a.T)


def test_interpreter_matches_static_folding_on_edge_values():
    @kdsl.kernel
    def ops(a: Pointer[Int32], b: Pointer[Int32], out: Pointer[Int32]):
        i = thread_idx.x
        out[4 * i] = a[i] // b[i]
        out[4 * i + 1] = a[i] % b[i]
        out[4 * i + 2] = a[i] << b[i]
        out[4 * i + 3] = a[i] * b[i]

    pairs = [
        (-7, 2),
        (7, -2),
        (-(2**31), -1),
        (2**31 - 1, 2),
        (5, 40),
        (-5, 31),
        (9, 0),
    ]
    a = np.array([p[0] for p in pairs], np.int32)
    b = np.array([p[1] for p in pairs], np.int32)
    out = np.zeros(4 * len(pairs), np.int32)
    ops.interpret[1, len(pairs)](a, b, out)
    for k, (x, y) in enumerate(pairs):
        X, Y = Int32(x), Int32(y)
        if y == 0:  # the run-time rule of the generated code: x // 0 == 0, x % 0 == x
            want = [0, x]
        else:
            want = [int(X // Y), int(X % Y)]
        want += [int(X << Y), int(X * Y)]
        assert list(out[4 * k : 4 * k + 4]) == want, (x, y)


def test_out_of_bounds_is_an_error_naming_the_access_and_thread():
    @kdsl.kernel
    def oob(x: Pointer[Float32], n: Int32):
        x[thread_idx.x + n] = Float32(1)

    with pytest.raises(
        kdsl.DSLError,
        match=r"out-of-bounds store to x\[4\] \(x has 4 elements\) by thread \(0, 0, 0\)",
    ):
        oob.interpret[1, 1](np.zeros(4, np.float32), 4)


def test_host_arrays_of_the_wrong_dtype_are_named():
    x = np.zeros(4, np.float64)
    with pytest.raises(kdsl.DSLError, match="'y' must hold Float64"):
        EX["vector_add"].vector_add.interpret[1, 256](x, x.astype(np.float32), x, 4)


def test_kdsl_interpret_env_routes_launches_to_the_cpu(tmp_path):
    script = tmp_path / "run.py"
    script.write_text(
        "import sys, numpy as np\n"
        f"sys.path.insert(0, {str(Path(__file__).parents[2] / 'examples')!r})\n"
        "import vector_add as va\n"
        "x = np.arange(8, dtype=np.float32); out = np.zeros(8, np.float32)\n"
        "va.vector_add[1, 256](x, x, out, 8)\n"
        "print(out.tolist())\n"
    )
    env = dict(os.environ, KDSL_INTERPRET="1")
    result = subprocess.run(
        [sys.executable, str(script)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip() == str([2.0 * i for i in range(8)])


# -- lock-step execution: divergent control flow ---------------------------------
def _collatz_steps(v, cap):
    count = 0
    while v != 1 and count < cap:
        v = v // 2 if v % 2 == 0 else 3 * v + 1
        count += 1
    return count


@kdsl.kernel
def collatz(x: Pointer[Int32], steps: Pointer[Int32], n: Int32):
    i = kdsl.block_idx.x * kdsl.block_dim.x + thread_idx.x
    if i >= n:
        return
    v = x[i]
    count = Int32(0)
    while v != 1:
        if v % 2 == 0:
            v = v // 2
        else:
            v = 3 * v + 1
        count = count + 1
        if count >= 60:
            break
    steps[i] = count


def test_threads_of_a_warp_take_different_paths_and_trip_counts():
    n = 300
    x = np.arange(1, n + 1, dtype=np.int32)
    steps = np.full(n + 20, -5, np.int32)
    collatz.interpret[3, 128](x, steps, n)  # 84 threads return at once
    assert steps[:n].tolist() == [_collatz_steps(int(v), 60) for v in x]
    assert (steps[n:] == -5).all()


@kdsl.kernel
def flow(x: Pointer[Int32], out: Pointer[Int32]):
    i = thread_idx.x
    total = Int32(0)
    for k in range(0, x[i]):
        if k % 3 == 0:
            continue
        if k == 7:
            out[i] = -total
            return
        total = total + k
    out[i] = total


def test_continue_and_return_inside_a_run_time_loop():
    x = np.arange(12, dtype=np.int32)
    out = np.zeros(12, np.int32)
    flow.interpret[1, 12](x, out)

    def ref(m):
        total = 0
        for k in range(m):
            if k % 3 == 0:
                continue
            if k == 7:
                return -total
            total += k
        return total

    assert out.tolist() == [ref(m) for m in range(12)]


@kdsl.func
def sign(v):
    if v < 0:
        return Int32(-1)
    if v > 0:
        return Int32(1)
    return Int32(0)


@kdsl.kernel
def signs(x: Pointer[Int32], out: Pointer[Int32]):
    i = thread_idx.x
    out[i] = sign(x[i]) * 10 + sign(x[i] - 2)


def test_device_function_returning_from_different_branches():
    x = np.array([-3, 0, 1, 2, 5], np.int32)
    out = np.zeros(5, np.int32)
    signs.interpret[1, 5](x, out)
    assert out.tolist() == [-11, -1, 9, 10, 11]


@kdsl.kernel
def short_circuit(x: Pointer[Int32], out: Pointer[Int32], n: Int32):
    i = thread_idx.x
    # x[i] is read only where i < n: the other lanes never touch memory
    out[i] = Int32(1) if i < n and x[i] > 0 else Int32(0)


def test_short_circuit_and_conditional_arms_only_run_in_their_lanes():
    x = np.array([3, -1, 4], np.int32)
    out = np.full(6, 9, np.int32)
    short_circuit.interpret[1, 6](x, out, 3)
    assert out.tolist() == [1, 0, 1, 0, 0, 0]


# -- threads working together ---------------------------------------------------------
@kdsl.kernel
def warp_ops(x: Pointer[Int32], out: Pointer[Int32]):
    i = thread_idx.x
    v = x[i]
    total = v
    for k in kdsl.range_constexpr(5):
        total = total + kdsl.shfl_down(total, 16 >> k)
    first = kdsl.shfl_idx(v, 0)
    out[3 * i] = total
    out[3 * i + 1] = first + kdsl.lane_id()
    out[3 * i + 2] = kdsl.shfl_xor(v, 1, width=4)


def test_warp_shuffles_and_lane_id():
    x = RNG.integers(-1000, 1000, 64).astype(np.int32)
    out = np.zeros(3 * 64, np.int32)
    warp_ops.interpret[1, 64](x, out)
    got = out.reshape(64, 3)
    for w in range(2):
        lanes_ = x[32 * w : 32 * w + 32]
        assert got[32 * w, 0] == lanes_.sum()  # lane 0 holds the whole sum
        assert got[32 * w : 32 * w + 32, 1].tolist() == [
            lanes_[0] + k for k in range(32)
        ]
    assert got[:, 2].tolist() == [x[i ^ 1] for i in range(64)]


@kdsl.kernel
def slots(keys: Pointer[Int32], order: Pointer[Int32], counter: Pointer[Int32]):
    i = kdsl.block_idx.x * kdsl.block_dim.x + thread_idx.x
    slot = kdsl.atomic_add(counter, 0, Int32(1))
    order[slot] = keys[i]
    kdsl.atomic_max(counter, 1, keys[i])
    kdsl.atomic_cas(counter, 2, Int32(0), keys[i])


def test_atomics_return_old_values_in_thread_order():
    keys = RNG.integers(1, 10**6, 96).astype(np.int32)
    order = np.zeros(96, np.int32)
    counter = np.zeros(3, np.int32)
    slots.interpret[3, 32](keys, order, counter)
    assert sorted(order.tolist()) == sorted(keys.tolist())
    assert counter.tolist() == [96, keys.max(), keys[0]]  # the first CAS wins


@kdsl.kernel
def tile_rows(x: Pointer[Float32], out: Pointer[Float32]):
    tile = kdsl.shared_array(Float32, (4, 8))
    acc = kdsl.local_array(Float32, 2)
    r = thread_idx.y
    c = thread_idx.x
    tile[r, c] = x[r * 8 + c]
    kdsl.syncthreads()
    acc[0] = tile[r, 7 - c]
    acc[1] = tile[3 - r, c]
    out[r * 8 + c] = acc[0] + acc[1]


def test_two_dimensional_shared_arrays_and_per_thread_local_arrays():
    x = RNG.standard_normal(32).astype(np.float32)
    out = np.zeros(32, np.float32)
    tile_rows.interpret[1, (8, 4)](x, out)
    t = x.reshape(4, 8)
    np.testing.assert_array_equal(out.reshape(4, 8), t[:, ::-1] + t[::-1, :])


# -- faults the GPU would not report ---------------------------------------------------
@kdsl.kernel
def halves(x: Pointer[Float32]):
    if thread_idx.x < 16:
        kdsl.syncthreads()
    x[thread_idx.x] = Float32(1)


def test_a_barrier_in_divergent_code_is_an_error():
    with pytest.raises(kdsl.DSLError) as info:
        halves.interpret[1, 32](np.zeros(32, np.float32))
    text = str(info.value)
    assert isinstance(info.value, kdsl.InterpretError)
    assert (
        "E448" in text and "syncthreads() is not reached by thread (16, 0, 0)" in text
    )
    assert "test_interpret.py" in text and "kdsl.syncthreads()" in text


@kdsl.kernel
def early_exit_then_barrier(x: Pointer[Float32], n: Int32):
    i = thread_idx.x
    if i >= n:
        return
    x[i] = x[i] + Float32(1)
    kdsl.syncthreads()


def test_threads_that_returned_do_not_block_a_barrier():
    x = np.zeros(32, np.float32)
    early_exit_then_barrier.interpret[1, 32](x, 20)
    assert x.tolist() == [1.0] * 20 + [0.0] * 12


@kdsl.kernel
def partial_shuffle(x: Pointer[Int32]):
    i = thread_idx.x
    if i < 8:
        x[i] = kdsl.shfl_xor(x[i], 1)


def test_a_shuffle_in_divergent_code_is_an_error():
    with pytest.raises(
        kdsl.DSLError, match=r"shfl_xor\(\) is not reached by thread \(8, 0, 0\)"
    ):
        partial_shuffle.interpret[1, 32](np.zeros(32, np.int32))


@kdsl.kernel
def racy(x: Pointer[Float32]):
    s = kdsl.shared_array(Float32, 64)
    s[thread_idx.x] = x[thread_idx.x]
    x[thread_idx.x] = s[63 - thread_idx.x]  # needs a syncthreads() before


def test_a_shared_memory_race_is_an_error():
    with pytest.raises(kdsl.DSLError, match=r"data race on shared array s\[63\]"):
        racy.interpret[1, 64](np.zeros(64, np.float32))


@kdsl.kernel
def oob_load(x: Pointer[Float32], out: Pointer[Float32]):
    i = thread_idx.x
    out[i] = x[i * 2]


def test_an_out_of_bounds_load_names_array_index_thread_and_line():
    with pytest.raises(kdsl.DSLError) as info:
        oob_load.interpret[1, 8](np.zeros(8, np.float32), np.zeros(8, np.float32))
    text = str(info.value)
    assert "out-of-bounds load from x[8] (x has 8 elements) by thread (4, 0, 0)" in text
    assert "out[i] = x[i * 2]" in text  # the Python line, with a caret under it


def test_a_block_larger_than_the_gpu_allows_is_refused():
    with pytest.raises(
        kdsl.DSLError, match="has 2048 threads; CUDA allows at most 1024"
    ):
        oob_load.interpret[1, (64, 32)](
            np.zeros(8, np.float32), np.zeros(8, np.float32)
        )


# -- Python semantics the IR must keep (found by running the adversarial kernels) ------
@kdsl.kernel
def swaps(x: Pointer[Int32], out: Pointer[Int32]):
    i = thread_idx.x
    a = x[i]
    b = x[0]
    a, b = b, a
    out[2 * i] = a
    out[2 * i + 1] = b
    if i == 0:
        x[1], x[2] = x[2], x[1]


def test_tuple_assignment_evaluates_every_value_before_assigning():
    x = np.array([10, 20, 30, 40], np.int32)
    out = np.zeros(8, np.int32)
    swaps.interpret[1, 4](x, out)
    assert out.tolist() == [10, 10, 10, 20, 10, 30, 10, 40]
    assert x.tolist() == [10, 30, 20, 40]


@kdsl.kernel
def shrinking(out: Pointer[Int32], n: Int32):
    i = thread_idx.x
    m = n
    count = Int32(0)
    for k in range(i, m):  # range() reads m once, as in Python
        m = m - 1
        count = count + 1
    out[i] = count


def test_a_range_bound_assigned_in_the_loop_body_is_read_once():
    out = np.zeros(4, np.int32)
    shrinking.interpret[1, 4](out, 6)
    assert out.tolist() == [6, 5, 4, 3]


def test_an_instance_and_constexpr_keywords_run_interpreted():
    va = EX["vector_add"].vector_add
    x = np.arange(300, dtype=np.float16)
    out = np.zeros(300, np.float16)
    va.interpret[3, 128](x, x, out, 300, BLOCK=128)
    np.testing.assert_array_equal(out, x + x)
    inst = va.dispatch("f16", BLOCK=64)
    out[:] = 0
    inst.interpret[5, 64](x, x, out, 300)
    np.testing.assert_array_equal(out, x + x)
    with pytest.raises(kdsl.DSLError, match="'x' must hold Float16, got float32"):
        inst.interpret[5, 64](x.astype(np.float32), x, out, 300)


@kdsl.func
def stash_a(v):
    buf = kdsl.shared_array(Int32, 32)
    buf[thread_idx.x] = v
    kdsl.syncthreads()
    return buf[31 - thread_idx.x]


@kdsl.func
def stash_b(v):
    buf = kdsl.shared_array(Int32, 32)
    buf[thread_idx.x] = v * 100
    kdsl.syncthreads()
    return buf[thread_idx.x ^ 1]


@kdsl.kernel
def two_buffers(x: Pointer[Int32], out: Pointer[Int32]):
    i = thread_idx.x
    a = stash_a(x[i])
    b = stash_b(x[i])
    out[i] = a + stash_a(b)  # stash_a's buffer again, after a barrier


def test_shared_arrays_of_the_same_name_in_two_functions_are_distinct():
    x = np.arange(32, dtype=np.int32)
    out = np.zeros(32, np.int32)
    two_buffers.interpret[1, 32](x, out)
    want = [(31 - i) + (((31 - i) ^ 1) * 100) for i in range(32)]
    assert out.tolist() == want


@kdsl.kernel
def row_sums(a: kdsl.Array[Float32, 2], out: Pointer[Float32], cols: Int32):
    r = thread_idx.x
    s = Float32(0)
    for c in range(cols):
        s = s + a[r, c]
    out[r] = s


def test_every_dimension_of_an_array_is_checked_even_on_a_view():
    base = np.arange(32, dtype=np.float32).reshape(4, 8)
    out = np.zeros(4, np.float32)
    row_sums.interpret[1, 4](base[:, :3], out, 3)
    np.testing.assert_array_equal(out, base[:, :3].sum(1))
    with pytest.raises(kdsl.DSLError) as info:
        row_sums.interpret[1, 4](base[:, :3], out, 5)  # inside base, outside a
    text = str(info.value)
    assert (
        "out-of-bounds index a[0, 3] (a has shape (4, 3)) by thread (0, 0, 0)" in text
    )
    assert "s = s + a[r, c]" in text


# -- found in review: each equals what the H200 computes ------------------------------
@kdsl.kernel
def countdown(out: Pointer[Int32], n: kdsl.Uint32):
    c = Int32(0)
    for k in range(n, kdsl.Uint32(0), -1):  # k -= 1 on an unsigned counter
        c = c + 1
    out[thread_idx.x] = c


def test_an_unsigned_counter_with_a_negative_step():
    out = np.zeros(2, np.int32)
    countdown.interpret[1, 2](out, 5)
    assert out.tolist() == [5, 5]


@kdsl.kernel
def value_first(out: Pointer[Int32], cnt: Pointer[Int32]):
    # C++17 and Python both evaluate the stored value before the index
    out[kdsl.atomic_add(cnt, 0, Int32(1))] = kdsl.atomic_add(cnt, 0, Int32(10))


def test_a_store_evaluates_its_value_before_its_index():
    out = np.full(16, -1, np.int32)
    cnt = np.zeros(1, np.int32)
    value_first.interpret[1, 1](out, cnt)
    assert out[10] == 0 and cnt[0] == 11


@kdsl.func
def twice(v):
    return v * 2


@kdsl.kernel
def untaken_arm(x: Pointer[Int32], out: Pointer[Int32]):
    i = thread_idx.x
    y = twice(x[i]) if x[i] < 0 else Int32(2147483647)
    out[i] = y + 1


def test_a_conditional_arm_no_lane_takes_keeps_its_type():
    out = np.zeros(4, np.int32)
    untaken_arm.interpret[1, 4](np.arange(4, dtype=np.int32), out)
    assert out.tolist() == [-(2**31)] * 4  # wraps


@kdsl.kernel
def reused_name(out: Pointer[Int32], n: kdsl.Int64):
    i = thread_idx.x
    if i < 2:
        for j in range(n):  # an Int64 j
            out[i] = out[i] + 1
    if i > 0:
        for j in range(3):  # an Int32 j under the same C++ name
            if j + Int32(2147483647) < 0:  # wraps for j >= 1
                out[4 + i] = out[4 + i] + 1


def test_a_cxx_name_reused_with_another_type_gets_that_type():
    out = np.zeros(8, np.int32)
    reused_name.interpret[1, 4](out, 2)
    assert out.tolist() == [2, 2, 0, 0, 0, 2, 2, 2]


@kdsl.kernel
def view_in_branch(x: Pointer[Float32], out: Pointer[Float32]):
    i = thread_idx.x
    for r in range(2):
        if i < 2:
            v = x.vec(4)
            w = v[i]
            out[2 * i + r] = w[0]


def test_a_vector_view_taken_under_a_branch():
    out = np.zeros(8, np.float32)
    view_in_branch.interpret[1, 4](np.arange(8, dtype=np.float32), out)
    assert out[:4].tolist() == [0.0, 0.0, 4.0, 4.0]


@kdsl.kernel
def shuffle_edges(x: Pointer[Int32], out: Pointer[Int32], d: Int32):
    i = thread_idx.x
    out[3 * i] = kdsl.shfl_xor(x[i], 4, width=4)  # may read an earlier group
    out[3 * i + 1] = kdsl.shfl_down(x[i], d)  # the hardware uses d & 31
    out[3 * i + 2] = kdsl.shfl_idx(x[i], d, width=8)


def _hardware_shuffle(mode, lane, b, width):
    """PTX shfl.sync's rule for the source lane (CUDA passes c = ((32 - width)
    << 8) | 31): lanes beyond the segment's end read their own value."""
    b &= 31
    seg = 32 - width
    max_lane = (lane & seg) | (31 & ~seg)
    j = {"down": lane + b, "bfly": lane ^ b, "idx": (lane & seg) | (b & ~seg)}[mode]
    return j if j <= max_lane else lane


@pytest.mark.parametrize("d", [1, -1, 33, 5, -7])
def test_shuffles_follow_the_hardware_rule_for_every_offset(d):
    x = np.arange(100, 164, dtype=np.int32)
    out = np.zeros(3 * 64, np.int32)
    shuffle_edges.interpret[1, 64](x, out, d)
    got = out.reshape(64, 3)
    for t in range(64):
        w, lane = t - t % 32, t % 32
        assert got[t, 0] == x[w + _hardware_shuffle("bfly", lane, 4, 4)]
        assert got[t, 1] == x[w + _hardware_shuffle("down", lane, d, 32)]
        assert got[t, 2] == x[w + _hardware_shuffle("idx", lane, d, 8)]


def test_launches_the_gpu_refuses_are_refused_the_same_way():
    x4 = EX["vector_add"].vector_add_x4
    x = np.zeros(65, np.float32)
    with pytest.raises(kdsl.DSLError, match=r"'x' is read through .vec\(N\).* 16-byte"):
        x4.interpret[1, 256](x[1:], x[1:], x[1:], 64)  # 4 bytes past an aligned start
    va = EX["vector_add"].vector_add
    with pytest.raises(kdsl.DSLError, match="y = 70000 is over CUDA's limit 65535"):
        va.interpret[(1, 70000), 256](x, x, x, 0)
    with pytest.raises(
        kdsl.DSLError, match="is 128 threads in z; CUDA allows at most 64"
    ):
        va.interpret[1, (1, 1, 128)](x, x, x, 0)


def test_arrays_with_negative_strides():
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    view = base[::-1, ::-2]  # rows reversed, every other column backwards
    out = np.zeros(4, np.float32)
    row_sums.interpret[1, 4](view, out, 3)
    np.testing.assert_array_equal(out, view.sum(1))
    with pytest.raises(kdsl.DSLError, match=r"a\[0, 3\] \(a has shape \(4, 3\)\)"):
        row_sums.interpret[1, 4](view, out, 4)


@kdsl.kernel
def spin_lock(lock: Pointer[Int32], total: Pointer[Int32]):
    # each thread waits for the lock's holder, which lock-step never lets go on
    while kdsl.atomic_cas(lock, 0, Int32(0), Int32(1)) != 0:
        pass
    total[0] = total[0] + 1
    kdsl.atomic_exch(lock, 0, Int32(0))


def test_a_loop_that_can_make_no_progress_is_an_error_not_a_hang():
    lock, total = np.zeros(1, np.int32), np.zeros(1, np.int32)
    with pytest.raises(kdsl.DSLError) as info:
        spin_lock.interpret[1, 2](lock, total)
    text = str(info.value)
    assert "makes no progress" in text and "while kdsl.atomic_cas" in text


@kdsl.kernel
def long_loop(out: Pointer[Int32], n: Int32):
    k = Int32(0)
    while k < n:  # many iterations, each changing k: never mistaken for a hang
        k = k + 1
    out[thread_idx.x] = k


def test_a_long_loop_that_progresses_runs_to_the_end():
    out = np.zeros(2, np.int32)
    long_loop.interpret[1, 2](out, 5000)
    assert out.tolist() == [5000, 5000]


@kdsl.kernel
def nested_swaps(out: Pointer[Int32]):
    a, b, c = Int32(10), Int32(20), Int32(30)
    if thread_idx.x == 0:  # run-time variables
        a, (b, c) = c, (a, b)
    out[0] = a
    out[1] = b
    out[2] = c
    d, e, f = Int32(10), Int32(20), Int32(30)
    if thread_idx.x == 0:
        (d, e), f = (e, f), d
    out[3] = d
    out[4] = e
    out[5] = f


def test_nested_tuple_assignment_evaluates_every_value_first():
    out = np.zeros(6, np.int32)
    nested_swaps.interpret[1, 1](out)
    assert out.tolist() == [30, 10, 20, 20, 30, 10]
