"""kdsl's user-facing errors: one catalog with stable codes, one format.

Every error a user can see is a :class:`DSLError`.  Errors that Python code
would expect to be a ``TypeError`` (or ``ZeroDivisionError`` …) also derive
from that builtin, so ``except TypeError`` keeps working.

An error is raised by name from :data:`CATALOG` through :func:`error`; the
catalog fixes its code, its class and its message template, so that tests can
assert the code and messages stay consistent.  When the error carries a
:class:`~kdsl.transpile.source.Span` it renders like a compiler's::

    path.py:12:9: error[E101]: bitwise operator '&' needs integer operands, got Float32
        out[i] = x[i] & 1
                 ^^^^^^^^
    in instance vector_add__f32__256
"""

from __future__ import annotations

from dataclasses import dataclass

from kdsl.transpile.source import Span


class DSLError(Exception):
    """Base of every error kdsl reports to a user."""

    code = "E000"

    def __init__(self, message: str, *, code: str | None = None, span=None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.span: Span | None = span
        self.source_line: str | None = None
        self.instance: str | None = None

    def locate(self, span: Span, source_line: str | None = None) -> "DSLError":
        """Attach a location unless a more precise one is already known."""
        if self.span is None:
            self.span = span
            self.source_line = source_line
        elif self.source_line is None and source_line is not None:
            if self.span.line == span.line and self.span.path == span.path:
                self.source_line = source_line
        return self

    def render(self) -> str:
        head = f"error[{self.code}]: {self.message}"
        if self.span is None:
            lines = [head]
        else:
            lines = [f"{self.span}: {head}"]
        if self.span is not None and self.source_line is not None:
            lines.append(f"    {self.source_line}")
            end = (
                self.span.end_col
                if self.span.end_line == self.span.line
                else len(self.source_line) + 1
            )
            width = max(1, end - self.span.col)
            lines.append("    " + " " * (self.span.col - 1) + "^" * width)
        if self.instance is not None:
            lines.append(f"in instance {self.instance}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render()


class DSLTypeError(DSLError, TypeError):
    """A type rule was broken (TypeError-compatible)."""


class DSLValueError(DSLError, ValueError):
    """A value is out of range or malformed (ValueError-compatible)."""


class DSLZeroDivisionError(DSLError, ZeroDivisionError):
    """Integer division by a compile-time zero."""


class DSLSyntaxError(DSLError, SyntaxError):
    """A construct outside kdsl's Python subset."""

    def __str__(self) -> str:  # SyntaxError.__str__ would hide the render
        return self.render()


class DynamicValueError(DSLError, TypeError):
    """A run-time value was used where a compile-time one is needed."""


class UnsupportedDtypeError(DSLError, TypeError):
    """A kernel was asked for a dtype outside its supported set."""


class LaunchError(DSLError, TypeError):
    """A launch argument or configuration is wrong; nothing was launched."""

    code = "E406"


class InterpretError(DSLError, RuntimeError):
    """The CPU interpreter caught a fault the GPU would not report (an index
    out of bounds, a divergent barrier or shuffle, a data race)."""

    code = "E407"


class NVRTCError(DSLError):
    """NVRTC rejected generated code; ``.log`` is NVRTC's own log."""

    code = "E502"
    log = ""


@dataclass(frozen=True)
class ErrorKind:
    code: str
    cls: type
    template: str


def _kinds(*rows: tuple[str, str, type, str]) -> dict[str, ErrorKind]:
    table = {}
    for name, code, cls, template in rows:
        assert name not in table and all(k.code != code for k in table.values())
        table[name] = ErrorKind(code, cls, template)
    return table


CATALOG: dict[str, ErrorKind] = _kinds(
    # E1xx: the arithmetic type system
    (
        "bitwise-float",
        "E101",
        DSLTypeError,
        "operator '{op}' needs integer operands, got {lhs} and {rhs}",
    ),
    (
        "narrow-arithmetic",
        "E102",
        DSLTypeError,
        "{type} is a storage type: convert with .to(Float32) before using '{op}'",
    ),
    (
        "static-zero-division",
        "E103",
        DSLZeroDivisionError,
        "integer {op} by zero ({lhs} {op} {rhs}) at compile time",
    ),
    ("dynamic-as-python", "E104", DynamicValueError, "{what}"),
    (
        "literal-range",
        "E105",
        DSLValueError,
        "integer literal {value} does not fit Int64; write an explicit type, "
        "e.g. Uint64({value})",
    ),
    ("not-numeric", "E106", DSLTypeError, "{what}"),
    ("bitcast-width", "E107", DSLTypeError, "{what}"),
    ("vector-type", "E108", DSLTypeError, "{what}"),
    ("unknown-ir-type", "E109", DSLValueError, "no kdsl type is spelled {spelling!r}"),
    (
        "abstract-type",
        "E110",
        DSLTypeError,
        "{type} is abstract; use a concrete type such as {example}",
    ),
    (
        "unary-type",
        "E111",
        DSLTypeError,
        "operator '{op}' is not defined for {type}",
    ),
)


CATALOG.update(
    _kinds(
        # Compile-time kernel definitions and dispatch.
        ("no-source", "E201", DSLError, "{what}"),
        ("bad-annotation", "E401", DSLError, "{what}"),
        ("cannot-infer-dtypes", "E402", DSLError, "{what}"),
        ("unsupported-dtype", "E403", UnsupportedDtypeError, "{what}"),
        ("backward-mismatch", "E404", DSLError, "{what}"),
        ("dtype-outside-bound", "E405", DSLError, "{what}"),
        ("launch-argument", "E406", LaunchError, "{what}"),
        ("interpreter-fault", "E407", InterpretError, "{what}"),
        # NVRTC.
        ("cuda-headers", "E501", DSLError, "{what}"),
        ("nvrtc-rejected", "E502", NVRTCError, "{what}"),
        # kdsl-transpile.
        ("cli-path", "E601", DSLError, "{what}"),
        ("cli-import", "E602", DSLError, "{what}"),
        ("cli-no-match", "E603", DSLError, "{what}"),
        ("cli-module-clash", "E604", DSLError, "{what}"),
        ("cli-option", "E605", DSLError, "{what}"),
    )
)
assert LaunchError.code == CATALOG["launch-argument"].code
assert InterpretError.code == CATALOG["interpreter-fault"].code
assert NVRTCError.code == CATALOG["nvrtc-rejected"].code


def code_of(kind_name: str) -> str:
    """The stable code of the catalog entry ``kind_name``."""
    return CATALOG[kind_name].code


def error(kind_name: str, /, *, span: Span | None = None, **fields) -> DSLError:
    """Build the catalog error ``kind_name`` with its message fields filled in."""
    kind = CATALOG[kind_name]
    return kind.cls(kind.template.format(**fields), code=kind.code, span=span)


CATALOG.update(
    _kinds(
        # E2xx: the Python subset
        (
            "unsupported-syntax",
            "E202",
            DSLSyntaxError,
            "{what} is not supported in kdsl kernels",
        ),
        ("bad-call", "E203", DSLTypeError, "{what}"),
        ("bad-loop", "E204", DSLSyntaxError, "{what}"),
        ("bad-target", "E205", DSLSyntaxError, "{what}"),
        (
            "recursion",
            "E206",
            DSLError,
            "device function '{name}' calls itself; recursion is not supported",
        ),
        # E3xx: names and variables
        ("undefined-name", "E301", DSLError, "name '{name}' is not defined"),
        (
            "retyped-variable",
            "E302",
            DSLTypeError,
            "variable '{name}' is {old} (line {line}) and cannot be assigned a {new}; a variable keeps one type for its life",
        ),
        ("bad-assignment", "E303", DSLTypeError, "{what}"),
        (
            "needs-static",
            "E304",
            DynamicValueError,
            "{what} must be known at compile time",
        ),
        (
            "store-type",
            "E305",
            DSLTypeError,
            "cannot store a value of type {value} into {target} of {elem}: "
            "convert with .to({elem})",
        ),
        ("bad-index", "E306", DSLTypeError, "{what}"),
        ("bad-attribute", "E307", DSLError, "{what}"),
        ("return-type", "E308", DSLTypeError, "{what}"),
        ("internal", "E999", DSLError, "internal compiler error: {what}"),
    )
)
