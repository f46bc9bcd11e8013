"""The passes between lowering and emission (``transpile/passes``): the
pipeline runs them in the order it lists, verifies the IR after each
rewrite, and hands the analyses' results to the emitter; the compiler's
side of the runtime seam (``KernelDef``, ``Transpiled``'s serialisation)."""

from dataclasses import replace

import pytest

import kdsl
from kdsl import Float32, Int32, Pointer, thread_idx
from kdsl.transpile import ir, passes, pipeline
from kdsl.transpile.cuda.emit import Emitter
from kdsl.transpile.frontend.definition import KernelDef, definition_of
from kdsl.transpile.passes import Analysis, Facts, Rewrite, schedule, simplify
from kdsl.transpile.passes.verify import verify
from kdsl.transpile.source import Span

TID = ir.Special(Int32, "thread_idx.x")
BIG = ir.Const(Int32, 2**31 - 1)


@kdsl.kernel
def scale(x: Pointer[Float32], n: Int32):
    i = thread_idx.x
    if i < n:
        x[i] = x[i] * 2.0


def test_the_pipeline_lists_its_passes_rewrites_first():
    assert [(type(p).__name__, p.name) for p in pipeline.PASSES] == [
        ("Rewrite", "simplify"),
        ("Rewrite", "contract"),
        ("Analysis", "readonly"),
        ("Analysis", "unread"),
        ("Analysis", "ranges"),
    ]


def test_the_pipeline_runs_the_passes_in_order_each_rewrite_verified(monkeypatch):
    seen = []
    checked = []

    def recorded(p):
        if isinstance(p, Rewrite):
            return Rewrite(p.name, lambda f: (seen.append(p.name), p.run(f))[1])
        return Analysis(
            p.name, lambda f, facts: (seen.append(p.name), p.run(f, facts))[1]
        )

    monkeypatch.setattr(pipeline, "PASSES", tuple(recorded(p) for p in pipeline.PASSES))
    real_verify = pipeline.verify

    def counting_verify(f, after="lowering", callees=None):
        checked.append((after, len(seen)))
        return real_verify(f, after, callees)

    monkeypatch.setattr(pipeline, "verify", counting_verify)
    c = pipeline.Compilation(scale.definition, "scale", (), {})
    assert "__global__" in c.source()
    assert seen == ["simplify", "contract", "readonly", "unread", "ranges"]
    # each rewrite verified, before any analysis
    assert checked == [("lowering", 0), ("simplify", 1), ("contract", 2)]


def test_a_rewrite_that_breaks_the_ir_is_caught_naming_it(monkeypatch):
    def broken(f):
        return replace(f, body=f.body + (ir.Assign("nowhere", ir.Const(Int32, 0)),))

    monkeypatch.setattr(pipeline, "PASSES", (Rewrite("broken", broken),))
    c = pipeline.Compilation(scale.definition, "scale", (), {})
    c.lowered  # lowering is fine
    with pytest.raises(kdsl.DSLError, match="after broken: 'nowhere' is assigned"):
        c.source()


def test_schedule_refuses_a_rewrite_after_an_analysis_or_a_name_twice():
    r = Rewrite("simplify", simplify.function)
    a = Analysis("unread", lambda f, facts: frozenset())
    assert schedule(r, a) == (r, a)
    with pytest.raises(TypeError, match="rewrite is scheduled after an analysis"):
        schedule(a, r)
    with pytest.raises(TypeError, match="scheduled twice"):
        schedule(r, r)
    with pytest.raises(TypeError, match="fills no field of Facts"):
        Analysis("colour", lambda f, facts: None)


def test_simplify_combines_constants_and_keeps_what_it_does_not_change():
    e = ir.BinOp(
        Int32, "-", ir.BinOp(Int32, "+", TID, ir.Const(Int32, 16)), ir.Const(Int32, 8)
    )
    f = ir.Function("f", (), (ir.Declare("v", Int32, e),))
    (decl,) = simplify.function(f).body
    assert decl.init == ir.BinOp(Int32, "+", TID, ir.Const(Int32, 8))
    same = ir.Function("g", (), (ir.Declare("v", Int32, TID),))
    assert simplify.function(same) is same


def test_the_analyses_describe_the_rewritten_ir():
    # tid + (2**31 - 1) may overflow: any Int32; simplified back to tid: [0, 1023]
    wraps = ir.BinOp(Int32, "-", ir.BinOp(Int32, "+", TID, BIG), BIG)
    f = ir.Function(
        "f",
        (),
        (ir.Declare("v", Int32, wraps), ir.Declare("w", Int32, ir.Var(Int32, "v"))),
    )
    g, facts = passes.run(pipeline.PASSES, f, Facts(), verify)
    assert facts.ranges.of(ir.Var(Int32, "v")) == (0, 1023)
    assert facts.unread == {"w"}


def test_the_emitter_takes_the_facts_and_starts_fresh_for_each_function():
    p = ir.Var(ir.PointerType(Float32), "p")
    f = ir.Function(
        "k",
        (ir.Param("p", p.type),),
        (ir.Declare("q", p.type, p), ir.Declare("dead", Int32, ir.Const(Int32, 1))),
    )
    facts = Facts(readonly=frozenset({"p", "q"}), unread=frozenset({"dead"}))
    text = Emitter.function(f, facts)
    assert "const float* p" in text and "const float* q = p;" in text
    assert "dead" not in text
    assert Emitter.function(f, facts) == text  # nothing left from the first
    assert "const" not in Emitter.function(f, Facts())


def plain(x: Pointer[Float32], n: Int32):
    i = thread_idx.x
    if i < n:
        x[i] = 0.0


def test_a_kernel_definition_compiles_without_the_runtime_kernel():
    kdef = KernelDef.of(plain, launch_bounds=128)
    source = pipeline.Compilation(kdef, "plain", (), {}).source()
    assert "__launch_bounds__(128) plain(" in source
    assert definition_of(kdef) is None and definition_of(plain) is None
    assert definition_of(scale) is scale.definition  # what @kdsl.kernel holds
    assert scale.signature is scale.definition.signature


def test_transpiled_round_trips_through_its_json_and_refuses_anything_else():
    t = pipeline.Transpiled(
        "src",
        {"x": 16},
        True,
        ((Span("k.py", 3, 5, 3, 9), "i below n"),),
        "sm_90a",
        ("x",),
    )
    assert pipeline.Transpiled.from_json(t.to_json()) == t
    for bad in ('{"source": 1}', "[]", t.to_json().replace('"x": 16', '"x": "16"')):
        with pytest.raises((ValueError, KeyError, TypeError)):
            pipeline.Transpiled.from_json(bad)
