"""Text from outside the kernel (a file's name) spelled safely in C++.

A name reaches the generated source in the header comment and in
``#line N "name"``.  Both spellings keep it inside: a backslash is doubled,
a character that is not printable becomes an escape (``\\n``, ``\\t``, … or
one ``\\ooo`` octal escape per UTF-8 byte: octal escapes stop after three
digits, unlike ``\\x``), and ``??`` becomes ``?\\?`` so that no trigraph
forms.  A comment also never holds ``*/``; a string literal escapes ``"``.
Ordinary names (printable, without ``\\``, ``"``, ``??`` or ``*/``) are
spelled as they are.
"""

from __future__ import annotations

import re

_SHORT = {"\n": "n", "\t": "t", "\r": "r", "\v": "v", "\f": "f", "\a": "a", "\b": "b"}
_UNSHORT = {v: k for k, v in _SHORT.items()} | {"\\": "\\", '"': '"', "?": "?"}


def _escaped(c: str) -> str:
    if c in _SHORT:
        return "\\" + _SHORT[c]
    try:
        raw = c.encode("utf-8", "surrogateescape")  # a byte os.fsdecode kept
    except UnicodeEncodeError:
        raw = c.encode("utf-8", "surrogatepass")
    return "".join(f"\\{b:03o}" for b in raw)


def _spell(text: str, specials: str) -> str:
    out = []
    for i, c in enumerate(text):
        if c == "\\" or c in specials:
            out.append("\\" + c)
        elif c == "?" and i > 0 and text[i - 1] == "?":
            out.append("\\?")
        elif not c.isprintable():
            out.append(_escaped(c))
        else:
            out.append(c)
    return "".join(out)


def comment(text: str) -> str:
    """``text`` for a comment: one printable line that cannot end it."""
    return _spell(text, "").replace("*/", "*\\/")


def string_literal(text: str) -> str:
    """``text`` as a C++ string literal, quotes included (as in ``#line``)."""
    return '"' + _spell(text, '"') + '"'


_ESCAPE = re.compile(r"\\([0-7]{1,3}|.)", re.DOTALL)


def string_value(literal: str) -> str:
    """The text of a string literal that :func:`string_literal` spelled."""
    body = literal[1:-1]
    out, at = bytearray(), 0
    for m in _ESCAPE.finditer(body):
        out += body[at : m.start()].encode("utf-8", "surrogateescape")
        code = m.group(1)
        if code[0] in "01234567":
            out.append(int(code, 8) & 0xFF)
        else:
            out += _UNSHORT.get(code, code).encode("utf-8", "surrogateescape")
        at = m.end()
    out += body[at:].encode("utf-8", "surrogateescape")
    return out.decode("utf-8", "surrogateescape")
