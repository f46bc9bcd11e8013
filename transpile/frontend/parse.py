"""Parse a kernel's Python source with libcst, keeping exact positions."""

from __future__ import annotations

import ast
import inspect
import io
import sys
import textwrap
import threading
import tokenize
import unicodedata
import weakref
from collections import defaultdict
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import (
    ExpressionContext,
    ExpressionContextProvider,
    MetadataWrapper,
    PositionProvider,
)

from kdsl.transpile.core import limits
from kdsl.transpile.errors import error
from kdsl.transpile.source import SourceFile, Span


@dataclass
class ParsedFunction:
    """A function's libcst tree with the means to locate its nodes."""

    node: cst.FunctionDef
    module: cst.Module
    positions: dict
    source: SourceFile
    line_offset: int
    col_offset: int
    loads: dict = field(default_factory=dict)  # name -> [(line, col)]
    # name -> [(block, position)]: from the position on, to the block's end,
    # the name is bound again (a for loop's body, after an assignment)
    binders: dict = field(default_factory=dict)
    # line -> [(column in the parsed text, its shift to the file's column)]
    # where NFKC normalisation changed a name's length (see _nfkc_names)
    shifts: dict = field(default_factory=dict)

    def span(self, node: cst.CSTNode) -> Span:
        r = self.positions[node]
        return Span(
            self.source.path,
            r.start.line + self.line_offset,
            self._column(r.start.line, r.start.column) + 1 + self.col_offset,
            r.end.line + self.line_offset,
            self._column(r.end.line, r.end.column) + 1 + self.col_offset,
        )

    def _column(self, line: int, col: int) -> int:
        """The file's column of column ``col`` of the parsed text."""
        for start, shift in reversed(self.shifts.get(line, ())):
            if col >= start:
                return col + shift
        return col

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    def contains(self, outer: cst.CSTNode, line: int, col: int) -> bool:
        r = self.positions[outer]
        return (
            (r.start.line, r.start.column)
            <= (line, col)
            < (
                r.end.line,
                r.end.column,
            )
        )

    def loaded_outside(self, name: str, body: cst.CSTNode) -> bool:
        """Whether ``name`` is read anywhere in the function outside ``body``."""
        return any(
            not self.contains(body, line, col) for line, col in self.loads.get(name, ())
        )

    def may_read_value_of(self, name: str, construct: cst.CSTNode) -> bool:
        """Whether a read of ``name`` (in ``construct`` or anywhere else) may
        see a value that ``construct`` left in it: any read but one that the
        name is bound again before, with ``construct`` not in between: in
        the body of a ``for`` loop over the name, or after an assignment to
        it earlier in the read's block."""
        start = self.positions[construct].start
        at = (start.line, start.column)
        return any(
            not self._bound_again(name, read, at) for read in self.loads.get(name, ())
        )

    def _bound_again(self, name: str, read: tuple, construct: tuple) -> bool:
        for block, bound in self.binders.get(name, ()):
            if read < bound or not self.contains(block, *read):
                continue
            # the statement of the block that holds the read (a loop may run
            # the construct in it before the read)
            stmt = next((s for s in block.body if self.contains(s, *read)), None)
            end = self.positions[stmt].end if stmt is not None else None
            if end is not None and not bound <= construct < (end.line, end.column):
                return True
        return False


_PARSED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_PARSING = threading.Lock()


def parse_function(fn) -> ParsedFunction:
    """The parsed source of ``fn`` (a plain Python function), parsed once:
    every caller, from any thread, gets the same tree, whose nodes key its
    positions (two threads that each parsed it kept different trees and
    looked one's nodes up in the other's positions)."""
    with _PARSING:
        parsed = _PARSED.get(fn)
        if parsed is None:
            parsed = _PARSED[fn] = _parse(fn)
        return parsed


