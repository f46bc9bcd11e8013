"""Cache-hinted loads and stores (``kdsl.ldg``, ``kdsl.ldcs``, ``kdsl.stcs``
…): the CUDA they become, NVRTC's verdict and the SASS hint, the
interpreter (plain loads and stores) against numpy, and misuse."""

import sys
from pathlib import Path

import numpy as np
import pytest

import kdsl
from kdsl import Float32, Int32, Pointer
from kdsl.runtime.nvrtc import compile_to_cubin
from kdsl.transpile.errors import DSLError

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))
import cache_hint_kernels as K  # noqa: E402
from sass import sass_of  # noqa: E402

GOLDEN = TESTS / "golden" / "features" / "cache_hint_kernels"


def body(inst) -> str:
    return inst.source.split('extern "C"', 1)[1]


def np_dtype(kernel, t):
    return kernel.dispatch(t).dtypes[0].np_dtype


def test_a_scalar_hint_is_cudas_intrinsic_on_the_elements_address():
    src = body(K.scale_streaming.dispatch())
    assert "__stcs(&y[j], __ldcs(&x[j]) * s);" in src
    assert "kdsl::ldcs(&reinterpret_cast<const kdsl::vec<float, 4>*>(x)[i])" in src
    assert "cache.h" not in K.every_hint.dispatch("f32").source  # no helper needed


def test_an_array_element_is_named_by_its_index_tuple():
    src = body(K.rows_ldg.dispatch())
    assert "__ldg(&a[kdsl::offset(r, a_stride0, 0ll, a_stride1)])" in src


@pytest.mark.parametrize("kernel", [K.every_hint, K.every_hint_vec], ids=str)
@pytest.mark.parametrize("t", K.ALL)
def test_every_hint_compiles_for_every_element_type(kernel, t):
    inst = kernel.dispatch(t)
    compile_to_cubin(inst.source, inst.name)


def test_the_sass_carries_each_hint():
    sass = sass_of(K.scale_streaming.dispatch())
    assert sass.count(r"^LDG\.E\.EF\.128\s") == 1  # ld.global.cs: evict first
    assert sass.count(r"^STG\.E\.EF\.128\s") == 1
    assert sass.count(r"^LDG\.E\.EF\s") == 1  # the tail's float
    assert sass.count(r"^STG\.E\.EF\s") == 1
    assert sass.count(r"^(LD|ST)G\.E(\.128)?\s") == 0  # no unhinted access
    hints = sass_of(K.every_hint.dispatch("f32"))
    assert hints.count(r"^LDG\.E\.CONSTANT\s") == 1  # __ldg: the read-only path
    assert hints.count(r"^LDG\.E\.LU\s") == 1  # __ldlu
    assert hints.count(r"^LDG\.E\.STRONG\.SYS\s") == 1  # __ldcv: volatile


def test_a_32_byte_vector_moves_as_two_128_bit_accesses():
    sass = sass_of(K.every_hint_vec.dispatch("f32", V=8))
    assert sass.count(r"^LDG\.E\.EF\.128\s") == 2
    assert sass.count(r"^LDG\.E") == 12 and sass.count(r"^STG\.E") == 12
    assert sass.spills == 0


@pytest.mark.parametrize("t", ["f32", "i8", "u64", "f16", "bf16", "bool", "f8e4m3fn"])
def test_the_interpreter_runs_them_as_plain_loads_and_stores(t):
    dt = np_dtype(K.every_hint, t)
    rng = np.random.default_rng(7)
    x = rng.integers(0, 2 if t == "bool" else 100, 37).astype(dt)
    y = np.zeros(6 * len(x), dt)
    K.every_hint.dispatch(t).interpret[2, 32](x, y, len(x))
    assert y.tobytes() == np.repeat(x, 6).tobytes()
    v = np.zeros(6 * len(x[:36]), dt)
    K.every_hint_vec.dispatch(t).interpret[1, 32](x[:36], v, 9)
    assert v.tobytes() == np.repeat(x[:36].reshape(9, 4), 6, axis=0).tobytes()


def test_streaming_scale_matches_numpy_with_a_tail():
    x = np.linspace(-3, 3, 43, dtype=np.float32)
    y = np.zeros_like(x)
    K.scale_streaming.interpret[1, 64](x, y, len(x), np.float32(1.5))
    assert y.tobytes() == (x * np.float32(1.5)).tobytes()


def test_golden(golden):
    golden.check_kernel(K.scale_streaming, GOLDEN)
    assert {p.stem for p in GOLDEN.glob("*.cu")} == {"scale_streaming"}


# -- misuse ------------------------------------------------------------------------
def test_a_hint_on_shared_memory_is_refused_with_the_fix():
    @kdsl.kernel
    def on_shared(out: Pointer[Float32]):
        s = kdsl.shared_array(Float32, 32)
        s[kdsl.thread_idx.x] = 1.0
        out[0] = kdsl.ldcs(s, 0)

    with pytest.raises(DSLError, match=r"E720.*kdsl\.ldcs\(\) reads or writes glo"):
        on_shared.dispatch().source


def test_a_hinted_store_of_another_type_is_refused():
    @kdsl.kernel
    def wrong(out: Pointer[Float32], n: Int32):
        kdsl.stcs(out, 0, n)

    with pytest.raises(DSLError, match=r"Int32.*kdsl\.stcs.*Float32"):
        wrong.dispatch().source


def test_a_hinted_vector_store_needs_the_vector_type():
    @kdsl.kernel
    def wrong(out: Pointer[Float32], v: Float32):
        kdsl.stcs(out.vec(4), 0, v)

    with pytest.raises(DSLError, match=r"Float32.*kdsl\.stcs.*Float32x4"):
        wrong.dispatch().source
