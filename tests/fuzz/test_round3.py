"""Issue 23 (reliability, round 3): reproducers of what the fuzzing
campaign found, each a test that failed before its fix."""

import builtins
import importlib.util
import itertools
import textwrap

import numpy as np
import pytest

import kdsl

_count = itertools.count()


def _module(folder, text):
    """Import ``text`` as a module written to a file (kdsl reads sources)."""
    path = folder / f"round3_{next(_count)}.py"
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# item 1: ``from kdsl import *``

STAR = """
from kdsl import *


@kernel
def k(out: Pointer[Float32], n: Int32):
    i = thread_idx.x
    if i < n:
        out[i] = Float32(2)


def host():
    return list(range(3)), min(4, 5), max(4, 5)
"""


def test_a_star_import_shadows_no_python_builtin():
    shadowed = [n for n in kdsl.__all__ if hasattr(builtins, n)]
    assert shadowed == []
    assert all(hasattr(kdsl, n) for n in kdsl.__all__)
    for name in ("kernel", "func", "Float32", "Pointer", "thread_idx", "syncthreads"):
        assert name in kdsl.__all__


def test_a_star_imported_module_compiles_and_its_host_code_runs(tmp_path):
    module = _module(tmp_path, STAR)
    assert module.host() == ([0, 1, 2], 4, 5)
    assert "__global__" in module.k.dispatch().source
    from kdsl.runtime.compile import kernel_fingerprint, transpiled

    assert kernel_fingerprint(module.k)
    transpiled(module.k.dispatch())  # the compile path's first step
    out = np.zeros(4, np.float32)
    module.k.interpret[1, 4](out, 3)
    assert out.tolist() == [2, 2, 2, 0]


# item 4: an Int128 index beyond Int64


@pytest.mark.parametrize("index", ["2**80", "-(2**80)", "2**127 - 1"])
def test_an_int128_index_beyond_int64_is_out_of_bounds(tmp_path, index):
    module = _module(
        tmp_path,
        f"""
        import kdsl
        from kdsl import Float32, Int128, Pointer, thread_idx


        @kdsl.kernel
        def k(x: Pointer[Float32], out: Pointer[Float32]):
            i = Int128({index})
            out[0] = x[i]


        @kdsl.kernel
        def shared(out: Pointer[Float32]):
            s = kdsl.shared_array(Float32, 4)
            s[Int128({index}) + Int128(thread_idx.x)] = Float32(1)
            out[0] = s[0]
        """,
    )
    x, out = np.zeros(4, np.float32), np.zeros(1, np.float32)
    with pytest.raises(kdsl.DSLError) as info:
        module.k.interpret[1, 1](x, out)
    assert info.value.code == "E407" and str(eval(index)) in info.value.message
    with pytest.raises(kdsl.DSLError) as info:
        module.shared.interpret[1, 1](out)
    assert info.value.code == "E407" and str(eval(index)) in info.value.message


# item 5: lanes of a dynamic shared vector view, race-checked per lane

LANES = """
import kdsl
from kdsl import Float32, Float32x4, Int32, Pointer, thread_idx


@kdsl.kernel
def whole_then_lane(out: Pointer[Float32]):
    c = kdsl.dynamic_shared_array(Float32x4, 32)
    t = thread_idx.x
    c[t] = Float32x4(Float32(t), Float32(1), Float32(2), Float32(3))
    c[t][3] = Float32(t + 100)
    kdsl.syncthreads()
    out[4 * t + 0] = c[t][0]
    out[4 * t + 3] = c[t][3]


@kdsl.kernel
def read_lanes(out: Pointer[Float32], n: Int32):
    d = kdsl.dynamic_shared_array(Float32x4, 32)
    s = kdsl.shared_array(Float32x4, 32)
    t = thread_idx.x
    for k in kdsl.range_constexpr(4):
        d[t][k] = Float32(4 * t + k)
        s[t][k] = Float32(4 * t + k)
    kdsl.syncthreads()
    i = (t + 1) % n
    acc = Float32(0)
    for k in kdsl.range_constexpr(4):
        acc += d[i][k] - s[i][k]
        out[4 * t + k] = d[i][k]
    out[128 + t] = acc


@kdsl.kernel
def lane_race(out: Pointer[Float32]):
    c = kdsl.dynamic_shared_array(Float32x4, 4)
    c[1][2] = Float32(thread_idx.x)
    out[0] = Float32(1)


@kdsl.kernel
def whole_race(out: Pointer[Float32]):
    c = kdsl.dynamic_shared_array(Float32x4, 4)
    c[2] = Float32x4(Float32(thread_idx.x))
    out[0] = Float32(1)
"""


