"""Atomics with a memory order and scope, atomic loads and stores, and
fences: CUDA's scoped atomic intrinsics; plain atomics are unchanged."""

import numpy as np
import pytest

import kdsl
from kdsl import Float16, Float32, Int32, Pointer, Uint64, block_idx, thread_idx
from kdsl.runtime.nvrtc import compile_to_cubin


@kdsl.kernel
def locked_sum(lock: Pointer[Int32], total: Pointer[Float32], x: Pointer[Float32]):
    """Each block adds its value under a spin lock (as layer-norm backward
    accumulates its partial sums); one thread a block takes the lock."""
    if thread_idx.x == 0:
        while kdsl.atomic_cas(lock, 0, 0, 1, order="acquire") != 0:
            pass
        total[0] = total[0] + x[block_idx.x]
        kdsl.threadfence()
        kdsl.atomic_store(lock, 0, 0)


@kdsl.kernel
def scoped(count: Pointer[Int32], big: Pointer[Uint64], seen: Pointer[Int32]):
    kdsl.atomic_add(count, 0, 1, order="relaxed", scope="block")
    kdsl.atomic_max(big, 0, Uint64(thread_idx.x), order="seq_cst", scope="system")
    kdsl.threadfence_block()
    seen[thread_idx.x] = kdsl.atomic_load(count, 0)
    kdsl.atomic_add(count, 1, 1)


def test_ordered_atomics_are_cudas_scoped_intrinsics():
    src = locked_sum.dispatch().source
    assert (
        "kdsl::atomic_cas<__NV_ATOMIC_ACQUIRE, __NV_ATOMIC_ACQUIRE, "
        "__NV_THREAD_SCOPE_DEVICE>(&lock[0], 0, 1)" in src
    )
    assert "__threadfence();" in src
    assert (
        "__nv_atomic_store_n(&lock[0], 0, __NV_ATOMIC_RELEASE, "
        "__NV_THREAD_SCOPE_DEVICE);" in src
    )
    assert "KDSL_ATOMICS_H" in src
    compile_to_cubin(src, "locked_sum")
    src = scoped.dispatch().source
    flat = " ".join(src.split())
    assert (
        "__nv_atomic_fetch_add(&count[0], 1, __NV_ATOMIC_RELAXED, "
        "__NV_THREAD_SCOPE_BLOCK);" in flat
    )
    assert "__NV_ATOMIC_SEQ_CST, __NV_THREAD_SCOPE_SYSTEM" in flat
    assert "atomicAdd(&count[1], 1);" in src  # no order: CUDA's plain atomic
    assert "KDSL_ATOMICS_H" not in src
    compile_to_cubin(src, "scoped")


def test_the_interpreter_runs_them_in_thread_order():
    lock, total = np.zeros(1, np.int32), np.zeros(1, np.float32)
    locked_sum.interpret[1, 32](lock, total, np.array([2.5], np.float32))
    assert lock[0] == 0 and total[0] == 2.5
    count, big, seen = (
        np.zeros(2, np.int32),
        np.zeros(1, np.uint64),
        np.zeros(8, np.int32),
    )
    scoped.interpret[1, 8](count, big, seen)
    assert count.tolist() == [8, 8] and big[0] == 7 and seen.tolist() == [8] * 8


@kdsl.kernel
def bad_order(count: Pointer[Int32]):
    kdsl.atomic_add(count, 0, 1, order="acquired")


@kdsl.kernel
def bad_scope(count: Pointer[Int32]):
    kdsl.atomic_load(count, 0, scope="gpu")


@kdsl.kernel
def ordered_half(x: Pointer[Float16]):
    kdsl.atomic_add(x, 0, Float16(1), order="relaxed")


@pytest.mark.parametrize(
    "kernel,code,text",
    [
        (bad_order, "E335", "order='acquired'"),
        (bad_scope, "E336", "write one of ('block', 'device', 'system')"),
        (
            ordered_half,
            "E230",
            "supports Int32, Uint32, Int64, Uint64, Float32, Float64",
        ),
    ],
)
def test_orders_scopes_and_types_are_checked(kernel, code, text):
    with pytest.raises(kdsl.DSLError) as info:
        kernel.dispatch().source
    assert info.value.code == code and text in str(info.value)
    assert info.value.span is not None
