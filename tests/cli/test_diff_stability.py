"""Diff stability: a kernel's .cu depends on its code, not on where it sits.

Moving a kernel within its file, adding unrelated code above it or
reformatting comments leaves its .cu byte for byte; editing one statement
changes only that statement's comment and code lines.
"""

import difflib
import itertools

from clirun import load

KERNEL = """
@kdsl.kernel
def blend(a: Pointer[Float32], b: Pointer[Float32], out: Pointer[Float32], n: Int32,
          BLOCK: Constexpr[int] = 128):
    i = block_idx.x * BLOCK + thread_idx.x
    if i < n:
        w = Float32(0.25)
        out[i] = a[i] * w + b[i] * (1.0 - w)
"""

HEAD = """import kdsl
from kdsl import Constexpr, Float32, Int32, Pointer, block_idx, thread_idx
"""

_count = itertools.count()


def _source(tmp_path, text: str) -> str:
    """The .cu of ``blend`` in a module file ``kernels.py`` holding ``text``."""
    folder = tmp_path / f"v{next(_count)}"
    folder.mkdir()
    path = folder / "kernels.py"
    path.write_text(text)
    module = load(path, f"stability_{folder.name}")
    return module.blend.dispatch().source


def test_moving_the_kernel_and_adding_code_above_it(tmp_path):
    base = _source(tmp_path, HEAD + KERNEL + "\n" + "SCALE = 2\n")
    moved = _source(tmp_path, HEAD + "\nSCALE = 2\n\n\n" + KERNEL)
    above = HEAD + '\n"""Docs."""\n\nTABLE = [1, 2, 3]\n\n\ndef unrelated(x):\n'
    above += "    return x * 2\n\n\n" + KERNEL
    assert moved == base
    assert _source(tmp_path, above) == base


def test_reformatting_comments(tmp_path):
    base = _source(tmp_path, HEAD + KERNEL)
    commented = KERNEL.replace(
        "    i = block_idx.x", "    # the global index\n    i = block_idx.x"
    ).replace("w = Float32(0.25)", "w = Float32(0.25)   #   a weight,  reformatted")
    assert commented != KERNEL
    assert _source(tmp_path, HEAD + "# a new header comment\n" + commented) == base


def test_editing_one_statement_changes_only_its_lines(tmp_path):
    base = _source(tmp_path, HEAD + KERNEL).splitlines()
    edited_kernel = KERNEL.replace("a[i] * w + b[i]", "a[i] * w - b[i]")
    edited = _source(tmp_path, HEAD + edited_kernel).splitlines()
    changes = [
        op
        for op in difflib.SequenceMatcher(
            None, base, edited, autojunk=False
        ).get_opcodes()
        if op[0] != "equal"
    ]
    assert len(changes) == 1
    tag, i1, i2, j1, j2 = changes[0]
    assert tag == "replace" and (i2 - i1, j2 - j1) == (2, 2)
    assert [l.strip() for l in base[i1:i2]] == [
        "// out[i] = a[i] * w + b[i] * (1.0 - w)",
        "out[i] = a[i] * 0.25f + b[i] * 0.75f;",
    ]
    assert [l.strip() for l in edited[j1:j2]] == [
        "// out[i] = a[i] * w - b[i] * (1.0 - w)",
        "out[i] = a[i] * 0.25f - b[i] * 0.75f;",
    ]
