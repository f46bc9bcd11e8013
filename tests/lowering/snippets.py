"""Small kernels built from a body of text, written to a file (kdsl reads a
kernel's source) and imported.  A line of the body that ends in ``# <-``
marks where an expected error points."""

import importlib.util
import itertools
import textwrap

HEADER = """\
import kdsl
from kdsl import (
    Array, Boolean, Constexpr, Float16, Float32, Float64, Int32, Int64, Pointer,
    block_dim, block_idx, thread_idx,
)

D = kdsl.TypeVar("D", bound=kdsl.Float)
"""
PARAMS = "x: Pointer[D], out: Pointer[D], n: Int32"
_count = itertools.count()


def make_kernel(folder, body, helpers="", params=PARAMS, dtypes="[kdsl.Float32]"):
    """``(kernel, marked line or None)`` for a kernel ``k`` with ``body``."""
    text = (
        HEADER
        + "\n"
        + textwrap.dedent(helpers).strip("\n")
        + f"\n\n\n@kdsl.kernel(dtypes={dtypes})\ndef k({params}):\n"
        + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ")
        + "\n"
    )
    path = folder / f"snippet_{next(_count)}.py"
    path.write_text(text)
    marked = [n for n, line in enumerate(text.splitlines(), 1) if "# <-" in line]
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.k, (marked[0] if marked else None)
