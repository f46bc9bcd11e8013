"""The emitter's parentheses come from the expression tree (``cexpr.CExpr``):
a compound operand is parenthesised unless C++ reads it the same and a reader
would not miss them (``a * b + c``, ``a < b && p``), loads, calls and member
accesses are atoms, and a statement's value, a call argument or a condition drops exactly
one outer pair, so a nested conditional keeps its own."""

from kdsl.transpile import ir
from kdsl.transpile.core.types import Boolean, Float16, Float32, Int32
from kdsl.transpile.cuda.cexpr import Prec, call, infix, name
from kdsl.transpile.cuda.emit import Emitter


def var(name, t=Float32):
    return ir.Var(t, name)


def load(name, i="i", t=Float32):
    return ir.Load(t, var(name, ir.PointerType(t)), (var(i, Int32),))


def less(a, b):
    return ir.BinOp(Boolean, "<", a, b)


def assigned(value) -> str:
    emitter = Emitter()
    emitter.block([ir.Assign("r", value)])
    return emitter.lines[0]


def test_loads_and_member_reads_are_atoms():
    emitter = Emitter()
    x = emitter.expr(load("x"))
    assert (x.kind, x.prec, x.text) == ("index", Prec.ATOM, "x[i]")
    total = ir.BinOp(Float32, "+", load("x"), load("y"))
    assert assigned(ir.BinOp(Float32, "*", total, load("x"))) == (
        "r = (x[i] + y[i]) * x[i];"
    )


def test_an_address_is_a_unary_expression():
    address = ir.Address(ir.PointerType(Float32), var("x"), (var("i", Int32),))
    value = Emitter().expr(address)
    assert (value.kind, value.prec, value.text) == ("prefix", Prec.UNARY, "&x[i]")


def test_a_statement_drops_exactly_one_pair():
    inner = ir.Select(Float32, var("p", Boolean), var("x"), var("y"))
    outer = ir.Select(Float32, less(var("a"), var("b")), inner, var("z"))
    value = Emitter().expr(outer)
    assert value.prec == Prec.ATOM and value.inner.prec == Prec.CONDITIONAL
    assert assigned(outer) == "r = (a < b) ? (p ? x : y) : z;"


def test_logical_operators_group_their_comparisons():
    both = ir.Logical(Boolean, "&&", less(var("a"), var("b")), var("p", Boolean))
    assert Emitter().expr(both).inner.prec == Prec.LOGICAL_AND
    assert assigned(both) == "r = a < b && p;"
    either = ir.Logical(Boolean, "||", both, var("q", Boolean))
    assert assigned(either) == "r = (a < b && p) || q;"  # && in || keeps them


def test_a_builtin_rendering_keeps_its_arguments_precedence():
    total = ir.BinOp(Float16, "+", var("a", Float16), var("b", Float16))
    call = ir.BuiltinCall(Float16, "math.sqrt", (total,))
    value = Emitter().expr(call)
    assert value.text == "__float2half_rn(sqrtf(__half2float(a + b)))"
    (wide,) = value.args[0].args  # the tree, not text: a call of a call
    assert wide.kind == "call" and wide.args[0].kind == "infix"


def test_a_rendering_converts_expressions():
    emitter = Emitter()
    assert emitter.convert(Int32, Boolean, name("n")).text == "(n != 0)"
    f = call("f", "x")
    assert emitter.convert(Float32, Float32, f) is f
    # an operand keeps its precedence through a conversion
    total = infix("+", "a", "b")
    assert emitter.convert(Int32, Boolean, total).text == "((a + b) != 0)"
