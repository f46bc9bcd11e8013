"""kdsl's typed IR: small frozen dataclasses, each with its type and span.

Expressions are values of one kdsl type (a scalar or vector type class from
``types``; pointers and arrays add their own types later).  Compile-time values
never reach the IR except as :class:`Const` leaves: everything static is
folded before a node is built.  Operands of a :class:`BinOp` already have the
operation's common type; its own ``type`` is the result type (``Boolean`` for
comparisons).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kdsl.transpile.source import Span

__all__ = [
    "Expr",
    "Const",
    "Var",
    "BinOp",
    "UnaryOp",
    "Convert",
    "Bitcast",
    "Select",
    "Broadcast",
    "MakeVector",
    "Extract",
    "BuiltinCall",
    "FuncCall",
    "CALLS",
    "PointerType",
    "RefType",
    "TensorMapType",
    "TENSOR_MAP",
    "Special",
    "Address",
    "Load",
    "ArrayOffset",
    "VecView",
    "PointerView",
    "PointerOffset",
    "PointerBinary",
    "ConstantRef",
    "DynamicShared",
    "Logical",
    "Member",
    "Element",
    "MakeStruct",
    "Stmt",
    "Comment",
    "Declare",
    "ArrayDecl",
    "DynamicSharedDecl",
    "Assign",
    "AssignLane",
    "Store",
    "StoreLane",
    "StoreField",
    "ExprStmt",
    "If",
    "For",
    "While",
    "Break",
    "Continue",
    "Return",
    "Print",
    "Assert",
    "Assume",
    "Param",
    "Function",
    "operands",
    "statements",
    "walk",
    "expressions",
]


@dataclass(frozen=True)
class Expr:
    type: Any
    span: Span | None = field(default=None, kw_only=True, compare=False)


@dataclass(frozen=True)
class Const(Expr):
    """A compile-time value materialised in the IR (exact, already rounded)."""

    value: Any


@dataclass(frozen=True)
class Var(Expr):
    """A named run-time value: a parameter or a local variable."""

    name: str


@dataclass(frozen=True)
class BinOp(Expr):
    """``lhs op rhs`` with both operands of the operation's common type.
    ``contract``: a float ``+``/``-`` written inside ``kdsl.contract(...)``,
    which the pass ``contract`` may fuse with a product operand into one
    ``kdsl.math.fma`` (passes/contract.py).  ``check``: in a debug build, a
    signed ``+ - *`` of a ``no_overflow=True`` function, which records its
    assertion site on the GPU where the exact result leaves the type."""

    op: str
    lhs: Expr
    rhs: Expr
    contract: bool = False
    # a debug build's check of a signed + - * stated not to overflow
    # (``no_overflow=True``): (the assertion record, the assertion's number)
    check: tuple | None = None


@dataclass(frozen=True)
class UnaryOp(Expr):
    """``op operand``: ``-``, ``~`` (``not`` for Boolean) or ``abs``."""

    op: str
    operand: Expr


@dataclass(frozen=True)
class Convert(Expr):
    """Value conversion to ``type`` (the semantics of ``.to()``)."""

    operand: Expr


@dataclass(frozen=True)
class Bitcast(Expr):
    """Reinterpretation of the operand's bits as ``type`` (equal width)."""

    operand: Expr


@dataclass(frozen=True)
class Select(Expr):
    """``cond ? if_true : if_false`` with both arms of ``type``."""

    cond: Expr
    if_true: Expr
    if_false: Expr


@dataclass(frozen=True)
class Broadcast(Expr):
    """A scalar copied into every lane of the vector ``type``."""

    operand: Expr


@dataclass(frozen=True)
class MakeVector(Expr):
    """A vector built lane by lane."""

    lanes: tuple[Expr, ...]


@dataclass(frozen=True)
class Extract(Expr):
    """One lane of a vector, at a compile-time index."""

    vector: Expr
    lane: int


