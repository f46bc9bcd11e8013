"""Dtype sets, dispatch and backward pairing (SPEC section 4); no GPU needed."""

import numpy as np
import pytest

import kdsl
from kdsl import Constexpr, Int32, Pointer

F = kdsl.TypeVar("F", bound=kdsl.Float)
T = kdsl.TypeVar("T", bound=object)


@kdsl.kernel
def scale(x: Pointer[F], n: Int32, BLOCK: Constexpr[int] = 128):
    if n > 0:
        x[0] = x[0] + x[0]


def test_the_float_set_includes_half_precision():
    assert scale.supported_dtypes == (
        kdsl.Float16,
        kdsl.BFloat16,
        kdsl.Float32,
        kdsl.Float64,
    )


@pytest.mark.parametrize("given", [kdsl.BFloat16, "bfloat16", "bf16"])
def test_dispatch_takes_types_and_strings(given):
    inst = scale.dispatch(given, 64)
    assert inst.name == "scale__bf16__64"
    assert "__nv_bfloat16* x" in inst.source


def test_dispatch_takes_numpy_dtypes_and_named_constexprs():
    inst = scale.dispatch(np.float32, BLOCK=32)
    assert inst.name == "scale__f32__32"
    assert inst.constexprs == {"BLOCK": 32}


def test_unsupported_dtype_names_kernel_dtype_and_set():
    with pytest.raises(kdsl.UnsupportedDtypeError) as info:
        scale.dispatch(kdsl.Int32)
    message = str(info.value)
    assert "scale" in message and "Int32" in message and "BFloat16" in message


def test_constexpr_type_is_checked():
    with pytest.raises(kdsl.DSLError, match="Constexpr\\[int\\]"):
        scale.dispatch("f32", 1.5)


@pytest.mark.parametrize(
    "call, code, words",
    [
        (lambda: scale.dispatch(), "E413", "needs 1 dtype(s) first, got 0"),
        (lambda: scale.dispatch("f32", 1, 2), "E414", "has 1 constexpr(s), got 2"),
        (lambda: scale.dispatch("f32", TILE=1), "E415", "no constexpr 'TILE'"),
        (lambda: scale.dispatch("f32", 1, BLOCK=2), "E416", "given twice"),
        (lambda: scale.dispatch("f32", "64"), "E418", "Constexpr[int], got '64'"),
        (lambda: scale.dispatch(kdsl.Int32), "E403", "does not support dtype Int32"),
    ],
)
def test_dispatch_arguments_are_checked_with_their_own_codes(call, code, words):
    with pytest.raises(kdsl.DSLError) as info:
        call()
    assert info.value.code == code and words in info.value.message


def test_cannot_infer_supported_dtypes():
    with pytest.raises(kdsl.DSLError, match="cannot infer supported dtypes"):

        @kdsl.kernel
        def bad(x: Pointer[T]):
            pass


@pytest.mark.parametrize(
    "given", [(kdsl.Float32, kdsl.Int32), ("f32", "i32"), "float3", 3, None]
)
def test_a_dtype_that_is_not_one_is_a_dsl_error(given):
    with pytest.raises(kdsl.DSLError, match="is not a kdsl dtype"):

        @kdsl.kernel(dtypes=[given])
        def bad(x: Pointer[F]):
            pass


def test_backward_pairing_is_checked_at_decoration():
    @kdsl.kernel
    def grad(x: Pointer[F], n: Int32, OTHER: Constexpr[int] = 1):
        pass

    with pytest.raises(kdsl.DSLError, match="same dtype parameters and constexpr"):

        @kdsl.kernel(backward=grad)
        def forward(x: Pointer[F], n: Int32, BLOCK: Constexpr[int] = 1):
            pass


def test_backward_instance_uses_the_same_choices():
    @kdsl.kernel
    def grad2(x: Pointer[F], n: Int32, BLOCK: Constexpr[int] = 1):
        pass

    @kdsl.kernel(backward=grad2)
    def forward2(x: Pointer[F], n: Int32, BLOCK: Constexpr[int] = 1):
        pass

    inst = forward2.dispatch("f16", 8)
    assert inst.backward.name == "grad2__f16__8"


def test_an_explicit_dtype_outside_the_bound_is_an_error_at_decoration():
    with pytest.raises(kdsl.DSLError) as info:

        @kdsl.kernel(dtypes=[kdsl.Float32, kdsl.Int32])
        def bounded(x: Pointer[F], n: Int32):
            pass

    message = str(info.value)
    assert info.value.code == "E405"
    assert "bounded" in message and "Int32" in message and "Float" in message


def test_the_bound_is_checked_for_each_parameter_of_a_dict():
    I = kdsl.TypeVar("I", bound=kdsl.Int)
    with pytest.raises(kdsl.DSLError, match="I") as info:

        @kdsl.kernel(dtypes={"F": [kdsl.Float16], "I": [kdsl.Float16]})
        def two(x: Pointer[F], y: Pointer[I], n: Int32):
            pass

    assert info.value.code == "E405" and "Float16" in str(info.value)


def test_dtypes_must_name_the_kernels_dtype_parameters():
    with pytest.raises(kdsl.DSLError, match="'G'") as info:

        @kdsl.kernel(dtypes={"F": [kdsl.Float32], "G": [kdsl.Float32]})
        def named(x: Pointer[F], n: Int32):
            pass

    assert info.value.code == "E409"
    with pytest.raises(kdsl.DSLError, match="empty") as info:

        @kdsl.kernel(dtypes=[])
        def empty(x: Pointer[F], n: Int32):
            pass

    assert info.value.code == "E410"


@pytest.mark.parametrize(
    "bound, dtypes",
    [
        (kdsl.Float, [kdsl.Float8E4M3FN, kdsl.BFloat16]),  # narrow floats: explicit
        (kdsl.Int, [kdsl.Int4, kdsl.Uint128]),
        (kdsl.Num, [kdsl.Int8, kdsl.Float64]),
        (kdsl.Bool, [kdsl.Boolean]),
        (kdsl.Dtype, [kdsl.Boolean, kdsl.Float16]),
        (object, [kdsl.Int16]),  # no kdsl bound: the list decides
    ],
)
def test_explicit_dtypes_inside_the_bound_are_accepted(bound, dtypes):
    V = kdsl.TypeVar("V", bound=bound)

    @kdsl.kernel(dtypes=dtypes)
    def ok(x: Pointer[V], n: Int32):
        pass

    assert ok.supported_dtypes == tuple(dtypes)
