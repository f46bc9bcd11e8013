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
stale files in ``folder`` at those constexpr values (checks of the same kernel
at other values may share the folder).  Run ``pytest --update-golden`` to
(re)write the files instead (and remove stale ones), then review them like
code.

A relative ``folder`` (or ``path``) is relative to pytest's root directory
(``rootdir``: the folder of the ``pytest.ini``, ``pyproject.toml`` or
``setup.cfg`` pytest found, see pytest's docs), not to the working folder,
so that running pytest from ``tests/`` or from the project's root finds the
same files.  An absolute path is used as it is.
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

    def __init__(self, update: bool, root=None):
        self.update = update
        self.root = Path(root) if root is not None else None  # pytest's rootdir

    def path(self, path) -> Path:
        """``path`` as the fixture reads it: relative to pytest's rootdir."""
        path = Path(path)
        if self.root is not None and not path.is_absolute():
            return self.root / path
        return path

    def shown(self, path: Path) -> Path:
        """``path`` as messages show it: relative to the rootdir if under it."""
        if self.root is not None:
            try:
                return path.relative_to(self.root)
            except ValueError:
                pass
        return path

    def check_text(self, text: str, path) -> None:
        """``text`` against the file ``path`` (relative to pytest's rootdir)."""
        path = self.path(path)
        if self.update:
            path.parent.mkdir(parents=True, exist_ok=True)
            if not path.exists() or path.read_text() != text:
                path.write_text(text)
            return
        if not path.exists():
            pytest.fail(
                f"no golden file {self.shown(path)}; run pytest --update-golden",
                pytrace=False,
            )
        expected = path.read_text()
        if expected != text:
            pytest.fail(
                f"generated code differs from the golden file ({_REFRESH}):\n"
                + golden_diff(expected, text, self.shown(path)),
                pytrace=False,
            )

    def check(self, instance, folder) -> None:
        """``instance.source`` against ``folder/<instance.name>.cu``."""
        self.check_text(instance.source, self.path(folder) / f"{instance.name}.cu")

    def check_kernel(self, kernel, folder, **constexprs) -> None:
        """Every dtype combination of ``kernel`` (at ``constexprs``, else the
        defaults) against ``folder``.  The kernel's other files in ``folder``
        at the same constexpr values are stale (no combination makes them
        any more), and so are files whose constexpr names are not the
        kernel's; files at other values belong to other calls (another test
        may check the kernel at ``BLOCK=1024`` in the same folder)."""
        folder = self.path(folder)
        made = set()
        mine = set()  # the header's constexprs line of this call's instances
        problems = []
        for dtypes in kernel.combinations():
            inst = kernel.dispatch(*dtypes, **constexprs)
            made.add(f"{inst.name}.cu")
            mine.add(_header(inst.source).get("constexprs"))
            try:
                self.check(inst, folder)
            except pytest.fail.Exception as exc:
                problems.append(str(exc))
        names = {c.name for c in kernel.signature.constexprs}
        stale = sorted(
            p
            for p in folder.glob(f"{kernel.name}*.cu")
            if p.name not in made
            and (p.stem == kernel.name or p.stem.startswith(kernel.name + "__"))
            and _stale_for(p, kernel.name, mine, names)
        )
        for path in stale:
            if self.update:
                path.unlink()
            else:
                problems.append(
                    f"stale golden file {self.shown(path)} ({_REFRESH}):\n"
                    + golden_diff(path.read_text(), None, self.shown(path))
                )
        if problems:
            pytest.fail("\n".join(problems), pytrace=False)


def _header(text: str) -> dict:
    """The ``// key: value`` lines at the top of a generated file."""
    out = {}
    for line in text.splitlines()[:12]:
        key, sep, value = line[3:].partition(":")
        if line.startswith("// ") and sep and key.isidentifier():
            out[key] = value.strip()
    return out


def _stale_for(path: Path, kernel: str, mine: set, names: set) -> bool:
    """Whether the golden file ``path`` of ``kernel`` is stale for a
    check_kernel call whose instances have the constexprs lines ``mine``:
    it has the same constexpr values (then no dtype combination makes it
    any more), other constexpr names, or no header kdsl wrote."""
    try:
        head = _header(path.read_text())
    except (OSError, UnicodeDecodeError):
        return True
    if head.get("kernel") != kernel:
        return True
    line = head.get("constexprs")
    theirs = {item.split("=", 1)[0] for item in line.split(", ")} if line else set()
    return line in mine or theirs != names


@pytest.fixture
def golden(request) -> Golden:
    """Compare generated sources with golden files (``--update-golden``
    rewrites); relative folders are relative to pytest's rootdir."""
    config = request.config
    return Golden(config.getoption("--update-golden"), config.rootpath)
