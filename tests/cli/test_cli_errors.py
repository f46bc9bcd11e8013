"""User errors: exit status 2, printed in the compiler format of SPEC section 7
(``path.py:LINE:COL: error[CODE]: what``, the source line, a caret), with no
Python traceback and nothing written."""

import re

import pytest

from clirun import FIXTURES, run_cli

LOCATED = re.compile(
    r"^(?P<path>[\w/.]+\.py):(?P<line>\d+):(?P<col>\d+): error\[E\d{3}\]: "
)


def _line_of(path, text):
    lines = (FIXTURES / path).read_text().splitlines()
    return next(i for i, l in enumerate(lines, 1) if text in l)


def _assert_located(stderr, path, line_text, caret_over):
    first, source, caret = stderr.splitlines()[:3]
    m = LOCATED.match(first)
    assert m, stderr
    assert m["path"] == path and int(m["line"]) == _line_of(path, line_text), stderr
    assert (
        source.strip()
        == (FIXTURES / path).read_text().splitlines()[int(m["line"]) - 1].strip()
    )
    start = caret.index("^")
    assert source[start : start + len(caret_over)] == caret_over, stderr
    assert set(caret.strip()) == {"^"}
    assert "Traceback" not in stderr


@pytest.mark.parametrize(
    "define, shown",
    [
        ("BLOCK=abc", "got 'abc'"),  # not an int
        ("BLOCK=1.5", "got '1.5'"),  # a float for an int
        ("FACTOR=x", "Constexpr[float], got 'x'"),
    ],
)
def test_define_checked_against_the_declared_type(define, shown, tmp_path):
    result = run_cli("good/kernels.py", "-k", "scale", "-D", define, "-o", tmp_path)
    assert result.returncode == 2
    assert "error[E615]" in result.stderr and shown in result.stderr
    name = define.split("=")[0]
    _assert_located(result.stderr, "good/kernels.py", f"{name}: Constexpr", name)
    assert list(tmp_path.iterdir()) == []


def test_bool_define_for_an_int_constexpr_is_rejected():
    result = run_cli("good/kernels.py", "-k", "fill", "-D", "VALUE=true", "--stdout")
    assert result.returncode == 2
    assert "constexpr 'VALUE' of 'fill' is Constexpr[int]" in result.stderr


def test_missing_constexpr_default_names_it():
    result = run_cli("bad/no_default.py", "--stdout")
    assert result.returncode == 2
    assert "error[E616]" in result.stderr
    assert "constexpr 'TILE' of 'tiled' has no default" in result.stderr
    assert "-D TILE=<int>" in result.stderr
    _assert_located(result.stderr, "bad/no_default.py", "def tiled", "TILE")
    ok = run_cli("bad/no_default.py", "-D", "TILE=8", "--stdout")
    assert ok.returncode == 0 and "tiled__8__false" in ok.stdout


def test_kernel_error_is_located_with_its_instance(tmp_path):
    result = run_cli("bad/type_error.py", "-o", tmp_path)
    assert result.returncode == 2
    assert "error[E101]" in result.stderr
    _assert_located(result.stderr, "bad/type_error.py", "& 1.5", "x[i] & 1.5")
    assert "in instance broken" in result.stderr
    assert not (tmp_path / "manifest.json").exists()


def test_import_error_is_located_in_the_users_file():
    result = run_cli("bad/import_error.py")
    assert result.returncode == 2
    assert "error[E602]" in result.stderr and "KeyError" in result.stderr
    _assert_located(result.stderr, "bad/import_error.py", '["blok"]', "BLOCK")


@pytest.mark.parametrize(
    "args, code, what",
    [
        (["nowhere.py"], "E601", "no such file or folder"),
        (["good", "-k", "nope"], "E603", "no kernel named 'nope'"),
        (["good", "-D", "NOPE=1"], "E610", "-D NOPE"),
        (["good", "-D", "BLOCK"], "E605", "expected NAME=VALUE"),
        (["good", "--dtypes", "f99"], "E411", "'f99' is not a kdsl dtype"),
        (["good", "--dtypes", "Q=f32"], "E611", "--dtypes Q"),
        (["good", "-k", "scale", "--dtypes", "i32"], "E617", "supported: D: f32, f64"),
        (["good", "--check", "--arch", "sm9"], "E613", "--arch 'sm9'"),
    ],
)
def test_command_line_errors(args, code, what):
    result = run_cli(*args)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(f"error[{code}]: "), result.stderr
    assert what in result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_paths_and_flags_that_name_nothing_usable(tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "notes.txt").write_text("")
    (tmp_path / "broken.py").write_text("def f(:\n")
    (tmp_path / "plain.py").write_text("X = 1\n")
    cases = [
        ([tmp_path / "empty"], "E607", "folder holds no .py files"),
        ([tmp_path / "notes.txt"], "E606", "not a .py file or a folder"),
        ([tmp_path / "broken.py"], "E608", "SyntaxError"),
        ([tmp_path / "plain.py"], "E609", "no kernel instance matches"),
        (["good", "--dtypes", ","], "E612", "names no dtype"),
    ]
    for args, code, what in cases:
        result = run_cli(*args)
        assert result.returncode == 2, result.stderr
        assert f"error[{code}]: " in result.stderr and what in result.stderr
        assert "Traceback" not in result.stderr


def test_usage_errors_exit_2():
    assert run_cli("good", "-j", "0").returncode == 2
    assert run_cli("good", "-o", "x", "--stdout").returncode == 2
    assert run_cli().returncode == 2


def test_two_modules_with_one_name(tmp_path):
    (tmp_path / "kernels.py").write_text("")
    result = run_cli("good/kernels.py", tmp_path / "kernels.py")
    assert result.returncode == 2
    assert result.stderr.startswith("error[E604]: ")
