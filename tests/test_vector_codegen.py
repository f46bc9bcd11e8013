"""Vector expressions: one ``kdsl::vmap`` of a scalar lambda per expression
(readable, each lane with the scalar semantics), compiled by NVRTC and run
by the interpreter against numpy."""

import numpy as np

import kdsl
from kdsl import Float16, Float32, Pointer, thread_idx
from kdsl.runtime.nvrtc import compile_to_cubin


@kdsl.kernel
def mixed(h: Pointer[Float16], f: Pointer[Float32], out: Pointer[Float32]):
    i = thread_idx.x
    hv = h.vec(4)[i]
    fv = f.vec(4)[i]
    o = out.vec(4)
    o[i] = hv.to(Float32) * fv + fv * 0.5 - hv.to(Float32)


def test_a_vector_expression_is_one_vmap_over_its_vectors():
    src = mixed.dispatch().source
    statement = src[src.index("    o[i] = ") : src.rindex("}")]
    assert statement.count("kdsl::vmap(") == 1
    assert [line.strip() for line in statement.splitlines()] == [
        "o[i] = kdsl::vmap(",
        "[](const __half hv, const float fv) {",
        "return ((__half2float(hv) * fv) + (fv * 0.5f)) - __half2float(hv);",
        "},",
        "hv, fv);",
    ]
    compile_to_cubin(src, mixed.dispatch().name)


def test_mixed_element_types_compute_lane_by_lane():
    rng = np.random.default_rng(2)
    h = rng.standard_normal(16).astype(np.float16)
    f = rng.standard_normal(16).astype(np.float32)
    out = np.zeros(16, np.float32)
    mixed.interpret[1, 4](h, f, out)
    hf = h.astype(np.float32)
    np.testing.assert_array_equal(out, hf * f + f * np.float32(0.5) - hf)
