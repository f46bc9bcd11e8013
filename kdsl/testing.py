"""Golden-file testing of generated CUDA C++, as a pytest plugin.

Installing kdsl registers this plugin with pytest (the ``pytest11`` entry
point ``kdsl``); a project's tests use its ``golden`` fixture directly, with
no ``pytest_plugins`` line (adding one would register the plugin twice)::

    from my_kernels import vector_add

    def test_vector_add_source(golden):
        golden.check(vector_add.dispatch("f32"), "tests/golden/vector_add")

    def test_every_vector_add_instance(golden):
        golden.check_kernel(vector_add, "tests/golden/vector_add")

``golden.check(instance, folder)`` compares ``instance.source`` with
``folder/<instance.name>.cu`` and fails with a unified diff when they differ
(or the file is missing).  ``golden.check_kernel(kernel, folder, **constexprs)``
does so for every supported dtype combination and also fails on the kernel's
stale files in ``folder``.  Run ``pytest --update-golden`` to (re)write the
files instead (and remove stale ones), then review them like code.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kdsl.transpile.cli.output import unified_diff


def pytest_addoption(parser):
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite kdsl golden .cu files instead of comparing against them",
    )


def golden_diff(expected: str | None, actual: str | None, path) -> str:
    """A unified diff from the golden text to the generated text."""
    return unified_diff(expected, actual, f"{path} (golden)", f"{path} (generated)")


_REFRESH = "run pytest --update-golden if the change is intended"


class Golden:
    """The ``golden`` fixture: compare generated code with checked-in files."""

    def __init__(self, update: bool):
        self.update = update

    def check_text(self, text: str, path) -> None:
        path = Path(path)
        if self.update:
            path.parent.mkdir(parents=True, exist_ok=True)
            if not path.exists() or path.read_text() != text:
                path.write_text(text)
            return
        if not path.exists():
            pytest.fail(
                f"no golden file {path}; run pytest --update-golden", pytrace=False
            )
        expected = path.read_text()
        if expected != text:
            pytest.fail(
                f"generated code differs from the golden file ({_REFRESH}):\n"
                + golden_diff(expected, text, path),
                pytrace=False,
            )

    def check(self, instance, folder) -> None:
        """``instance.source`` against ``folder/<instance.name>.cu``."""
        self.check_text(instance.source, Path(folder) / f"{instance.name}.cu")

    def check_kernel(self, kernel, folder, **constexprs) -> None:
        """Every dtype combination of ``kernel`` (at ``constexprs``, else the
        defaults) against ``folder``.  At the defaults, the kernel's other
        files in ``folder`` are stale (other values may share the folder)."""
        folder = Path(folder)
        made = set()
        problems = []
        for dtypes in kernel.combinations():
            inst = kernel.dispatch(*dtypes, **constexprs)
            made.add(f"{inst.name}.cu")
            try:
                self.check(inst, folder)
            except pytest.fail.Exception as exc:
                problems.append(str(exc))
        stale = []
        if not constexprs:  # other constexpr values may share the folder
            stale = sorted(
                p
                for p in folder.glob(f"{kernel.name}*.cu")
                if p.name not in made
                and (p.stem == kernel.name or p.stem.startswith(kernel.name + "__"))
            )
        for path in stale:
            if self.update:
                path.unlink()
            else:
                problems.append(
                    f"stale golden file {path} ({_REFRESH}):\n"
                    + golden_diff(path.read_text(), None, path)
                )
        if problems:
            pytest.fail("\n".join(problems), pytrace=False)


@pytest.fixture
def golden(request) -> Golden:
    """Compare generated sources with golden files (``--update-golden`` rewrites)."""
    return Golden(request.config.getoption("--update-golden"))
