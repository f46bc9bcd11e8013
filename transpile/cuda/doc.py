"""Documents: a statement as the line layout (``layout``) sees it.

A statement is built from expression trees (``core.cxx.CExpr``) and text; its
``Doc`` is that tree written out once, Oppen style, as a stream of text
with its structure recorded where it was written: each bracket pair (a
group, with the break points after its commas), each infix operator (a
break point, with its bracket depth) and the spans of the nodes the layout
treats specially (a ``kdsl::vmap`` lambda).  Nothing is read back from the
text: every position comes from the tree.

Statement kinds (``Statement.kind``): ``assign`` (``target = value;``),
``return`` (``return value;``), ``expr`` (``value;``), ``plain`` (text
that is never broken: ``break;``, a declaration without a value) and
``head`` (``if (cond) {``, ``} else if (cond) {``, ``while (cond) {``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kdsl.transpile.core.cxx import COMMA, CExpr, Close, Op, Open, written


@dataclass(frozen=True)
class Statement:
    """One statement: its ``kind`` and ``parts`` (text and expressions)."""

    kind: str
    parts: tuple

    def doc(self) -> Doc:
        return Doc.of(self)

    @property
    def text(self) -> str:
        return "".join(_text(p) for p in self.parts)


def _text(part) -> str:
    return part if isinstance(part, str) else part.text


def assign(target, value: CExpr) -> Statement:
    """``target = value;`` (a declaration's target is ``type name``)."""
    return Statement("assign", (target, " = ", value, ";"))


def ret(value: CExpr) -> Statement:
    return Statement("return", ("return ", value, ";"))


def expr(value: CExpr) -> Statement:
    return Statement("expr", (value, ";"))


def plain(text: str) -> Statement:
    return Statement("plain", (text,))


def head(opening: str, cond: CExpr, closing: str = ") {") -> Statement:
    """``if (`` / ``} else if (`` / ``while (``, ``cond``, then ``) {``."""
    return Statement("head", (opening, cond, closing))


@dataclass
class Group:
    """A bracket pair: where it opens and closes, and its commas."""

    open: int
    close: int
    char: str
    commas: list = field(default_factory=list)


@dataclass
class Doc:
    """A statement written out with its structure (see the module
    docstring).  ``depth[i]``: the number of brackets open before
    character ``i``; ``ops``: ``(position, token)`` of each infix operator
    (``token`` is `` op ``); ``groups``: by opening position;
    ``closing``: the same groups by closing position; ``spans``: ``(node,
    start, end)`` of each node in writing order; ``eq``: the position of
    an assignment's `` = ``; ``cond``: a head's condition span."""

    text: str = ""
    depth: list = field(default_factory=list)
    ops: list = field(default_factory=list)
    groups: dict = field(default_factory=dict)
    closing: dict = field(default_factory=dict)
    spans: list = field(default_factory=list)
    kind: str = "plain"
    eq: int = -1
    cond: tuple | None = None

    @classmethod
    def of(cls, statement: Statement) -> Doc:
        d = cls(kind=statement.kind)
        w = _Writer(d)
        for part in statement.parts:
            start = len(w.chars)
            if statement.kind == "assign" and part == " = " and d.eq < 0:
                d.eq = start
            w.write(part)
            if statement.kind == "head" and isinstance(part, CExpr):
                d.cond = (start, len(w.chars))
        d.text = "".join(w.chars)
        d.depth.append(len(w.stack))
        return d

    # -- queries the layout asks -------------------------------------------------
    def top_ops(self, start: int, end: int, tokens) -> list:
        """``(position, token)`` of the operators among ``tokens`` written at
        the top level of the span ``[start, end)``."""
        base = self.depth[start]
        return [
            (at, token)
            for at, token in self.ops
            if start <= at
            and at + len(token) <= end
            and token in tokens
            and self.depth[at] == base
        ]

    def group_ending(self, start: int, end: int) -> Group | None:
        """The ``(``, ``[`` or ``{`` group closed by the span's last character."""
        g = self.closing.get(end - 1)
        if g is None or g.open < start or g.char not in "([{":
            return None
        return g

    def comma_groups(self) -> list:
        """The bracket groups with commas, by opening position."""
        return [g for _, g in sorted(self.groups.items()) if g.commas]

    def falling_commas(self, start: int, end: int) -> list:
        """The commas of ``[start, end)`` that no bracket opened inside the
        span encloses (brackets closed there that opened before it do
        not count)."""
        commas = sorted(
            comma
            for g in self.groups.values()
            for comma in g.commas
            if start <= comma < end
        )
        return [c for c in commas if self.depth[c] == min(self.depth[start : c + 1])]

    def first(self, kind: str, callee: str | None = None):
        """``(node, start, end)`` of the first node of ``kind`` (a call of
        ``callee``), or None."""
        for node, start, end in self.spans:
            if node.kind == kind and (callee is None or node.callee.text == callee):
                return node, start, end
        return None


class _Writer:
    """Writes a statement's parts, recording their structure in a Doc."""

    def __init__(self, d: Doc):
        self.d, self.chars, self.stack = d, [], []

    def emit(self, text: str):
        for ch in text:
            self.d.depth.append(len(self.stack))
            self.chars.append(ch)

    def write(self, part):
        at = len(self.chars)
        if isinstance(part, Open):
            self.emit(part.char)
            g = Group(at, -1, part.char)
            self.stack.append(g)
            self.d.groups[at] = g
        elif isinstance(part, Close):
            self.emit(part.char)
            g = self.stack.pop()
            g.close = at
            self.d.closing[at] = g
        elif part is COMMA:
            if self.stack:
                self.stack[-1].commas.append(at)
            self.emit(written(part))
        elif isinstance(part, Op):
            self.d.ops.append((at, written(part)))
            self.emit(written(part))
        elif isinstance(part, str):
            self.emit(part)
        else:
            index = len(self.d.spans)
            self.d.spans.append(None)
            for p in part.parts:
                self.write(p)
            self.d.spans[index] = (part, at, len(self.chars))