@dataclass(frozen=True)
class BuiltinCall(Expr):
    """A call of the built-in registered as ``builtin`` (``syncthreads``,
    ``shfl_down``, ``math.exp`` …; see ``transpile/builtins``).  ``type`` is
    None for a call that returns nothing."""

    builtin: str
    args: tuple[Expr, ...]
    # compile-time keyword options of the call (an atomic's memory order and
    # scope), as ``(name, value)`` pairs
    options: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class FuncCall(Expr):
    """A call of the device function ``func`` (an :class:`Function`'s name)."""

    func: str
    args: tuple[Expr, ...]


CALLS = (BuiltinCall, FuncCall)


# -- memory ---------------------------------------------------------------------
@dataclass(frozen=True)
class PointerType:
    """A device pointer to ``elem`` (a scalar or vector type)."""

    elem: Any
    const: bool = False
    space: str = "global"  # "global", "shared" or "local"
    # A device function's parameter that is a fixed-shape (shared or local)
    # array passed by reference has its shape here.
    shape: tuple[int, ...] | None = None


@dataclass(frozen=True)
class TensorMapType:
    """A ``kdsl.TensorMap`` kernel parameter: the 128-byte CUtensorMap the
    host built, passed by value (``const __grid_constant__``); only the TMA
    built-ins use it, through its address."""


TENSOR_MAP = TensorMapType()


@dataclass(frozen=True)
class RefType:
    """A device function's reference parameter (``T&``) through which it
    returns one of several results (``return a, b``); the call passes the
    caller's variable."""

    elem: Any


@dataclass(frozen=True)
class Special(Expr):
    """A special register read as a kdsl value, by its registered built-in
    name: ``thread_idx.x``, ``block_dim.y`` …  Reading it twice gives the
    same value."""

    name: str


@dataclass(frozen=True)
class Address(Expr):
    """``&base[indices]`` (``type`` an :class:`PointerType`): the element an
    atomic operates on."""

    base: Expr
    indices: tuple[Expr, ...]


@dataclass(frozen=True)
class Load(Expr):
    """``base[i0][i1]…``: an element of a pointer or a fixed-shape array."""

    base: Expr
    indices: tuple[Expr, ...]


@dataclass(frozen=True)
class ArrayOffset(Expr):
    """``flat``: the element offset of ``array[indices]`` in an ``Array``
    parameter, emitted as ``flat``.  The indices and the array's extents
    ride along so that the interpreter can check every dimension."""

    flat: Expr
    array: str
    indices: tuple[Expr, ...]
    extents: tuple[Expr, ...]


@dataclass(frozen=True)
class VecView(Expr):
    """A pointer reinterpreted as a pointer to vectors (``p.vec(N)``)."""

    pointer: Expr


@dataclass(frozen=True)
class ConstantRef(Expr):
    """A table in constant memory (``type`` a const :class:`PointerType`
    in space "constant"), by its C++ name: a module-level numpy array a
    kernel reads, declared ``__constant__`` at file scope."""

    name: str


@dataclass(frozen=True)
class PointerView(Expr):
    """A pointer's bytes reinterpreted as elements of another scalar type
    (``p.view(T)``, ``type`` a :class:`PointerType` of T)."""

    pointer: Expr


@dataclass(frozen=True)
class PointerOffset(Expr):
    """``pointer + offset`` or ``pointer - offset`` (``op``): the pointer
    moved by ``offset`` elements (an integer of any type), ``type`` the
    pointer's :class:`PointerType` (its element type and memory space).  The
    interpreter keeps the allocation it points into and checks every access
    through it against that allocation."""

    pointer: Expr
    op: str  # "+" or "-"
    offset: Expr


@dataclass(frozen=True)
class PointerBinary(Expr):
    """``lhs op rhs`` of two pointers of one element type and memory space:
    ``-`` (their distance in elements, ``type`` Int64) or a comparison
    (``type`` Boolean)."""

    op: str
    lhs: Expr
    rhs: Expr


