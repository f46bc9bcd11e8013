"""The repository's documentation stands alone (issue 15, item 8): every
relative link in README.md and docs/ names a file of the repository, nothing
points to documents that are not in it (a SPEC, a reference/ folder), the
docs index lists every page, and the LICENSE is the Apache-2.0 text that
pyproject.toml declares."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _prose(page) -> str:
    """The page without its code (fenced blocks and inline spans)."""
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    return re.sub(r"`[^`\n]*`", "", text)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_relative_links_name_files_in_the_repository(page):
    missing = []
    for target in LINK.findall(_prose(page)):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = (page.parent / target.split("#")[0]).resolve()
        if not path.exists():
            missing.append(target)
    assert not missing, missing


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_page_points_to_documents_outside_the_repository(page):
    text = page.read_text()
    assert not re.search(r"\bSPEC\b", text)
    assert "reference/" not in text
    assert "arithmetic-types.md" not in text


def test_the_readme_lists_every_docs_page():
    readme = (ROOT / "README.md").read_text()
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f"(docs/{page.name})" in readme, page.name


def test_the_license_is_the_apache_2_text_pyproject_declares():
    pyproject = (ROOT / "pyproject.toml").read_text()  # (tomllib is 3.11+)
    assert re.search(r'^license = "Apache-2.0"$', pyproject, re.M)
    text = (ROOT / "LICENSE").read_text()
    assert text.split()[:5] == ["Apache", "License", "Version", "2.0,", "January"]
    assert "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION" in text
    assert "END OF TERMS AND CONDITIONS" in text
    assert len(text.splitlines()) > 190  # the full text, not a notice


def test_kdsl_docstring_points_to_the_docs():
    import kdsl

    assert "SPEC" not in kdsl.__doc__ and "reference/" not in kdsl.__doc__
