"""What a user's traceback of a :class:`~kdsl.transpile.errors.DSLError` shows.

A kdsl error already says where it is (``path:line:col``, the kernel line
and a caret), so the 15 to 25 frames of kdsl's own code it passed through on
its way out say nothing to a user.  The public entry points (decorating,
``dispatch()``, ``inst.source``, launching, interpreting) are wrapped in
:func:`user_facing`, which cuts those frames from the traceback: what is
left is the user's own frames (their call, and any code of theirs kdsl
called) and one line of kdsl's saying that frames were hidden.
``KDSL_TRACEBACK=1`` in the environment keeps every frame (for debugging
kdsl itself).
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import types

from kdsl.transpile.errors import DSLError

# the packages whose frames are kdsl's own (their folders, found once loaded)
_PACKAGES = ("kdsl", "kdsl.transpile", "kdsl.runtime")
# the standard library's plumbing between kdsl's frames (``with`` blocks)
_PLUMBING = frozenset(
    os.path.abspath(m.__file__) for m in (contextlib, functools) if m.__file__
)


def full_tracebacks() -> bool:
    """Whether ``KDSL_TRACEBACK=1`` asks for kdsl's own frames too."""
    return os.environ.get("KDSL_TRACEBACK") == "1"


def _folders() -> tuple[str, ...]:
    out = []
    for name in _PACKAGES:
        path = getattr(sys.modules.get(name), "__file__", None)
        if path:
            out.append(os.path.dirname(os.path.abspath(path)) + os.sep)
    return tuple(out)


def _kept(tb, folders) -> types.TracebackType | None:
    """``tb`` without kdsl's frames, as a new chain (``tb`` is left as it is)."""
    frames = []
    while tb is not None:
        path = os.path.abspath(tb.tb_frame.f_code.co_filename)
        if not path.startswith(folders) and path not in _PLUMBING:
            frames.append(tb)
        tb = tb.tb_next
    out = None
    for t in reversed(frames):
        out = types.TracebackType(out, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return out


def for_the_user(exc: BaseException) -> BaseException:
    """``exc`` with kdsl's own frames cut from its traceback and from its
    explicit cause's; the implicit context (an exception kdsl handled on the
    way) is not shown.  Unchanged under ``KDSL_TRACEBACK=1``."""
    if full_tracebacks():
        return exc
    folders = _folders()
    exc.__suppress_context__ = True
    cause = exc.__cause__
    if cause is not None and cause.__traceback__ is not None:
        cause.__traceback__ = _kept(cause.__traceback__, folders)
    return exc.with_traceback(_kept(exc.__traceback__, folders))


def user_facing(fn):
    """``fn`` raising its DSLErrors without kdsl's frames (see the module)."""

    @functools.wraps(fn)
    def entry(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except DSLError as exc:
            raise for_the_user(exc)  # kdsl's frames hidden; KDSL_TRACEBACK=1: all

    return entry


def warn_user(message: str, category: type[Warning]) -> None:
    """``warnings.warn`` attributed to the user's innermost frame: the
    first one up the stack that is not kdsl's (however many of kdsl's own
    frames, wrappers included, lie between)."""
    import warnings

    folders = _folders()
    frame, level = sys._getframe(1), 1
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        if not path.startswith(folders) and path not in _PLUMBING:
            break
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level + 1 if frame else 2)
