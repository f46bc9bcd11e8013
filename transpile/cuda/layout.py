"""Line layout: a generated statement longer than ``LIMIT`` columns, broken
as clang-format would break it.  Text in, lines out: this works on the
finished statement's text (brackets and top-level operators), after the
expressions have been spelled."""

from __future__ import annotations

from functools import lru_cache

LIMIT = 100  # columns of a generated line (comments excepted)
CONTINUATION = 8  # extra indent of a wrapped statement's continuation lines


def wrap(indent: str, text: str) -> list[str]:
    """``indent + text``, broken into lines of at most ``LIMIT`` columns where
    a rule below applies (else left long), in order: a conditional value
    before its ``?`` and ``:``; the argument list (or index) that spans most
    of the statement after its commas, aligned on its bracket; a value after
    its ``=``."""
    if len(indent) + len(text) <= LIMIT:
        return [indent + text]
    lines = _wrap_vmap(indent, text)
    if lines:
        return lines
    for rule in (_wrap_conditional, _wrap_arguments, _wrap_value):
        lines = rule(indent, text)
        if lines and all(len(line) <= LIMIT for line in lines):
            return lines
    return _wrap_statement(indent, text)


def wrap_head(indent: str, text: str) -> list[str]:
    """``indent + text`` for a statement head ``if (cond) {``, ``} else if
    (cond) {`` or ``while (cond) {``: a long condition broken after its
    operators (``expression``), aligned inside its parentheses."""
    if len(indent) + len(text) <= LIMIT:
        return [indent + text]
    open_ = text.index("(")
    close = _closing(text, open_)
    if close < 0:
        return [indent + text]
    lines = expression(text[open_ + 1 : close], len(indent) + open_ + 1, text[close:])
    return [indent + text[: open_ + 1] + lines[0], *lines[1:]]


def _wrap_statement(indent, text):
    """A statement whose value is one long expression: ``lhs = value;``,
    ``return value;`` or ``f(args);``, the value broken by ``expression``:
    aligned after the ``=`` when that fits, else on the next lines."""
    eq = _top_level(text, " = ")
    if eq >= 0:
        head, value = text[: eq + 3], text[eq + 3 : -1]
    elif text.startswith("return "):
        head, value = "return ", text[len("return ") : -1]
    else:
        head, value = "", text[:-1]
    lines = expression(value, len(indent) + len(head), ";")
    candidates = [[indent + text], [indent + head + lines[0], *lines[1:]]]
    if head.endswith("= "):
        more = len(indent) + CONTINUATION
        lines = expression(value, more, ";")
        candidates.append([indent + head.rstrip(), " " * more + lines[0], *lines[1:]])
    # the one that fits (or overflows least), in the fewest lines
    return min(candidates, key=lambda lines: (_overflow(lines, 0), len(lines)))


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


def expression(text: str, column: int, tail: str = "") -> list[str]:
    """The expression ``text`` followed by ``tail``, its first line starting
    at ``column`` (returned without that indent), the others indented in
    full: fitting in one line when it can, else broken after the top-level
    operators of its loosest level (each operand on the lines it needs,
    aligned with the first), or, for a call, index or parenthesised group,
    inside its brackets (arguments after their commas, aligned on the
    bracket).  A piece that cannot be broken stays long."""
    return list(_expression(text, column, tail))


@lru_cache(maxsize=4096)
def _expression(text: str, column: int, tail: str) -> tuple:
    if column + len(text) + len(tail) <= LIMIT:
        return (text + tail,)
    candidates = [_inside(text, column, tail)]  # ``f * (`` then its inside
    for level in _LEVELS:
        cuts = sorted((at, op) for op in level for at, _ in _all_top_level(text, op))
        if cuts:
            candidates.insert(0, _operands(text, cuts, column, tail))
            break
    # the first layout that fits (or, if none does, overflows least), in
    # the fewest lines
    return tuple(
        min(candidates, key=lambda lines: (_overflow(lines, column), len(lines)))
    )


def _overflow(lines, column) -> int:
    widths = [column + len(lines[0]), *map(len, lines[1:])]
    return sum(max(0, w - LIMIT) for w in widths)


def _all_top_level(text, token):
    at = _top_level(text, token)
    while at >= 0:
        yield at, token
        at = _top_level(text, token, at + 1)


