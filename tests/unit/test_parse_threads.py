"""Kernels compiled from several threads at once (as the fp8 GEMM's GPU test
compiles its instances in a thread pool: NVRTC releases the GIL).  Two
threads asking a kernel for its parsed source both parsed it and kept
different trees, one thread's nodes then looked up in the other's positions:
a raw ``KeyError`` from ``parse.py`` on the H200."""

import threading

import kdsl
from kdsl import Float32, Int32, Pointer, thread_idx
from kdsl.transpile.frontend.parse import parse_function


def _fresh_kernel():
    @kdsl.kernel
    def scale(x: Pointer[Float32], n: Int32, K: kdsl.Constexpr[int] = 1):
        i = thread_idx.x
        if i < n:
            x[i] = x[i] * K

    return scale


def test_one_parse_per_function_from_many_threads():
    for _ in range(10):
        k = _fresh_kernel()
        barrier = threading.Barrier(8)
        seen, errors = [], []

        def work(j):
            try:
                barrier.wait()
                seen.append(k.definition.parsed)
                k.dispatch(K=j).source
            except Exception as exc:  # noqa: BLE001 - the test reports it
                errors.append(exc)

        threads = [threading.Thread(target=work, args=(j,)) for j in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors[0]
        assert all(p is seen[0] for p in seen)
        assert parse_function(k.fn) is seen[0]
