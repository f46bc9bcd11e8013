"""The passes between lowering and emission, in the order the pipeline lists
them (``pipeline.PASSES``).

A pass is named.  A :class:`Rewrite` turns a function into another (IR to
IR); the verifier checks what it returns before the next pass runs.  An
:class:`Analysis` computes one fact about the final IR, a field of
:class:`Facts`, which the emitter receives with the function; so every
analysis runs after every rewrite (:func:`schedule` refuses another order).
The verifier itself (``passes.verify``) runs after lowering too."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any, Callable

from kdsl.transpile import ir
from kdsl.transpile.passes.ranges import Ranges


@dataclass(frozen=True)
class Facts:
    """What the analyses found in one function: what the emitter reads."""

    # pointers it never stores through: declared const
    readonly: frozenset = frozenset()
    # variables declared with a value and never used: not declared at all
    unread: frozenset = frozenset()
    # the integer ranges of its variables and expressions
    ranges: Ranges = field(default_factory=lambda: Ranges(ir.Function("", (), ())))


@dataclass(frozen=True)
class Rewrite:
    """``run(f)``: ``f`` rewritten (the same object if nothing changed)."""

    name: str
    run: Callable[[ir.Function], ir.Function]


@dataclass(frozen=True)
class Analysis:
    """``run(f, facts)``: the :class:`Facts` field ``name`` of ``f``
    (``facts``: what earlier analyses and the pipeline found)."""

    name: str
    run: Callable[[ir.Function, Facts], Any]

    def __post_init__(self):
        if self.name not in {f.name for f in fields(Facts)}:
            raise TypeError(f"analysis {self.name!r} fills no field of Facts")


def schedule(*passes) -> tuple:
    """The passes in the order given: the rewrites first, then the analyses
    (an analysis describes the final IR), each name once."""
    names = [p.name for p in passes]
    if len(set(names)) != len(names):
        raise TypeError(f"a pass is scheduled twice: {names}")
    kinds = [isinstance(p, Analysis) for p in passes]
    if kinds != sorted(kinds):
        raise TypeError(f"a rewrite is scheduled after an analysis: {names}")
    return passes


def run(passes, f: ir.Function, facts: Facts, check) -> tuple[ir.Function, Facts]:
    """``f`` through ``passes`` in order, ``check(f, after=name)`` after each
    rewrite; the final function and its :class:`Facts` (from ``facts``, what
    the pipeline knows)."""
    f = rewrite(passes, f, check)
    return f, analyse(passes, f, facts)


def rewrite(passes, f: ir.Function, check) -> ir.Function:
    """``f`` through the rewrites of ``passes`` in order, ``check(f,
    after=name)`` after each."""
    for p in passes:
        if isinstance(p, Rewrite):
            f = p.run(f)
            check(f, after=p.name)
    return f


def analyse(passes, f: ir.Function, facts: Facts) -> Facts:
    """The :class:`Facts` of ``f`` (the final IR): ``facts`` with each
    analysis of ``passes`` in order filled in."""
    for p in passes:
        if isinstance(p, Analysis):
            facts = replace(facts, **{p.name: p.run(f, facts)})
    return facts