def _operands(text, cuts, column, tail):
    """``text`` broken after the operators at ``cuts``, operands packed
    greedily on lines aligned at ``column``."""
    pieces, prev = [], 0
    for at, op in cuts:
        pieces.append(text[prev : at + len(op) - 1])  # "a +"
        prev = at + len(op)
    pieces.append(text[prev:])
    return _pack(" " * column, "", pieces, " " * column, tail)


def _pack(first, opener, pieces, pad, tail):
    """Lines holding ``opener`` then ``pieces`` (separated by spaces) then
    ``tail``, as many pieces on a line as fit, the first line starting with
    ``first`` (its indent), the others with ``pad``; a piece too long for a
    line of its own is broken by ``expression``.  The first line is
    returned without ``first``."""
    lines, current, sep = [], first + opener, ""
    for k, piece in enumerate(pieces):
        end = tail if k == len(pieces) - 1 else ""
        if len(current) + len(sep) + len(piece) + len(end) <= LIMIT:
            current += sep + piece + end
        else:
            if current.strip() != opener.strip():  # a piece before: next line
                lines.append(current)
                current, sep = pad, ""
            sub = expression(piece, len(current) + len(sep), end)
            current += sep + sub[0]
            if len(sub) > 1:
                lines.append(current)
                lines.extend(sub[1:-1])
                current = sub[-1]
        sep = " "
    lines.append(current)
    return [lines[0][len(first) :], *lines[1:]]


def _inside(text, column, tail):
    """A call, index or group broken inside its last bracket pair: the
    arguments after their commas, aligned on the bracket (a single operand
    by ``expression``); else ``text`` as it is."""
    if not text or text[-1] not in ")]":
        return [text + tail]
    open_ = _opening(text)
    if open_ < 0:
        return [text + tail]
    inner = text[open_ + 1 : -1]
    inner_column = column + open_ + 1
    commas = _top_level_commas(inner)
    if not commas:
        lines = expression(inner, inner_column, text[-1] + tail)
        return [text[: open_ + 1] + lines[0], *lines[1:]]
    pieces, prev = [], 0
    for comma in commas:
        pieces.append(inner[prev : comma + 1].strip())
        prev = comma + 1
    pieces.append(inner[prev:].strip())
    first = " " * column
    head = text[: open_ + 1]
    return _pack(first, head, pieces, " " * inner_column, text[-1] + tail)


def _opening(text: str) -> int:
    """Index of the bracket that the last character of ``text`` closes."""
    close = len(text) - 1
    for i in range(close - 1, -1, -1):
        if text[i] in "([" and _closing(text, i) == close:
            return i
    return -1


def _top_level(text: str, token: str, start: int = 0) -> int:
    """Index of the first ``token`` at or after ``start`` outside any bracket,
    or -1."""
    for i, depth in _depths(text):
        if i >= start and depth == 0 and text.startswith(token, i):
            return i
    return -1


_VMAP = "kdsl::vmap(["


def _wrap_vmap(indent, text):
    """The first ``kdsl::vmap`` laid out as clang-format lays out a lambda
    argument: the lambda's head, its return statement and the vectors on
    lines of their own."""
    start = text.find(_VMAP)
    if start < 0:
        return None
    head_end = text.find(") { return ", start)  # the lambda's parameters end
    body_end = text.find("; }, ", head_end)
    close = _closing(text, start + len("kdsl::vmap"))
    if min(head_end, body_end, close) < 0:
        return None
    more = indent + " " * CONTINUATION
    body = more + "    "
    return [
        indent + text[: start + len("kdsl::vmap(")],
        more + text[start + len("kdsl::vmap(") : head_end + 3],
        *_return_lines(body, text[head_end + 4 : body_end + 1]),
        more + "},",
        *_packed(more, text[body_end + 5 :]),
    ]


_OPERATORS = (" ? ", " : ", " || ", " && ", " + ", " - ", " * ", " / ")


def _return_lines(indent, text):
    """``return <value>;``, broken after a top-level binary operator (the
    rightmost that keeps the first line within ``LIMIT``) when too long; the
    continuation is aligned with the value."""
    if len(indent) + len(text) <= LIMIT:
        return [indent + text]
    value = len("return ")
    best = -1
    for op in _OPERATORS:
        at = _top_level(text, op, value)
        while at >= 0:
            if len(indent) + at + len(op) - 1 <= LIMIT:
                best = max(best, at)
            at = _top_level(text, op, at + 1)
    if best < 0:
        return [indent + text]
    split = text.index(" ", best + 1) + 1  # after the operator
    head, tail = text[:split].rstrip(), text[split:]
    return [indent + head, indent + " " * value + tail]


