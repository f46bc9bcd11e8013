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

sys.path.insert(0, str(Path(__file__).parent))
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
    rows, cols = 2, 77
    a = RNG.standard_normal((rows, cols)).astype(np.float32)
    b = np.full_like(a, np.nan)
    EX["softmax"].softmax.interpret[rows, 256](a, b, cols)
    e = np.exp(a.astype(np.float64) - a.max(1, keepdims=True))
    np.testing.assert_allclose(b, e / e.sum(1, keepdims=True), rtol=1e-5)


def test_reduce_sum_with_atomics():
    n = 700
    x = RNG.random(n).astype(np.float64)
    out = np.zeros(1, np.float64)
    EX["reduce_sum"].reduce_sum.interpret[3, 256](x, out, n)
    np.testing.assert_allclose(out[0], x.sum(), rtol=1e-12)


def test_transpose_through_arrays_with_strides():
    a = RNG.integers(0, 1000, (40, 33)).astype(np.int32)
    out = np.zeros((33, 40), np.int32)
    EX["transpose"].transpose.interpret[(2, 2), (32, 32)](a, out)
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
        EX["vector_add"].vector_add.interpret[1, 4](x, x.astype(np.float32), x, 4)


def test_kdsl_interpret_env_routes_launches_to_the_cpu(tmp_path):
    script = tmp_path / "run.py"
    script.write_text(
        "import sys, numpy as np\n"
        f"sys.path.insert(0, {str(Path(__file__).parents[1] / 'examples')!r})\n"
        "import vector_add as va\n"
        "x = np.arange(8, dtype=np.float32); out = np.zeros(8, np.float32)\n"
        "va.vector_add[1, 8](x, x, out, 8)\n"
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
