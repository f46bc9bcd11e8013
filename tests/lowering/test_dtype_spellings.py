"""Dtype spellings that are traps (issue 30, item 5): numpy's byte-count
codes ("f8" is 8 bytes) against kdsl's bit-count names ("f8e4m3fn" is an
8-bit float) are refused with both readings, on the API and the CLI; the
spellings of other libraries ("fp8") get kdsl's name."""

import pytest

import kdsl
from kdsl import Int32, Pointer, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Num)


@kdsl.kernel
def copy(x: Pointer[D], y: Pointer[D], n: Int32):
    y[thread_idx.x] = x[thread_idx.x]


@pytest.mark.parametrize(
    "spelling,says",
    [
        ("f8", ["'f64' for Float64", "'f8e4m3fn' or 'f8e5m2' for an 8-bit float"]),
        ("f4", ["'f32' for Float32", "'f4e2m1fn' for a 4-bit float"]),
        ("f2", ["'f16' for Float16"]),
        ("u2", ["'u16' for Uint16"]),
        ("<f8", ["'f64' for Float64"]),
    ],
)
def test_a_numpy_byte_code_is_refused_with_both_readings(spelling, says):
    with pytest.raises(kdsl.DSLError) as info:
        copy.dispatch(spelling)
    err = info.value
    assert err.code == "E276"
    assert f"{spelling!r} is an ambiguous dtype" in err.message
    assert "kdsl's short names count bits" in err.message
    for text in says:
        assert text in err.message
    # located at the call (this file), not at the kernel's def
    assert err.span.path == __file__
    assert "copy.dispatch(spelling)" in err.source_line


def test_kdsls_own_names_and_numpys_long_names_still_work():
    from kdsl.transpile.frontend.signature import resolve_dtype

    assert resolve_dtype("f8e4m3fn") is kdsl.Float8E4M3FN
    assert copy.dispatch("i8").dtypes == (kdsl.Int8,)  # kdsl's: 8 bits
    assert copy.dispatch("float64").dtypes == (kdsl.Float64,)
    import numpy as np

    assert copy.dispatch(np.dtype("f8")).dtypes == (kdsl.Float64,)  # a dtype object


@pytest.mark.parametrize(
    "spelling,name",
    [("fp8", "'f8e4m3fn' or 'f8e5m2'"), ("e4m3", "'f8e4m3fn'"), ("fp16", "'f16'")],
)
def test_other_libraries_spellings_get_kdsls_name(spelling, name):
    with pytest.raises(kdsl.DSLError) as info:
        copy.dispatch(spelling)
    assert info.value.code == "E411"
    assert f"(kdsl's name: {name}" in info.value.message


def test_an_ambiguous_dtype_in_dtypes_is_located_at_the_keyword():
    with pytest.raises(kdsl.DSLError) as info:

        @kdsl.kernel(dtypes=["f8"])
        def k(x: Pointer[D]):
            x[0] = x[0]

    assert info.value.code == "E276"
    assert "dtypes=" in info.value.source_line


def test_the_cli_refuses_dtypes_f8(tmp_path):
    import sys

    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parents[1] / "cli"))
    from clirun import run_cli

    result = run_cli("good/kernels.py", "--dtypes", "f8", "-o", tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    assert "error[E276]: 'f8' is an ambiguous dtype" in result.stderr
    assert "'f64' for Float64" in result.stderr


def test_supported_dtypes_is_a_tuple_without_dtype_parameters_too():
    # issue 30, item 9: () for a kernel whose types are fixed (it was {})
    @kdsl.kernel
    def fixed(x: Pointer[Int32]):
        x[0] = 1

    assert fixed.supported_dtypes == ()
    assert fixed.supported == {}
    assert copy.supported_dtypes == copy.supported["D"]
    assert isinstance(copy.supported_dtypes, tuple)
