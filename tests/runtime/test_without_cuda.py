"""kdsl without its ``cuda`` extra (issue 30, item 8): with CuPy and the
nvidia packages hidden from the import system, transpiling (the CLI and the
API), golden tests and the interpreter work, and a launch or ``--check``
is error E480 naming ``kdsl[cuda]``."""

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# a meta-path finder that makes the cuda extra's modules unimportable
BLOCKER = textwrap.dedent("""\
    import sys

    class _NoCuda:
        HIDDEN = ("cupy", "cupyx", "cupy_backends", "nvidia", "fastrlock")

        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in self.HIDDEN:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, _NoCuda())
    """)


def _run(code, *args, cwd=ROOT):
    return subprocess.run(
        [sys.executable, "-c", BLOCKER + textwrap.dedent(code), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


CLI = """\
import sys
from kdsl.transpile.cli.main import main
status = main(sys.argv[1:])
assert not any(m.split(".")[0] in ("cupy", "nvidia") for m in sys.modules)
sys.exit(status)
"""


def test_the_blocker_blocks():
    result = _run("import cupy")
    assert result.returncode == 1 and "No module named 'cupy'" in result.stderr


def test_the_cli_transpiles_and_diffs_against_golden_files(tmp_path):
    # two modules (tests/cli/test_cli_golden.py diffs every example): what
    # is tested here is that nothing of the cuda extra is imported
    modules = ("examples/vector_add.py", "examples/softmax.py")
    result = _run(CLI, *modules, "-o", str(tmp_path), "--diff", "tests/golden")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "vector_add" / "vector_add__f32__256.cu").exists()
    assert "tests/golden matches" in result.stderr


def test_check_names_the_extra(tmp_path):
    result = _run(CLI, "examples/vector_add.py", "-o", str(tmp_path), "--check")
    assert result.returncode == 2, result.stderr
    assert "error[E480]: --check (NVRTC) needs cupy-cuda13x and nvidia-cuda-nvrtc" in (
        result.stderr
    )
    assert "pip install 'kdsl[cuda]'" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_api_the_golden_fixture_and_the_interpreter_work():
    result = _run("""\
        import sys
        import numpy as np
        from kdsl.testing import Golden
        from examples.vector_add import vector_add

        inst = vector_add.dispatch("f32")
        assert 'extern "C" __global__ void vector_add__f32__256(' in inst.source
        Golden(False, ".").check(inst, "tests/golden/vector_add")
        n = 1000
        x = np.arange(n, dtype=np.float16)
        y = np.ones(n, dtype=np.float16)
        out = np.zeros(n, dtype=np.float16)
        vector_add.interpret[(n + 255) // 256, 256](x, y, out, n)
        assert (out == x + y).all()
        assert not any(m.split(".")[0] in ("cupy", "nvidia") for m in sys.modules)
        print("ok")
        """)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "ok\n"


def test_a_launch_names_the_extra():
    result = _run("""\
        import numpy as np
        import kdsl
        from examples.vector_add import vector_add

        x = np.zeros(256, dtype=np.float32)
        try:
            vector_add[1, 256](x, x, x, 256)
        except kdsl.DSLError as exc:
            print(exc)
        """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(
        "error[E480]: launching kernel 'vector_add' on the GPU needs cupy-cuda13x"
    ), result.stdout
    assert "KDSL_INTERPRET=1" in result.stdout
