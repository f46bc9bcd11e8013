"""Issue 16, items 3, 6 and 8 at launch: the interpreter never reads or
writes outside an array, refuses what it cannot run faithfully, and stops
runaway launches with a clear error."""

import sys

import numpy as np
import pytest

import kdsl

sys.path.insert(0, str(__import__("pathlib").Path(__file__).parents[1] / "lowering"))
from snippets import make_kernel  # noqa: E402

F32 = "[kdsl.Float32]"


def _kernel(tmp_path, body, params):
    k, _ = make_kernel(tmp_path, body, params=params, dtypes=F32)
    return k


def test_a_structured_array_field_is_refused_not_misread(tmp_path):
    k = _kernel(
        tmp_path,
        "i = thread_idx.x\nif i < a.shape[0]:\n    a[i] = Float32(7)",
        "a: kdsl.Array[Float32, 1]",
    )
    rows = np.zeros(4, dtype=[("h", np.int16), ("f", np.float32)])
    with pytest.raises(kdsl.DSLError) as info:
        k.interpret[1, 4](rows["f"])
    assert info.value.code == "E474" and "strides (6,)" in info.value.message
    assert (rows["h"] == 0).all() and (rows["f"] == 0).all()  # nothing written
    ok = np.zeros(8, np.float32)[::2]  # whole-element strides are fine
    k.interpret[1, 4](ok)
    assert (ok == 7).all()


@pytest.mark.parametrize("index", [2**62, 2**62 + 1, 2**63 - 1, -(2**62)])
def test_a_huge_vec_index_is_out_of_bounds(tmp_path, index):
    k = _kernel(
        tmp_path,
        "v = x.vec(4)[idx]\nout[0] = v[0]",
        "x: Pointer[Float32], out: Pointer[Float32], idx: Int64",
    )
    x, out = np.arange(8, dtype=np.float32), np.zeros(1, np.float32)
    with pytest.raises(kdsl.DSLError) as info:
        k.interpret[1, 1](x, out, index)
    assert info.value.code == "E407" and str(index) in info.value.message
    k.interpret[1, 1](x, out, 1)
    assert out[0] == 4.0


def test_a_read_only_output_array_is_a_launch_error(tmp_path):
    k = _kernel(tmp_path, "out[0] = x[0]", "x: Pointer[Float32], out: Pointer[Float32]")
    x = np.ones(1, np.float32)
    x.flags.writeable = False  # read-only input: fine
    out = np.zeros(1, np.float32)
    k.interpret[1, 1](x, out)
    assert out[0] == 1.0
    out.flags.writeable = False
    with pytest.raises(kdsl.DSLError) as info:
        k.interpret[1, 1](x, out)
    assert info.value.code == "E461" and "'out'" in info.value.message


def test_a_written_array_with_a_zero_stride_is_refused(tmp_path):
    """Several elements that are one location (a writable broadcast view)
    would race on the GPU: refused for a parameter the kernel writes (E815),
    accepted for one it only reads."""
    k = _kernel(
        tmp_path,
        "i = thread_idx.x\nif i < a.shape[1]:\n    a[1, i] = b[1, i] + Float32(1)",
        "a: kdsl.Array[Float32, 2], b: kdsl.Array[Float32, 2]",
    )
    row = np.zeros(4, np.float32)
    shared = np.lib.stride_tricks.as_strided(row, (3, 4), (0, 4), writeable=True)
    with pytest.raises(kdsl.DSLError) as info:
        k.interpret[1, 4](shared, np.zeros((3, 4), np.float32))
    assert info.value.code == "E815" and "'a'" in info.value.message
    assert "(0, 4)" in info.value.message and (row == 0).all()
    out = np.zeros((3, 4), np.float32)
    k.interpret[1, 4](out, np.broadcast_to(np.arange(4, dtype=np.float32), (3, 4)))
    assert out[1].tolist() == [1, 2, 3, 4]


