"""Issue 23 (reliability, round 3): reproducers of what the fuzzing
campaign found, each a test that failed before its fix."""

import builtins
import importlib.util
import itertools
import textwrap

import numpy as np
import pytest

import kdsl

_count = itertools.count()


def _module(folder, text):
    """Import ``text`` as a module written to a file (kdsl reads sources)."""
    path = folder / f"round3_{next(_count)}.py"
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# item 1: ``from kdsl import *``

STAR = """
from kdsl import *


@kernel
def k(out: Pointer[Float32], n: Int32):
    i = thread_idx.x
    if i < n:
        out[i] = Float32(2)


def host():
    return list(range(3)), min(4, 5), max(4, 5)
"""


def test_a_star_import_shadows_no_python_builtin():
    shadowed = [n for n in kdsl.__all__ if hasattr(builtins, n)]
    assert shadowed == []
    assert all(hasattr(kdsl, n) for n in kdsl.__all__)
    for name in ("kernel", "func", "Float32", "Pointer", "thread_idx", "syncthreads"):
        assert name in kdsl.__all__


def test_a_star_imported_module_compiles_and_its_host_code_runs(tmp_path):
    module = _module(tmp_path, STAR)
    assert module.host() == ([0, 1, 2], 4, 5)
    assert "__global__" in module.k.dispatch().source
    from kdsl.runtime.compile import kernel_fingerprint, transpiled

    assert kernel_fingerprint(module.k)
    transpiled(module.k.dispatch())  # the compile path's first step
    out = np.zeros(4, np.float32)
    module.k.interpret[1, 4](out, 3)
    assert out.tolist() == [2, 2, 2, 0]
