"""``kdsl.math`` on vectors: every function lane by lane, with the scalar
function's typing, rounding and semantics in each lane.  The generated code
is the scalar call inside the one ``kdsl::vmap`` lambda of the vector
expression; the interpreter applies the scalar semantics lane by lane.  The
mechanism is the registry's (``lanewise`` entries), so a kdsl.math function
added later is lane-wise too."""

import importlib.util
import textwrap

import ml_dtypes
import numpy as np
import pytest

import kdsl
from kdsl import Float16, Float32, Float32x4, Int32, Pointer, thread_idx
from kdsl.runtime.nvrtc import compile_to_cubin
from kdsl.transpile import builtins, ir
from kdsl.transpile.builtins import lanewise, registry
from kdsl.transpile.core import mathfns
from kdsl.transpile.core.types import Float64, Vector

MATH = sorted(mathfns.MATH_FUNCTIONS)
# each float type with a 128-bit vector of it
VECTORS = {
    "f32": (Float32, 4, np.float32),
    "f64": (Float64, 2, np.float64),
    "f16": (Float16, 8, np.float16),
    "bf16": (kdsl.BFloat16, 8, ml_dtypes.bfloat16),
}


def _module(tmp_path, name, source):
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _kernels(tmp_path, fn, lanes):
    """A vector kernel applying kdsl.math.<fn> to whole vectors and the scalar
    kernel applying it to each element: the same function, two ways."""
    spec = mathfns.spec(fn)
    # a float argument is a vector (an element in the scalar kernel); an
    # Int32 one (ldexp's exponent) is the same scalar in both
    args = ", ".join(
        "3" if p in spec.ints else f"x.vec({lanes})[{k} * m + i]"
        for k, p in enumerate(spec.params)
    )
    scalar_args = ", ".join(
        "3" if p in spec.ints else f"x[{k} * m + i]" for k, p in enumerate(spec.params)
    )
    to = "" if spec.result is None else ".to(D)"  # a Boolean or Int32 result
    return _module(
        tmp_path,
        f"math_{fn}_{lanes}",
        f"""
        import kdsl
        from kdsl import Int32, Pointer, thread_idx

        D = kdsl.TypeVar("D", bound=kdsl.Float)


        @kdsl.kernel
        def vector(x: Pointer[D], out: Pointer[D], m: Int32):
            i = thread_idx.x
            o = out.vec({lanes})
            o[i] = kdsl.math.{fn}({args}){to}


        @kdsl.kernel
        def scalar(x: Pointer[D], out: Pointer[D], m: Int32):
            i = thread_idx.x
            out[i] = kdsl.math.{fn}({scalar_args}){to}
        """,
    )


def _inputs(np_t, count, seed):
    rng = np.random.default_rng(seed)
    edges = [0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -2.5, 3.75, np.inf, -np.inf, np.nan]
    values = np.concatenate([edges, rng.standard_normal(count - len(edges)) * 3])
    return values.astype(np_t)


def test_every_math_entry_is_lane_wise_and_nothing_else_is_by_default():
    for name, entry in registry.REGISTRY.items():
        assert entry.lanewise == name.startswith("math."), name


def _typed(fn: str, short: str) -> bool:
    """Whether ``kdsl.math.fn`` takes the type: the fast intrinsics take
    Float32 only (E252, tests/lowering/test_fast_math.py)."""
    return short == "f32" or not mathfns.approximate(fn)


@pytest.mark.parametrize(
    "fn, short", [(fn, short) for short in VECTORS for fn in MATH if _typed(fn, short)]
)
def test_each_lane_is_the_scalar_function(tmp_path, fn, short):
    t, lanes, np_t = VECTORS[short]
    k = _kernels(tmp_path, fn, lanes)
    threads = 8
    n = mathfns.arity(fn)
    x = _inputs(np_t, n * threads * lanes, seed=len(fn))
    m = threads  # vectors per argument
    out_v = np.zeros(threads * lanes, np_t)
    k.vector.interpret[1, threads](x, out_v, m)
    # the scalar kernel on the same elements: argument k of element e is
    # x[k * m * lanes + e] (the vector kernel's layout)
    out_s = np.zeros(threads * lanes, np_t)
    k.scalar.interpret[1, threads * lanes](x, out_s, m * lanes)
    assert out_v.tobytes() == out_s.tobytes()


