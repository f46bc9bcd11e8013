"""print and assert on the GPU: printf writes what the interpreter prints,
and a failed assert in a debug build raises DeviceAssertionError at its line,
naming the thread, as the interpreter does, and leaves the context usable."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import kdsl

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import debug_kernels as K  # noqa: E402


def test_printf_on_the_gpu_writes_what_the_interpreter_prints(capsys, tmp_path):
    n = 100
    K.show.interpret[(n + 63) // 64, 64](*K.show_inputs(n), n)
    want = capsys.readouterr().out
    script = tmp_path / "show.py"
    script.write_text(
        f"import sys\nsys.path.insert(0, {str(HERE)!r})\n"
        f"import debug_kernels\ndebug_kernels.show_on_gpu({n})\n"
    )
    # a script outside the repository, so that the checkout does not shadow
    # the installed kdsl
    run = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env=dict(os.environ),
    )
    assert run.returncode == 0, run.stderr
    got = run.stdout.splitlines()
    assert len(got) == n + 1 and got.count("done: 100 threads 0.5 True") == 1
    # the order of the threads' lines is the GPU's; each line is the same
    assert sorted(got) == sorted(want.splitlines())


def _gather_arrays(n=64):
    x = cp.arange(n, dtype=cp.float32) * 0.5
    idx = cp.arange(n, dtype=cp.int32)[::-1].copy()
    return x, idx, cp.zeros(n, cp.float32)


def test_a_passing_debug_launch_computes_the_result():
    x, idx, out = _gather_arrays()
    K.gather[2, 32](x, idx, out, 64)
    assert out.get().tolist() == x.get()[::-1].tolist()


def _interpreted_error(x, idx, n=64):
    with pytest.raises(kdsl.DeviceAssertionError) as info:
        K.gather.interpret[2, 32](x.get(), idx.get(), np.zeros(n, np.float32), n)
    return info.value


@pytest.mark.parametrize("on_a_stream", [False, True], ids=["current", "stream"])
def test_a_failed_assert_names_its_line_and_thread_like_the_interpreter(on_a_stream):
    x, idx, out = _gather_arrays()
    idx[37] = -3  # thread 5 of block 1
    stream = cp.cuda.Stream(non_blocking=True) if on_a_stream else None
    cp.cuda.Device().synchronize()  # the stream does not wait for the writes
    with pytest.raises(kdsl.DeviceAssertionError) as info:
        K.gather[2, 32](x, idx, out, 64, stream=stream)
    err = info.value
    assert isinstance(err, AssertionError) and err.code == "E460"
    assert (err.thread, err.block) == ((5, 0, 0), (1, 0, 0))
    assert err.span.path == K.__file__ and err.span.line == K.line_of("j >= 0")
    assert "thread (5, 0, 0) of block (1, 0, 0): negative index" in str(err)
    cpu = _interpreted_error(x, idx)
    assert (cpu.thread, cpu.block, cpu.span, str(cpu)) == (
        err.thread,
        err.block,
        err.span,
        str(err),
    )


def test_an_assert_in_a_device_function_and_the_context_afterwards():
    x, idx, out = _gather_arrays()
    idx[3], idx[40] = 64, 99  # two threads fail: the GPU names one of them
    with pytest.raises(kdsl.DeviceAssertionError) as info:
        K.gather[2, 32](x, idx, out, 64)
    err = info.value
    assert (err.thread, err.block) in (((3, 0, 0), (0, 0, 0)), ((8, 0, 0), (1, 0, 0)))
    assert err.span.line == K.line_of("j < n", K.checked_index)
    assert "index past the end" in str(err)
    # the context is usable: a release kernel, CuPy, and the debug kernel again
    y = cp.arange(1000, dtype=cp.float32)
    assert float((y * 2).sum()) == 999000.0
    x, idx, out = _gather_arrays()
    K.gather[2, 32](x, idx, out, 64)
    assert out.get().tolist() == x.get()[::-1].tolist()
    with pytest.raises(kdsl.DeviceAssertionError, match="at most 1024 elements"):
        K.gather[2, 32](x, idx, out, 2000)
    cp.cuda.Device().synchronize()
