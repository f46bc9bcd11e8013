"""The IR verifier (``transpile/passes/verify.py``): one rule per IR node;
each malformed function below breaks one rule and is refused with an
internal error (E999) saying what is wrong."""

import gc
from dataclasses import dataclass

import pytest

import kdsl
from kdsl.transpile import ir
from kdsl.transpile.core.types import Boolean, Float32, Int32, Uint32, vector_type
from kdsl.transpile.ir import backend, nodes
from kdsl.transpile.passes.verify import Verifier, verify

i32 = lambda v: ir.Const(Int32, v)  # noqa: E731
f32 = lambda v: ir.Const(Float32, v)  # noqa: E731
TRUE = ir.Const(Boolean, True)
X = ir.Var(Int32, "x")
P = ir.Var(ir.PointerType(Float32), "p")


def kernel(*body, params=(ir.Param("x", Int32), ir.Param("p", P.type))):
    return ir.Function("k", params, tuple(body))


def device(*body, ret=Int32):
    return ir.Function("d", (ir.Param("x", Int32),), tuple(body), ret, False)


def refused(f, message, **kwargs):
    with pytest.raises(kdsl.DSLError, match=message) as info:
        verify(f, **kwargs)
    assert info.value.code == "E999"
    return info.value


def test_well_formed_ir_passes():
    y = ir.Var(Int32, "y")
    verify(
        kernel(
            ir.Declare("y", Int32, ir.BinOp(Int32, "+", X, i32(1))),
            ir.For("k", Int32, i32(0), y, 1, (ir.Assign("y", ir.Var(Int32, "k")),)),
            ir.Comment("c"),
            ir.If(ir.BinOp(Boolean, "<", y, X), (ir.Declare("z", Int32, y),), ()),
            ir.Store(P, (y,), f32(1.0)),
            ir.ExprStmt(ir.BuiltinCall(None, "syncthreads", ())),
            ir.Return(),
        )
    )
    verify(device(ir.Return(X)))


# -- names --------------------------------------------------------------------------
def test_a_variable_read_before_it_is_declared():
    y = ir.Var(Int32, "y")
    refused(kernel(ir.Declare("z", Int32, y)), "'y' is read but not declared")


def test_a_variable_declared_in_a_branch_is_not_declared_after_it():
    f = kernel(
        ir.If(TRUE, (ir.Declare("y", Int32, X),), ()),
        ir.Assign("x", ir.Var(Int32, "y")),
    )
    refused(f, "'y' is read but not declared")


def test_a_loop_variable_is_not_declared_after_the_loop():
    f = kernel(
        ir.For("k", Int32, i32(0), X, 1, ()),
        ir.Assign("x", ir.Var(Int32, "k")),
    )
    refused(f, "'k' is read")


def test_an_assignment_to_an_undeclared_variable():
    refused(kernel(ir.Assign("y", X)), "'y' is assigned but not declared")


def test_a_variable_declared_twice_in_one_scope():
    f = kernel(ir.Declare("y", Int32, X), ir.Declare("y", Int32, X))
    refused(f, "'y' is declared twice")
    verify(
        kernel(ir.Declare("y", Int32, X), ir.If(TRUE, (ir.Declare("y", Int32, X),), ()))
    )


def test_a_view_of_an_undeclared_dynamic_shared_buffer():
    view = ir.DynamicShared(
        ir.PointerType(Float32, space="shared"), "smem", "v", i32(0), None
    )
    refused(kernel(ir.Declare("v", view.type, view)), "'smem' is viewed")


def test_break_and_continue_outside_a_loop():
    refused(kernel(ir.Break()), "break outside a loop")
    refused(kernel(ir.If(TRUE, (ir.Continue(),), ())), "continue outside a loop")
    verify(kernel(ir.While(TRUE, (ir.If(TRUE, (ir.Break(),), ()),))))


# -- types ---------------------------------------------------------------------------
def test_operands_of_an_operator_differ():
    e = ir.BinOp(Int32, "+", X, ir.Const(Uint32, 1))
    refused(kernel(ir.ExprStmt(e)), "operands of '\\+' differ")


def test_a_declaration_initialised_with_another_type():
    refused(
        kernel(ir.Declare("y", Float32, X)), "y declared Float32, initialised Int32"
    )


def test_an_assignment_of_another_type():
    f = kernel(ir.Declare("y", Float32, f32(0.0)), ir.Assign("y", X))
    refused(f, "y declared Float32, assigned Int32")


def test_a_store_of_another_type():
    refused(kernel(ir.Store(P, (X,), X)), "store of Int32 into Float32")


