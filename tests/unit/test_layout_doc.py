"""C++ expression trees (``core.cxx``), the document a statement becomes
(``cuda.doc``) and the printer that breaks it at ``LIMIT`` columns
(``cuda.layout``): structure comes from the tree, never from the text."""

from kdsl.transpile.core.cxx import (
    COMMA,
    CExpr,
    Close,
    Op,
    Open,
    Prec,
    atom,
    bare,
    call,
    cast,
    conditional,
    fill,
    hole,
    index,
    infix,
    lambda_,
    member,
    name,
    number,
    prefix,
    template,
)
from kdsl.transpile.cuda import doc
from kdsl.transpile.cuda.layout import CONTINUATION, LIMIT, expression, wrap


# -- the tree ---------------------------------------------------------------------
def test_nodes_know_their_kind_children_and_precedence():
    f = call("kdsl::mul", "a", infix("+", "b", "c"))
    assert f.text == "kdsl::mul(a, b + c)" and f.kind == "call"
    assert f.prec == Prec.ATOM
    assert f.callee.text == "kdsl::mul" and [a.text for a in f.args] == ["a", "b + c"]
    assert f.args[1].op == "+" and prefix("-", "x").op == "-"
    assert f.args[1].kind == "infix" and f.args[1].prec == Prec.ADDITIVE
    assert f.parts[1] == Open("(") and COMMA in f.parts and f.parts[-1] == Close(")")
    x = index(member("v", "v"), number("3"))
    assert (x.kind, x.text, x.prec) == ("index", "v.v[3]", Prec.ATOM)
    assert prefix("&", x).text == "&v.v[3]" and prefix("&", x).prec == Prec.UNARY
    wide = cast("unsigned __int128", infix("+", "a", "b"))
    assert wide.text == "(unsigned __int128)(a + b)" and wide.prec == Prec.UNARY


def test_call_arguments_drop_one_pair_and_operands_keep_what_readers_need():
    total = atom(infix("+", "a", "b"))
    assert total.text == "(a + b)" and bare(total).text == "a + b"
    assert call("f", total).text == "f(a + b)"
    assert call("f", total, bare_args=False).text == "f((a + b))"
    assert infix("*", total, "c").text == "(a + b) * c"
    assert infix("+", infix("*", "a", "b"), "c").text == "a * b + c"
    assert infix("-", "a", infix("+", "b", "c")).text == "a - (b + c)"
    assert infix("==", infix("&", "a", "b"), "c").text == "(a & b) == c"
    assert infix("+", "a", "b", "atom").text == "a + b"
    assert infix("&", infix("<", "a", "b"), "c", "atom").text == "(a < b) & c"
    nested = conditional(atom(conditional("p", "q", "r")), "a", "b")
    assert nested.text == "(p ? q : r) ? a : b"


def test_templates_are_names_never_broken():
    callee = template("kdsl::splat", "float", 8)
    assert callee == "kdsl::splat<float, 8>"
    s = call(callee, number("0.5f"))
    assert s.text == "kdsl::splat<float, 8>(0.5f)"
    assert s.children[0].kind == "name"  # no bracket, no comma: one piece


def test_holes_take_the_operands():
    a, pa = hole("a"), hole("pa")
    form = call("kdsl::i4", infix("+", pa, hole("pb"), "atom"))
    slots = {"pa": atom(infix("*", "x", "y")), "pb": name("z")}
    assert fill(form, slots).text == "kdsl::i4((x * y) + z)"
    assert fill(call("f", a), {"a": name("x")}).text == "f(x)"


def test_trees_compare_by_structure():
    assert call("f", "x") == call("f", "x")
    assert call("f", "x") != call("g", "x")
    assert name("x + y") != infix("+", "x", "y")  # the same text, other trees


# -- the document -----------------------------------------------------------------
def test_a_document_records_where_its_tree_put_brackets_commas_and_operators():
    value = call("f", index("x", infix("+", "i", "1")), "y")
    d = doc.assign("out", value).doc()
    assert d.text == "out = f(x[i + 1], y);"
    assert d.eq == d.text.index(" = ")
    (f_group,) = d.comma_groups()
    assert d.text[f_group.open] == "(" and d.text[f_group.close] == ")"
    assert [d.text[c] for c in f_group.commas] == [","]
    ((at, token),) = d.ops
    assert token == " + " and d.text[at : at + 3] == " + "
    assert d.depth[at] == 2  # inside f( and x[
    assert d.top_ops(0, len(d.text), (" + ",)) == []
    inner = f_group.open + 1
    assert d.top_ops(d.text.index("i +"), d.text.index("]"), (" + ",)) == [(at, " + ")]
    assert d.group_ending(inner, f_group.close) is None  # ends with "y"