def _packed(indent, text):
    """``text`` (the vectors a vmap maps over, then the statement's end) in
    lines of at most ``LIMIT`` columns, broken after its top-level commas."""
    pieces, prev = [], 0
    for comma in _top_level_commas(text):
        pieces.append(text[prev : comma + 1].strip())
        prev = comma + 1
    pieces.append(text[prev:].strip())
    return _fill(indent + pieces[0], pieces[1:], indent)


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


def _top_level_commas(text):
    """Indices of the commas of ``text`` outside any bracket (or template)."""
    return [i for i, depth in _depths(text) if text[i] == "," and depth == 0]


def _depths(text):
    """``(index, bracket depth)`` of each character; a closing bracket with no
    opening one in ``text`` is ignored, and a template's ``<...>`` counts.  A
    string literal is one level deeper than its place (nothing in it is at
    the top level) and its brackets do not count."""
    stack = []
    quoted = _quoted(text)
    for i, ch in enumerate(text):
        if quoted[i]:
            yield i, len(stack) + 1
            continue
        if ch in "([{" or _opens_template(text, i):
            stack.append(ch)
        elif stack and (ch in ")]}" or (ch == ">" and stack[-1] == "<")):
            stack.pop()
        yield i, len(stack)


def _quoted(text: str) -> list[bool]:
    """For each character, whether it belongs to a string literal ``"..."``
    (its quotes included)."""
    out, inside, escaped = [], False, False
    for ch in text:
        if inside:
            out.append(True)
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                inside = False
        else:
            inside = ch == '"'
            out.append(inside)
    return out


def _closing(text: str, open_index: int) -> int:
    """Index of the bracket closing the one at ``open_index``, or -1."""
    for i, depth in _depths(text):
        if i == open_index:
            inside = depth
        elif i > open_index and depth < inside:
            return i
    return -1


def _wrap_conditional(indent, text):
    head_end = _top_level(text, " = ")
    head_end = head_end + 3 if head_end >= 0 else 0
    q = _top_level(text, " ? ", head_end)
    c = _top_level(text, " : ", q + 3) if q >= 0 else -1
    if c < 0:
        return None
    more = indent + " " * CONTINUATION
    return [indent + text[:q], more + text[q + 1 : c], more + text[c + 1 :]]


def _groups(text):
    """``(open, close, [comma indices])`` of every bracket pair with commas
    (outside string literals).

    A template's ``<...>`` (a ``<`` right after a name, as in
    ``splat<float, 8>``; a comparison has spaces) is a bracket whose commas
    never break a line."""
    stack, out = [], []
    quoted = _quoted(text)
    for i, ch in enumerate(text):
        if quoted[i]:
            continue
        if ch in "([{" or _opens_template(text, i):
            stack.append((i, []))
        elif ch in ")]}" or (ch == ">" and stack and text[stack[-1][0]] == "<"):
            start, commas = stack.pop()
            if commas and text[start] != "<":
                out.append((start, i, commas))
        elif ch == "," and stack:
            stack[-1][1].append(i)
    return out


def _opens_template(text: str, i: int) -> bool:
    return (
        text[i] == "<"
        and i > 0
        and (text[i - 1].isalnum() or text[i - 1] == "_")
        and text[i + 1 : i + 2] not in ("", " ", "=", "<")
    )


def _wrap_arguments(indent, text):
    groups = _groups(text)
    if not groups:
        return None
    start, close, commas = max(groups, key=lambda g: (g[1] - g[0], -g[0]))
    if 2 * (close - start) < len(text):
        return None
    align = " " * (len(indent) + start + 1)
    pieces, prev = [], start + 1
    for comma in commas:
        pieces.append(text[prev : comma + 1].strip())
        prev = comma + 1
    pieces.append(text[prev:].strip())
    return _fill(indent + text[: start + 1] + pieces[0], pieces[1:], align)


def _wrap_value(indent, text):
    eq = _top_level(text, " = ")
    if eq < 0:
        return None
    return [indent + text[: eq + 2], indent + " " * CONTINUATION + text[eq + 3 :]]
