"""benchmarks/gpu_session.sh runs the GPU tests in parallel groups named file
by file: a GPU test file missing from every group would never run."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_gpu_test_file_is_in_a_group():
    script = (ROOT / "benchmarks" / "gpu_session.sh").read_text()
    named = set(re.findall(r"\btest_\w+\.py\b", script))
    files = {p.name for p in (ROOT / "tests" / "gpu").glob("test_*.py")}
    assert files - named == set()
    # the verbs may also name a file of tests/pytorch (its group is the folder)
    pytorch = {p.name for p in (ROOT / "tests" / "pytorch").glob("test_*.py")}
    assert named - files - pytorch == set()


def _collected(*args):
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0"]
        + ["-p", "no:cacheprovider", "tests/gpu/test_examples_gpu.py", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return {line for line in result.stdout.splitlines() if "::" in line}


def test_the_groups_that_split_a_file_cover_it_once():
    """A file split over groups by -k expressions (test_examples_gpu.py,
    issue 30): every test in exactly one group."""
    import pytest

    pytest.importorskip("cupy")  # the file collects only with CuPy
    script = (ROOT / "benchmarks" / "gpu_session.sh").read_text()
    names = dict(re.findall(r'^\s+(examples_\w+)="([^"]*)"$', script, re.M))
    split = re.findall(
        r'^\s+"(?:WORKERS=\d+ )?test_examples_gpu\.py\|(.*)"$', script, re.M
    )
    assert len(split) == 3, split
    everything = _collected()
    assert len(everything) > 90
    seen = []
    for expression in split:
        for name, value in names.items():
            expression = expression.replace(f"${name}", value)
        group = _collected("-k", expression)
        assert group, expression
        seen += sorted(group)
    assert sorted(seen) == sorted(everything)  # each once