@dataclass(frozen=True)
class DynamicShared(Expr):
    """A view of the launch's dynamic shared memory (``type`` a shared
    :class:`PointerType`): the buffer ``buffer`` (declared by a
    :class:`DynamicSharedDecl`) from the byte ``offset`` on, seen as elements
    of ``type.elem``.  ``view`` (the Python name) and ``size`` (its element
    count, None for the rest of the buffer) are for the interpreter's checks."""

    buffer: str
    view: str
    offset: Expr
    size: Expr | None


@dataclass(frozen=True)
class Logical(Expr):
    """``lhs && rhs`` / ``lhs || rhs`` on Booleans, short-circuiting."""

    op: str
    lhs: Expr
    rhs: Expr


# -- structs (core/structs.py) ------------------------------------------------------
@dataclass(frozen=True)
class Member(Expr):
    """``base.field``: a field of a struct value (``base`` of a struct type:
    a variable, a parameter, an element of memory ``p[i]``, a call's
    result, another ``Member``).  ``type`` is the field's type, a
    ``FieldArray`` for an array field (only ever indexed, by
    :class:`Element`)."""

    base: Expr
    field: str


@dataclass(frozen=True)
class Element(Expr):
    """``base[index]``: an element of a struct's array field (``base`` a
    :class:`Member` of ``FieldArray`` type); ``count`` is the field's
    length, for the interpreter's bounds check."""

    base: Expr
    index: Expr
    count: int


@dataclass(frozen=True)
class MakeStruct(Expr):
    """``T{...}``: a struct value built field by field, in field order; an
    array field contributes its elements, one value each."""

    values: tuple[Expr, ...]


# -- statements -------------------------------------------------------------------
@dataclass(frozen=True)
class Stmt:
    span: Span | None = field(default=None, kw_only=True, compare=False)


@dataclass(frozen=True)
class Comment(Stmt):
    """The Python source a group of statements came from."""

    text: str


@dataclass(frozen=True)
class Declare(Stmt):
    """``T name = init;`` (``init`` None: declared, assigned later)."""

    name: str
    type: Any
    init: Expr | None


@dataclass(frozen=True)
class ArrayDecl(Stmt):
    """A fixed-shape ``__shared__`` or local array."""

    name: str
    elem: Any
    shape: tuple[int, ...]
    space: str


@dataclass(frozen=True)
class DynamicSharedDecl(Stmt):
    """The kernel's dynamic shared memory, ``name`` (its size is the
    launch's ``shared_mem``), aligned to ``align`` bytes."""

    name: str
    align: int


@dataclass(frozen=True)
class Assign(Stmt):
    name: str
    value: Expr


@dataclass(frozen=True)
class AssignLane(Stmt):
    """``name.v[lane] = value``: one lane of the variable ``name`` of vector
    type ``type`` (``v[2] = x``)."""

    name: str
    type: Any
    lane: int
    value: Expr


@dataclass(frozen=True)
class Store(Stmt):
    base: Expr
    indices: tuple[Expr, ...]
    value: Expr


@dataclass(frozen=True)
class StoreLane(Stmt):
    """``base[indices].v[lane] = value``: one lane of a vector in memory
    (``s[i][2] = x`` for an array of vectors)."""

    base: Expr
    indices: tuple[Expr, ...]
    lane: int
    value: Expr


@dataclass(frozen=True)
class StoreField(Stmt):
    """``target = value`` for a field (or an element of an array field) of
    a struct: ``target`` is a :class:`Member`/:class:`Element` chain whose
    root is a struct variable (a :class:`Var`) or an element of memory (a
    :class:`Load`); only the field's bytes are written."""

    target: Expr
    value: Expr


@dataclass(frozen=True)
class ExprStmt(Stmt):
    expr: Expr


@dataclass(frozen=True)
class If(Stmt):
    cond: Expr
    then: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]


