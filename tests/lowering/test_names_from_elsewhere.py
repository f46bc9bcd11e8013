"""Names a user brings from Triton, Numba-CUDA and CUDA C++ (issue 30,
item 6): ``kdsl.<name>`` that kdsl does not have says kdsl's name, in
Python and in a kernel; ``atomic_and``/``atomic_or`` match ``atomic_xor``,
and the old ``atomic_and_``/``atomic_or_`` still work with a warning."""

import re

import numpy as np
import pytest

import kdsl
from kdsl import Int32, Pointer, Uint32, thread_idx
from kdsl.transpile.frontend.foreign import FOREIGN_NAMES, advice


@pytest.mark.parametrize(
    "name,says",
    [
        ("program_id", "kdsl.block_idx.x"),
        ("num_programs", "kdsl.grid_dim.x"),
        ("arange", "kdsl.thread_idx.x"),
        ("threadIdx", "kdsl.thread_idx"),
        ("__syncthreads", "kdsl.syncthreads()"),
        ("syncthreads_count", "kdsl.syncthreads()"),
        ("__shfl_down_sync", "kdsl.shfl_down"),
        ("shfl_down_sync", "kdsl.shfl_down"),
        ("atomicAdd", "kdsl.atomic_add"),
        ("static_range", "kdsl.range_constexpr"),
    ],
)
def test_kdsl_dot_another_librarys_name_says_kdsls(name, says):
    with pytest.raises(AttributeError) as info:
        getattr(kdsl, name)
    message = str(info.value)
    assert message.startswith(f"module 'kdsl' has no attribute {name!r}")
    assert "another library's name" in message and says in message


def test_a_misspelt_name_gets_a_did_you_mean_and_dunders_stay_plain():
    with pytest.raises(AttributeError, match="did you mean 'syncthreads'"):
        kdsl.syncthread
    assert not hasattr(kdsl, "__wrapped__")
    with pytest.raises(AttributeError) as info:
        kdsl.__wrapped__
    assert str(info.value) == "module 'kdsl' has no attribute '__wrapped__'"


def test_the_table_names_nothing_kdsl_has_and_points_at_real_names():
    public = {n for n in dir(kdsl) if not n.startswith("_")}
    for name, text in FOREIGN_NAMES.items():
        if name in public:  # only there for CUDA's __syncthreads: the same name
            assert text.startswith(f"kdsl.{name}("), (name, text)
        for attr in re.findall(r"\bkdsl\.(\w+)", text):
            assert attr in public, f"{name}: kdsl.{attr} is not a kdsl name"


def test_inside_a_kernel_the_same_table_gives_e277():
    @kdsl.kernel
    def k(x: Pointer[Int32]):
        kdsl.__syncthreads()
        x[thread_idx.x] = 0

    with pytest.raises(kdsl.DSLError) as info:
        k.dispatch().source
    assert info.value.code == "E277"
    assert "kdsl.__syncthreads is another library's name" in info.value.message
    assert "write kdsl.syncthreads()" in info.value.message


def test_a_bare_cuda_name_in_a_kernel_gives_e277():
    @kdsl.kernel
    def k(x: Pointer[Int32]):
        x[threadIdx.x] = 0  # noqa: F821 - the mistake under test

    with pytest.raises(kdsl.DSLError) as info:
        k.dispatch().source
    assert info.value.code == "E277"
    assert "'threadIdx' is another library's name" in info.value.message


def test_atomic_and_and_or_are_named_like_atomic_xor():
    @kdsl.kernel
    def bits(x: Pointer[Uint32]):
        kdsl.atomic_and(x, 0, Uint32(0b1100))
        kdsl.atomic_or(x, 1, Uint32(0b0011))
        kdsl.atomic_xor(x, 2, Uint32(0b1111))

    x = np.array([0b1010, 0b1000, 0b0101], dtype=np.uint32)
    bits.interpret[1, 1](x)
    assert list(x) == [0b1000, 0b1011, 0b1010]
    source = bits.dispatch().source
    assert "atomicAnd(" in source and "atomicOr(" in source


def test_the_old_spellings_still_work_and_warn():
    with pytest.warns(DeprecationWarning, match="kdsl.atomic_and_ is deprecated"):
        assert kdsl.atomic_and_ is kdsl.atomic_and
    with pytest.warns(DeprecationWarning, match="it is now kdsl.atomic_or"):
        assert kdsl.atomic_or_ is kdsl.atomic_or

    @kdsl.kernel
    def old(x: Pointer[Uint32]):
        kdsl.atomic_or_(x, 0, Uint32(1))

    x = np.zeros(1, dtype=np.uint32)
    with pytest.warns(DeprecationWarning, match="atomic_or_ is deprecated"):
        old.interpret[1, 1](x)
    assert x[0] == 1


def test_advice_ignores_case_and_leading_underscores():
    assert advice("__SyncThreads") == advice("syncthreads")
    assert advice("no_such_thing_anywhere") is None