def test_an_array_that_starts_between_elements_is_refused(tmp_path):
    """The GPU cannot load a float32 at an odd address (E816)."""
    k = _kernel(tmp_path, "out[0] = x[0]", "x: Pointer[Float32], out: Pointer[Float32]")
    raw = np.zeros(20, np.uint8)
    x = raw[2:18].view(np.float32)  # numpy allows it (flags.aligned is off)
    with pytest.raises(kdsl.DSLError) as info:
        k.interpret[1, 1](x, np.zeros(1, np.float32))
    assert info.value.code == "E816" and "'x'" in info.value.message
    out = np.zeros(1, np.float32)
    k.interpret[1, 1](raw[4:20].view(np.float32), out)
    assert out[0] == 0.0


@pytest.mark.parametrize("value", [1e300, -1e39, 10**400, 2**128])
def test_an_out_of_range_float_scalar_is_refused(tmp_path, value):
    k = _kernel(tmp_path, "out[0] = s", "out: Pointer[Float32], s: Float32")
    out = np.zeros(1, np.float32)
    with pytest.raises(kdsl.DSLError) as info:
        k.interpret[1, 1](out, value)
    assert info.value.code == "E462"


@pytest.mark.parametrize(
    "value, want",
    [
        (float("inf"), np.inf),
        (3.4028235e38, np.float32(3.4028235e38)),
        (2**100, 2.0**100),
    ],
)
def test_in_range_float_scalars_and_infinity_pass(tmp_path, value, want):
    k = _kernel(tmp_path, "out[0] = s", "out: Pointer[Float32], s: Float32")
    out = np.zeros(1, np.float32)
    k.interpret[1, 1](out, value)
    assert out[0] == np.float32(want)


def test_numpy_integers_are_a_grid_and_a_block(tmp_path):
    k = _kernel(
        tmp_path,
        "out[block_idx.x * block_dim.x + thread_idx.x] = Float32(1)",
        "out: Pointer[Float32]",
    )
    out = np.zeros(8, np.float32)
    k.interpret[np.int64(2), np.int32(4)](out)
    assert (out == 1).all()
    out[:] = 0
    k.interpret[(np.uint8(2),), (np.int64(4), 1)](out)
    assert (out == 1).all()


def test_a_huge_interpreted_launch_is_refused_unless_the_limit_is_raised(
    tmp_path, monkeypatch
):
    k = _kernel(tmp_path, "out[0] = Float32(1)", "out: Pointer[Float32]")
    out = np.zeros(1, np.float32)
    with pytest.raises(kdsl.DSLError) as info:
        k.interpret[2**31 - 1, 1024](out)
    assert info.value.code == "E463" and "KDSL_MAX_INTERPRETED_THREADS" in str(
        info.value
    )
    monkeypatch.setenv("KDSL_MAX_INTERPRETED_THREADS", "16")
    with pytest.raises(kdsl.DSLError):
        k.interpret[1, 32](out)
    k.interpret[1, 16](out)
    assert out[0] == 1.0


def test_a_loop_whose_counter_wraps_is_reported(tmp_path):
    k = _kernel(
        tmp_path,
        "i = kdsl.Uint8(0)\nwhile i < n:\n    i += 1\nout[0] = Float32(1)",
        "out: Pointer[Float32], n: Int32",
    )
    out = np.zeros(1, np.float32)
    with pytest.raises(kdsl.DSLError) as info:
        k.interpret[1, 1](out, 300)
    assert info.value.code == "E464" and "256 iterations" in info.value.message
    k.interpret[1, 1](out, 200)  # ends
    assert out[0] == 1.0


def test_module_level_numpy_constants_work(tmp_path):
    helpers = "SCALE = np.float32(0.5)\nBIG = np.int64(2**40)"
    k, _ = make_kernel(
        tmp_path,
        "out[0] = x[0] * SCALE\nout[1] = Float32(BIG // 2**39)",
        helpers="import numpy as np\n" + helpers,
        params="x: Pointer[Float32], out: Pointer[Float32]",
        dtypes=F32,
    )
    out = np.zeros(2, np.float32)
    k.interpret[1, 1](np.full(1, 3, np.float32), out)
    assert out.tolist() == [1.5, 2.0]
