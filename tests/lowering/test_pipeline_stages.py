"""pipeline.Compilation: each stage once, on first use; the interpreter
takes the IR without emitting C++; errors name the instance."""

import numpy as np
import pytest

import kdsl
from kdsl import Float32, Int32, Pointer, thread_idx
from kdsl.transpile import pipeline


@kdsl.kernel
def scale(x: Pointer[Float32], n: Int32):
    i = thread_idx.x
    if i < n:
        v = x.vec(4)[0]
        x[i] = x[i] * 2 + v[0]


def _counting(monkeypatch):
    calls = {"lower": 0, "render": 0}
    lower, render = pipeline._lower, pipeline._render

    def counted_lower(*args):
        calls["lower"] += 1
        return lower(*args)

    def counted_render(*args):
        calls["render"] += 1
        return render(*args)

    monkeypatch.setattr(pipeline, "_lower", counted_lower)
    monkeypatch.setattr(pipeline, "_render", counted_render)
    return calls


def test_an_interpreted_launch_lowers_once_and_emits_no_cuda(monkeypatch):
    calls = _counting(monkeypatch)
    inst = scale.dispatch()
    x = np.arange(8, dtype=np.float32)
    inst.interpret[1, 8](x, 8)
    inst.interpret[1, 8](x, 8)
    assert calls == {"lower": 1, "render": 0}
    assert inst.lowered.alignment == {"x": 16}  # what .vec(4) needs, from the IR


def test_the_source_reuses_the_lowered_ir(monkeypatch):
    calls = _counting(monkeypatch)
    c = pipeline.Compilation(scale.definition, "scale", (), {})
    ir_first = c.lowered
    source = c.source()
    assert c.source() is source and c.lowered is ir_first
    assert c.source(line_directives=True) != source
    assert calls == {"lower": 1, "render": 2}
    assert c.transpiled() == pipeline.Transpiled(source, {"x": 16}, written=("x",))


@kdsl.kernel
def broken(x: Pointer[Float32]):
    x[0] = x[0] & 1


def test_an_error_of_any_stage_names_the_instance():
    with pytest.raises(kdsl.DSLError) as info:
        broken.dispatch().lowered
    assert info.value.instance == "broken"
    assert "in instance broken" in str(info.value)


@kdsl.kernel
def writes(
    src: Pointer[Float32],
    table: kdsl.Array[Float32, 2],
    counts: Pointer[Int32],
    dst: Pointer[Float32],
    n: Int32,
    SPILL: kdsl.Constexpr[bool] = False,
):
    i = thread_idx.x
    if i < n:
        alias = dst
        alias[i] = src[i] + table[0, i]  # a store through another name
        kdsl.atomic_add(counts, 0, 1)  # an atomic is a store
        if SPILL:
            table[1, i] = src[i]


def test_written_names_the_pointer_and_array_parameters_a_launch_may_change():
    assert writes.dispatch().lowered.written == ("counts", "dst")
    lowered = writes.dispatch(SPILL=True).lowered
    assert lowered.written == ("table", "counts", "dst")  # signature order
    assert lowered.readonly == {"src"}  # the complement, by C++ name
