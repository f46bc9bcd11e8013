"""The registry of built-ins and the two backends over one IR: an entry says
everything about a built-in, a user function named like one stays the
user's, a backend cannot miss a node, and the docs list every entry."""

import re
from pathlib import Path

import numpy as np
import pytest

import kdsl
from kdsl import Float32, Int32, Pointer, thread_idx
from kdsl.runtime.nvrtc import compile_to_cubin
from kdsl.transpile import builtins, ir
from kdsl.transpile.builtins import registry
from kdsl.transpile.cuda.emit import Emitter
from kdsl.transpile.ir.backend import Backend

DOCS = Path(__file__).parents[2] / "docs" / "language.md"


@kdsl.func
def lane_id():  # the user's, not kdsl.lane_id
    return Int32(7)


@kdsl.kernel
def own_lane_id(out: Pointer[Int32]):
    out[thread_idx.x] = lane_id()


def test_a_user_function_named_like_a_builtin_is_the_users_on_both_backends():
    src = own_lane_id.dispatch().source
    assert "kdsl::lane_id()" not in src
    assert re.search(r"static __device__ int32_t lane_id\w*\(\)", src)
    compile_to_cubin(src, "own_lane_id")
    out = np.zeros(4, np.int32)
    own_lane_id.interpret[1, 4](out)
    assert out.tolist() == [7, 7, 7, 7]


@kdsl.kernel
def hardware_lane(out: Pointer[Int32]):
    out[thread_idx.x] = kdsl.lane_id()


def test_the_builtin_is_a_builtin_call_and_the_device_function_a_function_call():
    ours = own_lane_id.dispatch().lowered
    theirs = hardware_lane.dispatch().lowered
    ours_calls = [
        e for e in ir.expressions(ours.kernel.body) if isinstance(e, ir.CALLS)
    ]
    theirs_calls = [
        e for e in ir.expressions(theirs.kernel.body) if isinstance(e, ir.CALLS)
    ]
    assert [type(c) for c in ours_calls] == [ir.FuncCall]
    assert [(type(c), c.builtin) for c in theirs_calls] == [(ir.BuiltinCall, "lane_id")]
    out = np.zeros(40, np.int32)
    hardware_lane.interpret[1, 40](out)
    assert out.tolist() == [i % 32 for i in range(40)]


def _lower(lw, entry, args, kwargs):
    return None


def test_an_entry_no_backend_can_run_is_refused_when_registered():
    with pytest.raises(TypeError, match="no CUDA rendering"):
        registry.register("test_no_cuda", "doc", _lower, interpret=lambda *a: 0)
    with pytest.raises(TypeError, match="no interpreter implementation"):
        registry.register("test_no_cpu", "doc", _lower, cuda=lambda *a: "f()")
    with pytest.raises(TypeError, match="collective"):
        registry.register(
            "test_bad_group",
            "doc",
            _lower,
            cuda=lambda *a: "f()",
            interpret=lambda *a: 0,
            collective="grid-ish",
        )
    assert not any(name.startswith("test_") for name in registry.REGISTRY)


def test_a_name_is_registered_once():
    with pytest.raises(ValueError, match="registered twice"):
        registry.register("syncthreads", "doc", _lower, kind="syntax")


def test_every_entry_that_reaches_a_backend_has_both_and_a_doc_line():
    for name, b in builtins.REGISTRY.items():
        assert b.doc and b.name == name
        if b.kind != "syntax":
            assert callable(b.cuda) and callable(b.interpret), name


def test_outside_a_kernel_a_builtin_says_where_it_can_be_used():
    with pytest.raises(kdsl.DSLError, match=r"kdsl\.syncthreads\(\) can only be used"):
        kdsl.syncthreads()
    with pytest.raises(kdsl.DSLError, match=r"kdsl\.math\.exp\(\) can only be used"):
        kdsl.math.exp(1.0)
    assert kdsl.shfl_xor.__doc__.startswith("`kdsl.shfl_xor(")


def test_docs_list_every_builtin_as_the_registry_describes_it():
    text = DOCS.read_text()
    block = text.split("<!-- built-ins: generated -->\n", 1)[1]
    block = block.split("<!-- built-ins: end -->", 1)[0]
    assert block == builtins.reference(), (
        "docs/language.md's built-in list is stale: paste the output of "
        "`python -m kdsl.transpile.builtins` between its markers"
    )


def test_a_backend_missing_a_node_handler_fails_when_defined():
    with pytest.raises(TypeError, match=r"no handler for IR node\(s\) .*BinOp"):

        class Partial(Backend):  # noqa: F841
            pass


def test_a_node_without_a_handler_at_run_time_is_an_internal_error_naming_it():
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Mystery(ir.Expr):  # not an ir.nodes class: no backend knows it
        pass

    with pytest.raises(kdsl.DSLError, match="no handler for IR node Mystery") as info:
        Emitter().expr(Mystery(Float32))
    assert info.value.code == "E999"


@kdsl.kernel
def no_helpers(x: Pointer[Float32]):
    x[thread_idx.x] = x[thread_idx.x] * 2


@kdsl.kernel
def uses_min(x: Pointer[Float32]):
    x[thread_idx.x] = min(x[thread_idx.x], 0.5)


def test_prelude_parts_come_from_the_builtins_the_ir_calls():
    assert "KDSL_INTRINSICS_H" not in no_helpers.dispatch().source
    assert "KDSL_INTRINSICS_H" in uses_min.dispatch().source
    assert builtins.get("min").prelude == ("intrinsics.h",)
