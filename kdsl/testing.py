"""Golden-file testing of generated CUDA C++, as a pytest plugin.

Use it in a project's tests::

    pytest_plugins = ["kdsl.testing"]

    def test_my_kernel_source(golden):
        golden.check(my_kernel.dispatch("f32"), "tests/golden/my_kernel")

``golden.check(instance, folder)`` compares ``instance.source`` with
``folder/<instance.name>.cu`` and fails with a unified diff when they differ
(or the file is missing).  Run ``pytest --update-golden`` to (re)write the
files instead, then review them like code.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest


def pytest_addoption(parser):
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite kdsl golden .cu files instead of comparing against them",
    )


def golden_diff(expected: str, actual: str, path) -> str:
    """A unified diff from the golden text to the generated text."""
    return "".join(
        difflib.unified_diff(
            expected.splitlines(keepends=True),
            actual.splitlines(keepends=True),
            fromfile=f"{path} (golden)",
            tofile=f"{path} (generated)",
        )
    )


class Golden:
    def __init__(self, update: bool):
        self.update = update

    def check_text(self, text: str, path) -> None:
        path = Path(path)
        if self.update:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            return
        if not path.exists():
            pytest.fail(
                f"no golden file {path}; run pytest --update-golden", pytrace=False
            )
        expected = path.read_text()
        if expected != text:
            pytest.fail(
                "generated code differs from the golden file "
                "(run pytest --update-golden if the change is intended):\n"
                + golden_diff(expected, text, path),
                pytrace=False,
            )

    def check(self, instance, folder) -> None:
        self.check_text(instance.source, Path(folder) / f"{instance.name}.cu")


@pytest.fixture
def golden(request) -> Golden:
    """Compare generated sources with golden files (``--update-golden`` rewrites)."""
    return Golden(request.config.getoption("--update-golden"))
