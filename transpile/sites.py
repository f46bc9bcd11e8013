"""Where a kernel is defined: locations for errors raised before its body
is parsed (decoration, dispatch) and while its annotations are evaluated.

:class:`DefSite` reads a function's source with :mod:`ast` only when an
error needs a location, and points at the parameter, the decorator keyword
or the ``def`` name.  :func:`at_caller` locates an error raised while the
user's own code runs (``Constexpr[str]``, ``Vector[int, 4]`` in an
annotation) at the expression being evaluated.
"""

from __future__ import annotations

import ast
import inspect
import sys
import textwrap

from kdsl.transpile.source import Span

# modules whose frames are not the user's code
_NOT_THE_USER = ("kdsl", "typing", "functools", "importlib")


class DefSite:
    """The ``def`` of ``fn`` in its file, parsed with :mod:`ast` on first use."""

    def __init__(self, fn):
        self.fn = fn
        self._parsed = False
        self.node = None  # the FunctionDef, once parsed (None without source)

    def _parse(self):
        if self._parsed:
            return self.node
        self._parsed = True
        fn = inspect.unwrap(self.fn)
        try:
            lines, start = inspect.getsourcelines(fn)
            self.path = inspect.getsourcefile(fn) or "<unknown>"
            tree = ast.parse(textwrap.dedent("".join(lines)))
        except (OSError, TypeError, SyntaxError):
            return None
        self.lines = lines
        self.start = start
        self.indent = len(lines[0]) - len(lines[0].lstrip())
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.node = node
                break
        return self.node

    def _span(self, node) -> tuple[Span, str]:
        line = node.lineno + self.start - 1
        end_line = (node.end_lineno or node.lineno) + self.start - 1
        col = node.col_offset + self.indent + 1
        end_col = (node.end_col_offset or node.col_offset + 1) + self.indent + 1
        text = self.lines[node.lineno - 1].rstrip("\n")
        return Span(self.path, line, col, end_line, end_col), text

    def _def_name(self) -> tuple[Span, str]:
        """The ``def name`` of the function (its header line)."""
        node = self.node
        line = node.lineno + self.start - 1
        text = self.lines[node.lineno - 1].rstrip("\n")
        col = text.find("def ") + 1 or self.indent + 1
        end = col + len("def ") + len(node.name)
        return Span(self.path, line, col, line, end), text

    def span(self, param: str | None = None, keyword: str | None = None):
        """``(Span, source line)`` of the parameter ``param`` (its
        annotation, else its name), else of the decorator keyword
        ``keyword=``, else of the ``def`` name; None without source."""
        node = self._parse()
        if node is None:
            return None
        if param is not None:
            args = node.args
            for arg in args.posonlyargs + args.args + args.kwonlyargs:
                if arg.arg == param:
                    return self._span(arg)
        if keyword is not None:
            for deco in node.decorator_list:
                for kw in getattr(deco, "keywords", ()):
                    if kw.arg == keyword:
                        return self._span(kw)
        return self._def_name()

    def locate(self, err, param: str | None = None, keyword: str | None = None):
        """``err`` located at :meth:`span` unless it has a location already."""
        if err.span is None:
            where = self.span(param, keyword)
            if where is not None:
                err.locate(*where)
        return err


def at_caller(err):
    """``err`` located at the expression its raiser's caller is evaluating,
    when that caller is the user's code (an annotation of a ``def``, say)
    and not kdsl's (which locates its errors itself)."""
    if err.span is not None:
        return err
    return _at_frame(err, sys._getframe(2))  # 0: here, 1: the raiser, 2: its caller


def at_call(err, depth: int = 2):
    """``err`` located at the call its raiser was called from (``depth``
    frames up: 2 is the raiser's caller), past kdsl's entry-point wrappers
    (``transpile/tracebacks.py``), when that call is the user's code: a
    ``kernel.dispatch("f16")`` the kernel does not support points there."""
    if err.span is not None:
        return err
    frame = sys._getframe(depth)
    while frame is not None and frame.f_globals.get("__name__") == _WRAPPERS:
        frame = frame.f_back
    return err if frame is None else _at_frame(err, frame)


_WRAPPERS = "kdsl.transpile.tracebacks"


def _at_frame(err, frame):
    """``err`` located at the expression ``frame`` is evaluating, unless the
    frame is kdsl's (or the standard library's plumbing)."""
    module = frame.f_globals.get("__name__", "")
    if module.split(".")[0] in _NOT_THE_USER:
        return err
    return _at_frame(err, frame)


def at_user_code(err):
    """``err`` located at the line of the user's code that led to it: the
    innermost frame outside kdsl (a launch ``k[grid, block](...)``)."""
    if err.span is not None:
        return err
    frame = sys._getframe(1)
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module.split(".")[0] not in _NOT_THE_USER:
            return _at_frame(err, frame)
        frame = frame.f_back
    return err


def _at_frame(err, frame):
    """``err`` located at the expression ``frame`` is evaluating."""
    info = inspect.getframeinfo(frame, context=1)
    text = info.code_context[0].rstrip("\n") if info.code_context else None
    line, col, end_line, end_col = info.lineno, 1, info.lineno, 1
    positions = getattr(info, "positions", None)  # Python 3.11+
    if positions is not None and positions.col_offset is not None:
        line, end_line = positions.lineno, positions.end_lineno or positions.lineno
        col, end_col = positions.col_offset + 1, (positions.end_col_offset or 0) + 1
        if line != info.lineno:
            import linecache

            text = linecache.getline(info.filename, line).rstrip("\n") or None
    elif text is not None:
        col = len(text) - len(text.lstrip()) + 1
        end_col = len(text) + 1
    return err.locate(Span(info.filename, line, col, end_line, end_col), text)
