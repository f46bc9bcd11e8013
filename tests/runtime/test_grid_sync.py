"""kdsl.grid_sync(): one registry entry (builtins/threads.py, collective
"grid").  The instance records that it needs a cooperative launch, the CUDA
is cooperative groups' grid barrier and compiles with the runtime's NVRTC
options, and the interpreter runs the whole grid as one lock-step batch,
checking that every running thread reaches the barrier.  The laplace kernel
is Numba's example (numba.cuda's doc example "laplace"), many steps in one
launch; tests/gpu/test_grid_sync_gpu.py runs it on the GPU."""

import inspect

import numpy as np
import pytest

import kdsl
from kdsl import Float16, Float32, Int32, Pointer, block_dim, block_idx, grid_dim
from kdsl import thread_idx
from kdsl.runtime.interpreter import simt
from kdsl.runtime.nvrtc import compile_to_cubin
from kdsl.transpile import builtins, ir
from kdsl.transpile.cuda.prelude import needs


@kdsl.func
def next_temperature(left, cur, right, k):
    """Numba's finite difference: a weighted average of the neighbours."""
    return cur + k * (left - 2 * cur + right)


@kdsl.kernel
def solve_heat_equation(
    buf_0: Pointer[Float32],
    buf_1: Pointer[Float32],
    size: Int32,
    timesteps: Int32,
    k: Float32,
):
    """Numba's laplace example: ``timesteps`` steps of the heat equation on a
    rod of ``size`` points held at T = 0 at both ends, one grid barrier
    between steps."""
    i = block_idx.x * block_dim.x + thread_idx.x
    # Don't continue if our index is outside the domain
    if i >= size:
        return
    for step in range(timesteps):
        # Select the buffer from the previous timestep (a pointer cannot be
        # reassigned in run-time control flow: each access picks its buffer)
        even = step % 2 == 0
        curr_temp = buf_0[i] if even else buf_1[i]
        left = Float32(0)  # the walls are held at T = 0
        right = Float32(0)
        if i > 0:
            left = buf_0[i - 1] if even else buf_1[i - 1]
        if i < size - 1:
            right = buf_0[i + 1] if even else buf_1[i + 1]
        next_temp = next_temperature(left, curr_temp, right, k)
        # Write new value to the next buffer
        if even:
            buf_1[i] = next_temp
        else:
            buf_0[i] = next_temp
        # Wait for every thread to write before moving on
        kdsl.grid_sync()


def heat_reference(buf_0, buf_1, timesteps, k):
    """The same steps in numpy, in Float32 and in the kernel's order."""
    bufs = [buf_0.copy(), buf_1.copy()]
    zero, two, k = np.float32(0), np.float32(2), np.float32(k)
    for step in range(timesteps):
        d = bufs[step % 2]
        left = np.concatenate([[zero], d[:-1]])
        right = np.concatenate([d[1:], [zero]])
        bufs[1 - step % 2] = d + k * ((left - two * d) + right)
    return bufs


