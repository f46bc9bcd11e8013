"""kdsl-transpile writes only inside the folders it is given: module names
are checked, nothing below OUTDIR or GOLDEN_DIR is reached through a
symbolic link, files are replaced whole, and the stale-file cleanup deletes
only what kdsl's manifest says kdsl wrote.  Every refusal is an error[E6xx]
with exit status 2 and nothing written, never a traceback."""

import hashlib
import json
import os

import pytest

from clirun import FIXTURES, run_cli, tree

OTHER = (FIXTURES / "good" / "other.py").read_text()  # kernel copy: i8 and bf16
VICTIM = "precious, not kdsl's\n"


def _module(folder, name: str):
    """A copy of good/other.py under the file name ``name``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(OTHER)
    return path


def _victim(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(VICTIM)
    return path


def _fails(result, code: str, *phrases: str):
    assert result.returncode == 2, result.stderr
    assert f"error[{code}]: " in result.stderr, result.stderr
    for phrase in phrases:
        assert phrase in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


# -- module names ------------------------------------------------------------------
@pytest.mark.parametrize("flag", ["--update", "-o"])
def test_a_module_named_dot_dot_writes_nothing_outside_its_folder(tmp_path, flag):
    src = _module(tmp_path / "src", "...py")
    (tmp_path / "proj" / "golden").mkdir(parents=True)
    _victim(tmp_path / "proj" / "important.cu")
    before = tree(tmp_path)
    result = run_cli(src, flag, tmp_path / "proj" / "golden", cwd=tmp_path)
    _fails(result, "E618", "src/...py", "module name '..'", "dots")
    assert tree(tmp_path) == before
    # a folder PATH that holds such a file is refused the same way
    _fails(run_cli("src", "-o", "out", cwd=tmp_path), "E618", "'..'")
    assert tree(tmp_path) == before


@pytest.mark.parametrize(
    "name, rule",
    [
        ("..py", "dots"),
        ("manifest.json.py", "manifest.json"),
        ("Manifest.JSON.py", "manifest.json"),
        ("a\\b.py", "path separator"),
        ("k\n#error injected\n.py", "not printable"),
        ("bell\x07.py", "not printable"),
    ],
)
def test_module_names_that_cannot_be_a_folder_are_refused(tmp_path, name, rule):
    src = _module(tmp_path / "src", name)
    result = run_cli(src, "-o", tmp_path / "out")
    _fails(result, "E618", rule, "rename the file")
    assert "\n#error" not in result.stderr  # the name is shown escaped
    assert not (tmp_path / "out").exists()


def test_ordinary_module_names_still_work(tmp_path):
    src = _module(tmp_path / "src", "my kernels-2.py")
    result = run_cli(src, "-o", tmp_path / "out")
    assert result.returncode == 0, result.stderr
    assert "my kernels-2/copy__i8.cu" in tree(tmp_path / "out")


@pytest.mark.parametrize("outdir", ["nonexist/../real", "a/b/../../real", "real/x/.."])
def test_an_outdir_through_a_missing_folder_and_dot_dot_leaves_no_folder(
    tmp_path, outdir
):
    """Issue 23 item 13: ``-o nonexist/../real`` writes real/ and makes no
    empty nonexist/ on the way (the system could not resolve the path through
    a folder that is not there; kdsl reads it as written)."""
    result = run_cli(FIXTURES / "good" / "other.py", "-o", outdir, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert sorted(os.listdir(tmp_path)) == ["real"]
    assert "other/copy__i8.cu" in tree(tmp_path / "real")


# -- symbolic links ----------------------------------------------------------------
@pytest.mark.parametrize("flag", ["--update", "--diff"])
def test_a_golden_file_that_is_a_link_is_neither_followed_nor_replaced(tmp_path, flag):
    victim = _victim(tmp_path / "victim.txt")
    golden = tmp_path / "golden"
    (golden / "other").mkdir(parents=True)
    (golden / "other" / "copy__i8.cu").symlink_to(victim)
    result = run_cli("good/other.py", flag, golden)
    _fails(result, "E620", "other/copy__i8.cu", "symbolic link")
    assert "precious" not in result.stdout + result.stderr  # never read either
    assert victim.read_text() == VICTIM
    assert (golden / "other" / "copy__i8.cu").is_symlink()
    assert sorted(os.listdir(golden / "other")) == ["copy__i8.cu"]


@pytest.mark.parametrize("flag", ["--update", "-o"])
def test_a_module_folder_that_is_a_link_is_never_entered(tmp_path, flag):
    elsewhere = tmp_path / "elsewhere"
    _victim(elsewhere / "copy__f16.cu")  # --update would call it stale
    root = tmp_path / "root"
    root.mkdir()
    (root / "other").symlink_to(elsewhere, target_is_directory=True)
    _fails(run_cli("good/other.py", flag, root), "E620", "symbolic link")
    assert tree(elsewhere) == {"copy__f16.cu": VICTIM.encode()}
    assert sorted(os.listdir(root)) == ["other"]


def test_an_outdir_file_or_manifest_that_is_a_link_is_refused(tmp_path):
    out = tmp_path / "out"
    assert run_cli("good/other.py", "-o", out).returncode == 0
    for rel in ["other/copy__i8.cu", "manifest.json"]:
        victim = _victim(tmp_path / "victim.txt")
        saved = (out / rel).read_bytes()
        (out / rel).unlink()
        (out / rel).symlink_to(victim)
        _fails(run_cli("good/other.py", "-o", out), "E620", rel, "symbolic link")
        assert victim.read_text() == VICTIM
        (out / rel).unlink()
        (out / rel).write_bytes(saved)


def test_the_outdir_and_golden_folder_themselves_may_be_links(tmp_path):
    (tmp_path / "real_out").mkdir()
    (tmp_path / "out").symlink_to(tmp_path / "real_out", target_is_directory=True)
    assert run_cli("good/other.py", "-o", tmp_path / "out").returncode == 0
    assert "other/copy__i8.cu" in tree(tmp_path / "real_out")


# -- the stale-file cleanup --------------------------------------------------------
def test_a_crafted_manifest_deletes_nothing_kdsl_did_not_write(tmp_path):
    out = tmp_path / "out"
    assert run_cli("good/other.py", "-o", out).returncode == 0
    through_link = _victim(tmp_path / "elsewhere" / "victim.cu")
    outside = _victim(tmp_path / "outside.cu")
    (out / "evil").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    unlisted = _victim(out / "other" / "unlisted.cu")  # not in the manifest
    mine = _victim(out / "other" / "mine.cu")
    sha = hashlib.sha256(VICTIM.encode()).hexdigest()
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["instances"] += [
        {"file": file, "cu_sha256": sha}
        for file in [
            "evil/victim.cu",  # through a link
            "../outside.cu",  # outside OUTDIR
            "other/../../outside.cu",
            str(outside),  # absolute
            "other/mine.cu",  # a file kdsl did not write (its hash is forged)
        ]
    ]
    (out / "manifest.json").write_text(json.dumps(manifest))
    mine.write_text("mine, changed since\n")
    result = run_cli("good/other.py", "-o", out)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert through_link.read_text() == VICTIM and outside.read_text() == VICTIM
    assert mine.read_text() == "mine, changed since\n"
    assert unlisted.read_text() == VICTIM
    assert (out / "evil").is_symlink()
    assert "warning: " in result.stderr and "evil/victim.cu" in result.stderr
    # the run's own manifest lists only its own files: the next run warns of
    # nothing (its one line is the summary)
    again = run_cli("good/other.py", "-o", out)
    assert again.returncode == 0
    assert again.stderr == f"2 instance(s) of 1 kernel(s); written to {out}\n"


def test_a_stale_file_is_deleted_only_while_it_is_what_kdsl_wrote(tmp_path):
    out = tmp_path / "out"
    assert run_cli("good/other.py", "-o", out).returncode == 0
    edited = out / "other" / "copy__i8.cu"
    edited.write_text(edited.read_text() + "// my note\n")
    result = run_cli("good/other.py", "--dtypes", "bf16", "-o", out)
    assert result.returncode == 0, result.stderr
    assert edited.exists()
    assert "other/copy__i8.cu" in result.stderr and "changed since" in result.stderr
    # unedited, it goes
    assert run_cli("good/other.py", "-o", out).returncode == 0
    assert run_cli("good/other.py", "--dtypes", "bf16", "-o", out).returncode == 0
    assert not edited.exists()


def test_files_are_replaced_whole_and_leave_no_temporary_files(tmp_path):
    out = tmp_path / "out"
    assert run_cli("good/other.py", "-o", out).returncode == 0
    cu = out / "other" / "copy__i8.cu"
    mask = os.umask(0)
    os.umask(mask)
    assert cu.stat().st_mode & 0o777 == 0o666 & ~mask  # as an ordinary new file
    os.chmod(cu, 0o640)
    cu.write_text("// older\n")
    old = cu.stat()
    assert run_cli("good/other.py", "-o", out).returncode == 0
    new = cu.stat()
    assert new.st_ino != old.st_ino  # a new file renamed over the old one
    assert new.st_mode & 0o777 == 0o640  # with the old file's permissions
    assert set(tree(out)) == {
        "manifest.json",
        "other/copy__bf16.cu",
        "other/copy__i8.cu",
    }


# -- what used to be a traceback ---------------------------------------------------
@pytest.mark.parametrize("flag", ["-o", "--update", "--diff"])
def test_an_outdir_or_golden_folder_that_is_a_file(tmp_path, flag):
    _victim(tmp_path / "file")
    _fails(run_cli("good/other.py", flag, tmp_path / "file"), "E619", "not a folder")
    assert (tmp_path / "file").read_text() == VICTIM


@pytest.mark.parametrize("flag", ["--update", "--diff"])
def test_a_golden_cu_that_is_a_folder(tmp_path, flag):
    golden = tmp_path / "golden"
    (golden / "other" / "copy__i8.cu").mkdir(parents=True)
    result = run_cli("good/other.py", flag, golden)
    _fails(result, "E621", "other/copy__i8.cu", "is a folder")
    assert tree(golden) == {}


@pytest.mark.parametrize("flag", ["--update", "--diff", "-o"])
def test_a_module_folder_that_is_a_file(tmp_path, flag):
    _victim(tmp_path / "root" / "other")
    result = run_cli("good/other.py", flag, tmp_path / "root")
    _fails(result, "E621", "other", "is a file", "a folder")
    assert tree(tmp_path / "root") == {"other": VICTIM.encode()}


@pytest.mark.parametrize("flag", ["--update", "--diff"])
def test_a_golden_cu_that_is_not_utf8(tmp_path, flag):
    golden = tmp_path / "golden"
    (golden / "other").mkdir(parents=True)
    (golden / "other" / "copy__i8.cu").write_bytes(b"// caf\xe9\n")
    result = run_cli("good/other.py", flag, golden)
    _fails(result, "E622", "other/copy__i8.cu", "not UTF-8", "byte offset 6")
    assert tree(golden) == {"other/copy__i8.cu": b"// caf\xe9\n"}


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_folder(tmp_path):
    golden = tmp_path / "golden"
    (golden / "other").mkdir(parents=True)
    os.chmod(golden / "other", 0o555)
    try:
        result = run_cli("good/other.py", "--update", golden)
    finally:
        os.chmod(golden / "other", 0o755)
    _fails(result, "E624", "cannot write", "other/copy__", "Permission denied")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads unreadable files")
def test_an_unreadable_golden_file(tmp_path):
    golden = tmp_path / "golden"
    (golden / "other").mkdir(parents=True)
    (golden / "other" / "copy__i8.cu").write_text("x")
    os.chmod(golden / "other" / "copy__i8.cu", 0)
    result = run_cli("good/other.py", "--diff", golden)
    _fails(result, "E625", "cannot read", "other/copy__i8.cu", "Permission denied")


def test_a_failing_write_or_read_is_an_error_even_for_root(
    tmp_path, monkeypatch, capsys
):
    """The same two errors, with the failure injected (root ignores modes)."""
    from kdsl.transpile.cli import files
    from kdsl.transpile.cli.main import main

    monkeypatch.chdir(FIXTURES)

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    with monkeypatch.context() as m:
        m.setattr(files.tempfile, "mkstemp", refuse)
        status = main(["good/other.py", "-j", "1", "--update", str(tmp_path / "g")])
    err = capsys.readouterr().err
    assert status == 2 and "error[E624]: cannot write" in err, err
    assert "Permission denied" in err and not (tmp_path / "g" / "other").exists()

    assert main(["good/other.py", "-j", "1", "--update", str(tmp_path / "g")]) == 0
    read_bytes = files.Path.read_bytes

    def refuse_golden(path):
        if str(path).startswith(str(tmp_path)):
            refuse()
        return read_bytes(path)

    with monkeypatch.context() as m:
        m.setattr(files.Path, "read_bytes", refuse_golden)
        status = main(["good/other.py", "-j", "1", "--diff", str(tmp_path / "g")])
    err = capsys.readouterr().err
    assert status == 2 and "error[E625]: cannot read" in err, err


def test_a_file_name_too_long_for_the_file_system(tmp_path):
    name = "k" * 250
    (tmp_path / "long.py").write_text(OTHER.replace("def copy(", f"def {name}("))
    result = run_cli(tmp_path / "long.py", "-o", tmp_path / "out")
    _fails(result, "E624", "cannot write", "File name too long")


def test_paths_outside_the_folder_are_refused_by_the_writer(tmp_path):
    """Names are checked before anything is written; the writer checks again."""
    from kdsl.transpile.cli.files import Root
    from kdsl.transpile.errors import DSLError

    root = Root(tmp_path / "out", "-o")
    for rel in ["../x.cu", "a/../../x.cu", "/etc/x.cu", "a//x.cu", "./x.cu", ""]:
        with pytest.raises(DSLError) as info:
            root.locate(rel)
        assert info.value.code == "E623" and "outside" in info.value.message
    assert root.locate("a/x.cu") == tmp_path / "out" / "a" / "x.cu"


@pytest.mark.parametrize("flag", ["--update", "--diff"])
def test_a_golden_cu_kdsl_did_not_write_is_neither_deleted_nor_reported(tmp_path, flag):
    golden = tmp_path / "golden"
    assert run_cli("good/other.py", "--update", golden).returncode == 0
    mine = _victim(golden / "other" / "copy__hand.cu")  # not from kdsl: no header
    result = run_cli("good/other.py", flag, golden)
    assert result.returncode == 0, result.stdout + result.stderr
    assert mine.read_text() == VICTIM
    assert "warning: " in result.stderr and "other/copy__hand.cu" in result.stderr
    assert "not written by kdsl" in result.stderr
    # a stale file that kdsl wrote is still removed
    stale = golden / "other" / "copy__f64.cu"
    stale.write_text((golden / "other" / "copy__i8.cu").read_text())
    result = run_cli("good/other.py", flag, golden)
    assert stale.exists() == (flag == "--diff")
    assert result.returncode == (1 if flag == "--diff" else 0), result.stderr
