"""What a new user meets on the command line, round 2 (issue 30): the
summary line off a terminal, ``python -m kdsl``, ``-k`` naming a device
function, and docs/cli.md's count of the example instances."""

import re
import subprocess
import sys
from pathlib import Path

from clirun import FIXTURES, run_cli

ROOT = Path(__file__).resolve().parents[2]

FUNC_MODULE = """
import kdsl
from kdsl import Int32, Pointer, thread_idx


@kdsl.func
def twice(v):
    return v * 2


@kdsl.kernel
def double(x: Pointer[Int32]):
    x[thread_idx.x] = twice(x[thread_idx.x])
"""


def test_python_m_kdsl_is_the_cli():
    result = subprocess.run(
        [sys.executable, "-m", "kdsl", "good/kernels.py", "-k", "fill", "--stdout"],
        cwd=FIXTURES,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert 'extern "C" __global__ void fill__7__false(' in result.stdout


def test_dash_k_naming_a_device_function_says_it_is_not_a_kernel(tmp_path):
    (tmp_path / "funcs.py").write_text(FUNC_MODULE)
    result = run_cli("funcs.py", "-k", "twice", "-o", tmp_path / "out", cwd=tmp_path)
    assert result.returncode == 2
    message = result.stderr.strip()
    assert message.startswith("error[E603]: no kernel named 'twice'"), message
    assert "'twice' is a @kdsl.func device function, not a kernel" in message
    assert "did you mean" not in message


def test_the_summary_line_is_printed_when_stderr_is_a_pipe(tmp_path):
    result = run_cli("good", "-o", tmp_path, "-j", "1")
    assert result.returncode == 0, result.stderr
    assert re.fullmatch(
        r"5 instance\(s\) of 3 kernel\(s\); written to \S+\n", result.stderr
    ), result.stderr


def test_a_failing_run_prints_no_success_summary(tmp_path):
    result = run_cli("good", "-o", tmp_path, "--diff", tmp_path / "nothing-here")
    assert result.returncode == 1
    assert "instance(s) of" not in result.stderr


def test_docs_cli_counts_the_example_instances_right():
    from kdsl.transpile.cli.select import load_modules, module_files, select_jobs

    text = (ROOT / "docs" / "cli.md").read_text()
    counts = re.findall(r"the (\d+) instances of `examples/`", text)
    assert counts, "docs/cli.md no longer says how many example instances there are"
    jobs = select_jobs(load_modules(module_files([str(ROOT / "examples")])))
    assert {int(c) for c in counts} == {len(jobs)}
    summary = re.search(r"`(\d+) instance\(s\) of (\d+) kernel\(s\)", text)
    kernels = len({(j.module.name, j.kernel) for j in jobs})
    assert (int(summary[1]), int(summary[2])) == (len(jobs), kernels)
