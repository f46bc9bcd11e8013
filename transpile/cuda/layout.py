"""Line layout: a statement longer than ``LIMIT`` columns, broken as
clang-format would break it.  Documents in, lines out: this lays out a
statement's ``doc.Doc`` (its text with the groups, commas and operators
its expression trees wrote), so every break point comes from the tree.

The printer tries the layouts each rule below allows for a node (its
operands after the operators of its loosest level, a call's arguments
after their commas) and keeps the first that fits, or, when none does,
the one that overflows least, in the fewest lines."""

from __future__ import annotations

from kdsl.transpile.cuda.doc import Doc, Statement

LIMIT = 100  # columns of a generated line (comments excepted)
CONTINUATION = 8  # extra indent of a wrapped statement's continuation lines

# Binary operators by how loosely they bind (a break goes after the loosest
# one of an expression first).
_LEVELS = (
    (" || ",),
    (" && ",),
    (" | ",),
    (" ^ ",),
    (" & ",),
    (" == ", " != "),
    (" < ", " <= ", " > ", " >= "),
    (" << ", " >> "),
    (" + ", " - "),
    (" * ", " / ", " % "),
)

# where a vmap lambda's return statement may break
_OPERATORS = (" ? ", " : ", " || ", " && ", " + ", " - ", " * ", " / ")


def wrap(indent: str, statement: Statement) -> list[str]:
    """``indent`` + the statement, broken into lines of at most ``LIMIT``
    columns where a rule below applies (else left long).  A head ``if
    (cond) {`` (``} else if``, ``while``) breaks its condition after its
    operators, aligned inside its parentheses.  Any other statement, in
    order: a ``kdsl::vmap`` as clang-format lays out a lambda argument; a
    conditional value before its ``?`` and ``:``; the argument list (or
    index) that spans most of the statement after its commas, aligned on
    its bracket; a value after its ``=``; else its value broken by the
    expression rules (``_Printer.expression``)."""
    d = statement.doc()
    if len(indent) + len(d.text) <= LIMIT:
        return [indent + d.text]
    p = _Printer(d)
    if d.kind == "head":
        return p.head(indent)
    lines = p.vmap(indent)
    if lines:
        return lines
    for rule in (p.conditional, p.arguments, p.value):
        lines = rule(indent)
        if lines and all(len(line) <= LIMIT for line in lines):
            return lines
    return p.statement(indent)


def expression(e, column: int, tail: str = "") -> list[str]:
    """The expression ``e`` followed by ``tail``, its first line starting at
    ``column`` (returned without that indent), the others indented in full
    (``_Printer.expression``)."""
    d = Statement("value", (e,)).doc()
    return list(_Printer(d).expression(0, len(d.text), column, tail))


def _overflow(lines, column) -> int:
    widths = [column + len(lines[0]), *map(len, lines[1:])]
    return sum(max(0, w - LIMIT) for w in widths)


def _fewest(candidates, column):
    """The layout that fits (or overflows least), in the fewest lines."""
    return min(candidates, key=lambda lines: (_overflow(lines, column), len(lines)))


def _fill(current, pieces, indent):
    """``current`` followed by ``pieces``, as many on a line as fit."""
    lines = []
    for piece in pieces:
        if len(current) + 1 + len(piece) <= LIMIT:
            current += " " + piece
        else:
            lines.append(current)
            current = indent + piece
    return lines + [current]


