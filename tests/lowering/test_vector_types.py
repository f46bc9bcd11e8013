"""Vector types spelled inside a kernel: ``Vector[D, N]``, ``D.vec(N)`` and
``.splat`` with a dtype parameter ``D``, annotated vector variables, and
3-lane vectors (CUDA's float3 layout: 12 bytes, aligned to one lane)."""

import numpy as np
import pytest

import kdsl
from kdsl import (
    Constexpr,
    Float16,
    Float32,
    Float32x3,
    Float32x4,
    Int8,
    Int32,
    Pointer,
    Vector,
    thread_idx,
)
from kdsl.runtime.nvrtc import compile_to_cubin

D = kdsl.TypeVar("D", bound=kdsl.Float)
FLOATS = [kdsl.Float16, kdsl.BFloat16, kdsl.Float32, kdsl.Float64]


def body(inst) -> list:
    """The kernel's statements, stripped, without its comments."""
    src = inst.source.split('extern "C"', 1)[1]
    return [
        line.strip()
        for line in src.splitlines()[1:-1]
        if line.strip() and not line.strip().startswith("//")
    ]


# -- Vector[D, N], D.vec(N), .splat -------------------------------------------------
@kdsl.kernel(dtypes=FLOATS)
def spellings(x: Pointer[D], out: Pointer[D], LANES: Constexpr[int] = 4):
    i = thread_idx.x
    acc = Vector[D, 4](0)  # a broadcast literal
    acc = acc + x.vec(4)[i]
    twice = D.vec(LANES).splat(2)
    o = out.vec(4)
    o[i] = acc * twice + kdsl.Vector[D, LANES](x[i], 1, 2, 3)


def test_vector_of_a_dtype_parameter_is_the_concrete_vector_type():
    inst = spellings.dispatch("f32")
    lines = body(inst)
    assert "kdsl::vec<float, 4> acc = kdsl::splat<float, 4>(0.0f);" in lines
    assert "kdsl::vec<float, 4> twice = kdsl::splat<float, 4>(2.0f);" in lines
    assert any("kdsl::vec<float, 4>{{x[i], 1.0f, 2.0f, 3.0f}}" in s for s in lines)
    for t in FLOATS:
        inst = spellings.dispatch(t)
        compile_to_cubin(inst.source, inst.name)


@pytest.mark.parametrize("t", [np.float16, np.float32, np.float64], ids=str)
def test_vector_of_a_dtype_parameter_runs(t):
    x = np.arange(8, dtype=t)
    out = np.zeros(8, t)
    spellings.interpret[1, 2](x, out)
    lanes = np.array([0, 1, 2, 3] * 2, t)
    first = np.repeat(x[:2], 4)
    want = x * t(2) + np.where(np.arange(8) % 4 == 0, first, lanes)
    np.testing.assert_array_equal(out, want.astype(t))


def test_the_type_methods_work_outside_a_kernel_too():
    assert Float32.vec(4) is Float32x4 is Vector[Float32, 4]
    assert kdsl.BFloat16.vec(8) is kdsl.BFloat16x8
    assert type(Float32x4.splat(1.5)) is Float32x4
    with pytest.raises(kdsl.DSLError) as info:
        Float32.vec(5)
    assert info.value.code == "E108"


@kdsl.kernel(dtypes=[kdsl.Float32])
def annotated(x: Pointer[D], out: Pointer[D]):
    i = thread_idx.x
    acc: Vector[D, 4] = 1  # a literal broadcasts
    v: Float32x4 = x.vec(4)[i]
    acc = acc + v
    o = out.vec(4)
    o[i] = acc


def test_a_vector_variable_can_be_annotated():
    inst = annotated.dispatch("f32")
    assert "kdsl::vec<float, 4> acc = kdsl::splat<float, 4>(1.0f);" in body(inst)
    compile_to_cubin(inst.source, inst.name)
    x = np.arange(8, dtype=np.float32)
    out = np.zeros(8, np.float32)
    annotated.interpret[1, 2](x, out)
    np.testing.assert_array_equal(out, x + 1)