def test_lanes_of_a_dynamic_shared_vector_view_are_no_race(tmp_path):
    module = _module(tmp_path, LANES)
    out = np.zeros(128, np.float32)
    module.whole_then_lane.interpret[1, 32](out, shared_mem=32 * 16)
    t = np.arange(32)
    assert out[0::4].tolist() == t.tolist()
    assert out[3::4].tolist() == (t + 100).tolist()
    out = np.zeros(160, np.float32)
    module.read_lanes.interpret[1, 32](out, 32, shared_mem=32 * 16)
    want = (4 * ((t[:, None] + 1) % 32) + np.arange(4)).ravel()
    assert out[:128].tolist() == want.tolist() and not out[128:].any()
    for kernel, where in [
        (module.lane_race, "c[1][2]"),
        (module.whole_race, "c[2][0]"),
    ]:
        with pytest.raises(kdsl.DSLError) as info:
            kernel.interpret[1, 2](out, shared_mem=64)
        assert info.value.code == "E450" and f"shared array {where}:" in str(info.value)


# item 6: valid code that was rejected

ITEM6 = """
import kdsl
from kdsl import Float32, Float32x4, Int32, Pointer, thread_idx


@kdsl.kernel
def mask_then_if(x: Pointer[Float32], out: Pointer[Float32], n: Int32):
    t = thread_idx.x
    v = x[t]
    for i in range(n):
        mask = 0xffffffff
        v += kdsl.shfl_xor(v, 1, mask=mask)
    if n >= 0:
        mask = 0x0000ffff
        if t < 16:
            v += kdsl.shfl_xor(v, 1, mask=mask)
    out[t] = v


@kdsl.kernel
def mask_bound_again(x: Pointer[Float32], out: Pointer[Float32], n: Int32):
    t = thread_idx.x
    v = x[t]
    for i in range(n):
        mask = 0xffffffff
        v += kdsl.shfl_xor(v, 1, mask=mask)
    if n >= 0:
        v += kdsl.shfl_xor(v, 1)
    mask = 3
    out[t] = v + Float32(mask)


@kdsl.kernel
def lane_name_again(x: Pointer[Float32], out: Pointer[Float32], n: Int32):
    v = x.vec(4)[0]
    for k in kdsl.range_constexpr(2):
        j = k * 2
        out[k] = v[j]
        if n > k:
            j = n
        out[2 + k] = Float32(j)


@kdsl.kernel
def positional_mask(out: Pointer[Int32]):
    t = thread_idx.x
    m = kdsl.ballot(t < 16)
    if t < 16:
        kdsl.syncwarp(m)
    kdsl.syncwarp(0xffffffff)
    out[t] = Int32(m)
"""


def test_item6_valid_kernels_are_accepted_and_right(tmp_path):
    module = _module(tmp_path, ITEM6)
    t = np.arange(32)
    x = (t % 5 - 2).astype(np.float32)

    def warp_model(n, second_mask):
        v = x.copy()
        for _ in range(n):
            v = v + v[t ^ 1]
        return np.where(t < second_mask, v + v[t ^ 1], v)

    for n in (0, 2):
        out = np.zeros(32, np.float32)
        module.mask_then_if.interpret[1, 32](x, out, n)
        assert out.tolist() == warp_model(n, 16).tolist()
        out = np.zeros(32, np.float32)
        module.mask_bound_again.interpret[1, 32](x, out, n)
        assert out.tolist() == (warp_model(n, 32) + 3).tolist()
    lanes = np.arange(8, dtype=np.float32)
    for n in (0, 1, 5):
        out = np.zeros(4, np.float32)
        module.lane_name_again.interpret[1, 1](lanes, out, n)
        js = [n if n > k else 2 * k for k in range(2)]
        assert out.tolist() == [0, 2] + js
    out = np.zeros(32, np.int32)
    module.positional_mask.interpret[1, 32](out)
    assert (out == 0xFFFF).all()
    for k in (module.mask_then_if, module.lane_name_again, module.positional_mask):
        assert "__global__" in k.dispatch().source


# item 8: an autotuned kernel without a GPU


