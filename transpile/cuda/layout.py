"""Line layout: a generated statement longer than ``LIMIT`` columns, broken
as clang-format would break it.  Text in, lines out: this works on the
finished statement's text (brackets and top-level operators), after the
expressions have been spelled."""

from __future__ import annotations

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
    return [indent + text]


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