@kdsl.kernel
def type_methods(out: Pointer[Int32]):
    out[thread_idx.x] = Int32(Int8.max()) + Int32(Int8.min())


def test_class_methods_of_types_can_be_called_in_a_kernel():
    assert "out[threadIdx.x] = -1;" in type_methods.dispatch().source


@kdsl.func
def doubled(v):
    w = Vector[v.dtype, 4](2)
    return v * w + v.dtype.vec(4).splat(1)


@kdsl.kernel(dtypes=[kdsl.Float16])
def in_function(x: Pointer[D], out: Pointer[D]):
    i = thread_idx.x
    o = out.vec(4)
    o[i] = doubled(x.vec(4)[i])


def test_a_device_function_spells_vectors_from_a_values_dtype():
    inst = in_function.dispatch("f16")
    assert "kdsl::vec<__half, 4> w = kdsl::splat<__half, 4>(" in inst.source
    compile_to_cubin(inst.source, inst.name)
    x = np.arange(8, dtype=np.float16)
    out = np.zeros(8, np.float16)
    in_function.interpret[1, 2](x, out)
    np.testing.assert_array_equal(out, x * 2 + 1)


@pytest.mark.parametrize(
    "source, code",
    [
        ("Vector[D, n](0)", "E304"),  # a run-time lane count
        ("Vector[D, 5](0)", "E108"),
        ("Vector[D](0)", "E122"),
        ("D.vec(6)(0)", "E108"),
    ],
)
def test_bad_spellings_are_located_errors(tmp_path, source, code):
    path = tmp_path / f"bad_{code}.py"
    path.write_text(
        "import kdsl\n"
        "from kdsl import Int32, Pointer, Vector, thread_idx\n"
        "D = kdsl.TypeVar('D', bound=kdsl.Float)\n\n"
        "@kdsl.kernel(dtypes=[kdsl.Float32])\n"
        "def bad(x: Pointer[D], out: Pointer[D], n: Int32):\n"
        "    i = thread_idx.x\n"
        f"    v = {source}\n"
    )
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"bad_{code}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(kdsl.DSLError) as info:
        module.bad.dispatch("f32").source
    assert info.value.code == code, str(info.value)
    assert str(info.value).startswith(f"{path}:8:"), str(info.value)


# -- 3 lanes --------------------------------------------------------------------
@kdsl.kernel
def xyz(p: Pointer[Float32], out: Pointer[Float32], n: Int32):
    i = thread_idx.x
    if i < n:
        v = p.vec(3)[i]
        w = Float32x3(v[1], v[2], v[0])
        o = out.vec(3)
        o[i] = v * 2.0 + w


def test_a_three_lane_vector_is_the_layout_of_float3():
    assert kdsl.Float32x3 is Vector[Float32, 3] and Float32x3.lanes == 3
    assert kdsl.Float16x3.width == 48 and kdsl.Float64x3.width == 192
    inst = xyz.dispatch()
    assert (
        "kdsl::vec<float, 3> v = reinterpret_cast<const kdsl::vec<float, 3>*>(p)[i];"
        in (body(inst))
    )
    # aligned to one lane (4 bytes), as CUDA's float3: 12-byte steps
    assert inst.lowered.alignment == {"p": 4, "out": 4}
    compile_to_cubin(inst.source, inst.name)


def test_a_three_lane_vector_runs_lane_by_lane():
    p = np.arange(12, dtype=np.float32) - 5
    out = np.zeros(12, np.float32)
    xyz.interpret[1, 4](p, out, 4)
    v = p.reshape(4, 3)
    np.testing.assert_array_equal(out.reshape(4, 3), v * 2 + v[:, [1, 2, 0]])


def test_three_lanes_fit_the_prelude_struct():
    from kdsl.transpile.cuda.cexpr import prelude_file

    assert "struct alignas(alignof(T)) vec<T, 3> {" in prelude_file("vector3.h")
    assert "KDSL_VECTOR3_H" in xyz.dispatch().source  # only where 3 lanes are used
    assert "KDSL_VECTOR3_H" not in spellings.dispatch("f32").source