def test_an_autotuned_kernel_without_a_gpu_is_e503(tmp_path, monkeypatch):
    from kdsl.runtime import autotune

    monkeypatch.setenv("KDSL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(autotune.AUTOTUNE, "memory", {})
    module = _module(
        tmp_path,
        """
        import kdsl
        from kdsl import Constexpr, Float32, Int32, Pointer


        @kdsl.autotune(configs=[kdsl.Config(BLOCK=64), kdsl.Config(BLOCK=128)], key=["n"])
        @kdsl.kernel
        def scale(x: Pointer[Float32], n: Int32, BLOCK: Constexpr[int] = 128):
            i = kdsl.block_idx.x * BLOCK + kdsl.thread_idx.x
            if i < n:
                x[i] = x[i] + x[i]
        """,
    )
    x = np.ones(256, np.float32)
    for attempt in range(2):  # the first failure leaves nothing behind
        with pytest.raises(kdsl.DSLError) as info:
            module.scale.best_config(x, 256)
        assert info.value.code == "E503", str(info.value)
        with pytest.raises(kdsl.DSLError) as info:
            module.scale[4, 64](x, 256)
        assert info.value.code == "E503", str(info.value)
    module.scale.interpret[4, 64](x, 256)  # the CPU path still works
    assert (x == 2).all()


# item 9: shared memory limits

SHARED = """
import kdsl
from kdsl import Float32, Int32, Pointer, thread_idx


@kdsl.func
def stage(x: Pointer[Float32]) -> Float32:
    s = kdsl.shared_array(Float32, 8192)
    s[thread_idx.x] = x[thread_idx.x]
    kdsl.syncthreads()
    return s[0]


@kdsl.kernel
def over_with_a_function(x: Pointer[Float32]):
    t = kdsl.shared_array(Float32, 4097)
    t[thread_idx.x] = stage(x)
    x[thread_idx.x] = t[0]


@kdsl.kernel
def at_the_limit(x: Pointer[Float32]):
    t = kdsl.shared_array(Float32, 4096)
    t[thread_idx.x] = stage(x)
    x[thread_idx.x] = t[thread_idx.x]


@kdsl.kernel
def dynamic(x: Pointer[Float32]):
    d = kdsl.dynamic_shared_array(Float32)
    d[thread_idx.x] = x[thread_idx.x]
    kdsl.syncthreads()
    x[thread_idx.x] = d[0]
"""


def test_static_shared_memory_over_48_kb_is_a_located_compile_error(tmp_path):
    module = _module(tmp_path, SHARED)
    with pytest.raises(kdsl.DSLError) as info:
        module.over_with_a_function.dispatch().source
    err = info.value
    # the function's array, lowered at the call, crosses the limit
    assert err.code == "E127" and "kdsl.dynamic_shared_array(Float32, 8192)" in str(err)
    assert err.span is not None and err.span.line == 7 and "49156 bytes" in str(err)
    from kdsl.runtime.nvrtc import compile_to_cubin

    inst = module.at_the_limit.dispatch()  # 48 KB exactly: ptxas accepts it
    compile_to_cubin(inst.source, inst.name)
    x = np.ones(32, np.float32)
    module.at_the_limit.interpret[1, 32](x)
    assert (x == 1).all()


def test_dynamic_shared_memory_over_the_maximum_is_a_located_launch_error(tmp_path):
    module = _module(tmp_path, SHARED)
    x = np.ones(32, np.float32)
    with pytest.raises(kdsl.DSLError) as info:
        module.dynamic.interpret[1, 32](x, shared_mem=228 * 1024)  # the launch
    err = info.value
    assert err.code == "E471" and err.span is not None
    assert err.span.path == __file__ and "interpret[1, 32]" in str(err)
    module.dynamic.interpret[1, 32](x, shared_mem=227 * 1024)


# item 12: an interpreted launch's step budget

WRAPPING = """
import kdsl
from kdsl import Int8, Int32, Pointer, thread_idx


@kdsl.kernel
def forever(out: Pointer[Int32]):
    i = Int8(0)
    while i < 200:
        out[thread_idx.x] = out[thread_idx.x] + 1
        i += Int8(1)


@kdsl.kernel
def long(out: Pointer[Int32], n: Int32):
    for j in range(n):
        out[thread_idx.x] = out[thread_idx.x] + 1
"""


def test_a_loop_over_the_step_budget_is_a_located_error(tmp_path, monkeypatch):
    module = _module(tmp_path, WRAPPING)
    monkeypatch.setenv("KDSL_MAX_INTERPRETED_STEPS", "5000")
    out = np.zeros(4, np.int32)
    with pytest.raises(kdsl.DSLError) as info:
        module.forever.interpret[1, 4](out)
    err = info.value
    assert err.code == "E477" and err.span is not None and err.span.line == 8
    assert "KDSL_MAX_INTERPRETED_STEPS" in str(err) and "5000" in str(err)
    module.long.interpret[1, 4](out := np.zeros(4, np.int32), 4000)  # within it
    assert (out == 4000).all()
    with pytest.raises(kdsl.DSLError) as info:
        module.long.interpret[1, 4](out, 6000)
    assert info.value.code == "E477" and info.value.span.line == 15
    monkeypatch.setenv("KDSL_MAX_INTERPRETED_STEPS", "0")  # no budget
    module.long.interpret[1, 4](out := np.zeros(4, np.int32), 6000)
    assert (out == 6000).all()


def test_a_pointer_to_vectors_parameter_is_a_clear_error_in_the_interpreter(tmp_path):
    """Found with item 6's tests: the interpreter raised a raw AttributeError."""
    module = _module(
        tmp_path,
        """
        import kdsl
        from kdsl import Float32, Float32x4, Pointer


        @kdsl.kernel
        def k(x: Pointer[Float32x4], out: Pointer[Float32]):
            out[0] = x[0][1]
        """,
    )
    with pytest.raises(kdsl.DSLError) as info:
        module.k.interpret[1, 1](np.zeros(8, np.float32), np.zeros(1, np.float32))
    assert info.value.code == "E478" and "x.vec(4)" in str(info.value)
