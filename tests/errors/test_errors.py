"""Every fixture in this folder holds one bad kernel and declares, on its
first line, the error it must raise: ``# expect: E302 line 12``."""

import importlib.util
import pathlib
import re

import pytest

import kdsl

HERE = pathlib.Path(__file__).parent
FIXTURES = sorted(p for p in HERE.glob("*.py") if p.name != "test_errors.py")
EXPECT = re.compile(r"#\s*expect:\s*(E\d{3})\s+line\s+(\d+)")
INTERNAL = ("Traceback", 'File "/', '.py", line')


def _expectation(path):
    match = EXPECT.match(path.read_text().splitlines()[0])
    assert match, f"{path.name}: first line must be '# expect: EXXX line N'"
    return match.group(1), int(match.group(2))


def _raise(path):
    """Import the fixture and transpile its kernel (``DISPATCH``, if the
    fixture has it, holds keywords for dispatch); return the DSLError."""
    spec = importlib.util.spec_from_file_location(f"kdsl_err_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    with pytest.raises(kdsl.DSLError) as info:
        spec.loader.exec_module(module)
        dispatch = getattr(module, "DISPATCH", {})  # bias=None: that instance
        module.bad.dispatch(*module.bad.combinations()[0], **dispatch).source
    return info.value


def test_enough_fixtures():
    assert len(FIXTURES) >= 30


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_error(path):
    code, line = _expectation(path)
    exc = _raise(path)
    assert isinstance(exc, kdsl.DSLError)
    text = str(exc)
    assert exc.code == code, text
    assert exc.code != "E999", text
    for fragment in INTERNAL:
        assert fragment not in text, text
    if line == 0:
        return
    assert exc.span is not None and exc.span.line == line, text
    assert text.startswith(f"{path}:{line}:"), text
    assert f"error[{code}]" in text, text
    assert any(l.strip() and set(l.strip()) == {"^"} for l in text.splitlines()), text