def test_a_lane_store_of_another_type_or_out_of_range():
    v4 = vector_type(Float32, 4)
    decl = ir.Declare("v", v4, None)
    refused(kernel(decl, ir.AssignLane("v", v4, 0, X)), "into a lane of")
    refused(kernel(decl, ir.AssignLane("v", v4, 4, f32(1.0))), "lane 4 of")
    q = ir.Var(ir.PointerType(v4), "q")
    params = (ir.Param("x", Int32), ir.Param("q", q.type))
    f = kernel(ir.StoreLane(q, (X,), 7, f32(1.0)), params=params)
    refused(f, "lane 7 of")


@pytest.mark.parametrize(
    "stmt, where",
    [
        (ir.If(X, (), ()), "if"),
        (ir.While(X, ()), "while"),
        (ir.ExprStmt(ir.Select(Int32, X, X, X)), "\\?:"),
        (ir.ExprStmt(ir.Logical(Boolean, "&&", TRUE, X)), "'&&'"),
        (ir.Assert(X, ir.Var(ir.PointerType(Int32), "x"), 1, "m"), "assert"),
    ],
)
def test_a_condition_that_is_not_a_boolean(stmt, where):
    refused(kernel(stmt), f"the condition of {where} is a Int32, not a Boolean")


def test_the_arms_of_a_select_differ():
    e = ir.Select(Int32, TRUE, X, f32(0.0))
    refused(kernel(ir.ExprStmt(e)), "the arms of a Int32 \\?: are Int32, Float32")


def test_a_return_of_the_wrong_type_or_none():
    refused(device(ir.Return(f32(1.0))), "return of Float32 from a function of Int32")
    refused(device(ir.Return()), "return without a value in a function of Int32")
    refused(kernel(ir.Return(X)), "return of Int32 from a function of None")


def test_a_call_that_returns_nothing_is_not_a_value():
    call = ir.BuiltinCall(None, "syncthreads", ())
    refused(kernel(ir.Declare("y", Int32, call)), "returns nothing is used as a value")


# -- calls ---------------------------------------------------------------------------
def test_a_call_of_no_built_in_or_of_a_register_or_syntax_entry():
    refused(kernel(ir.ExprStmt(ir.BuiltinCall(None, "no_such", ()))), "no built-in")
    call = ir.BuiltinCall(Int32, "thread_idx.x", ())
    refused(kernel(ir.ExprStmt(call)), "a special built-in")
    call = ir.BuiltinCall(None, "range", ())
    refused(kernel(ir.ExprStmt(call)), "a syntax built-in")


def test_a_special_register_that_is_not_one():
    refused(kernel(ir.ExprStmt(ir.Special(Int32, "lane_of_nothing"))), "not a special")


def test_a_math_call_with_the_wrong_operand_count_or_kind():
    one = ir.BuiltinCall(Float32, "math.exp", (f32(1.0), f32(2.0)))
    refused(kernel(ir.ExprStmt(one)), "kdsl.math.exp takes 1 operands, got 2")
    ptr = ir.BuiltinCall(Float32, "math.exp", (P,))
    refused(kernel(ir.ExprStmt(ptr)), "an operand of kdsl.math.exp is a PointerType")


def test_a_warp_collective_without_its_lane_mask():
    call = ir.BuiltinCall(Int32, "shfl_down", (X, X, i32(1)))
    refused(kernel(ir.ExprStmt(call)), "first operand is not its Uint32 lane mask")


def test_a_device_function_call_against_its_parameters():
    d = device(ir.Return(X))
    few = ir.FuncCall(Int32, "d", ())
    refused(kernel(ir.ExprStmt(few)), "d takes 1 arguments, got 0", callees={"d": d})
    wrong = ir.FuncCall(Int32, "d", (f32(1.0),))
    refused(
        kernel(ir.ExprStmt(wrong)), "argument x of d is a Float32", callees={"d": d}
    )


def test_the_message_names_the_function_and_the_stage():
    err = refused(kernel(ir.Assign("y", X)), "k after simplify", after="simplify")
    assert "IR of k after simplify" in str(err)


# -- completeness -------------------------------------------------------------------
def test_a_verifier_without_a_rule_for_a_node_is_refused_when_defined():
    @dataclass(frozen=True)
    class Unchecked(ir.Expr):
        pass

    Unchecked.__module__ = nodes.__name__  # as if added to ir.nodes
    try:
        with pytest.raises(TypeError, match="no handler for IR node.*Unchecked"):

            class Again(Verifier):  # noqa: F841
                pass

    finally:
        del Unchecked
        gc.collect()
    assert "e_Const" in dir(Verifier) and len(Verifier.EXPR) == len(
        backend.node_classes(ir.Expr)
    )
