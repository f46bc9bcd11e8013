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


def _selected(expression: str, node_ids) -> set:
    """The node ids that ``pytest -k expression`` selects, decided here
    rather than by another collection (each costs a pytest process and the
    file's import): pytest's own expression parser, matched as ``-k`` matches
    (a case-insensitive substring of one of the item's names: here its
    node id's parts; the file's tests carry no other keywords)."""
    from _pytest.mark.expression import Expression

    compiled = Expression.compile(expression)
    chosen = set()
    for node in node_ids:
        names = [part.lower() for part in re.split(r"::|/", node)]

        def matches(sub, /, **_):
            return any(sub.lower() in name for name in names)

        if compiled.evaluate(matches):
            chosen.add(node)
    return chosen


def test_the_groups_that_split_a_file_cover_it_once():
    """A file split over groups by -k expressions (test_examples_gpu.py,
    issue 30): every test in exactly one group (two collections, not one a
    group: ``_selected`` applies the expressions)."""
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
        group = _selected(expression, everything)
        assert group, expression
        seen += sorted(group)
    assert sorted(seen) == sorted(everything)  # each once
    # the shortcut against pytest itself, on the expression with every
    # operator (the last group's "not (a or b)")
    assert _selected(expression, everything) == _collected("-k", expression)