@dataclass(frozen=True)
class For(Stmt):
    """``for (T var = start; var < stop; var += step)``.

    ``step`` is a nonzero int, or a variable holding a run-time step (its sign
    decides the comparison at run time, as in Python's ``range``).
    """

    var: str
    type: Any
    start: Expr
    stop: Expr
    step: "int | Var"
    body: tuple[Stmt, ...]
    unroll: int | None = None


@dataclass(frozen=True)
class While(Stmt):
    cond: Expr
    body: tuple[Stmt, ...]


@dataclass(frozen=True)
class Break(Stmt):
    pass


@dataclass(frozen=True)
class Continue(Stmt):
    pass


@dataclass(frozen=True)
class Return(Stmt):
    value: Expr | None = None


@dataclass(frozen=True)
class Print(Stmt):
    """``printf``: ``text[0]``, then each value formatted by its conversion
    (``formats``: printf's, without ``%`` and without C's length modifier;
    see ``core.printf``) followed by the next text.  ``once``: only thread
    (0, 0, 0) of block (0, 0, 0) prints."""

    text: tuple[str, ...]  # one more than the values
    values: tuple[Expr, ...]
    formats: tuple[str, ...]
    once: bool = False


@dataclass(frozen=True)
class Assert(Stmt):
    """A debug build's ``assert cond, message``: a thread for which ``cond``
    is false records the assertion's number ``site`` in the launch's
    assertion record (``record``, an Int32 pointer parameter) and stops."""

    cond: Expr
    record: Expr
    site: int
    message: str


@dataclass(frozen=True)
class Assume(Stmt):
    """``kdsl.assume(cond)``: a fact the range analysis uses from here on
    (``passes.ranges``); the interpreter checks it, naming the values of
    ``names`` (the variables ``values`` the condition reads) when it is
    false.  ``text`` is the call as written.  The CUDA emitter writes
    nothing for it (a debug build checks it through an :class:`Assert`)."""

    cond: Expr
    text: str
    names: tuple[str, ...] = ()
    values: tuple[Expr, ...] = ()


# -- functions ----------------------------------------------------------------------
@dataclass(frozen=True)
class Param:
    name: str
    type: Any  # a scalar type or a PointerType


@dataclass(frozen=True)
class Function:
    """A kernel (``ret`` None, ``is_kernel``) or a device function."""

    name: str
    params: tuple[Param, ...]
    body: tuple[Stmt, ...]
    ret: Any = None
    is_kernel: bool = True
    # a kernel's __launch_bounds__: (max threads a block[, min blocks an SM])
    launch_bounds: tuple[int, ...] | None = None
    # ``contract=True`` (the kernel's option, or the device function's): the
    # pass ``contract`` fuses every float ``a * b + c`` of it into an fma
    contract: bool = False
    # ``no_overflow=True``: a stated precondition that the exact result of
    # every signed integer ``+ - *`` and negation of it fits its type (the
    # range analysis clamps to the type instead of wrapping; the
    # interpreter checks each operation)
    no_overflow: bool = False


# -- traversal ------------------------------------------------------------------------
def operands(node):
    """The expressions directly inside ``node`` (an expression or a statement)."""
    for value in vars(node).values():
        if isinstance(value, Expr):
            yield value
        elif isinstance(value, tuple):
            yield from (v for v in value if isinstance(v, Expr))


def statements(stmts):
    """Every statement of a body, nested bodies included, in order."""
    for s in stmts:
        yield s
        for value in vars(s).values():
            if isinstance(value, tuple) and value and isinstance(value[0], Stmt):
                yield from statements(value)


def walk(expr):
    """``expr`` and every expression inside it."""
    yield expr
    for child in operands(expr):
        yield from walk(child)


def expressions(stmts):
    """Every expression of a body, sub-expressions included."""
    for s in statements(stmts):
        for e in operands(s):
            yield from walk(e)
