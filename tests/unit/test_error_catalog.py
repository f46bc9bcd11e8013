"""One catalog of error codes: every code is defined once (errors.py and
runtime/errors.py), every entry has one meaning and a message with named
fields, each is raised from a handful of places with exactly its fields, and
docs/language.md lists them all."""

import ast
import re
import string
from pathlib import Path

import pytest

import kdsl.runtime.errors  # noqa: F401 - registers the runtime's entries
from kdsl.transpile.errors import CATALOG

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("transpile", "runtime", "kdsl")
MAX_SITES = 5

# Entries whose message may carry a free-form `what`, and why.
FREE_FORM = {
    "internal": "wraps an unexpected exception or a broken IR invariant; a kdsl bug",
}
# Functions that raise a catalog entry named by their first argument.
RAISERS = ("error", "fault", "code_of")
# Calls of a raiser whose name is not a literal, and why.
PASS_THROUGH = {
    "runtime/interpreter/memory.py": "fault() builds the entry its caller names",
}
# Codes of the compiler's entries no kernel can reach through
# tests/errors/test_errors.py (a fixture imports a module and transpiles the
# first instance of `bad`), and why.
NOT_FROM_A_KERNEL = {
    "E109": "Numeric.from_ir_type is an API for backends, not kernel syntax",
    "E201": "a kernel always has a source file in a fixture",
    "E225": "Python itself rejects 'break' outside a loop before kdsl sees it",
    "E231": "every kdsl.math function maps lane by lane today; the mechanism's "
    "refusal is tested in tests/lowering/test_vector_math.py",
    "E237": "a call outside a kernel (tests/lowering/test_builtin_registry.py)",
    "E403": "dispatch() arguments (tests/lowering/test_dispatch.py)",
    "E413": "dispatch() arguments (tests/lowering/test_dispatch.py)",
    "E414": "dispatch() arguments (tests/lowering/test_dispatch.py)",
    "E415": "dispatch() arguments (tests/lowering/test_dispatch.py)",
    "E416": "dispatch() arguments (tests/lowering/test_dispatch.py)",
    "E418": "dispatch() arguments (tests/lowering/test_dispatch.py)",
    "E999": "an internal error is a kdsl bug",
}


def _fields(template: str) -> list:
    return [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]


def _raise_sites():
    """``(name or None, keyword names or None, 'path:line')`` of every call of
    a raiser in the sources (keywords None when the call passes **fields)."""
    sites = []
    for folder in SOURCES:
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for node in ast.walk(ast.parse(path.read_text(), rel)):
                if not isinstance(node, ast.Call):
                    continue
                func = node.func
                named = func.id if isinstance(func, ast.Name) else None
                if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                    named = func.attr if func.value.id == "errors" else None
                if named not in RAISERS or not node.args:
                    continue
                first = node.args[0]
                name = first.value if isinstance(first, ast.Constant) else None
                keywords = {k.arg for k in node.keywords} - {"span"}
                if None in keywords or named == "code_of":
                    keywords = None
                sites.append((name, keywords, f"{rel}:{node.lineno}"))
    return sites


SITES = _raise_sites()


def test_codes_are_unique():
    codes = [kind.code for kind in CATALOG.values()]
    assert len(codes) == len(set(codes))
    assert all(re.fullmatch(r"E\d{3}", code) for code in codes)


def test_no_error_code_is_spelled_outside_the_catalog():
    pattern = re.compile(r"""["']E\d{3}["']""")
    offenders = []
    for folder in SOURCES:
        for path in (ROOT / folder).rglob("*.py"):
            if path.name == "errors.py":
                continue
            for n, line in enumerate(path.read_text().splitlines(), 1):
                if pattern.search(line):
                    offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_a_template_has_named_fields_and_says_something(name):
    template = CATALOG[name].template
    fields = _fields(template)
    assert fields, f"{name}: no field says what went wrong"
    for field in fields:
        assert field.isidentifier(), f"{name}: field {{{field}}} is not a name"
    assert template.strip() != "{" + fields[0] + "}", f"{name}: a bare field"
    if name not in FREE_FORM:
        assert "what" not in fields, f"{name}: name the field after what it holds"


def test_the_free_form_allow_list_is_short_and_current():
    assert len(FREE_FORM) <= 3
    assert set(FREE_FORM) <= set(CATALOG)


def test_every_raised_name_is_in_the_catalog_with_its_fields():
    problems = []
    for name, keywords, where in SITES:
        if name is None:
            if where.split(":")[0] not in PASS_THROUGH:
                problems.append(f"{where}: the entry's name is not a literal")
        elif name not in CATALOG:
            problems.append(f"{where}: no catalog entry {name!r}")
        elif keywords is not None and keywords != set(_fields(CATALOG[name].template)):
            want = sorted(set(_fields(CATALOG[name].template)))
            problems.append(f"{where}: {name} takes {want}, given {sorted(keywords)}")
    assert not problems, "\n".join(problems)


def test_no_entry_is_raised_from_more_than_a_handful_of_places():
    where: dict = {}
    for name, _, site in SITES:
        if name is not None:
            where.setdefault(name, []).append(site)
    crowded = {n: s for n, s in where.items() if len(s) > MAX_SITES}
    assert not crowded, "\n".join(f"{n}: {', '.join(s)}" for n, s in crowded.items())
    unused = sorted(set(CATALOG) - set(where))
    assert not unused, f"catalog entries never raised: {unused}"


def test_every_compile_time_code_has_a_located_fixture():
    expect = re.compile(r"#\s*expect:\s*(E\d{3})\s+line\s+(\d+)")
    covered = set()
    for path in (ROOT / "tests" / "errors").glob("*.py"):
        match = expect.match(path.read_text().split("\n", 1)[0])
        if match:
            covered.add(match.group(1))
    compiler = {
        kind.code
        for kind in CATALOG.values()
        if kind.cls.__module__ == "kdsl.transpile.errors" and kind.code < "E500"
    }
    missing = sorted(compiler - covered - set(NOT_FROM_A_KERNEL))
    assert not missing, f"codes without a tests/errors fixture: {missing}"
    assert not set(NOT_FROM_A_KERNEL) & covered, "a listed code has a fixture now"


def _documented() -> dict:
    """``{code: (name, meaning, fix)}`` of the table in docs/language.md."""
    text = (ROOT / "docs" / "language.md").read_text()
    table = text.split("<!-- error codes: checked against CATALOG -->\n", 1)[1]
    table = table.split("<!-- error codes: end -->", 1)[0]
    rows = {}
    for line in table.splitlines():
        m = re.fullmatch(r"\| (E\d{3}) \| `([a-z0-9-]+)` \| (.+?) \| (.+?) \|", line)
        if m:
            assert m.group(1) not in rows, f"{m.group(1)} is listed twice"
            rows[m.group(1)] = m.group(2, 3, 4)
        else:
            assert not line.startswith("| E"), f"malformed row: {line}"
    return rows


def test_the_docs_list_every_code_under_its_name():
    rows = _documented()
    documented = {code: name for code, (name, _, _) in rows.items()}
    catalog = {kind.code: name for name, kind in CATALOG.items()}
    assert documented == catalog, {
        "missing from docs/language.md": sorted(set(catalog) - set(documented)),
        "not in the catalog": sorted(set(documented) - set(catalog)),
        "renamed": sorted(
            c for c in set(catalog) & set(documented) if catalog[c] != documented[c]
        ),
    }
    assert list(rows) == sorted(rows), "the table is in code order"
