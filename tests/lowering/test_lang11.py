"""Byte views (``p.view(T)``), constant tables and optional pointers: the
CUDA each becomes, NVRTC's verdict on it, and the interpreter against numpy."""

import sys
from pathlib import Path

import numpy as np
import pytest

from kdsl.runtime.nvrtc import compile_to_cubin
from kdsl.transpile.errors import DSLError
from kdsl.transpile.frontend.signature import read_signature

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import lang11_kernels as K  # noqa: E402


def body(inst) -> str:
    """The generated kernel, without the header and prelude."""
    return inst.source.split('extern "C"', 1)[1]


# -- byte views ------------------------------------------------------------------------
def test_a_view_is_a_reinterpret_cast_const_where_never_stored():
    inst = K.floats_of_bytes.dispatch()
    src = body(inst)
    assert "const float* floats = reinterpret_cast<const float*>(raw);" in src
    assert "bits[i] = reinterpret_cast<uint32_t*>(out)[i];" in src
    assert inst.lowered.alignment == {"out": 4, "raw": 4}
    compile_to_cubin(inst.source, inst.name)


def test_a_byte_view_reads_the_bytes_numpy_reads():
    x = np.array([1.5, -2.0, 3.25, np.nan, -0.0, 1e-45], np.float32)
    out, bits = np.zeros_like(x), np.zeros(len(x), np.uint32)
    K.floats_of_bytes.interpret[1, 32](x.view(np.uint8), out, bits, len(x))
    want = (x * np.float32(2)).view(np.uint32)
    want[np.isnan(x)] = 0x7FFFFFFF  # the GPU's NaN of Float32 arithmetic
    assert out.tobytes() == want.tobytes()  # (docs/types.md, "NaN payloads")
    assert bits.tobytes() == out.tobytes()


def test_a_view_is_bounds_checked_in_its_own_element_size():
    x = np.ones(4, np.float32)
    out, bits = np.zeros(5, np.float32), np.zeros(5, np.uint32)
    raw = np.concatenate([x.view(np.uint8), np.zeros(3, np.uint8)])  # 19 bytes
    with pytest.raises(DSLError, match=r"raw.view\(Float32\) has 4 elements"):
        K.floats_of_bytes.interpret[1, 32](raw, out, bits, 5)


def test_a_view_needs_the_pointer_aligned_to_its_element():
    raw = np.zeros(33, np.uint8)[1:]
    out, bits = np.zeros(8, np.float32), np.zeros(8, np.uint32)
    with pytest.raises(DSLError, match=r"'raw'.*4-byte aligned"):
        K.floats_of_bytes.interpret[1, 32](raw, out, bits, 8)


def test_a_view_then_vec_reads_vectors_of_the_viewed_type():
    inst = K.quads_of_bytes.dispatch()
    cast = "reinterpret_cast<const kdsl::vec<float, 4>*>(reinterpret_cast<const float*>(raw))"
    assert cast in body(inst)
    assert inst.lowered.alignment == {"raw": 16}
    compile_to_cubin(inst.source, inst.name)
    x = np.arange(16, dtype=np.float32) / 3
    out = np.zeros(4, np.float32)
    K.quads_of_bytes.interpret[1, 32](x.view(np.uint8), out, 4)
    q = x.reshape(4, 4)
    assert out.tobytes() == (((q[:, 0] + q[:, 1]) + q[:, 2]) + q[:, 3]).tobytes()


def test_a_view_of_a_view_held_in_a_variable_stays_const():
    inst = K.words_of_a_view.dispatch()
    src = body(inst)
    assert "const float* floats = reinterpret_cast<const float*>(raw);" in src
    assert "const uint32_t* words = reinterpret_cast<const uint32_t*>(floats);" in src
    compile_to_cubin(inst.source, inst.name)
    x = np.array([1.0, -0.0, np.inf], np.float32)
    out = np.zeros(3, np.uint32)
    K.words_of_a_view.interpret[1, 32](x.view(np.uint8), out, 3)
    assert out.tobytes() == x.tobytes()


# -- constant tables ------------------------------------------------------------------
def test_a_module_array_is_a_constant_table_with_readable_literals():
    inst = K.table_lookup.dispatch()
    src = inst.source
    assert (
        "// RAMP: a module-level array, 40 Float32 values\n"
        "__constant__ float RAMP[40] = {\n"
        "    0.0f, 0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f, 0.9f, 1.0f, 1.1f, 1.2f, 1.3f,\n"
    ) in src
    assert "__constant__ int8_t SIGNS[4] = {\n    -128, 0, 5, 127,\n};" in src
    assert src.count("__constant__") == 2  # one table, though read twice
    assert "return RAMP[i];" in src  # from the device function
    assert "int8_t s = SIGNS[kdsl::mod(i, 4)];" in src
    assert "0.3f;" in src  # RAMP[3] folded
    compile_to_cubin(inst.source, inst.name)


def test_the_interpreter_reads_the_tables_values():
    idx = np.array([0, 39, 3, 17, 22, 8], np.int32)
    out = np.zeros(len(idx), np.float32)
    K.table_lookup.interpret[1, 32](idx, out, len(idx))
    ramp, signs = K.RAMP, K.SIGNS.astype(np.float32)
    i = np.arange(len(idx))
    expected = ramp[idx] * ramp[39 - idx] + signs[i % 4] + ramp[3]
    assert out.tobytes() == expected.astype(np.float32).tobytes()


