"""kdsl-transpile --ir: each selected instance's lowered IR on stdout, under a
header line naming it; errors and clashing flags as for the other modes."""

import pytest

from clirun import FIXTURES, load, run_cli


def test_ir_of_one_instance():
    result = run_cli("good/kernels.py", "-k", "scale", "--dtypes", "f32", "--ir")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    header, *lines = result.stdout.splitlines()
    assert header == "# ==> kernels/scale__f32__2p0__128 <=="
    assert lines[0] == "kernel scale__f32__2p0__128(x: ptr<Float32>, n: Int32):"
    # the constexprs are folded into constants of the instance
    assert any("128:Int32" in line for line in lines)
    assert "    x:ptr<Float32>[i:Int32] = (x:ptr<Float32>[i:Int32]:Float32 * " in (
        result.stdout
    )
    assert "2.0:Float32):Float32" in result.stdout
    # the same text as the printer's, with no CUDA
    from kdsl.transpile.ir.printer import format_instance

    module = load(FIXTURES / "good" / "kernels.py", "cli_ir_kernels")
    lowered = module.scale.dispatch("f32").lowered
    expected = format_instance(lowered.kernel, lowered.functions)
    assert result.stdout == f"# ==> kernels/scale__f32__2p0__128 <==\n{expected}"
    assert "__global__" not in result.stdout


def test_ir_with_selection_flags_and_jobs():
    args = ["good", "-k", "fill,scale", "--dtypes", "f64", "-D", "CLEAR=true,false"]
    result = run_cli(*args, "--ir", "-j", "2")
    assert result.returncode == 0, result.stderr
    headers = [l for l in result.stdout.splitlines() if l.startswith("# ==> ")]
    assert headers == [
        "# ==> kernels/fill__7__true <==",
        "# ==> kernels/fill__7__false <==",
        "# ==> kernels/scale__f64__2p0__128 <==",
    ]
    # the static `if CLEAR:` leaves only its comment and the branch taken
    true_part = result.stdout.split("# ==> kernels/fill__7__false <==")[0]
    assert "    out:ptr<Int32>[i:Int32] = 0:Int32\n" in true_part
    assert "7:Int32" not in true_part and true_part.count("  if ") == 1
    assert run_cli(*args, "--ir", "-j", "1").stdout == result.stdout


@pytest.mark.parametrize(
    "other",
    [["-o", "out"], ["--stdout"], ["--check"], ["--diff", "g"], ["--update", "g"]],
)
def test_ir_excludes_other_outputs(other):
    result = run_cli("good", "--ir", *other)
    assert result.returncode == 2
    assert "not allowed with argument" in result.stderr
    assert result.stdout == ""


def test_ir_errors_are_located():
    result = run_cli("bad/type_error.py", "--ir")
    assert result.returncode == 2
    assert result.stderr.startswith("bad/type_error.py:8:")
    assert "error[E" in result.stderr and "Traceback" not in result.stderr
    assert result.stdout == ""
