"""The lowerer's parts call each other only through ``state.Parts``: a
method one file of transpile/frontend/lower*.py uses on ``self`` and another
file defines is a member of the protocol, no name private to one file is
imported by another, and each member of the protocol is defined by exactly
one part (so none falls back to nothing)."""

import ast
import inspect
from pathlib import Path

import pytest

from kdsl.transpile.builtins import registry
from kdsl.transpile.frontend import lower
from kdsl.transpile.frontend.state import Parts

FRONTEND = Path(lower.__file__).parent
FILES = sorted(FRONTEND.glob("lower*.py"))


def members(protocol) -> set:
    names = set(protocol.__annotations__)
    names |= {n for n, v in vars(protocol).items() if inspect.isfunction(v)}
    return {n for n in names if not n.startswith("_")}


def methods_of(tree) -> set:
    return {
        item.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        for item in node.body
        if isinstance(item, ast.FunctionDef)
    }


def used_on_self(tree) -> set:
    return {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    }


TREES = {f.name: ast.parse(f.read_text()) for f in FILES}
DEFINED = {name: methods_of(tree) for name, tree in TREES.items()}


def crossing():
    for name, tree in TREES.items():
        for attr in sorted(used_on_self(tree) - DEFINED[name]):
            owners = [other for other, defs in DEFINED.items() if attr in defs]
            if owners:
                yield name, attr, owners[0]


@pytest.mark.parametrize("user, attr, owner", list(crossing()))
def test_a_call_across_files_is_in_the_protocol(user, attr, owner):
    assert not attr.startswith("_"), f"{user} uses {owner}'s private {attr}"
    assert attr in members(Parts), f"{user} uses {owner}'s {attr}, not in Parts"


def test_no_private_name_is_imported_from_another_part():
    bad = []
    for name, tree in TREES.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "kdsl.transpile.frontend.lower"
            ):
                bad += [(name, a.name) for a in node.names if a.name.startswith("_")]
    assert not bad


@pytest.mark.parametrize("member", sorted(members(Parts) - {"state"}))
def test_each_member_is_defined_by_one_part(member):
    owners = [name for name, defs in DEFINED.items() if member in defs]
    assert len(owners) == 1, (member, owners)
    assert callable(getattr(lower.Lowerer, member))


@pytest.mark.parametrize("member", sorted(members(registry.Lowering)))
def test_the_lowerer_gives_the_builtins_what_registry_lowering_names(member):
    assert callable(getattr(lower.Lowerer, member)), member


def test_every_statement_handler_is_public():
    handlers = {
        m
        for defs in DEFINED.values()
        for m in defs
        if m.lstrip("_").startswith(("stmt_", "small_"))
    }
    assert handlers and all(not m.startswith("_") for m in handlers), handlers