def rod(size=1001):
    """Numba's initial state: a hot spot in the middle of a cold rod."""
    buf_0 = np.zeros(size, np.float32)
    buf_0[size // 2] = 10000
    return buf_0, np.zeros(size, np.float32)


# -- the entry, the IR and the generated code -----------------------------------------
def test_the_entry_is_grid_wide_and_listed_so():
    entry = builtins.get("grid_sync")
    assert entry.collective == "grid" and entry.headers == ("cooperative_groups.h",)
    assert kdsl.grid_sync is entry
    line = "- `kdsl.grid_sync()`: a barrier for the whole grid"
    assert any(
        x.startswith(line) and x.endswith(" — grid-wide")
        for x in builtins.reference().splitlines()
    )


def test_the_instance_records_that_it_needs_a_cooperative_launch():
    inst = solve_heat_equation.dispatch()
    assert inst.lowered.cooperative and inst.transpiled.cooperative
    src = inst.source
    header = src.split("#include", 1)[0]
    assert "// launch:     cooperative (kdsl.grid_sync" in header
    assert "#include <cooperative_groups.h>\n" in src
    assert "        cooperative_groups::this_grid().sync();\n    }\n}\n" in src
    compile_to_cubin(src, inst.name)  # sm_90, the runtime's options


@kdsl.kernel
def block_barrier_only(x: Pointer[Float32]):
    x[thread_idx.x] = Float32(1)
    kdsl.syncthreads()


def test_a_kernel_without_grid_sync_is_not_cooperative_and_its_header_unchanged():
    inst = block_barrier_only.dispatch()
    assert not inst.lowered.cooperative and not inst.transpiled.cooperative
    assert "cooperative" not in inst.source
    assert inst.source.splitlines()[3].startswith("// Compile with --fmad=false")


@kdsl.func
def settle():
    kdsl.grid_sync()


@kdsl.kernel
def grid_sync_in_a_function(x: Pointer[Float16], out: Pointer[Float16]):
    i = block_idx.x * block_dim.x + thread_idx.x
    x[i] = x[i] * Float16(2)
    settle()
    out[i] = x[(i + block_dim.x) % (grid_dim.x * block_dim.x)]


def test_a_grid_sync_in_a_device_function_makes_the_kernel_cooperative():
    inst = grid_sync_in_a_function.dispatch()
    lowered = inst.lowered
    assert lowered.cooperative
    # (the call is in the device function only)
    assert not any(
        isinstance(e, ir.BuiltinCall) for e in ir.expressions(lowered.kernel.body)
    )
    # the type's header first, then the built-in's, then the prelude
    assert needs(lowered.functions + (lowered.kernel,))[0] == [
        "cuda_fp16.h",
        "cooperative_groups.h",
    ]
    src = inst.source
    assert src.index("#include <cuda_fp16.h>") < src.index(
        "#include <cooperative_groups.h>"
    )
    assert src.index("#include <cooperative_groups.h>") < src.index("kdsl prelude")
    compile_to_cubin(src, inst.name)
    x = np.arange(64, dtype=np.float16)
    out = np.zeros(64, np.float16)
    grid_sync_in_a_function.interpret[2, 32](x, out)
    assert out.tolist() == np.roll(np.arange(64) * 2, -32).tolist()


@kdsl.kernel
def grid_sync_with_an_argument(x: Pointer[Float32]):
    kdsl.grid_sync(1)


@kdsl.kernel
def grid_sync_as_a_value(x: Pointer[Float32]):
    v = kdsl.grid_sync()
    x[0] = Float32(1)


def test_a_grid_sync_takes_nothing_and_gives_nothing():
    with pytest.raises(kdsl.DSLError, match=r"grid_sync\(\) takes 0 argument"):
        grid_sync_with_an_argument.dispatch().source
    with pytest.raises(kdsl.DSLError, match=r"grid_sync\(\) returns no value"):
        grid_sync_as_a_value.dispatch().source


# -- the interpreter --------------------------------------------------------------------
def test_numbas_laplace_steps_in_one_launch_match_numpy_bit_for_bit():
    # 4 blocks of 256 threads for 1001 points: the last 23 threads return
    # before the first grid barrier (they are not running, so need not reach it)
    buf_0, buf_1 = rod()
    want = heat_reference(buf_0, buf_1, 100, 0.25)
    solve_heat_equation.interpret[4, 256](buf_0, buf_1, buf_0.size, 100, 0.25)
    assert buf_0.tobytes() == want[0].tobytes()
    assert buf_1.tobytes() == want[1].tobytes()
    assert buf_0[500] < 10000 and buf_0[490] > 0  # the heat spread


@kdsl.kernel
def next_block_reversed(x: Pointer[Int32], out: Pointer[Int32]):
    n = block_dim.x
    b = block_idx.x
    t = thread_idx.x
    x[b * n + t] = b * 1000 + t  # every block writes its own part
    kdsl.grid_sync()
    other = (b + 1) % grid_dim.x  # then reads the next block's part
    out[b * n + t] = x[other * n + (n - 1 - t)]


def test_every_block_reads_another_blocks_data_after_the_grid_barrier():
    blocks, threads = 300, 256  # more than one ordinary batch of threads
    assert blocks * threads > simt.BATCH_THREADS
    x = np.zeros(blocks * threads, np.int32)
    out = np.zeros_like(x)
    next_block_reversed.interpret[blocks, threads](x, out)
    b = np.arange(blocks).repeat(threads)
    t = np.tile(np.arange(threads), blocks)
    assert out.tolist() == (((b + 1) % blocks) * 1000 + (threads - 1 - t)).tolist()


@kdsl.kernel
def shared_across_the_grid_barrier(out: Pointer[Int32]):
    s = kdsl.shared_array(Int32, 32)
    t = thread_idx.x
    s[t] = t + block_idx.x
    kdsl.grid_sync()  # a block barrier too: no race on s
    out[block_idx.x * 32 + t] = s[31 - t]


def test_the_grid_barrier_ends_the_shared_memory_race_interval():
    out = np.zeros(64, np.int32)
    shared_across_the_grid_barrier.interpret[2, 32](out)
    assert out.tolist() == [31 - t + b for b in range(2) for t in range(32)]


@kdsl.kernel
def first_block_only(x: Pointer[Float32]):
    if block_idx.x == 0:
        kdsl.grid_sync()
    x[block_idx.x * 32 + thread_idx.x] = Float32(1)


@kdsl.kernel
def steps_per_block(x: Pointer[Float32]):
    for _ in range(block_idx.x + 1):
        kdsl.grid_sync()


def test_a_grid_sync_that_a_running_thread_misses_is_an_error():
    # block 1 skips the only grid_sync; block 0 is done when block 1 syncs again
    for kernel, missing in ((first_block_only, 1), (steps_per_block, 0)):
        line = _line_of("kdsl.grid_sync()", kernel)
        with pytest.raises(kdsl.InterpretError) as info:
            kernel.interpret[2, 32](np.zeros(64, np.float32))
        text = str(info.value)
        assert info.value.code == "E448"
        assert (
            f"grid_sync() is not reached by thread (0, 0, 0) of block ({missing}, 0, "
            "0), which is still running: every running thread of the grid must reach "
            "the same grid_sync()" in text
        )
        assert f"test_grid_sync.py:{line}:" in text and "kdsl.grid_sync()" in text


def _line_of(text, kernel) -> int:
    lines, first = inspect.getsourcelines(kernel.fn)
    return first + next(n for n, line in enumerate(lines) if text in line)


@kdsl.kernel
def leader_returns(x: Pointer[Float32]):
    if thread_idx.x == 0 and block_idx.x == 2:
        return
    kdsl.grid_sync()
    x[block_idx.x * 32 + thread_idx.x] = Float32(1)


def test_a_block_whose_first_thread_returned_cannot_grid_sync():
    with pytest.raises(kdsl.InterpretError) as info:
        leader_returns.interpret[3, 32](np.zeros(96, np.float32))
    assert info.value.code == "E457"
    assert (
        "grid_sync() is not reached by thread (0, 0, 0) of block (2, 0, 0), "
        "which returned" in str(info.value)
    )


def test_a_grid_too_large_for_one_batch_is_refused_before_it_runs():
    blocks = simt.GRID_THREADS // 256 + 1
    x = np.zeros(1, np.int32)
    with pytest.raises(kdsl.InterpretError) as info:
        next_block_reversed.interpret[blocks, 256](x, x)
    assert info.value.code == "E456"
    assert (
        f"grid ({blocks}, 1, 1) of block (256, 1, 1) is {blocks * 256} threads, "
        f"over the interpreter's limit of {simt.GRID_THREADS}" in str(info.value)
    )
    assert x.tolist() == [0]