def test_the_interpreter_bounds_checks_a_table():
    idx = np.array([0, 40], np.int32)
    with pytest.raises(DSLError, match=r"RAMP\[40\] \(RAMP has 40 elements\)"):
        K.table_lookup.interpret[1, 32](idx, np.zeros(2, np.float32), 2)


def test_the_source_cache_key_changes_with_the_tables_contents(monkeypatch):
    from kdsl.runtime.compile import kernel_fingerprint

    before = kernel_fingerprint(K.table_lookup)
    monkeypatch.setattr(K, "SIGNS", np.array([-128, 0, 6, 127], np.int8))
    assert kernel_fingerprint(K.table_lookup) != before
    monkeypatch.setattr(K, "SIGNS", np.array([-128, 0, 5, 127], np.int8))
    assert kernel_fingerprint(K.table_lookup) == before


# -- optional pointers ------------------------------------------------------------------
def _layer_norm_reference(x, weight, bias, eps):
    """The kernel's arithmetic in numpy float32, in its order."""
    f = np.float32
    rows, cols = x.shape
    out = np.empty_like(x)
    for r in range(rows):
        total = f(0)
        for v in x[r]:
            total = f(total + v)
        mean = f(total / f(cols))
        squares = f(0)
        for v in x[r]:
            d = f(v - mean)
            squares = f(squares + f(d * d))
        scale = f(f(1) / np.sqrt(f(f(squares / f(cols)) + eps)))
        for j in range(cols):
            y = f(f(f(x[r, j] - mean) * scale) * weight[j])
            out[r, j] = y if bias is None else f(y + bias[j])
    return out


def test_none_for_an_optional_pointer_is_an_instance_without_it():
    with_bias = K.layer_norm.dispatch()
    without = K.layer_norm.dispatch(bias=None)
    assert (with_bias.name, without.name) == ("layer_norm", "layer_norm__nobias")
    assert "const float* bias," in body(with_bias)
    assert "bias[j]" in body(with_bias)
    code = body(without).split("{", 1)[1]  # (the name says nobias)
    assert "bias" not in code.replace("// if bias is not None:", "")
    params = " ".join(body(without).split("{", 1)[0].split())
    assert "nobias( const float* x, const float* weight, float* out," in params
    for inst in (with_bias, without):
        compile_to_cubin(inst.source, inst.name)


@pytest.mark.parametrize("has_bias", [True, False])
def test_the_interpreter_picks_the_instance_from_the_arguments(has_bias):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((5, 7)).astype(np.float32)
    weight = rng.standard_normal(7).astype(np.float32)
    bias = rng.standard_normal(7).astype(np.float32) if has_bias else None
    out = np.zeros_like(x)
    eps = np.float32(1e-5)
    K.layer_norm.interpret[1, 32](x, weight, bias, out, 5, 7, eps)
    assert out.tobytes() == _layer_norm_reference(x, weight, bias, eps).tobytes()
    names = [i.name for i in K.layer_norm.instances()]
    assert ("layer_norm" if has_bias else "layer_norm__nobias") in names


def test_is_none_folds_in_both_spellings():
    present = body(K.maybe_scaled.dispatch())
    absent = body(K.maybe_scaled.dispatch(x=None))
    assert "x[i] * 2.0f" in present and "-1.0f" not in present
    assert "-1.0f" in absent and "x[i]" not in absent
    out = np.zeros(3, np.float32)
    K.maybe_scaled.interpret[1, 32](None, out, 3)
    assert out.tolist() == [-0.5, -0.5, -0.5]
    K.maybe_scaled.interpret[1, 32](np.ones(3, np.float32), out, 3)
    assert out.tolist() == [3.0, 3.0, 3.0]


def test_an_instance_refuses_the_other_cases_argument():
    x, out = np.ones(3, np.float32), np.zeros(3, np.float32)
    with pytest.raises(DSLError, match=r"E486.*'x' is None, but this instance"):
        K.maybe_scaled.dispatch().interpret[1, 32](None, out, 3)
    with pytest.raises(DSLError, match=r"E486.*'x' is an array, but this instance"):
        K.maybe_scaled.dispatch(x=None).interpret[1, 32](x, out, 3)
    with pytest.raises(DSLError, match=r"E485.*takes None only"):
        K.maybe_scaled.dispatch(x=x)


def test_a_plain_pointer_given_none_is_refused():
    with pytest.raises(DSLError, match=r"E430.*'out'"):
        K.maybe_scaled.interpret[1, 32](None, None, 3)


def test_optional_is_spelt_three_ways():
    import typing

    import kdsl
    from kdsl import Float32, Pointer

    spec = Pointer[Float32]
    assert (spec | None) == (None | spec) == kdsl.Optional[spec]
    assert (spec | None).optional and not spec.optional

    def f(a: typing.Optional[spec], b: spec | None, c: kdsl.Optional[spec], d: spec):
        pass

    sig = read_signature(f, "f")
    assert sig.optional == ("a", "b", "c")


def test_optional_of_anything_but_a_pointer_is_a_bad_annotation():
    import kdsl
    from kdsl import Array, Float32

    def f(a: kdsl.Optional[Array[Float32, 2]]):
        pass

    with pytest.raises(DSLError, match=r"E401.*'a'"):
        read_signature(f, "f")
