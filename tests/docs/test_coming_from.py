"""docs/coming-from.md's kdsl kernel is real: it runs in the interpreter
and gives numpy's row sums, refuses a block other than BLOCK, and its
instances compile with NVRTC."""

import importlib.util
import re
from pathlib import Path

import numpy as np
import pytest

import kdsl
from kdsl.runtime.nvrtc import compile_to_cubin

DOC = Path(__file__).resolve().parents[2] / "docs" / "coming-from.md"


@pytest.fixture(scope="module")
def row_sum(tmp_path_factory):
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    (code,) = [b for b in blocks if b.startswith("import kdsl\n")]
    path = tmp_path_factory.mktemp("doc") / "coming_from_row_sum.py"
    path.write_text(code)
    spec = importlib.util.spec_from_file_location("coming_from_row_sum", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.row_sum


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_the_doc_kernel_sums_rows(row_sum, dtype):
    rng = np.random.default_rng(0)
    rows, cols = 3, 1000
    x = rng.integers(-8, 8, (rows, cols)).astype(dtype)  # exact sums
    out = np.zeros(rows, dtype)
    row_sum.interpret[rows](x.reshape(-1), out, cols)
    np.testing.assert_array_equal(out, x.astype(np.float64).sum(axis=1))
    out[:] = 0
    row_sum.interpret[rows](x.reshape(-1), out, cols, BLOCK=64)
    np.testing.assert_array_equal(out, x.astype(np.float64).sum(axis=1))


def test_the_doc_kernel_refuses_another_block(row_sum):
    x = np.zeros(10, np.float32)
    with pytest.raises(kdsl.LaunchError, match="BLOCK = 256 threads"):
        row_sum.interpret[1, 128](x, x[:1], 10)


@pytest.mark.parametrize("dtype", ["f32", "bf16"])
def test_the_doc_kernel_compiles(row_sum, dtype):
    inst = row_sum.dispatch(dtype)
    assert compile_to_cubin(inst.source, inst.name)
