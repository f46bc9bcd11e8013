"""C++ expressions as trees: what the emitter, ``cexpr`` and the built-ins'
renderers build, and what the line layout (``doc``) reads.

A ``CExpr`` is one node: its ``kind`` (``name``, ``literal``, ``call``,
``index``, ``member``, ``infix``, ``prefix``, ``cast``, ``group``,
``conditional``, ``init``, ``lambda``, ``hole``), the precedence ``prec``
of its outermost operator (after C++'s table) and its ``parts``, in the
order they are written: text (``str``, never broken), child nodes and the
marks of its structure (``Open``/``Close`` of a bracket, ``COMMA``, an
infix ``Op``).  Its ``text`` is those parts written out; parentheses come
from the tree (``atom``, ``operand_of``), never from reading text back.

The constructors (``name``, ``call``, ``index``, ``member``, ``infix``,
``prefix``, ``cast``, ``conditional`` …) are what code building C++ uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from functools import cached_property


class Prec(IntEnum):
    """C++ precedence levels, tightest first."""

    ATOM = 0  # primary and postfix: x, 1.5f, f(x), x[i], v.v[0], (a + b)
    UNARY = 1  # -x, !x, ~x, &x, (T)x, and a negative literal
    MULTIPLICATIVE = 2
    ADDITIVE = 3
    SHIFT = 4
    RELATIONAL = 5
    EQUALITY = 6
    BIT_AND = 7
    BIT_XOR = 8
    BIT_OR = 9
    LOGICAL_AND = 10
    LOGICAL_OR = 11
    CONDITIONAL = 12


OPERATOR_PREC = {
    **dict.fromkeys("*/%", Prec.MULTIPLICATIVE),
    **dict.fromkeys("+-", Prec.ADDITIVE),
    **dict.fromkeys(("<<", ">>"), Prec.SHIFT),
    **dict.fromkeys(("<", "<=", ">", ">="), Prec.RELATIONAL),
    **dict.fromkeys(("==", "!="), Prec.EQUALITY),
    "&": Prec.BIT_AND,
    "^": Prec.BIT_XOR,
    "|": Prec.BIT_OR,
    "&&": Prec.LOGICAL_AND,
    "||": Prec.LOGICAL_OR,
    "?": Prec.CONDITIONAL,
    ":": Prec.CONDITIONAL,
}


# -- structure marks ----------------------------------------------------------------
@dataclass(frozen=True)
class Open:
    """An opening bracket ``(``, ``[`` or ``{``."""

    char: str


@dataclass(frozen=True)
class Close:
    char: str


@dataclass(frozen=True)
class Op:
    """An infix operator, written `` op `` (a line may break after it)."""

    op: str


class _Comma:
    """The ``, `` between two items of a bracket (a line may break after it)."""

    def __repr__(self) -> str:
        return "COMMA"


COMMA = _Comma()


def written(part) -> str:
    """The text of one part."""
    if isinstance(part, str):
        return part
    if isinstance(part, (Open, Close)):
        return part.char
    if isinstance(part, Op):
        return f" {part.op} "
    if part is COMMA:
        return ", "
    return part.text


@dataclass(frozen=True)
class CExpr:
    """One C++ expression node (see the module docstring); nodes are equal
    when their trees are."""

    kind: str
    parts: tuple
    prec: Prec = Prec.ATOM

    @cached_property
    def text(self) -> str:
        return "".join(written(p) for p in self.parts)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"CExpr({self.kind}, {self.text!r})"

    @property
    def inner(self) -> CExpr | None:
        """For a parenthesised group ``(e)``, the expression ``e``."""
        return self.parts[1] if self.kind == "group" else None

    @property
    def children(self) -> tuple:
        return tuple(p for p in self.parts if isinstance(p, CExpr))

    @property
    def callee(self) -> CExpr | None:
        """A call's callee (a name, a template's name, or an expression)."""
        return self.parts[0] if self.kind == "call" else None

    @property
    def op(self) -> str | None:
        """An infix (or conditional) node's operator, a prefix node's."""
        if self.kind == "prefix":
            return self.parts[0]
        marks = [p.op for p in self.parts if isinstance(p, Op)]
        return marks[0] if marks else None

    @property
    def args(self) -> tuple:
        """A call's arguments (its callee is ``children[0]`` when a node)."""
        if self.kind != "call":
            return ()
        at = next(i for i, p in enumerate(self.parts) if isinstance(p, Open))
        return tuple(p for p in self.parts[at:] if isinstance(p, CExpr))


# -- constructors -------------------------------------------------------------------
def name(text: str) -> CExpr:
    """A name (``x``, ``threadIdx.x``, ``__NV_ATOMIC_RELAXED``): never broken."""
    return CExpr("name", (text,))


def number(text: str) -> CExpr:
    """A literal: ``-1.5f`` is a unary minus applied to ``1.5f``."""
    return CExpr("literal", (text,), Prec.UNARY if text.startswith("-") else Prec.ATOM)


def operand(e: CExpr | str | int) -> CExpr:
    """An operand as given: a ``str`` is a name, an ``int`` a literal."""
    if isinstance(e, CExpr):
        return e
    return number(str(e)) if isinstance(e, int) else name(e)


def atom(e: CExpr) -> CExpr:
    """``e`` as an operand of any operator: ``e`` if it is an atom, else the
    group ``(e)``."""
    e = operand(e)
    if e.prec == Prec.ATOM:
        return e
    return CExpr("group", (Open("("), e, Close(")")))


def bare(e: CExpr) -> CExpr:
    """``e`` without its outer parentheses if it is a group: for places that
    delimit an expression already (a call argument, a statement)."""
    e = operand(e)
    return e.inner or e


def _items(items, bare_items: bool = True) -> list:
    out = []
    for k, item in enumerate(items):
        if k:
            out.append(COMMA)
        out.append(bare(item) if bare_items else operand(item))
    return out


def call(callee: CExpr | str, *args, bare_args: bool = True) -> CExpr:
    """``callee(args)``; a template's arguments are part of the callee's
    name (``kdsl::splat<float, 4>``) and never broken.  The arguments lose
    their outer parentheses unless ``bare_args`` is False."""
    head = callee if isinstance(callee, CExpr) else name(callee)
    parts = (head, Open("("), *_items(args, bare_args), Close(")"))
    return CExpr("call", parts)


def template(callee: str, *params) -> str:
    """``callee<params>``: a template's name with its arguments."""
    return f"{callee}<{', '.join(map(str, params))}>"


def index(base: CExpr | str, i) -> CExpr:
    """``base[i]``."""
    return CExpr("index", (atom(base), Open("["), bare(i), Close("]")))


def member(base: CExpr | str, field: str) -> CExpr:
    """``base.field``."""
    return CExpr("member", (atom(base), f".{field}"))


def _as_is(prec, e, right):
    return e


def _atom_of(prec, e, right):
    return atom(e)


def infix(op: str, a, b, operands: str = "reader") -> CExpr:
    """``a op b``.  ``operands``: ``"reader"`` parenthesises a compound
    operand unless C++ reads it the same and a reader would not miss the
    parentheses (``operand_of``); ``"atom"`` parenthesises every compound
    operand; ``"as_is"`` takes them as they are."""
    prec = OPERATOR_PREC[op]
    how = {"reader": operand_of, "atom": _atom_of, "as_is": _as_is}[operands]
    lhs, rhs = how(prec, operand(a), False), how(prec, operand(b), True)
    return CExpr("infix", (lhs, Op(op), rhs), prec)


def prefix(op: str, e) -> CExpr:
    """``op e`` for a prefix operator (``-``, ``!``, ``~``, ``&``)."""
    return CExpr("prefix", (op, atom(e)), Prec.UNARY)


def cast(type_name: str, e) -> CExpr:
    """A C-style cast ``(T)e``."""
    return CExpr("cast", (Open("("), type_name, Close(")"), atom(e)), Prec.UNARY)


def conditional(cond, a, b) -> CExpr:
    """``cond ? a : b``, its parts as they stand."""
    parts = (operand(cond), Op("?"), operand(a), Op(":"), operand(b))
    return CExpr("conditional", parts, Prec.CONDITIONAL)


def init(type_name: str, items) -> CExpr:
    """``T{{a, b, ...}}``: an aggregate's brace initialiser."""
    parts = (type_name, Open("{"), Open("{"), *_items(items), Close("}"), Close("}"))
    return CExpr("init", parts)


def brace(type_name: str, items) -> CExpr:
    """``T{a, b, {c, d}}``: an aggregate's initialiser; an item that is a
    list is a brace group of its own (an array member's elements)."""
    return CExpr("init", (type_name, *_braced(items)))


def _braced(items) -> tuple:
    inner = [CExpr("init", _braced(i)) if isinstance(i, list) else i for i in items]
    return (Open("{"), *_items(inner), Close("}"))


def lambda_(captures, params, body) -> CExpr:
    """``[captures](params) { return body; }``."""
    parts = (
        Open("["),
        *_items(map(name, captures)),
        Close("]"),
        Open("("),
        *_items(map(name, params)),
        Close(")"),
        " ",
        Open("{"),
        " return ",
        bare(body),
        "; ",
        Close("}"),
    )
    return CExpr("lambda", parts)


# -- operands ------------------------------------------------------------------------
# Where an operand keeps no parentheses: arithmetic in arithmetic as C++
# groups it (``a * b + c``, ``a + b - c``; but ``a - (b + c)``, which C++
# would read otherwise), arithmetic in a comparison (``i < n - 1``) and a
# comparison in ``&&`` / ``||``.  Everything else keeps them (``(a & b) ==
# c``, ``(a << 2) + b``), as a reviewer would want to read it.
_ARITHMETIC = (Prec.MULTIPLICATIVE, Prec.ADDITIVE)
_COMPARISON = (Prec.RELATIONAL, Prec.EQUALITY)
_LOGICAL = (Prec.LOGICAL_AND, Prec.LOGICAL_OR)


def operand_of(prec: Prec, e: CExpr, right: bool) -> CExpr:
    """``e`` as the left (or ``right``) operand of an infix operator of
    precedence ``prec``: without its parentheses where C++ reads it the
    same and a reader would not miss them, else as an atom."""
    inner = e.inner if e.inner is not None else e
    looser = inner.prec >= prec if right else inner.prec > prec
    if not looser and (
        (prec in _ARITHMETIC and inner.prec in _ARITHMETIC)
        or (prec in _COMPARISON and inner.prec in _ARITHMETIC)
        or (prec in _LOGICAL and inner.prec in _COMPARISON + _ARITHMETIC)
        or (prec in _LOGICAL and inner.prec == prec)  # a && b && c
    ):
        return inner
    return atom(e)


# -- templates with holes (cexpr's tables) ------------------------------------------
def hole(slot: str) -> CExpr:
    """A place in a table's template: ``a``/``b`` (an operand as a call
    argument), ``pa``/``pb`` (as an operand of an operator), ``c`` (the
    operand type's C++ name)."""
    return CExpr("hole", (slot,))


def fill(template_: CExpr, slots: dict) -> CExpr:
    """``template_`` with each hole replaced by ``slots[its slot]``."""
    if template_.kind == "hole":
        return slots[template_.parts[0]]
    parts = tuple(
        fill(p, slots) if isinstance(p, CExpr) else p for p in template_.parts
    )
    return CExpr(template_.kind, parts, template_.prec)