@pytest.mark.parametrize("short", list(VECTORS))
def test_the_cuda_compiles_for_each_function_and_type(tmp_path, short):
    t, lanes, _ = VECTORS[short]
    for fn in (fn for fn in MATH if _typed(fn, short)):
        inst = _kernels(tmp_path, fn, lanes).vector.dispatch(t)
        c_name = mathfns.c_name(fn, 64 if t is Float64 else 32)
        if fn == "copysign" and t.width == 16:  # on the bits (math.py)
            c_name = "_as_ushort"
        assert f"{c_name}(" in inst.source
        assert inst.source.count("kdsl::vmap(") == 1
        compile_to_cubin(inst.source, inst.name)


@kdsl.kernel
def gelu(x: Pointer[Float32], out: Pointer[Float32]):
    i = thread_idx.x
    v = x.vec(4)[i]
    o = out.vec(4)
    o[i] = 0.5 * v * (1.0 + kdsl.math.tanh(0.7978845608 * (v + 0.044715 * v * v * v)))


def test_a_vector_expression_with_math_is_one_vmap_of_the_scalar_code():
    src = gelu.dispatch().source
    statement = src[src.index("    o[i] = ") : src.rindex("}")]
    assert [line.strip() for line in statement.splitlines()] == [
        "o[i] = kdsl::vmap(",
        "[](const float v) {",
        "return 0.5f * v * (1.0f + tanhf(0.7978846f * (v + 0.044715f * v * v * v)));",
        "},",
        "v);",
    ]
    compile_to_cubin(src, "gelu")


