"""docs/pytorch.md on CPU tensors (issue 30, item 2): its first example,
then its float64 ``gradcheck`` snippet, pass as written (the kernels compute
in Float64 for Float64 data); and the CPU-wheel install route is given."""

import re
import runpy
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

DOC = Path(__file__).resolve().parents[2] / "docs" / "pytorch.md"


def _python_blocks():
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)


def test_the_gradcheck_snippet_passes_in_float64_on_the_cpu(tmp_path):
    first = _python_blocks()[0].replace('"mylib::square"', '"kdsl_doc_gc::square"')
    first = first.replace('device="cuda"', 'device="cpu"')
    (check,) = [b for b in _python_blocks() if "gradcheck" in b]
    assert "dtype=torch.float64" in check and "cuda" not in check
    script = tmp_path / "gradcheck_doc.py"
    script.write_text(first + "\n" + check)
    env = runpy.run_path(str(script))  # asserts gradcheck itself
    x = env["x"].detach()
    assert x.dtype == torch.float64
    assert torch.equal(env["square_op"](x), x * x)  # exact in Float64


def test_a_float32_square_would_fail_gradcheck(tmp_path):
    # what the doc's note says: computed in Float32, float64 gradcheck fails
    first = _python_blocks()[0].replace('"mylib::square"', '"kdsl_doc_gc::sq32"')
    first = first.replace('device="cuda"', 'device="cpu"')
    first = first.replace("C = Float64 if D.width == 64 else Float32", "C = Float32")
    script = tmp_path / "float32_doc.py"
    script.write_text(first)
    env = runpy.run_path(str(script))
    x = torch.randn(20, dtype=torch.float64, requires_grad=True)
    assert not torch.autograd.gradcheck(env["square_op"], (x,), raise_exception=False)


def test_the_cpu_wheel_install_route_is_documented():
    text = DOC.read_text()
    assert "pip install torch --index-url https://download.pytorch.org/whl/cpu" in text
