"""--diff / --update against a golden folder, and the kdsl.testing plugin."""

import subprocess
import sys
import textwrap
from pathlib import Path

from clirun import GOOD_FILES, run_cli, tree

ROOT = Path(__file__).resolve().parents[2]


def test_diff_catches_an_edited_an_added_and_a_removed_file(tmp_path):
    golden = tmp_path / "golden"
    result = run_cli("good", "--update", golden, "-j", "2")
    assert result.returncode == 0, result.stderr
    assert set(tree(golden)) == GOOD_FILES  # .cu files only: no manifest
    clean = run_cli("good", "--diff", golden, "-j", "2")
    assert (clean.returncode, clean.stdout, clean.stderr) == (0, "", "")

    edited = golden / "kernels" / "fill__7__false.cu"
    edited.write_text(edited.read_text().replace("out[i] = 7;", "out[i] = 8;"))
    (golden / "other" / "copy__i8.cu").unlink()  # the run adds it back
    (golden / "other" / "copy__f16.cu").write_text("// gone\n")  # no such instance
    (golden / "elsewhere").mkdir()
    (golden / "elsewhere" / "x.cu").write_text("// another module's: ignored\n")

    result = run_cli("good", "--diff", golden, "-j", "2")
    assert result.returncode == 1
    out = result.stdout
    assert f"--- {golden.as_posix()}/kernels/fill__7__false.cu" in out
    assert "+++ generated/kernels/fill__7__false.cu" in out
    assert "-        out[i] = 8;" in out and "+        out[i] = 7;" in out
    assert "--- /dev/null\n+++ generated/other/copy__i8.cu" in out
    assert f"--- {golden.as_posix()}/other/copy__f16.cu\n+++ /dev/null" in out
    assert "-// gone" in out
    assert "\n-}" not in out  # only changed lines, not frequent ones like "}"
    assert "elsewhere" not in out
    assert "1 changed, 1 added, 1 removed" in result.stderr

    # -k narrows what the golden folder is compared with
    only = run_cli("good", "-k", "scale", "--diff", golden)
    assert (only.returncode, only.stdout) == (0, "")

    assert run_cli("good", "--update", golden, "-j", "2").returncode == 0
    assert set(tree(golden)) == GOOD_FILES | {"elsewhere/x.cu"}
    assert run_cli("good", "--diff", golden, "-j", "2").returncode == 0


def test_examples_match_kdsls_own_golden_files():
    """The CLI writes what tests/test_golden.py (the pytest plugin) checks."""
    result = run_cli("examples", "--diff", "tests/golden", "-j", "2", cwd=ROOT)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_kdsl_testing_plugin_in_a_users_project(tmp_path):
    """A project's own golden tests: fail with a diff, refresh with one flag."""
    (tmp_path / "mykernels.py").write_text(textwrap.dedent("""\
            import kdsl
            from kdsl import Int32, Pointer, thread_idx

            T = kdsl.TypeVar("T", bound=kdsl.Num)


            @kdsl.kernel(dtypes=[kdsl.Float32, kdsl.Int32])
            def twice(x: Pointer[T]):
                i = thread_idx.x
                x[i] = x[i] + x[i]
            """))
    (tmp_path / "test_mine.py").write_text(textwrap.dedent("""\
            from mykernels import twice


            def test_one(golden):
                golden.check(twice.dispatch("f32"), "golden/one")


            def test_all(golden):
                golden.check_kernel(twice, "golden/all")
            """))

    def pytest(*args):
        return subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )

    first = pytest()
    assert first.returncode == 1 and "run pytest --update-golden" in first.stdout
    assert pytest("--update-golden").returncode == 0
    assert set(tree(tmp_path / "golden")) == {
        "one/twice__f32.cu",
        "all/twice__f32.cu",
        "all/twice__i32.cu",
    }
    (tmp_path / "golden" / "all" / "twice__u8.cu").write_text("// stale\n")
    source = (tmp_path / "mykernels.py").read_text()
    (tmp_path / "mykernels.py").write_text(source.replace("x[i] + x[i]", "x[i] * 2"))
    failed = pytest()
    assert failed.returncode == 1, failed.stdout
    assert "2 failed" in failed.stdout
    assert "-    // x[i] = x[i] + x[i]" in failed.stdout
    assert "+    // x[i] = x[i] * 2" in failed.stdout
    assert "stale golden file golden/all/twice__u8.cu" in failed.stdout
    assert pytest("--update-golden").returncode == 0
    assert not (tmp_path / "golden" / "all" / "twice__u8.cu").exists()
    assert pytest().returncode == 0
