"""One catalog of error codes: every code is defined once, in errors.py."""

import re
from pathlib import Path

from kdsl.transpile.errors import CATALOG

ROOT = Path(__file__).resolve().parents[2]


def test_codes_are_unique():
    codes = [kind.code for kind in CATALOG.values()]
    assert len(codes) == len(set(codes))


def test_no_error_code_is_spelled_outside_the_catalog():
    pattern = re.compile(r"""["']E\d{3}["']""")
    offenders = []
    for folder in ("transpile", "runtime", "kdsl"):
        for path in (ROOT / folder).rglob("*.py"):
            if path.name == "errors.py":
                continue
            for n, line in enumerate(path.read_text().splitlines(), 1):
                if pattern.search(line):
                    offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not offenders, "\n".join(offenders)