def _parse(fn) -> ParsedFunction:
    try:
        lines, start = inspect.getsourcelines(fn)
        path = inspect.getsourcefile(fn) or "<unknown>"
    except (OSError, TypeError) as exc:
        raise error("no-source", name=fn.__qualname__, reason=exc) from None
    text = "".join(lines)
    dedented = textwrap.dedent(text)
    indent = len(lines[0]) - len(lines[0].lstrip())
    try:
        with open(path, encoding="utf-8") as f:
            file_text = f.read()
    except OSError:
        file_text = "\n" * (start - 1) + text
    dedented, shifts = _nfkc_names(dedented)
    _check_depth(dedented, path, start - 1, indent, file_text)
    wrapper = MetadataWrapper(cst.parse_module(dedented))
    positions = wrapper.resolve(PositionProvider)
    contexts = wrapper.resolve(ExpressionContextProvider)
    module = wrapper.module
    func = next(s for s in module.body if isinstance(s, cst.FunctionDef))
    loads = defaultdict(list)
    for node, ctx in contexts.items():
        if isinstance(node, cst.Name) and ctx is ExpressionContext.LOAD:
            r = positions[node]
            loads[node.value].append((r.start.line, r.start.column))
    binders = defaultdict(list)
    for node in positions:
        if isinstance(node, cst.For) and isinstance(node.target, cst.Name):
            r = positions[node.body]
            binders[node.target.value].append(
                (node.body, (r.start.line, r.start.column))
            )
        elif isinstance(node, cst.IndentedBlock):
            lines = [s for s in node.body if isinstance(s, cst.SimpleStatementLine)]
            for small in (small for line in lines for small in line.body):
                r = positions[small]
                for name in _assigned_by(small):
                    binders[name].append((node, (r.end.line, r.end.column)))
    return ParsedFunction(
        node=func,
        module=module,
        positions=positions,
        source=SourceFile(path, file_text),
        line_offset=start - 1,
        col_offset=indent,
        loads=dict(loads),
        binders=dict(binders),
        shifts=shifts,
    )


def _assigned_by(small) -> list[str]:
    """The names a small statement assigns outright (``x = ...``, ``a, b =
    ...``, ``v: T = ...``; not ``x += ...``, which reads ``x`` first)."""
    if isinstance(small, cst.Assign):
        targets = [t.target for t in small.targets]
    elif isinstance(small, cst.AnnAssign) and small.value is not None:
        targets = [small.target]
    else:
        return []
    names = []
    while targets:
        t = targets.pop()
        if isinstance(t, cst.Name):
            names.append(t.value)
        elif isinstance(t, (cst.Tuple, cst.List)):
            targets.extend(e.value for e in t.elements)
    return names


def _nfkc_names(text: str) -> tuple[str, dict]:
    """``text`` with every identifier NFKC-normalised, as Python reads it
    (``ｖ`` and ``v`` are one name; string literals and comments are kept),
    and the column shifts where a name changed length (``ﬁ`` -> ``fi``), so
    that messages point at the file's columns."""
    if text.isascii():
        return text, {}
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return text, {}  # the parser says what is wrong
    lines = text.splitlines(keepends=True)
    edits = defaultdict(list)  # line -> [(col, old, new)]
    for tok in tokens:
        if tok.type == tokenize.NAME and not tok.string.isascii():
            new = unicodedata.normalize("NFKC", tok.string)
            if new != tok.string:
                edits[tok.start[0]].append((tok.start[1], tok.string, new))
    shifts = {}
    for line, changes in edits.items():
        row, out, at, shift, marks = lines[line - 1], [], 0, 0, []
        for col, old, new in sorted(changes):
            out += [row[at:col], new]
            at = col + len(old)
            if len(old) != len(new):  # after the name, columns move by shift
                after = col - shift + len(new)  # in the normalised line
                shift += len(old) - len(new)
                marks.append((after, shift))
        lines[line - 1] = "".join(out) + row[at:]
        if marks:
            shifts[line] = marks
    return "".join(lines), shifts


def _check_depth(text: str, path: str, line_offset: int, indent: int, file_text):
    """Refuse an expression nested deeper than the limit (E271) before libcst
    and the lowering recurse into it (a 500-term sum nests 500 deep); the
    walk is iterative, on Python's own parse."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return  # libcst reports it
    cap = limits.EXPRESSION_DEPTH.value()
    deepest, where = 0, None
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, ast.expr):
            depth += 1
            if depth > deepest:
                deepest, where = depth, node
        stack.extend((child, depth) for child in ast.iter_child_nodes(node))
    if where is None:
        return
    # libcst and the lowering take a few frames per level
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 8 * deepest + 1000))
    if cap and deepest > cap:
        line = where.lineno + line_offset
        col = where.col_offset + indent + 1
        exc = error(
            "work-limit",
            quantity=limits.EXPRESSION_DEPTH.what,
            amount=deepest,
            cap=cap,
            env=limits.EXPRESSION_DEPTH.env,
            span=Span(path, line, col, line, col + 1),
        )
        lines = file_text.splitlines()
        exc.source_line = lines[line - 1] if 0 < line <= len(lines) else None
        raise exc