class _Printer:
    """The layouts of one document; spans ``[start, end)`` are positions in
    its text."""

    def __init__(self, d: Doc):
        self.d, self.text, self.memo = d, d.text, {}

    # -- expressions ------------------------------------------------------------------
    def expression(self, start, end, column, tail="") -> tuple:
        """The span followed by ``tail``, its first line starting at
        ``column``: fitting in one line when it can, else broken after the
        top-level operators of its loosest level (each operand on the lines
        it needs, aligned with the first), or, for a call, index or
        parenthesised group, inside its brackets (arguments after their
        commas, aligned on the bracket).  A piece that cannot be broken
        stays long."""
        key = (start, end, column, tail)
        if key not in self.memo:
            self.memo[key] = self._expression(start, end, column, tail)
        return self.memo[key]

    def _expression(self, start, end, column, tail) -> tuple:
        text = self.text[start:end]
        if column + len(text) + len(tail) <= LIMIT:
            return (text + tail,)
        candidates = [self.inside(start, end, column, tail)]  # ``f * (`` ...
        for level in _LEVELS:
            cuts = sorted(self.d.top_ops(start, end, level))
            if cuts:
                candidates.insert(0, self.operands(start, end, cuts, column, tail))
                break
        return tuple(_fewest(candidates, column))

    def operands(self, start, end, cuts, column, tail):
        """The span broken after the operators at ``cuts``, operands packed
        greedily on lines aligned at ``column``."""
        pieces, prev = [], start
        for at, op in cuts:
            pieces.append((prev, at + len(op) - 1))  # "a +"
            prev = at + len(op)
        pieces.append((prev, end))
        return self.pack(" " * column, "", pieces, " " * column, tail)

    def pack(self, first, opener, pieces, pad, tail):
        """Lines holding ``opener`` then ``pieces`` (spans, separated by
        spaces) then ``tail``, as many pieces on a line as fit, the first
        line starting with ``first`` (its indent), the others with ``pad``;
        a piece too long for a line of its own is broken by
        ``expression``.  The first line is returned without ``first``."""
        lines, current, sep = [], first + opener, ""
        for k, (start, end) in enumerate(pieces):
            piece = self.text[start:end]
            end_ = tail if k == len(pieces) - 1 else ""
            if len(current) + len(sep) + len(piece) + len(end_) <= LIMIT:
                current += sep + piece + end_
            else:
                if current.strip() != opener.strip():  # a piece before: next line
                    lines.append(current)
                    current, sep = pad, ""
                sub = self.expression(start, end, len(current) + len(sep), end_)
                current += sep + sub[0]
                if len(sub) > 1:
                    lines.append(current)
                    lines.extend(sub[1:-1])
                    current = sub[-1]
            sep = " "
        lines.append(current)
        return [lines[0][len(first) :], *lines[1:]]

    def inside(self, start, end, column, tail):
        """A call, index or group broken inside the bracket pair that ends
        the span: the arguments after their commas, aligned on the bracket
        (a single operand by ``expression``); else the span as it is."""
        text = self.text[start:end]
        g = self.d.group_ending(start, end)
        if g is None:
            return [text + tail]
        head = self.text[start : g.open + 1]
        inner_column = column + len(head)
        close = self.text[g.close] + tail
        if not g.commas:
            lines = self.expression(g.open + 1, g.close, inner_column, close)
            return [head + lines[0], *lines[1:]]
        return self.pack(" " * column, head, self._items(g), " " * inner_column, close)

    def _items(self, g):
        """The spans of a group's items, each with its comma."""
        pieces, prev = [], g.open + 1
        for comma in g.commas:
            pieces.append((prev, comma + 1))
            prev = comma + 2
        pieces.append((prev, g.close))
        return pieces

    # -- statements -------------------------------------------------------------------
    def head(self, indent):
        """``if (cond) {``: the condition by ``expression``, aligned inside
        the parentheses."""
        start, end = self.d.cond
        lines = self.expression(start, end, len(indent) + start, self.text[end:])
        return [indent + self.text[:start] + lines[0], *lines[1:]]

    def statement(self, indent):
        """A statement whose value is one long expression: ``lhs = value;``,
        ``return value;`` or ``f(args);``, the value broken by
        ``expression``: aligned after the ``=`` when that fits, else on the
        next lines."""
        text, d = self.text, self.d
        if d.eq >= 0:
            value = d.eq + 3
        elif d.kind == "return":
            value = len("return ")
        else:
            value = 0
        head, end = text[:value], len(text) - 1
        lines = self.expression(value, end, len(indent) + value, ";")
        candidates = [[indent + text], [indent + head + lines[0], *lines[1:]]]
        if d.eq >= 0:
            more = len(indent) + CONTINUATION
            lines = self.expression(value, end, more, ";")
            candidates.append(
                [indent + head.rstrip(), " " * more + lines[0], *lines[1:]]
            )
        return _fewest(candidates, 0)

    def conditional(self, indent):
        """``x = c ? a : b;`` before its ``?`` and ``:``."""
        text, d = self.text, self.d
        head_end = d.eq + 3 if d.eq >= 0 else 0
        top = [at for at, _ in d.top_ops(0, len(text), (" ? ",)) if at >= head_end]
        if not top:
            return None
        q = top[0]
        c = [at for at, _ in d.top_ops(0, len(text), (" : ",)) if at >= q + 3]
        if not c:
            return None
        more = indent + " " * CONTINUATION
        return [indent + text[:q], more + text[q + 1 : c[0]], more + text[c[0] + 1 :]]

    def arguments(self, indent):
        """The group with commas spanning most of the statement (at least
        half), its items after their commas, aligned on its bracket."""
        text = self.text
        groups = self.d.comma_groups()
        if not groups:
            return None
        g = max(groups, key=lambda g: (g.close - g.open, -g.open))
        if 2 * (g.close - g.open) < len(text):
            return None
        align = " " * (len(indent) + g.open + 1)
        pieces = [text[s:e] for s, e in self._items(g)]
        pieces[-1] = text[self._items(g)[-1][0] :]  # the statement's end too
        return _fill(indent + text[: g.open + 1] + pieces[0], pieces[1:], align)

    def value(self, indent):
        """``lhs =`` and the value on the next line."""
        eq = self.d.eq
        if eq < 0:
            return None
        text = self.text
        return [indent + text[: eq + 2], indent + " " * CONTINUATION + text[eq + 3 :]]

    # -- kdsl::vmap ---------------------------------------------------------------------
    def vmap(self, indent):
        """The first ``kdsl::vmap`` laid out as clang-format lays out a lambda
        argument: the lambda's head, its return statement and the vectors on
        lines of their own."""
        found = self.d.first("call", "kdsl::vmap")
        if found is None:
            return None
        node, start, _ = found
        lam = node.args[0]
        if lam.kind != "lambda":
            return None
        text, (body_start, body_end) = self.text, self._span(lam.children[-1])
        opening = start + len("kdsl::vmap(")
        more = indent + " " * CONTINUATION
        return [
            indent + text[:opening],
            more + text[opening : body_start - len(" return ")],
            *self.return_lines(more + "    ", body_start - len("return "), body_end),
            more + "},",
            *self.packed(more, body_end + len("; }, ")),
        ]

    def _span(self, node):
        for n, start, end in self.d.spans:
            if n is node:
                return start, end
        return None

    def return_lines(self, indent, start, body_end):
        """``return <value>;``, broken after a top-level binary operator (the
        rightmost that keeps the first line within ``LIMIT``) when too long;
        the continuation is aligned with the value."""
        text = self.text[start : body_end + 1]
        if len(indent) + len(text) <= LIMIT:
            return [indent + text]
        value = len("return ")
        best = None
        for at, op in self.d.top_ops(start + value, body_end + 1, _OPERATORS):
            if len(indent) + at - start + len(op) - 1 <= LIMIT:
                best = max(best or (at, op), (at, op))
        if best is None:
            return [indent + text]
        split = best[0] + len(best[1]) - start  # after the operator
        head, tail = text[:split].rstrip(), text[split:]
        return [indent + head, indent + " " * value + tail]

    def packed(self, indent, start):
        """The vectors a vmap maps over, then the statement's end, in lines
        of at most ``LIMIT`` columns, broken after the commas at their
        level."""
        text, pieces, prev = self.text, [], start
        for comma in self.d.falling_commas(start, len(text)):
            pieces.append(text[prev : comma + 1].strip())
            prev = comma + 1
        pieces.append(text[prev:].strip())
        return _fill(indent + pieces[0], pieces[1:], indent)