def test_the_vector_gelu_is_the_scalar_gelu_in_each_lane():
    x = np.linspace(-6, 6, 64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    gelu.interpret[1, 16](x, out)
    v = x.astype(np.float32)
    c = np.float32
    inner = c(0.7978845608) * (v + c(0.044715) * v * v * v)
    want = c(0.5) * v * (c(1) + np.tanh(inner.astype(np.float32)).astype(np.float32))
    np.testing.assert_array_equal(out, want)


@kdsl.kernel
def half_exp(x: Pointer[Float16], out: Pointer[Float16]):
    i = thread_idx.x
    o = out.vec(8)
    o[i] = kdsl.math.exp(x.vec(8)[i])


def test_a_half_vector_computes_in_float_and_rounds_once_per_lane():
    src = half_exp.dispatch().source
    assert "return __float2half_rn(expf(__half2float(a)));" in src
    x = np.linspace(-3, 3, 16).astype(np.float16)
    out = np.zeros(16, np.float16)
    half_exp.interpret[1, 2](x, out)
    want = np.exp(x.astype(np.float32)).astype(np.float16)
    np.testing.assert_array_equal(out, want)


@kdsl.kernel
def mixed(x: Pointer[Float32], y: Pointer[Int32], out: Pointer[Float32], s: Float32):
    i = thread_idx.x
    v = x.vec(4)[i]
    n = y.vec(4)[i]
    o = out.vec(4)
    o[4 * i] = kdsl.math.pow(v, 2.0)  # a static scalar, in the lambda
    o[4 * i + 1] = kdsl.math.fma(v, s, v)  # a run-time scalar, captured
    o[4 * i + 2] = kdsl.math.sqrt(n)  # Int32 lanes convert to Float32
    o[4 * i + 3] = kdsl.math.atan2(v, n.to(Float32)) + kdsl.math.floor(v)


def test_scalars_mix_with_vectors_as_in_arithmetic():
    inst = mixed.dispatch()
    src = inst.source
    assert "return powf(v, 2.0f);" in src
    assert "[s](const float v) {" in src and "return fmaf(v, s, v);" in src
    assert "return sqrtf(float(n));" in src
    compile_to_cubin(src, inst.name)
    x = np.linspace(-2, 2, 8, dtype=np.float32)
    y = np.arange(8, dtype=np.int32) - 3
    out = np.zeros(32, np.float32)
    mixed.interpret[1, 2](x, y, out, np.float32(0.75))
    got = out.reshape(2, 4, 4)
    v, n = x.reshape(2, 4), y.reshape(2, 4).astype(np.float32)
    two = np.full_like(v, 2)  # numpy squares for a scalar 2: powf is not x * x
    np.testing.assert_array_equal(got[:, 0], np.power(v, two))
    fma = (v.astype(np.float64) * 0.75 + v).astype(np.float32)  # exact product
    np.testing.assert_array_equal(got[:, 1], fma)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(got[:, 2], np.sqrt(n))
    want = (np.arctan2(v, n) + np.floor(v)).astype(np.float32)
    np.testing.assert_array_equal(got[:, 3], want)


def test_the_scalar_call_of_a_lane_is_the_entry_on_the_lane_types():
    call = mixed.dispatch().lowered.kernel
    calls = [
        e
        for e in ir.expressions(call.body)
        if isinstance(e, ir.BuiltinCall) and isinstance(e.type, type(Float32x4))
    ]
    assert [c.builtin for c in calls] == [
        "math.pow",
        "math.fma",
        "math.sqrt",
        "math.atan2",
        "math.floor",
    ]
    one = lanewise.scalar_call(calls[1])
    assert one.type is Float32 and [a.type for a in one.args] == [Float32] * 3


@pytest.mark.parametrize(
    "source, code",
    [
        ("kdsl.math.atan2(x.vec(4)[i], x.vec(8)[i])", "E113"),  # lane counts
        ("kdsl.math.exp(kdsl.Float8E4M3FNx4(0.0))", "E102"),  # a storage type
        ("kdsl.math.exp(x.vec(4)[i], x.vec(4)[i])", "E203"),  # the arity
    ],
)
def test_misuse_is_a_located_error(tmp_path, source, code):
    module = _module(
        tmp_path,
        f"bad_math_{code}",
        f"""
        import kdsl
        from kdsl import Float32, Pointer, thread_idx


        @kdsl.kernel
        def bad(x: Pointer[Float32], out: Pointer[Float32]):
            i = thread_idx.x
            v = {source}
        """,
    )
    with pytest.raises(kdsl.DSLError) as info:
        module.bad.dispatch().source
    assert info.value.code == code, str(info.value)
    assert info.value.span is not None and info.value.span.line == 9


# -- the mechanism, for entries added later ------------------------------------------
class _Lowerer:
    """What an entry's lower sees of the lowerer (only ``emit`` is used)."""

    def __init__(self):
        self.emitted = []

    def emit(self, stmt):
        self.emitted.append(stmt)


def _entry(lower):
    return registry.Builtin(
        "math.probe", "doc", lower, cuda=lambda r, c, a: "", interpret=lambda *a: 0
    )


def test_an_entry_whose_lowering_emits_a_statement_cannot_map_lanes():
    def emits(lw, entry, args, kwargs):
        lw.emit(ir.ExprStmt(args[0].ir_value()))
        return args[0]

    lw = _Lowerer()
    with pytest.raises(kdsl.DSLError) as info:
        lanewise.lower_call(lw, _entry(emits), [Float32x4(1.0)], {})
    assert info.value.code == "E231" and "apply it to each lane" in str(info.value)
    assert lw.emitted == []


def test_an_entry_lowered_to_arithmetic_maps_lanes_too():
    def twice_plus_one(lw, entry, args, kwargs):  # lowered to IR, not a call
        return args[0] * 2 + args[1]

    v = lanewise.lower_call(_Lowerer(), _entry(twice_plus_one), [Float32x4(1.0), 3], {})
    assert type(v) is Float32x4
    node = v.ir_value()
    assert isinstance(node, ir.BinOp) and node.type is Float32x4
    assert node.rhs == ir.Broadcast(Float32x4, ir.Const(Float32, 3.0))
    assert node.lhs.op == "*" and node.lhs.lhs == Float32x4(1.0).ir_value()


def test_a_static_result_is_broadcast():
    def constant(lw, entry, args, kwargs):
        return Float32(1.5)

    v = lanewise.lower_call(_Lowerer(), _entry(constant), [Vector[Float32, 2](0.0)], {})
    assert v.ir_value() == ir.Broadcast(Vector[Float32, 2], ir.Const(Float32, 1.5))
