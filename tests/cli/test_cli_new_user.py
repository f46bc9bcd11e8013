"""What a new user meets on the command line (issue 15, item 8): a
misspelt -D, --dtypes or -k name gets a "did you mean", ``--version``
prints kdsl's version, and ``python -m kdsl.transpile`` is the CLI."""

import subprocess
import sys

import kdsl
from clirun import FIXTURES, run_cli


def test_a_misspelt_define_gets_a_did_you_mean(tmp_path):
    result = run_cli("good/kernels.py", "-D", "BLOK=64", "-o", tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "error[E610]: -D BLOK: no selected kernel has a constexpr of that name; "
        "did you mean BLOCK?"
    )


def test_a_misspelt_dtype_gets_a_did_you_mean(tmp_path):
    result = run_cli("good/kernels.py", "--dtypes", "f33", "-o", tmp_path)
    assert result.returncode == 2
    assert "error[E411]: 'f33' is not a kdsl dtype" in result.stderr
    assert "did you mean 'f32'?" in result.stderr


def test_a_misspelt_kernel_gets_a_did_you_mean(tmp_path):
    result = run_cli("good/kernels.py", "-k", "scal", "-o", tmp_path)
    assert result.returncode == 2
    assert "no kernel named 'scal'" in result.stderr
    assert "did you mean 'scale'?" in result.stderr


def test_a_name_far_from_every_other_gets_no_guess(tmp_path):
    result = run_cli("good/kernels.py", "-D", "ZZZZZZ=1", "-o", tmp_path)
    assert result.returncode == 2
    assert "did you mean" not in result.stderr


def test_version():
    result = run_cli("--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"kdsl-transpile {kdsl.__version__}"


def test_python_m_kdsl_transpile_is_the_cli(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "kdsl.transpile", "good/kernels.py", "-k", "fill"]
        + ["--stdout"],
        cwd=FIXTURES,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert 'extern "C" __global__ void fill__7__false(' in result.stdout
