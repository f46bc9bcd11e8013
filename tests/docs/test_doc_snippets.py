"""Doc snippets that launch on the GPU run as written on the CPU too: the
same code with CuPy swapped for numpy (or device="cuda" for "cpu") and the
launch through the interpreter."""

import re
import runpy
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


def _blocks(page):
    return re.findall(r"```python\n(.*?)```", (ROOT / "docs" / page).read_text(), re.S)


def test_autotune_md_first_example_runs_in_the_interpreter(tmp_path):
    code = _blocks("autotune.md")[0]
    assert "import cupy as cp" in code and "scale[lambda" in code
    code = code.replace("import cupy as cp", "import numpy as cp")
    code = code.replace("scale[lambda", "scale.interpret[lambda")
    script = tmp_path / "autotune_doc.py"
    script.write_text(code)
    env = runpy.run_path(str(script))
    # "afterwards x holds exactly what one launch leaves: x + x"
    np.testing.assert_array_equal(env["x"], np.full(1 << 20, 2, np.float32))


def test_pytorch_md_examples_ops_snippet_runs_on_cpu_tensors(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    (code,) = [b for b in _blocks("pytorch.md") if "examples.pytorch.ops" in b]
    script = tmp_path / "ops_doc.py"
    script.write_text(code.replace('device="cuda"', 'device="cpu"'))
    monkeypatch.syspath_prepend(str(ROOT))  # "from the repository root"
    env = runpy.run_path(str(script))
    x, w = env["x"], env["w"]
    ref_x = x.detach().float().requires_grad_()
    ref_w = w.detach().float().requires_grad_()
    ln = torch.nn.functional.layer_norm(
        torch.nn.functional.gelu(ref_x), (1024,), ref_w, None, 1e-5
    )
    ref = torch.softmax(ln, dim=-1)
    torch.testing.assert_close(env["y"].float(), ref, atol=1e-2, rtol=5e-2)
    assert x.grad is not None and x.grad.shape == x.shape
    assert w.grad is not None and w.grad.shape == w.shape
    out = env["model"](x.detach())
    ref2 = torch.softmax(torch.nn.functional.gelu(x.detach().float()), dim=-1)
    torch.testing.assert_close(out.float(), ref2, atol=1e-2, rtol=5e-2)
