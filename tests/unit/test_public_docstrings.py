"""Every public name of kdsl (and kdsl.math) has a docstring of its own
(issue 30, item 9): ``help(kdsl.Pointer)`` or an editor's hover says what
it is, not ``type``'s or ``object``'s text."""

import inspect
import types

import pytest

import kdsl
import kdsl.math


def _public(module):
    names = getattr(module, "__all__", None) or [
        n
        for n in dir(module)
        if not n.startswith("_")
        and not isinstance(getattr(module, n), types.ModuleType)
    ]
    return sorted(names)


def _own_doc(obj):
    """The object's own docstring: a class's from its body (not inherited),
    anything else's ``__doc__`` (a built-in's doc line, a function's)."""
    if isinstance(obj, type):
        return vars(obj).get("__doc__")
    if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType)):
        return obj.__doc__
    doc = getattr(obj, "__doc__", None)
    return doc


CASES = [("kdsl", n) for n in _public(kdsl)] + [
    ("kdsl.math", n) for n in _public(kdsl.math)
]


def test_there_are_public_names():
    assert len(CASES) > 250


@pytest.mark.parametrize("module,name", CASES, ids=[f"{m}.{n}" for m, n in CASES])
def test_every_public_name_has_a_docstring(module, name):
    obj = getattr(kdsl if module == "kdsl" else kdsl.math, name)
    doc = _own_doc(obj)
    assert doc and doc.strip(), f"{module}.{name} has no docstring"
    assert inspect.getdoc(obj).strip() == inspect.cleandoc(doc).strip()


def test_the_type_docstrings_say_what_the_type_is():
    assert "32-bit float ('f32'; C++ float" in kdsl.Float32.__doc__
    assert "storage type" in kdsl.Float8E4M3FN.__doc__
    assert "8-bit unsigned integer ('u8'" in kdsl.Uint8.__doc__
    assert kdsl.Float32x4.__doc__.startswith("Vector[Float32, 4]: 4 lanes")
    assert kdsl.Pointer.__doc__.startswith("``Pointer[T]``")
