"""kdsl-transpile's output: the OUTDIR layout, the manifest, --stdout, the
selection flags, determinism, --line-directives and the progress display."""

import fcntl
import json
import os
import pty
import struct
import subprocess
import sys
import termios

import pytest

from clirun import FIXTURES, GOOD_FILES, load, run_cli, tree


@pytest.fixture(scope="module")
def outdir(tmp_path_factory):
    out = tmp_path_factory.mktemp("out")
    result = run_cli("good", "-o", out, "-j", "2")
    assert result.returncode == 0, result.stderr
    # not a terminal: no progress bar, only the one-line summary (issue 30, item 7)
    assert result.stdout == ""
    assert result.stderr == f"5 instance(s) of 3 kernel(s); written to {out}\n"
    return out


def test_one_cu_per_instance_under_its_module(outdir):
    assert set(tree(outdir)) == GOOD_FILES | {"manifest.json"}


def test_files_are_the_instances_sources(outdir):
    module = load(FIXTURES / "good" / "kernels.py", "cli_test_kernels")
    inst = module.scale.dispatch("f64")
    assert (outdir / "kernels" / f"{inst.name}.cu").read_text() == inst.source
    text = (outdir / "other" / "copy__bf16.cu").read_text()
    assert 'extern "C" __global__ void copy__bf16(' in text
    assert "// ---- kdsl prelude ----" in text  # standalone: the prelude is inlined


def test_manifest(outdir):
    text = (outdir / "manifest.json").read_text()
    manifest = json.loads(text)
    assert text == json.dumps(manifest, indent=2, sort_keys=True) + "\n"
    from kdsl import __version__

    assert manifest["kdsl"] == __version__
    entries = {e["file"]: e for e in manifest["instances"]}
    assert set(entries) == GOOD_FILES
    assert [e["file"] for e in manifest["instances"]] == sorted(entries)
    e = entries["kernels/scale__f32__2p0__128.cu"]
    assert e["module"] == "kernels" and e["kernel"] == "scale"
    assert e["instance"] == "scale__f32__2p0__128"
    assert e["dtypes"] == {"D": "f32"}
    assert e["constexprs"] == {"FACTOR": 2.0, "BLOCK": 128}
    assert e["python_source"] == "good/kernels.py"
    assert entries["kernels/fill__7__false.cu"]["constexprs"] == {
        "VALUE": 7,
        "CLEAR": False,
    }
    import hashlib

    py = (FIXTURES / "good" / "kernels.py").read_bytes()
    assert e["python_sha256"] == hashlib.sha256(py).hexdigest()
    cu = (outdir / e["file"]).read_bytes()
    assert e["cu_sha256"] == hashlib.sha256(cu).hexdigest()
    # nothing that depends on the machine or the moment
    assert str(FIXTURES) not in text and str(outdir) not in text
    assert '"/' not in text


def test_byte_identical_across_runs_and_job_counts(outdir, tmp_path):
    again = tmp_path / "again"
    result = run_cli("good/other.py", "good/kernels.py", "-o", again, "-j", "1")
    assert result.returncode == 0, result.stderr
    assert tree(again) == tree(outdir)


def test_outdir_keeps_only_the_last_runs_files(tmp_path):
    out = tmp_path / "out"
    (out / "kernels").mkdir(parents=True)
    (out / "kernels" / "mine.txt").write_text("not kdsl's")
    assert run_cli("good", "-o", out, "-j", "2").returncode == 0
    assert run_cli("good/kernels.py", "-k", "fill", "-o", out).returncode == 0
    assert set(tree(out)) == {
        "kernels/fill__7__false.cu",
        "kernels/mine.txt",
        "manifest.json",
    }


def test_stdout_one_instance_is_its_source():
    module = load(FIXTURES / "good" / "kernels.py", "cli_test_kernels2")
    result = run_cli("good/kernels.py", "-k", "fill", "--stdout")
    assert result.returncode == 0, result.stderr
    assert result.stdout == module.fill.dispatch().source


def test_stdout_many_instances_are_labelled():
    result = run_cli("good/other.py", "--stdout")
    assert result.returncode == 0, result.stderr
    assert "// ==> other/copy__bf16.cu <==" in result.stdout
    assert "// ==> other/copy__i8.cu <==" in result.stdout


def test_selection_flags(tmp_path):
    result = run_cli(
        "good",
        "-k",
        "scale,copy",
        "--dtypes",
        "f64,bf16",
        "-D",
        "BLOCK=64,0x100",
        "-D",
        "FACTOR=-1",
        "-o",
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert set(tree(tmp_path)) == {
        "kernels/scale__f64__m1p0__64.cu",
        "kernels/scale__f64__m1p0__256.cu",
        "other/copy__bf16.cu",
        "manifest.json",
    }
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    values = [e["constexprs"] for e in manifest["instances"] if e["kernel"] == "scale"]
    assert {"FACTOR": -1.0, "BLOCK": 64} in values  # -D 1 of a float constexpr: 1.0


def test_dtypes_for_one_dtype_parameter_and_bool_define(tmp_path):
    result = run_cli(
        "good", "--dtypes", "T=i8", "-D", "CLEAR=true", "-k", "copy,fill", "--stdout"
    )
    assert result.returncode == 0, result.stderr
    labels = [l for l in result.stdout.splitlines() if l.startswith("// ==>")]
    assert labels == [
        "// ==> kernels/fill__7__true.cu <==",
        "// ==> other/copy__i8.cu <==",
    ]


def test_line_directives():
    result = run_cli("good/kernels.py", "-k", "fill", "--stdout", "--line-directives")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    at = lines.index("    // i = block_idx.x * 64 + thread_idx.x")
    text = (FIXTURES / "good" / "kernels.py").read_text().splitlines()
    number = text.index("    i = block_idx.x * 64 + thread_idx.x") + 1
    assert lines[at + 1] == f'#line {number} "kernels.py"'


def test_progress_only_on_a_terminal(tmp_path):
    """On a terminal: a tqdm bar and a summary (on stderr); piped: silence."""
    controller, terminal = pty.openpty()
    size = struct.pack("HHHH", 24, 100, 0, 0)  # a fresh pty is 0 columns wide
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, size)
    proc = subprocess.Popen(
        [sys.executable, "-m", "kdsl.transpile.cli", "good", "-o", tmp_path, "-j", "1"],
        cwd=FIXTURES,
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        env={**os.environ, "TQDM_MININTERVAL": "0"},
    )
    os.close(terminal)
    seen = b""
    while True:
        try:
            chunk = os.read(controller, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    assert proc.wait(timeout=60) == 0
    os.close(controller)
    text = seen.decode(errors="replace")
    assert "transpiling" in text and "instance" in text  # the tqdm bar
    assert f"5 instance(s) of 3 kernel(s); written to {tmp_path}" in text
