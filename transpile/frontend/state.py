"""The lowering state: one explicit object per function being lowered.

:class:`Context` is what an instance's lowering shares with the device
functions it lowers; :class:`FunctionState` is everything lowering one
function (the kernel or a device function) reads and changes as it goes.
The lowerer's parts — statements (``lower``), expressions
(``lower_expr``), control flow (``lower_control``) and device functions
(``lower_func``) — all work on ``self.state`` (a :class:`Lowering`); none
keeps state of its own, and each calls the others only through
:class:`Parts`, the cross-part API.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from kdsl.transpile import ir
from kdsl.transpile.core.structs import Struct
from kdsl.transpile.core.types import Numeric, Vector
from kdsl.transpile.errors import error
from kdsl.transpile.frontend import names
from kdsl.transpile.frontend.dynamic_smem import DynamicLayout
from kdsl.transpile.frontend.parse import ParsedFunction


@dataclass
class Binding:
    """What a name holds in a kernel: a value, and its C++ variable if any."""

    value: object
    line: int
    cvar: str | None = None  # the C++ variable, once the name has one
    origin: ir.Comment | None = None  # the statement that first assigned it

    @property
    def type(self):
        value = self.value
        return type(value) if isinstance(value, (Numeric, Vector, Struct)) else None


@dataclass(frozen=True)
class ResultTuple:
    """What ``return a, b`` returns, for checking that every return agrees."""

    types: tuple


@dataclass
class Context:
    """What one instance's lowering needs; shared with its device functions."""

    globals: dict
    statics: dict  # TypeVar names and constexpr names -> their values
    functions: dict  # (func, arg types) -> ir.Function, in definition order
    in_progress: set
    written: set  # names of pointer parameters the kernel stores to
    # pointer parameter -> bytes its .vec(N) views need it aligned to
    alignment: dict = field(default_factory=dict)
    symbols: names.Symbols = field(default_factory=names.Symbols)  # C++ names
    # device function's C++ name -> (indices of the arguments it stores
    # through, {argument index: alignment its .vec(N) views need}, the
    # types of the results it returns through references, or None)
    effects: dict = field(default_factory=dict)
    debug: bool = False  # a debug build: assert statements are compiled
    contract: bool = False  # the kernel's contract=True: its functions fuse a*b + c
    # the kernel's no_overflow=True: its functions' signed + - * never overflow
    no_overflow: bool = False
    # (span, message) of each assertion, numbered from 1 in this list's order
    assertions: list = field(default_factory=list)
    record_takers: set = field(default_factory=set)  # functions taking the record
    # the layout of the kernel's dynamic shared memory, once it declares a view
    dynamic: DynamicLayout | None = None
    # id of a module-level numpy array -> its constants.ConstantTable
    constants: dict = field(default_factory=dict)
    optional: set = field(default_factory=set)  # the kernel's optional pointers
    # the bytes of the static shared arrays declared so far (the kernel's and
    # its device functions': one count, in a list they share)
    static_shared: list = field(default_factory=lambda: [0])

    def for_function(self, fn_globals: dict) -> "Context":
        """The context of a device function this instance calls: its own
        globals, no statics, the instance's functions, C++ names and
        assertions."""
        return Context(
            fn_globals,
            {},
            self.functions,
            self.in_progress,
            set(),
            symbols=self.symbols,
            effects=self.effects,
            debug=self.debug,
            contract=self.contract,
            no_overflow=self.no_overflow,
            assertions=self.assertions,
            record_takers=self.record_takers,
            constants=self.constants,
            static_shared=self.static_shared,
        )


@dataclass
class FunctionState:
    """Lowering one function: its names, the block being built, and where
    in the function's control flow the statement being lowered is."""

    parsed: ParsedFunction
    ctx: Context
    names: names.NameTable
    returns_allowed: bool = False  # a device function may return a value
    env: dict[str, Binding] = field(default_factory=dict)  # Python name ->
    block: list = field(default_factory=list)  # the statements being built
    hoisted: set[str] = field(default_factory=set)  # declared before their branch
    # per run-time construct around the statement, innermost last: the names
    # it assigns whose C++ variable outlives it -> their binding (bound
    # before it, or hoisted by it: None until first assigned)
    carried: list[dict] = field(default_factory=list)
    # a pointer variable assigned in run-time control flow -> the names of
    # the pointers assigned to it (a store through it stores through each,
    # transitively: ``written_through``)
    aliases: dict[str, set] = field(default_factory=dict)
    dynamic_depth: int = 0  # run-time ifs and loops around the statement
    loops: list[str] = field(default_factory=list)  # "runtime"/"constexpr"
    loop_depths: list[int] = field(default_factory=list)  # at each constexpr loop
    unrolled_at: list[str] = field(default_factory=list)  # "k = 3" per unrolled loop
    expr_depth: int = 0  # the nesting of the expression being lowered (a limit)
    unrolled_statements: int = 0  # what range_constexpr loops produced (a limit)
    # Declarations a statement needs before its comment (materialised or
    # hoisted variables), one list per statement being lowered.
    predeclared: list[list] = field(default_factory=lambda: [[]])
    origins: list[ir.Comment] = field(default_factory=list)  # their comments
    statements: list = field(default_factory=list)  # their libcst nodes
    ended_loops: dict[str, int] = field(default_factory=dict)  # loop var -> line
    returns: list = field(default_factory=list)  # (value, node) returned
    # ``return a, b``: the reference parameters that carry the results
    results: list | None = None  # [(C++ name, type)]
    fresh: set[str] = field(default_factory=set)  # result variables to adopt
    bare_returns: list = field(default_factory=list)  # nodes of bare returns
    # The expressions being lowered that run only under a condition ("an arm
    # of 'a if c else b'" …): a value held in a variable cannot be computed there.
    conditional: list[str] = field(default_factory=list)
    record: ir.Var | None = None  # the assertion record parameter, once used

    def carried_binding(self, name: str) -> Binding | None:
        """The binding of ``name`` that run-time control flow around the
        statement carries (the innermost one), else None: the name is bound
        to it again after a loop over the name replaced it, so that the name
        keeps one C++ variable there."""
        for entry in reversed(self.carried):
            if entry.get(name) is not None:
                return entry[name]
        return None

    def carry(self, name: str, binding: Binding) -> None:
        """``binding`` is the first of the name hoisted before a construct."""
        for entry in reversed(self.carried):
            if name in entry:
                entry[name] = binding
                return

    def is_carried(self, binding: Binding) -> bool:
        return any(b is binding for entry in self.carried for b in entry.values())

    @classmethod
    def start(cls, parsed: ParsedFunction, ctx: Context, **kwargs) -> "FunctionState":
        return cls(parsed, ctx, names.NameTable((), ctx.symbols), **kwargs)


