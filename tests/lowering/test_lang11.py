"""Byte views (``p.view(T)``), constant tables and optional pointers: the
CUDA each becomes, NVRTC's verdict on it, and the interpreter against numpy."""

import sys
from pathlib import Path

import numpy as np
import pytest

from kdsl.runtime.nvrtc import compile_to_cubin
from kdsl.transpile.errors import DSLError

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
    assert out.tobytes() == (x * np.float32(2)).tobytes()
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
