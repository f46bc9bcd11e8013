"""docs/reviewing-generated-code.md's pytest example, run as documented in
a fresh project (issue 15, item 1): ``pytest --update-golden`` writes the
files, then a plain ``pytest`` passes — also when one test checks the same
kernel at other constexpr values in the same folder — and a stale file, a
changed kernel and a missing file still fail."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "reviewing-generated-code.md"


def _doc_test_file() -> str:
    """The ``# tests/test_kernel_sources.py`` block of the doc, verbatim."""
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    (block,) = [b for b in blocks if b.startswith("# tests/test_kernel_sources.py")]
    return block


@pytest.fixture
def project(tmp_path):
    """A user's project: ``mykernels`` (a simple softmax, and vector_add from
    the examples) and the doc's test file, as the doc lays them out."""
    kernels = tmp_path / "mykernels"
    kernels.mkdir()
    shutil.copy(ROOT / "tests" / "doc_project" / "softmax.py", kernels / "softmax.py")
    shutil.copy(ROOT / "examples" / "vector_add.py", kernels / "vector_add.py")
    (kernels / "__init__.py").write_text(
        "from mykernels.softmax import softmax\n"
        "from mykernels.vector_add import vector_add\n"
    )
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_kernel_sources.py").write_text(_doc_test_file())
    return tmp_path


def _pytest(project, *args):
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PYTHONPATH": str(project), "PATH": "/usr/bin:/bin"},
    )


def test_the_documented_golden_workflow_passes(project):
    first = _pytest(project)
    assert first.returncode == 1 and "no golden file" in first.stdout, first.stdout
    update = _pytest(project, "--update-golden")
    assert update.returncode == 0, update.stdout + update.stderr
    golden = project / "tests" / "golden"
    assert (golden / "softmax" / "softmax__f32__1024.cu").exists()
    assert (golden / "softmax" / "softmax__f32__256.cu").exists()
    again = _pytest(project)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "3 passed" in again.stdout, again.stdout

    # a dtype the kernel no longer makes at BLOCK=256 is stale, and so is a
    # file of a constexpr that was renamed; a file at other values is not
    # (another test may check them): --update-golden removes only the stale
    softmax = golden / "softmax"
    base = (softmax / "softmax__f32__256.cu").read_text()
    dropped = softmax / "softmax__i32__256.cu"
    dropped.write_text(base.replace("softmax__f32__256", "softmax__i32__256"))
    renamed = softmax / "softmax__f32__128.cu"
    renamed.write_text(base.replace("BLOCK=256", "BLK=128").replace("__256", "__128"))
    elsewhere = softmax / "softmax__f32__512.cu"
    elsewhere.write_text(
        base.replace("BLOCK=256", "BLOCK=512").replace("__256", "__512")
    )
    failed = _pytest(project)
    assert failed.returncode == 1
    stale = re.findall(r"stale golden file (\S+)", failed.stdout)
    assert sorted({Path(p).name for p in stale}) == [
        "softmax__f32__128.cu",
        "softmax__i32__256.cu",
    ], failed.stdout
    assert _pytest(project, "--update-golden").returncode == 0
    assert not dropped.exists() and not renamed.exists() and elsewhere.exists()
    assert (softmax / "softmax__f32__1024.cu").exists()
    elsewhere.unlink()

    # ... and a changed kernel fails with a diff
    path = golden / "vector_add" / "vector_add__f32__256.cu"
    path.write_text(path.read_text().replace("out[i] = x[i] + y[i];", "out[i] = 0;"))
    changed = _pytest(project)
    assert changed.returncode == 1
    assert "generated code differs from the golden file" in changed.stdout
    assert "+        out[i] = x[i] + y[i];" in changed.stdout


def _pytest_in(folder, project, *args):
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PYTHONPATH": str(project), "PATH": "/usr/bin:/bin"},
    )


def test_golden_folders_are_relative_to_the_pytest_rootdir(project):
    # issue 30, item 4: run from tests/, the fixture reads the same
    # tests/golden/ as from the project's root (pytest's rootdir, set by the
    # pyproject.toml), not tests/tests/golden/
    (project / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    update = _pytest_in(project, project, "--update-golden")
    assert update.returncode == 0, update.stdout + update.stderr
    from_tests = _pytest_in(project / "tests", project)
    assert from_tests.returncode == 0, from_tests.stdout + from_tests.stderr
    assert "3 passed" in from_tests.stdout, from_tests.stdout
    assert not (project / "tests" / "tests").exists()