class Lowering:
    """The base of the lowerer's parts: each works on ``state`` and calls
    the others only through :class:`Parts` (on ``self``)."""

    state: FunctionState


class Parts(Protocol):
    """The lowerer's cross-part API: what one part of ``lower.Lowerer``
    (statements ``lower``, expressions ``lower_expr``, control flow
    ``lower_control``, device functions ``lower_func``, print's text and
    asserts ``lower_debug``) calls of another, on ``self``.  Nothing private
    crosses a file: a method one file calls on ``self`` and another file
    defines is listed here (``tests/unit/test_lowerer_parts.py`` checks
    both).  Besides these, ``lower.statement`` finds a statement's lowering
    by name, ``stmt_<node>`` (``stmt_If``, ``stmt_For`` … in
    ``lower_control``) or ``small_<node>`` (``small_Assert`` in
    ``lower_debug``), and the built-ins see the lowerer as
    ``registry.Lowering``."""

    state: FunctionState

    # -- lower.py: statements, names, parameters --------------------------------
    def statement(self, node) -> None:
        """Lower one statement (with its source comment) into the block."""

    def suite(self, block) -> None:
        """Lower the body of a compound statement."""

    def assign(self, target, value, value_node) -> None:
        """``target = value`` (``value_node`` the value's source, or None)."""

    def emit(self, stmt) -> None:
        """Append an IR statement to the current block."""

    def new_block(self):
        """A context in which statements go to a new block (yielded)."""

    def note_origin(self, text: str) -> None:
        """Add ``text`` to the running statement's source comment."""

    def line_of(self, node) -> str:
        """The source line of ``node``, for an error's caret."""

    def lookup(self, name: str, node):
        """The value the Python name ``name`` holds here."""

    def bind_value(self, name: str, t) -> ir.Param:
        """The parameter ``name`` holding a number or vector of type ``t``."""

    def bind_memory(self, name: str, elem, ndim=None) -> list:
        """The parameter ``name``: a pointer or an ``Array``; its C++ params."""

    def is_memory(self, value) -> bool:
        """Whether ``value`` is a pointer, an ``Array`` or a fixed array."""

    def mark_written(self, target) -> None:
        """Record a store through ``target`` (it is then not ``const``)."""

    def describe(self, value) -> str:
        """What ``value`` is, for an error: ``pointer 'x'``, ``a Float32x4``."""

    # -- lower_expr.py: expressions ------------------------------------------------
    def expr(self, node):
        """The value of the expression ``node``."""

    def condition(self, v, what: str):
        """``v`` as a Boolean truth value (``what``: for the error)."""

    def ensure_value(self, v, what: str):
        """``v`` as a kdsl number or vector, or the located error."""

    def binary(self, op: str, a, b, node):
        """``a op b``, folded when both are static."""

    def subscript_indices(self, node) -> tuple:
        """The values of a subscript's indices."""

    def subscript(self, obj, indices):
        """``obj[indices]``: an element, a vector lane, a type …"""

    def address(self, obj, indices) -> tuple:
        """``(base, index expressions)`` of an element access, checked."""

    # -- lower_control.py: control flow ------------------------------------------
    def loop_exit(self, kind: str) -> None:
        """``break`` or ``continue`` (``kind``) of the innermost loop."""

    # -- lower_func.py: device functions ------------------------------------------
    def call_device_function(self, f, args, kwargs, node):
        """A call of the ``@kdsl.func`` ``f``: its value (or results)."""

    # -- lower_struct.py: struct values and fields ----------------------------------
    def struct_field(self, obj, name: str, node):
        """``s.name`` of a struct value ``obj`` (a field value, or an array
        field's view)."""

    def field_element(self, arr, indices):
        """``s.qs[j]``: one element of an array field."""

    def construct_struct(self, t, args, kwargs):
        """``Pair(a, b)`` / ``Pair(x=a, y=b)`` in a kernel: a struct value."""

    def store_field(self, target, value, value_node) -> None:
        """``s.f = value`` or ``s.qs[j] = value`` (``target`` the source)."""

    def store_place(self, expr, value, code: str) -> None:
        """Store ``value`` to the field place ``expr`` (``code``: its source)."""

    # -- lower_debug.py: print and assert ----------------------------------------
    def text(self, node):
        """An argument of print: a string or f-string as a ``Text``."""

    def assert_record(self) -> ir.Var:
        """This function's assertion record parameter."""


def check_limit(limit, amount: int) -> None:
    """A work-limit error (E271) when ``amount`` is over ``limit``'s cap."""
    if limit.exceeded(amount):
        raise error(
            "work-limit",
            quantity=limit.what,
            amount=amount,
            cap=limit.value(),
            env=limit.env,
        )