def test_text_inside_a_name_has_no_structure():
    literal = name('"a, b) [c ? d : e], "')
    d = doc.expr(call("printf", literal, "x")).doc()
    (group,) = d.comma_groups()
    assert len(group.commas) == 1 and not d.ops
    casted = doc.expr(call(template("kdsl::f", "a", "b"), "x")).doc()
    (group,) = casted.groups.values()
    assert not group.commas  # the template's comma is no argument comma


# -- the printer ------------------------------------------------------------------
def chain(op, terms):
    out = terms[0]
    for t in terms[1:]:
        out = infix(op, out, t)
    return out


def test_a_short_statement_is_one_line():
    assert wrap("    ", doc.assign("float x", name("y"))) == ["    float x = y;"]
    assert wrap("", doc.plain("break;")) == ["break;"]


def test_a_long_sum_breaks_after_its_loosest_operators_aligned_after_the_head():
    terms = [infix("*", f"term_{k}", f"weight_{k}") for k in range(10)]
    lines = wrap("    ", doc.ret(chain("+", terms)))
    assert len(lines) > 1 and all(len(line) <= LIMIT for line in lines)
    assert all(line.endswith(" +") for line in lines[:-1])
    assert all(line.index("term") == 4 + len("return ") for line in lines[1:])
    assert (
        " ".join(line.strip() for line in lines)
        == "return " + chain("+", terms).text + ";"
    )


def test_a_value_too_long_after_its_target_goes_to_the_next_line():
    target = index("destination_buffer_with_a_long_name", "index")
    value = call("g", *(f"argument_number_{k}" for k in range(3)))
    long_target = f"{'x' * 60}"
    lines = wrap("", doc.assign(long_target, infix("+", "y" * 45, value)))
    assert lines[0] == long_target + " ="
    assert lines[1].startswith(" " * CONTINUATION + "y")
    # a call spanning most of the statement breaks after its commas instead,
    # aligned on its bracket
    lines = wrap("", doc.assign(target, value))
    assert lines[0] == f"{target} = g(argument_number_0, argument_number_1,"
    assert lines[1] == " " * lines[0].index("argument") + "argument_number_2);"


def test_a_condition_breaks_inside_its_parentheses():
    cond = chain("||", [infix("<", f"value_{k}", f"limit_{k}") for k in range(6)])
    lines = wrap("        ", doc.head("} else if (", cond))
    assert lines[0].startswith("        } else if (value_0 < limit_0 ||")
    column = len("        } else if (")
    assert all(line.index("value") == column for line in lines[1:])
    assert lines[-1].endswith(") {")


def test_a_conditional_value_breaks_before_its_question_and_colon():
    cond = atom(chain("&&", [infix("<", f"a_long_value_{k}", "b") for k in range(2)]))
    value = conditional(cond, index("first_value", "i" * 20), index("second", "i" * 20))
    lines = wrap("", doc.assign("float v", value))
    pad = " " * CONTINUATION
    assert lines == [
        f"float v = {cond}",
        f"{pad}? {value.parts[2]}",
        f"{pad}: {value.parts[4]};",
    ]


def test_a_group_breaks_inside_with_a_factor_before_it():
    total = chain("+", [index("u", name(f"index_{k}")) for k in range(9)])
    group = infix("*", number("0.5f"), total)
    lines = expression(group, 40)
    assert lines[0].startswith("0.5f * (u[index_0] +")
    assert all(line.index("u[") == 40 + len("0.5f * (") for line in lines[1:])


def test_a_vmap_lambda_gets_lines_of_its_own():
    body = chain("+", [infix("*", f"w{k}", "a") for k in range(12)])
    params = [f"const float w{k}" for k in range(3)] + ["const float a"]
    vmap = call("kdsl::vmap", lambda_([], params, body), "w0", "w1", "w2", "x")
    lines = wrap("    ", doc.assign(index("o", "i"), vmap))
    more = " " * (4 + CONTINUATION)
    assert lines[0] == "    o[i] = kdsl::vmap("
    assert lines[1] == more + "[](" + ", ".join(params) + ") {"
    assert lines[2].startswith(more + "    return w0 * a +")
    assert lines[-2] == more + "},"
    assert lines[-1] == more + "w0, w1, w2, x);"
    assert all(len(line) <= LIMIT for line in lines)


def test_a_piece_that_cannot_break_stays_long():
    hopeless = name("a" * 120)
    assert wrap("", doc.assign("x", hopeless)) == [f"x = {hopeless};"]
    assert isinstance(hopeless, CExpr) and Op("+") not in hopeless.parts
