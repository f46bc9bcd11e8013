"""kdsl's user-facing errors: one catalog with stable codes, one format.

Every error a user can see is a :class:`DSLError`.  Errors that Python code
would expect to be a ``TypeError`` (or ``ZeroDivisionError`` …) also derive
from that builtin, so ``except TypeError`` keeps working.

An error is raised by name from :data:`CATALOG` through :func:`error`; the
catalog fixes its code, its class and its message template, so that tests can
assert the code and messages stay consistent.  The runtime's entries
(launching, the CPU interpreter, NVRTC) and their classes live in
``kdsl.runtime.errors``, which adds them with :func:`register`; the compiler
never imports the runtime.  When the error carries a
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


@dataclass(frozen=True)
class ErrorKind:
    code: str
    cls: type
    template: str


CATALOG: dict[str, ErrorKind] = {}


def register(*rows: tuple[str, str, type, str]) -> None:
    """Add ``(name, code, class, template)`` rows to :data:`CATALOG`.

    Names and codes are unique; registering the same row again (a module
    reloaded) replaces it.  ``kdsl.runtime.errors`` adds the runtime's entries
    this way, so that the compiler never imports the runtime."""
    for name, code, cls, template in rows:
        for other_name, other in CATALOG.items():
            same = other_name == name
            if same != (other.code == code) or same and other.template != template:
                raise ValueError(f"error {name} ({code}) clashes with {other_name}")
        CATALOG[name] = ErrorKind(code, cls, template)


def did_you_mean(names, choices, quote: bool = False) -> str:
    """``"; did you mean X?"`` for the first of ``names`` that is close to
    one of ``choices`` (difflib), else ``""``."""
    import difflib

    for name in names:
        close = difflib.get_close_matches(name, sorted(set(choices)), n=1)
        if close:
            return (
                f"; did you mean {close[0]!r}?"
                if quote
                else f"; did you mean {close[0]}?"
            )
    return ""


def code_of(kind_name: str) -> str:
    """The stable code of the catalog entry ``kind_name``."""
    return CATALOG[kind_name].code


def error(kind_name: str, /, *, span: Span | None = None, **fields) -> DSLError:
    """Build the catalog error ``kind_name`` with its message fields filled in."""
    kind = CATALOG[kind_name]
    return kind.cls(kind.template.format(**fields), code=kind.code, span=span)


# Each entry has one meaning; its message names what is wrong and, where
# there is one, what to write instead.  Codes: E1xx the type system, E2xx the
# Python subset, E3xx names, variables and memory, E4xx signatures, dispatch
# and launching (kdsl.runtime.errors adds the launch and interpreter ones),
# E5xx NVRTC (kdsl.runtime.errors), E6xx kdsl-transpile, E999 a kdsl bug.
register(
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
    (
        "dynamic-as-python",
        "E104",
        DynamicValueError,
        "cannot {action} a run-time {type} value: it is only known on the GPU; "
        "keep it a kdsl value (convert with .to(...))",
    ),
    (
        "literal-range",
        "E105",
        DSLValueError,
        "integer literal {value} does not fit Int64; write an explicit type, "
        "e.g. Uint64({value})",
    ),
    (
        "not-numeric",
        "E106",
        DSLTypeError,
        "expected a number or a kdsl value{where}, got {got}",
    ),
    (
        "bitcast-width",
        "E107",
        DSLTypeError,
        "bitcast needs equal widths: {src} has {src_bits} bits, {dst} has "
        "{dst_bits}; bitcast to a {src_bits}-bit type",
    ),
    (
        "vector-type",
        "E108",
        DSLTypeError,
        "Vector[{dtype}, {lanes}] is not a vector type: lanes must be one of "
        "{allowed} with at most {max_bits} bits in all",
    ),
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
    (
        "vector-condition",
        "E112",
        DynamicValueError,
        "a {type} cannot be {use}: a vector has no single truth value; test its "
        "lanes (v[0] > 0)",
    ),
    (
        "vector-length",
        "E113",
        DSLTypeError,
        "'{op}' needs vectors of one length, got {types}",
    ),
    (
        "vector-convert",
        "E114",
        DSLTypeError,
        "cannot convert {src} to {dst}: .to() keeps the lane count; convert to a "
        "type of {lanes} lanes",
    ),
    (
        "vector-constructor",
        "E115",
        DSLTypeError,
        "{vtype}() takes 1 value to broadcast or {lanes} lanes, got {got}",
    ),
    (
        "lane-index",
        "E116",
        DSLTypeError,
        "a lane index of {vtype} must be a compile-time integer: write v[0] … "
        "v[{last}]",
    ),
    (
        "lane-range",
        "E117",
        DSLTypeError,
        "lane {index} is out of range for {vtype}: its lanes are 0 … {last}",
    ),
    (
        "scalar-of-vector",
        "E118",
        DSLTypeError,
        "{type}(...) takes a scalar, got a {got}; use .to({type}) on a vector",
    ),
    (
        "bitcast-sub-byte",
        "E119",
        DSLTypeError,
        "a vector of {elem} cannot be bitcast: CUDA keeps each lane in a byte of "
        "its own; bitcast the lanes one at a time",
    ),
    (
        "bitcast-lanes",
        "E120",
        DSLTypeError,
        "cannot bitcast {src} ({src_bits} bits) to lanes of {dst} ({dst_bits} "
        "bits): {src_bits} is not a multiple of {dst_bits}",
    ),
    (
        "not-a-type",
        "E121",
        DSLTypeError,
        "{method} needs a kdsl type such as Float32, got {got}",
    ),
    (
        "vector-spelling",
        "E122",
        DSLTypeError,
        "Vector[{got}] names no vector type: write Vector[dtype, N], e.g. "
        "Vector[Float32, 4]",
    ),
    (
        "vector-element",
        "E123",
        DSLTypeError,
        "a vector element must be a concrete scalar type such as Float32, got {got}",
    ),
    # E2xx: the Python subset
    (
        "no-source",
        "E201",
        DSLError,
        "cannot read the source of {name}: kdsl kernels must be defined in a file "
        "({reason})",
    ),
    (
        "unsupported-syntax",
        "E202",
        DSLSyntaxError,
        "{construct} is not supported in kdsl kernels",
    ),
    (
        "wrong-arg-count",
        "E203",
        DSLTypeError,
        "{callee}() takes {n} argument(s), got {got}",
    ),
    (
        "loop-iterable",
        "E204",
        DSLSyntaxError,
        "a kernel loop iterates over range(...), kdsl.range(...) or "
        "kdsl.range_constexpr(...), not '{got}'",
    ),
    (
        "assign-target",
        "E205",
        DSLSyntaxError,
        "cannot assign to '{target}': assign to a name or to an element such as x[i]",
    ),
    (
        "recursion",
        "E206",
        DSLError,
        "device function '{name}' calls itself; recursion is not supported",
    ),
    (
        "unexpected-keyword",
        "E207",
        DSLTypeError,
        "{callee}() got an unexpected keyword argument '{keyword}'; it {accepts}",
    ),
    ("not-callable", "E208", DSLTypeError, "{callee} is not callable in a kernel"),
    (
        "python-function-call",
        "E209",
        DSLTypeError,
        "cannot call the Python function '{name}' in a kernel: decorate it with "
        "@kdsl.func",
    ),
    (
        "typevar-call",
        "E210",
        DSLTypeError,
        "the dtype parameter {name} has no value here: a @kdsl.func is specialised "
        "by its argument types, so convert with a value's own type, e.g. a.dtype(2)",
    ),
    (
        "device-function-arg",
        "E211",
        DSLTypeError,
        "{callee}() cannot take {got}: a @kdsl.func takes numbers, vectors, "
        "pointers and arrays",
    ),
    (
        "kernel-call",
        "E212",
        DSLTypeError,
        "the kernel '{name}' cannot be called from a kernel: put the shared code "
        "in a @kdsl.func",
    ),
    (
        "loop-else",
        "E213",
        DSLSyntaxError,
        "'{loop} ... else' is not supported in kdsl kernels: set a flag before "
        "'break' and test it after the loop",
    ),
    (
        "unsupported-operator",
        "E214",
        DSLSyntaxError,
        "operator '{op}' is not supported in kdsl kernels; use {instead}",
    ),
    (
        "slicing",
        "E215",
        DSLSyntaxError,
        "slicing ({expr}) is not supported in kdsl kernels: index one element at a "
        "time, e.g. x[i]",
    ),
    (
        "star-arguments",
        "E216",
        DSLSyntaxError,
        "unpacking arguments ({arg}) is not supported in kdsl kernels: pass each "
        "argument on its own",
    ),
    (
        "chained-assignment",
        "E217",
        DSLSyntaxError,
        "chained assignment ({code}) is not supported in kdsl kernels: assign one "
        "name per statement",
    ),
    (
        "annotated-target",
        "E218",
        DSLSyntaxError,
        "only a name can be annotated, not '{target}': write name: Type = value",
    ),
    (
        "loop-target",
        "E219",
        DSLSyntaxError,
        "the loop variable must be a name, not '{target}': write for i in range(...)",
    ),
    (
        "range-outside-for",
        "E220",
        DSLSyntaxError,
        "{callee}() can only be the iterable of a for loop: write for i in "
        "{callee}(...)",
    ),
    (
        "range-arguments",
        "E221",
        DSLSyntaxError,
        "range takes start, stop and step (kdsl.range also unroll=k), got '{got}'",
    ),
    (
        "range-zero-step",
        "E222",
        DSLSyntaxError,
        "{callee}() step must not be zero: use a positive or a negative step",
    ),
    (
        "range-type",
        "E223",
        DSLTypeError,
        "the {part} of range() must be integers, got {got}; convert with .to(Int32)",
    ),
    (
        "unroll-count",
        "E224",
        DSLSyntaxError,
        "unroll= must be 1 or more, got {unroll}",
    ),
    (
        "loop-exit-outside-loop",
        "E225",
        DSLSyntaxError,
        "'{stmt}' outside a loop: it can only be used in a for or while body",
    ),
    (
        "loop-exit-in-unrolled",
        "E226",
        DSLSyntaxError,
        "'{stmt}' in a range_constexpr loop must be under a compile-time "
        "condition; use kdsl.range for a run-time {stmt}",
    ),
    (
        "compile-time-exception",
        "E227",
        DSLTypeError,
        "evaluating this at compile time failed ({exc_type}): {detail}",
    ),
    (
        "len-type",
        "E228",
        DSLTypeError,
        "len() takes a tuple (a.shape), an Array or a shared or local array, "
        "got {got}",
    ),
    (
        "atomic-target",
        "E229",
        DSLTypeError,
        "{callee}() needs a pointer or array first, got {got}: e.g. "
        "{callee}(out, i, value)",
    ),
    (
        "atomic-type",
        "E230",
        DSLTypeError,
        "{callee}() supports {supported}, not {type}",
    ),
    (
        "atomic-order",
        "E335",
        DSLValueError,
        "{callee}(order={got}) is no memory order: write one of {orders}",
    ),
    (
        "atomic-scope",
        "E336",
        DSLValueError,
        "{callee}(scope={got}) is no scope: write one of {scopes}",
    ),
    (
        "math-vector",
        "E231",
        DSLTypeError,
        "{callee}() takes scalars, got a {got}: apply it to each lane (v[0] …)",
    ),
    (
        "array-element-type",
        "E232",
        DSLTypeError,
        "{callee}() needs a concrete element type first, got {got}: e.g. "
        "{callee}(Float32, 256)",
    ),
    (
        "array-shape",
        "E233",
        DSLTypeError,
        "{callee}() needs a positive static shape, got {shape}",
    ),
    (
        "shuffle-type",
        "E234",
        DSLTypeError,
        "{callee}() shuffles an integer or float scalar of 8 to 64 bits, got {got}",
    ),
    (
        "vec-of-vec",
        "E235",
        DSLTypeError,
        "this pointer to {vtype} is already a vector view: call .vec(N) once, on "
        "the scalar pointer",
    ),
    (
        "not-integer",
        "E236",
        DSLTypeError,
        "{subject} must be an integer, got {got}",
    ),
    (
        "outside-kernel",
        "E237",
        DSLTypeError,
        "{callee}() can only be used inside a @kdsl.kernel (or a @kdsl.func it "
        "calls)",
    ),
    (
        "store-target",
        "E238",
        DSLSyntaxError,
        "cannot store into {target}: only a pointer or array element (x[i]) can be "
        "stored to",
    ),
    (
        "unpack-count",
        "E239",
        DSLSyntaxError,
        "tuple assignment to {n} targets needs a tuple of {n} values, got {got}",
    ),
    (
        "assign-constexpr",
        "E240",
        DSLSyntaxError,
        "'{name}' is a compile-time parameter and cannot be {use}; use another name",
    ),
    (
        "bit-operand",
        "E241",
        DSLTypeError,
        "{callee}() takes a 32- or 64-bit integer, got {got}: convert it with "
        ".to(Int32) or .to(Uint32)",
    ),
    (
        "warp-mask-type",
        "E242",
        DSLTypeError,
        "{callee}() takes mask= as a 32-bit lane mask (an Int32 or Uint32 scalar, "
        "bit k for lane k), got {got}",
    ),
    (
        "warp-mask-empty",
        "E243",
        DSLValueError,
        "{callee}() with mask=0 names no lane: the calling lane must be in its "
        "mask (mask=1 << kdsl.lane_id() for itself alone)",
    ),
    (
        "warp-predicate-type",
        "E244",
        DSLTypeError,
        "{callee}() takes a Boolean predicate, got {got}: compare it, e.g. x != 0",
    ),
    (
        "match-type",
        "E245",
        DSLTypeError,
        "{callee}() compares a 32- or 64-bit integer or a Float32/Float64 scalar, "
        "got {got}: convert it with .to(Int32) (or .bitcast())",
    ),
    (
        "warp-reduce-type",
        "E246",
        DSLTypeError,
        "{callee}() reduces an Int32 or Uint32 scalar, got {got}: convert it with "
        ".to(Int32) or .to(Uint32)",
    ),
    (
        "shuffle-width",
        "E247",
        DSLValueError,
        "{callee}() takes width= as a power of two from 1 to 32, got {width}",
    ),
    (
        "pair-in-expression",
        "E248",
        DSLSyntaxError,
        "{callee}() returns a pair computed once, so it needs a statement of its "
        "own here ({where}): assign it first, m, ok = {callee}(...)",
    ),
    (
        "integer-intrinsic-operand",
        "E250",
        DSLTypeError,
        "{callee}() takes {takes}, got {got}: convert with .to({want})",
    ),
    (
        "math-exponent",
        "E251",
        DSLTypeError,
        "{callee}() takes an Int32 exponent, got {got}: convert it with .to(Int32)",
    ),
    (
        "fast-math-type",
        "E252",
        DSLTypeError,
        "{callee}() is a Float32 approximation (a CUDA float intrinsic), got {got}: "
        "convert with .to(Float32), or use the accurate {accurate}",
    ),
    # E26x: printing and assertions
    (
        "print-argument",
        "E263",
        DSLTypeError,
        "print() cannot print {got}; {instead}",
    ),
    (
        "print-format-code",
        "E264",
        DSLTypeError,
        "format code '{code}' cannot print {type} in a kernel; use one of {codes}",
    ),
    (
        "print-format-spec",
        "E265",
        DSLSyntaxError,
        "format spec '{spec}' has {part}, which print() in a kernel does not "
        "support (it maps to CUDA's printf); write [<|>][+| ][0][width][.precision]"
        "[code]",
    ),
    (
        "print-text-keyword",
        "E266",
        DSLTypeError,
        "print()'s {keyword}= must be a string known at compile time, got {got}",
    ),
    (
        "print-too-many",
        "E267",
        DSLError,
        "print() formats at most {limit} run-time values (CUDA's printf), got {n}; "
        "split it into several prints",
    ),
    (
        "assert-message",
        "E268",
        DSLTypeError,
        "an assert message must be text known at compile time (a string, or an "
        "f-string of compile-time values), got {got}; print run-time values before "
        "the assert",
    ),
    (
        "assert-always-fails",
        "E269",
        DSLError,
        "every thread reaches this assert and its condition is False at compile "
        "time, so every launch would fail ({message}); remove it or put it under "
        "the condition it is about",
    ),
    # E270-E289: reliability (malformed constructs and work limits)
    (
        "starred-not-tuple",
        "E270",
        DSLTypeError,
        "only a tuple can be unpacked with * in a tuple, got {got}",
    ),
    (
        "work-limit",
        "E271",
        DSLValueError,
        "{quantity}: {amount} is more than the limit of {cap}; make the kernel smaller "
        "(a run-time loop instead of range_constexpr, a smaller array, a shorter "
        "expression) or raise the limit with the environment variable {env}",
    ),
    (
        "static-index-range",
        "E272",
        DSLValueError,
        "index {index} is out of range of {target}, whose dimension {dim} has "
        "{n} elements",
    ),
    (
        "shuffle-lane-type",
        "E273",
        DSLTypeError,
        "{callee}() needs an integer lane, got {got}",
    ),
    (
        "annotation-arguments",
        "E274",
        DSLTypeError,
        "{annotation} is not a parameter type: write {expected}",
    ),
    (
        "value-too-large",
        "E275",
        DSLValueError,
        "an integer of {bits} bits is too large for any kdsl type (the widest, "
        "Int128 and Uint128, have 128)",
    ),
    # E3xx: names, variables and memory
    ("undefined-name", "E301", DSLError, "name '{name}' is not defined"),
    (
        "retyped-variable",
        "E302",
        DSLTypeError,
        "variable '{name}' is {old} (line {line}) and cannot be assigned a {new}; "
        "a variable keeps one type for its life",
    ),
    (
        "no-value",
        "E303",
        DSLTypeError,
        "{callee}() returns no value to assign: call it as a statement",
    ),
    (
        "needs-static",
        "E304",
        DynamicValueError,
        "{subject} must be known at compile time: use a literal or a Constexpr "
        "parameter",
    ),
    (
        "store-type",
        "E305",
        DSLTypeError,
        "cannot store a value of type {value} into {target} of {elem}: "
        "convert with .to({elem})",
    ),
    (
        "index-type",
        "E306",
        DSLTypeError,
        "an index must be an integer, got {got}; convert it with .to(Int32)",
    ),
    (
        "unknown-attribute",
        "E307",
        DSLError,
        "{owner} has no attribute '{name}' in kdsl",
    ),
    (
        "foreign-name",
        "E277",
        DSLError,
        "{spelled} is another library's name (Triton, Numba or CUDA); in kdsl "
        "write {advice}",
    ),
    (
        "missing-return",
        "E308",
        DSLTypeError,
        "{callee}() returns a value but can reach its end without one: end it "
        "with a return",
    ),
    (
        "loop-variable-after-loop",
        "E309",
        DSLError,
        "'{name}' is the variable of the run-time loop at line {line} and does not "
        "exist after it; copy it to a variable assigned before the loop",
    ),
    (
        "annotation-type",
        "E310",
        DSLTypeError,
        "annotate variables with a concrete kdsl type such as Float32, got {got}",
    ),
    (
        "annotation-needs-value",
        "E311",
        DSLSyntaxError,
        "'{name}: {type}' needs a value: write {name}: {type} = ...",
    ),
    (
        "annotated-convert",
        "E312",
        DSLTypeError,
        "'{name}: {type}' is assigned a run-time {got}; convert explicitly with "
        ".to({type})",
    ),
    (
        "reassign-object",
        "E313",
        DSLTypeError,
        "'{name}' holds {old} and cannot be reassigned with {new}; use another name",
    ),
    (
        "object-in-branch",
        "E314",
        DSLTypeError,
        "{value} cannot be assigned in run-time control flow: assign it before the "
        "'if' or loop",
    ),
    (
        "bare-return",
        "E315",
        DSLTypeError,
        "{callee}() returns a value elsewhere, so this return needs one too",
    ),
    (
        "return-types-differ",
        "E316",
        DSLTypeError,
        "{callee}() returns different types: {types}; convert the returned values "
        "to one type with .to(...)",
    ),
    (
        "kernel-return-value",
        "E317",
        DSLTypeError,
        "a kernel returns nothing; use a bare return and store {value} through a "
        "pointer",
    ),
    (
        "dim3-field",
        "E318",
        DSLError,
        "{name} has no field '{field}': use {name}.x, {name}.y or {name}.z",
    ),
    ("not-indexable", "E319", DSLTypeError, "{target} cannot be indexed"),
    (
        "index-count",
        "E320",
        DSLTypeError,
        "{target} takes one index, got {got}",
    ),
    (
        "array-rank",
        "E321",
        DSLTypeError,
        "array '{name}' has {ndim} dimension(s), indexed with {got}: give one index "
        "per dimension",
    ),
    (
        "tuple-index-range",
        "E322",
        DSLTypeError,
        "index {index} is out of range for a tuple of {n}",
    ),
    (
        "dynamic-shared-in-function",
        "E323",
        DSLTypeError,
        "kdsl.dynamic_shared_array() is called in the device function {func}(): "
        "declare the view in the kernel and pass it to {func}() as an argument",
    ),
    (
        "dynamic-shared-in-branch",
        "E328",
        DSLTypeError,
        "'{name}' views dynamic shared memory inside run-time control flow: "
        "declare it before the 'if' or loop (the views' layout is fixed for the "
        "whole kernel)",
    ),
    (
        "dynamic-shared-size",
        "E324",
        DSLTypeError,
        "the size of kdsl.dynamic_shared_array(T, size) is a number of elements, "
        "a positive integer, got {got}",
    ),
    (
        "dynamic-shared-after-rest",
        "E325",
        DSLTypeError,
        "'{name}' would start after '{rest}' (line {line}), which takes the rest "
        "of the dynamic shared memory: give '{rest}' a size, "
        "kdsl.dynamic_shared_array(T, n)",
    ),
    (
        "dynamic-shared-vec",
        "E326",
        DSLTypeError,
        "'{name}' is a view of dynamic shared memory and has no .vec(N): declare "
        "the view with a vector type instead, kdsl.dynamic_shared_array({vtype}, n)",
    ),
    (
        "dynamic-shared-element",
        "E327",
        DSLTypeError,
        "kdsl.dynamic_shared_array() cannot view {type}: its elements are types "
        "of 1, 2, 4 or 8 bytes or vectors of them; use kdsl.shared_array for {type}",
    ),
    (
        "lane-store-index",
        "E330",
        DSLTypeError,
        "the lane of the store '{target}' must be a compile-time integer, 0 … "
        "{last} (a {vtype} lives in registers); to pick the lane at run time, keep "
        "the lanes in kdsl.local_array({dtype}, {lanes}) and index that",
    ),
    (
        "lane-store-target",
        "E331",
        DSLSyntaxError,
        "cannot store into a lane of {target}: only a vector variable (v[1] = x) or "
        "a vector element of an array or pointer (s[i][1] = x) has lanes to store "
        "to; assign the vector to a variable first",
    ),
    (
        "pointer-view-type",
        "E337",
        DSLTypeError,
        "{name}.view({got}): a pointer's bytes can be viewed as a scalar type of "
        "1, 2, 4 or 8 bytes other than Boolean (Uint8, Float32, Uint32 …); for "
        "vectors view as the scalar type, then call .vec(N)",
    ),
    (
        "pointer-view-source",
        "E338",
        DSLTypeError,
        "cannot view '{name}' with .view(T): {reason}",
    ),
    (
        "constant-table-type",
        "E339",
        DSLTypeError,
        "the module-level array '{name}' read in a kernel becomes a constant "
        "table, which is one-dimensional, not empty, of Int8 … Int64, Uint8 … "
        "Uint64, Float32, Float64 or Boolean; got {got} (reshape it, or store "
        "16-bit or narrow floats as their bits and .bitcast() them)",
    ),
    (
        "constant-table-value",
        "E340",
        DSLValueError,
        "the constant table '{name}' holds {value}: a __constant__ array's "
        "initialiser spells finite {dtype} values only; store the bits as a "
        "{bits} table and .bitcast({dtype}) the element",
    ),
    (
        "constant-table-too-large",
        "E341",
        DSLValueError,
        "the constant table '{name}' has {nbytes} bytes, and the instance's "
        "tables before it {used}: CUDA's constant memory holds {limit} bytes "
        "(64 KB); pass a larger table as a Pointer parameter instead",
    ),
    (
        "constant-index-range",
        "E342",
        DSLValueError,
        "index {index} is out of range of the constant table '{name}', which has "
        "{n} elements",
    ),
    (
        "is-none-operand",
        "E343",
        DSLSyntaxError,
        "'{op} None' tests {got}, which is never None: only a parameter "
        "declared kdsl.Optional[Pointer[T]] (or Pointer[T] | None) may be None",
    ),
    (
        "absent-pointer",
        "E344",
        DSLTypeError,
        "'{name}' is None in this instance (the launch passed {name}=None): "
        "use it only under 'if {name} is not None:'",
    ),
    (
        "pointer-offset",
        "E345",
        DSLTypeError,
        "pointer arithmetic on '{name}' needs an integer offset (a number of "
        "elements: Int32, Int64, a Python int …), got {got}",
    ),
    (
        "pointer-mismatch",
        "E346",
        DSLTypeError,
        "'{op}' of the pointers '{lhs}' and '{rhs}' needs one element type and "
        "one memory space, got the {differing} {a} and {b}",
    ),
    (
        "pointer-operator",
        "E347",
        DSLTypeError,
        "operator '{op}' does not apply to {got}: a pointer takes p + k, k + p, "
        "p - k, p += k, p - q (two pointers) and comparisons of two pointers",
    ),
    (
        "pointer-arith-rank",
        "E348",
        DSLTypeError,
        "'{name}' has {ndim} dimensions: pointer arithmetic takes a pointer or a "
        "one-dimensional shared or local array; index the element instead",
    ),
    (
        "shared-scalar-index",
        "E349",
        DSLTypeError,
        "'{name}' is a shared scalar (a 0-d array): read and write it as " "{name}[()]",
    ),
    (
        "grid-ndim",
        "E350",
        DSLValueError,
        "{callee}(ndim) takes ndim 1, 2 or 3, got {got}",
    ),
    (
        "assume-condition",
        "E351",
        DSLTypeError,
        "{callee}: kdsl.assume takes a comparison of integers, or comparisons "
        "joined by 'and' (n >= 0, 0 <= i < n), got {got}",
    ),
    (
        "assume-operand",
        "E352",
        DSLTypeError,
        "{text}: kdsl.assume states facts about integers; '{op}' compares "
        "{type} values here (compare integers, or test the value with an "
        "assert in a debug build)",
    ),
    (
        "assume-always-false",
        "E353",
        DSLValueError,
        "{text} is false at compile time: nothing after it could run",
    ),
    (
        "static-overflow",
        "E354",
        DSLValueError,
        "{lhs} {op} {rhs} is {exact}, outside {type}, in a function compiled "
        "with no_overflow=True (its signed + - * never overflow); compute it "
        "in a wider type, or unsigned where wrapping is meant",
    ),
    (
        "kernel-block-option",
        "E125",
        DSLTypeError,
        "@kdsl.kernel(block=...) of '{kernel}': {problem}",
    ),
    (
        "literal-not-exact",
        "E126",
        DSLValueError,
        "{target} holds {type}: the literal {value} is not one of its values "
        "({reason}); write {type}({value}) to convert it explicitly ({rule})",
    ),
    (
        "static-shared-limit",
        "E127",
        DSLValueError,
        "shared array '{name}' ({nbytes} bytes) makes the kernel's static shared "
        "memory {total} bytes, over CUDA's {limit} bytes (48 KB) of static "
        "__shared__ arrays a block; declare it in dynamic shared memory, "
        "kdsl.dynamic_shared_array({elem}, {size}), and launch with "
        "shared_mem=<bytes> (up to the device's opt-in maximum, 227 KB on an H200)",
    ),
    (
        "python-math-call",
        "E124",
        DSLTypeError,
        "{name} is Python's, which a kernel cannot call: {advice}",
    ),
    # E4xx: kernel signatures and dispatch (kdsl.runtime.errors adds launching)
    (
        "bad-annotation",
        "E401",
        DSLError,
        "{where}: parameter '{param}' {problem}; {hint}",
    ),
    (
        "cannot-infer-dtypes",
        "E402",
        DSLError,
        "cannot infer supported dtypes: a `@kdsl.kernel` ({kernel}) that opts into "
        "dispatch without an explicit `dtypes = [..]` must have a dtype type "
        "parameter bound by one of Dtype/Num/Int/Float/Bool (dtype parameter "
        "{typevar} has bound {bound})",
    ),
    (
        "unsupported-dtype",
        "E403",
        UnsupportedDtypeError,
        "kernel '{kernel}' does not support dtype {dtype} for {typevar}{where}; "
        "supported: {supported}",
    ),
    (
        "backward-mismatch",
        "E404",
        DSLError,
        "backward kernel '{backward}' must have the same dtype parameters and "
        "constexpr names as '{kernel}': {mine} vs {theirs}",
    ),
    (
        "dtype-outside-bound",
        "E405",
        DSLError,
        "kernel '{kernel}': dtype {dtype} is outside the bound of {typevar} "
        "({bound}), so it cannot be one of its dtypes",
    ),
    (
        "backward-not-kernel",
        "E408",
        DSLError,
        "backward= of '{kernel}' must be a @kdsl.kernel or a kdsl.host_backward(fn), "
        "got {got}",
    ),
    (
        "dtypes-unknown-name",
        "E409",
        DSLError,
        "kernel '{kernel}': dtypes= names '{name}', which is not one of its dtype "
        "parameters ({typevars})",
    ),
    (
        "dtypes-empty",
        "E410",
        DSLError,
        "kernel '{kernel}': the dtypes of {typevar} are an empty list; list at "
        "least one, e.g. [kdsl.Float32]",
    ),
    (
        "not-a-dtype",
        "E411",
        DSLTypeError,
        "{value} is not a kdsl dtype{hint}: use a kdsl type (kdsl.Float32), a numpy "
        "dtype or a short name such as 'f32'",
    ),
    (
        "dtype-ambiguous",
        "E276",
        DSLTypeError,
        "{value} is an ambiguous dtype: {problem}",
    ),
    (
        "constexpr-kind",
        "E412",
        DSLTypeError,
        "Constexpr takes int, bool or float, got {got}",
    ),
    (
        "dispatch-dtypes",
        "E413",
        DSLTypeError,
        "dispatch() of '{kernel}' needs {n} dtype(s) first, got {got}",
    ),
    (
        "constexpr-count",
        "E414",
        DSLTypeError,
        "'{kernel}' has {n} constexpr(s), got {got}",
    ),
    (
        "unknown-constexpr",
        "E415",
        DSLTypeError,
        "'{kernel}' has no constexpr '{name}'; its constexprs: {names}",
    ),
    (
        "constexpr-twice",
        "E416",
        DSLTypeError,
        "constexpr '{name}' given twice: pass it by position or by keyword",
    ),
    (
        "constexpr-missing",
        "E417",
        DSLTypeError,
        "'{kernel}' needs a value for constexpr '{name}': pass {name}=...",
    ),
    (
        "constexpr-value",
        "E418",
        DSLTypeError,
        "constexpr '{name}' of '{kernel}' is Constexpr[{kind}], got {value}",
    ),
    (
        "kernel-option",
        "E473",
        DSLTypeError,
        "@kdsl.kernel({option}=...) of '{kernel}' takes {accepted}, got {got}",
    ),
    (
        "runtime-param-default",
        "E476",
        DSLTypeError,
        "{where}: run-time parameter '{param}' has a default, but a launch passes "
        "every run-time argument; drop the default, or make it a Constexpr "
        "parameter (which may have one)",
    ),
    (
        "kernel-unknown-option",
        "E475",
        DSLTypeError,
        "@kdsl.kernel() of '{kernel}' has no option {option}={hint} (its options: "
        "{accepted})",
    ),
    # E6xx: kdsl-transpile
    ("cli-no-such-path", "E601", DSLError, "{path}: no such file or folder"),
    (
        "cli-import",
        "E602",
        DSLError,
        "importing {path} raised {exc_type}: {detail}",
    ),
    (
        "cli-unknown-kernel",
        "E603",
        DSLError,
        "no kernel named {names} in the given PATHs{hint}",
    ),
    (
        "cli-module-clash",
        "E604",
        DSLError,
        "{first} and {second} would both be written to <OUTDIR>/{stem}/; "
        "transpile them in separate runs",
    ),
    (
        "cli-define-syntax",
        "E605",
        DSLError,
        "-D {raw!r}: expected NAME=VALUE[,VALUE...]",
    ),
    (
        "cli-not-python",
        "E606",
        DSLError,
        "{path}: not a .py file or a folder",
    ),
    ("cli-empty-folder", "E607", DSLError, "{path}: folder holds no .py files"),
    ("cli-syntax-error", "E608", DSLError, "SyntaxError: {detail}"),
    (
        "cli-nothing-selected",
        "E609",
        DSLError,
        "no kernel instance matches the given PATHs and flags ({found} kernel(s) "
        "selected): check -k, --dtypes and -D",
    ),
    (
        "cli-unknown-define",
        "E610",
        DSLError,
        "-D {names}: no selected kernel has a constexpr of that name{hint}",
    ),
    (
        "cli-unknown-dtype-param",
        "E611",
        DSLError,
        "--dtypes {names}=...: no selected kernel has a dtype parameter of that "
        "name{hint}",
    ),
    (
        "cli-dtypes-empty",
        "E612",
        DSLError,
        "--dtypes {raw!r} names no dtype: write e.g. --dtypes f32,bf16",
    ),
    (
        "cli-arch-syntax",
        "E613",
        DSLError,
        "--arch {arch!r}: expected a GPU architecture such as sm_90",
    ),
    (
        "cli-arch-unsupported",
        "E614",
        DSLError,
        "--arch {arch}: NVRTC cannot compile for it:\n{log}",
    ),
    (
        "cli-define-value",
        "E615",
        DSLError,
        "-D {name}={raw}: constexpr '{name}' of '{kernel}' is Constexpr[{kind}], "
        "got {raw!r}",
    ),
    (
        "cli-constexpr-missing",
        "E616",
        DSLError,
        "constexpr '{name}' of '{kernel}' has no default: give it a value with "
        "-D {name}=<{kind}>",
    ),
    (
        "cli-unsupported-dtypes",
        "E617",
        UnsupportedDtypeError,
        "kernel '{kernel}' supports none of the dtypes of --dtypes (supported: "
        "{supported})",
    ),
    (
        "cli-module-name",
        "E618",
        DSLError,
        "{path}: the module name {name} {rule}, so it cannot be a folder of "
        "OUTDIR or GOLDEN_DIR: rename the file",
    ),
    (
        "cli-not-a-folder",
        "E619",
        DSLError,
        "{flag} {path}: not a folder: give {flag} a folder (it is created if "
        "missing)",
    ),
    (
        "cli-symlink",
        "E620",
        DSLError,
        "{path} is a symbolic link: kdsl-transpile never reads, writes or deletes "
        "through a link inside {flag} {root}: remove the link",
    ),
    (
        "cli-not-a-file",
        "E621",
        DSLError,
        "{path} is {found} where kdsl-transpile keeps {expected}: move it out of "
        "the way",
    ),
    (
        "cli-golden-not-utf8",
        "E622",
        DSLError,
        "{path} is not UTF-8 text (at byte offset {offset}), so it cannot be compared: "
        "delete it and run with --update again",
    ),
    (
        "cli-path-outside",
        "E623",
        DSLError,
        "{path} is outside {flag} {root}: kdsl-transpile writes only inside the "
        "folders it is given",
    ),
    (
        "cli-write-failed",
        "E624",
        DSLError,
        "cannot {action} {path}: {reason} (files written before it are complete: "
        "each is replaced whole)",
    ),
    ("cli-read-failed", "E625", DSLError, "cannot read {path}: {reason}"),
    # E8xx: tensor cores
    (
        "cache-hint-target",
        "E720",
        DSLTypeError,
        "{callee}() reads or writes global memory: give it a pointer or Array "
        "parameter (or its .vec(N) view) and an index, e.g. {callee}(x, i); "
        "got {got}",
    ),
    (
        "mma-operand-types",
        "E800",
        DSLTypeError,
        "{callee}(a, b, c) takes the fragments of one of its types (A, B, C): "
        "{takes}; got {got}",
    ),
    (
        "matrix-operand",
        "E801",
        DSLTypeError,
        "{callee} moves rows of 8-row matrices held in shared memory: give it a "
        "shared array (or dynamic shared view) of 16-byte vectors of an 8- or "
        "16-bit type, one row each (kdsl.shared_array(BFloat16x8, (rows, cols "
        "// 8)), Int8x16 …), and the index of this lane's row; got {got}",
    ),
    (
        "matrix-option",
        "E802",
        DSLValueError,
        "{callee} takes count=1, 2 or 4 (matrices) and trans=True or False, "
        "both Python values; got {got}",
    ),
    (
        "stmatrix-value",
        "E803",
        DSLTypeError,
        "{callee} stores a {want} (two elements of each matrix per lane), got {got}",
    ),
    (
        "cp-async-operands",
        "E804",
        DSLTypeError,
        "{callee}(dst, dst_index, src, src_index) copies one 4-, 8- or 16-byte "
        "element from global to shared memory: dst a shared array or dynamic "
        "shared view, src a pointer (or .vec(N) view) of the same element "
        "type; got dst {dst}, src {src}",
    ),
    (
        "cp-async-cache",
        "E805",
        DSLValueError,
        '{callee}(cache={got}) for a {n}-byte element: write "ca", or "cg" '
        "for 16-byte elements only",
    ),
    (
        "cp-async-wait",
        "E806",
        DSLValueError,
        "{callee}(n) takes a compile-time integer 0 … 7 (the groups that may "
        "still be copying), got {got}",
    ),
    (
        "swizzle-chunks",
        "E807",
        DSLValueError,
        "{callee}(row, chunk, chunks): chunks, the 16-byte chunks of a row, must "
        "be a compile-time power of two, got {got}",
    ),
    (
        "wgmma-accumulator",
        "E808",
        DSLTypeError,
        "{callee} keeps each thread's part of the warpgroup's 64 x N {acc} "
        "accumulator in a kdsl.local_array({elem}, (N // 2,)) of N // 2 = {widths} "
        "elements{f16}; got {got}",
    ),
    (
        "wgmma-dtype",
        "E809",
        DSLTypeError,
        "{callee}(acc, desc_a, desc_b, T): T, the element type of the A and B "
        "tiles, must be kdsl.BFloat16 or kdsl.Float16, or 8-bit: kdsl.Float8E4M3FN "
        "or kdsl.Float8E5M2, or a pair (TA, TB) of those two, or 8-bit integers: "
        "kdsl.Int8, kdsl.Uint8 or a pair of them; got {got}",
    ),
    (
        "wgmma-descriptor",
        "E810",
        DSLTypeError,
        "{callee} reads B, and A unless A is this thread's fragment of it (a "
        "{fragment}), through 64-bit matrix descriptors (Uint64, from "
        "kdsl.wgmma_desc); got {got}",
    ),
    (
        "wgmma-desc-operand",
        "E811",
        DSLTypeError,
        "{callee}(tile, index) describes a tile in shared memory: give it a "
        "shared array (or dynamic shared view) and the index of the tile's first "
        "element; got {got}",
    ),
    (
        "wgmma-desc-option",
        "E812",
        DSLValueError,
        "{callee} takes swizzle=128, 64, 32 or 0 (bytes) and lbo=, sbo= byte "
        "offsets that are compile-time multiples of 16 below 262144; got {got}",
    ),
    (
        "wgmma-wait",
        "E813",
        DSLValueError,
        "{callee}(n) takes a compile-time integer 0 … 7 (the wgmma groups that "
        "may still be pending), got {got}",
    ),
    (
        "wgmma-trans-b",
        "E848",
        DSLValueError,
        "{callee}(..., trans_b=) takes True (B MN-major: its K x N tile stored "
        "row by row) or False (K-major, the default), known at compile time; got "
        "{got}",
    ),
    (
        "wgmma-fp8-k-major",
        "E626",
        DSLValueError,
        "{callee} reads 8-bit (Float8E4M3FN/Float8E5M2, Int8/Uint8) tiles K-major "
        "only: PTX's "
        "transposed modes are for 16-bit types; store B as its N x K transpose "
        "(row n holds column n of B) and drop trans_b=True",
    ),
    (
        "setmaxnreg-count",
        "E814",
        DSLValueError,
        "{callee}(n, inc=True) takes a compile-time register count 24 … 256, a "
        "multiple of 8, and inc=True or False (a Python value); got {got}",
    ),
    (
        "mbarrier-operand",
        "E835",
        DSLTypeError,
        "{callee} takes an mbarrier: an element of a shared array of Uint64 "
        "(bars = kdsl.shared_array(Uint64, (n,)); {callee}(bars, i, ...)); got {got}",
    ),
    (
        "tma-integer-operand",
        "E837",
        DSLTypeError,
        "{callee}: {operand} must be an integer (a Python int or a kdsl integer "
        "value); got {got}",
    ),
    (
        "tma-tensor-map",
        "E838",
        DSLTypeError,
        "{callee} copies through a tensor map: pass a kernel parameter annotated "
        "kdsl.TensorMap (built on the host by kdsl.tensor_map(array, box=...)); "
        "got {got}",
    ),
    (
        "tma-box-operand",
        "E839",
        DSLTypeError,
        "{callee} moves a box to or from shared memory: give it a shared array "
        "(or dynamic shared view) and the index where the box starts; got {got}",
    ),
    (
        "tma-coordinates",
        "E840",
        DSLTypeError,
        "{callee} takes the box's coordinates in the 2-d tensor as a tuple (x, "
        "y), x the column (innermost), both integers; got {got}",
    ),
    (
        "tensor-map-annotation",
        "E847",
        DSLTypeError,
        "{call} builds nothing: kdsl.TensorMap annotates a kernel parameter "
        "(tmap: kdsl.TensorMap); "
        "build the map a launch passes with kdsl.tensor_map(array, box=(rows, "
        "columns), swizzle=128)",
    ),
    # E920-E939: structs (@kdsl.struct)
    (
        "struct-field-type",
        "E920",
        DSLTypeError,
        "struct {struct}: field '{field}' has type {got}; a field is a kdsl scalar "
        "of 1, 2, 4 or 8 bytes, a vector, another @kdsl.struct, or a fixed-length "
        "array of one of them (qs: Int8[32]), and its name is no Python keyword "
        "nor one of the type's attributes (fields, size, align, packed, dtype, "
        "c_name, kind, width, np_dtype, short, field, from_record)",
    ),
    (
        "struct-arguments",
        "E921",
        DSLTypeError,
        "{struct}(...) {problem} (its fields, in order: {fields})",
    ),
    (
        "struct-no-field",
        "E922",
        DSLTypeError,
        "{struct} has no field '{field}' (its fields: {fields}){hint}",
    ),
    (
        "struct-field-value",
        "E923",
        DSLTypeError,
        "field '{field}' of {struct} is {want}, got {got}; convert it with "
        ".to() (a literal converts by itself)",
    ),
    (
        "struct-store-target",
        "E924",
        DSLTypeError,
        "cannot store to '{target}': a field store needs a struct variable "
        "(s.f = x) or a struct in memory (p[i].f = x, p[i].qs[j] = x), got {got}",
    ),
    (
        "struct-array-field",
        "E925",
        DSLTypeError,
        "field '{field}' of {struct} is an array ({type}): read or store its "
        "elements ({code}[j]), it is no value of its own",
    ),
    (
        "struct-value-use",
        "E926",
        DSLTypeError,
        "a {struct} cannot be used {use}: a struct value has fields (read "
        "s.field), is assigned, stored, passed and returned whole",
    ),
    ("internal", "E999", DSLError, "internal compiler error: {what}"),
    (
        "peer-like",
        "E760",
        DSLTypeError,
        "{callee}(address, like) takes its type from `like`, a pointer to global "
        "memory of scalars (a Pointer[T] parameter or one moved from it), got "
        "{got}: e.g. {callee}(peers[r], x)",
    ),
    (
        "peer-address",
        "E761",
        DSLTypeError,
        "{callee}(address, like) needs a Uint64 address (an element of a "
        "Pointer[Uint64] table of peer addresses), got {got}: e.g. "
        "{callee}(peers[r], x)",
    ),
)
