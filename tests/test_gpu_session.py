"""benchmarks/gpu_session.sh runs the GPU tests in parallel groups named file
by file: a GPU test file missing from every group would never run."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_gpu_test_file_is_in_a_group():
    script = (ROOT / "benchmarks" / "gpu_session.sh").read_text()
    named = set(re.findall(r"\btest_\w+\.py\b", script))
    files = {p.name for p in (ROOT / "tests" / "gpu").glob("test_*.py")}
    assert files - named == set()
    assert named - files == set()
