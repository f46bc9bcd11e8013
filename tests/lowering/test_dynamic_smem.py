"""kdsl.dynamic_shared_array: the CUDA each layout becomes (one buffer,
views cut from it in order, aligned, offsets folded or read where a view is
declared), what NVRTC makes of it, device functions taking views, the
layout against a reference on random sequences, and the goldens of
tests/dynamic_smem_kernels.py."""

import random
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import kdsl
from kdsl import Float32, Float64, Int8, Int16, Int32, Pointer, thread_idx
from kdsl.runtime.interpreter import simt
from kdsl.transpile import ir
from kdsl.runtime.nvrtc import compile_to_cubin

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))
import dynamic_smem_kernels as K  # noqa: E402

GOLDEN = TESTS / "golden" / "features" / "dynamic_smem_kernels"
DECL = "extern __shared__ __align__(16) unsigned char kdsl_dynamic_smem[];"


def body(inst) -> str:
    """The generated kernel, without the header and prelude."""
    return inst.source.split('extern "C"', 1)[1]


@kdsl.kernel
def one_view(x: Pointer[Float32]):
    buf = kdsl.dynamic_shared_array(Float32)
    buf[thread_idx.x] = x[thread_idx.x]
    kdsl.syncthreads()
    x[thread_idx.x] = buf[0]


def test_one_view_is_the_buffer_itself():
    src = body(one_view.dispatch())
    assert src.count(DECL) == 1
    assert src.index(DECL) < src.index("// buf = ")  # first in the kernel
    assert "float* buf = reinterpret_cast<float*>(kdsl_dynamic_smem);" in src
    compile_to_cubin(one_view.dispatch().source, "one_view")


@kdsl.kernel
def static_layout(x: Pointer[Float32]):
    flags = kdsl.dynamic_shared_array(Int8, 3)
    wide = kdsl.dynamic_shared_array(Float64, 4)
    shorts = kdsl.dynamic_shared_array(Int16, 5)
    rest = kdsl.dynamic_shared_array(Float32)
    t = thread_idx.x
    flags[t] = Int8(1)
    wide[t] = Float64(2)
    shorts[t] = Int16(3)
    rest[t] = x[t]


def test_static_sizes_fold_and_each_view_is_aligned_to_its_element():
    src = body(static_layout.dispatch())
    assert "int8_t* flags = reinterpret_cast<int8_t*>(kdsl_dynamic_smem);" in src
    assert "double* wide = reinterpret_cast<double*>(kdsl_dynamic_smem + 8);" in src
    assert (
        "int16_t* shorts = reinterpret_cast<int16_t*>(kdsl_dynamic_smem + 40);" in src
    )
    assert "float* rest = reinterpret_cast<float*>(kdsl_dynamic_smem + 52);" in src
    assert "_end" not in src  # nothing is read at run time
    compile_to_cubin(static_layout.dispatch().source, "static_layout")


@kdsl.kernel
def runtime_layout(x: Pointer[Float32], n: Int32, m: Int32):
    a = kdsl.dynamic_shared_array(Float32, n)
    b = kdsl.dynamic_shared_array(Int32, m)
    n = n + 1  # the layout keeps the size read at a's declaration
    c = kdsl.dynamic_shared_array(Int8, 2)
    d = kdsl.dynamic_shared_array(Float64, n)
    t = thread_idx.x
    a[t] = x[t]
    b[t] = t
    c[t] = Int8(0)
    d[t] = Float64(1)


def test_runtime_sizes_are_read_where_their_view_is_declared():
    src = body(runtime_layout.dispatch())
    lines = [line.strip() for line in src.splitlines()]
    a_end = lines.index("int32_t a_end = kdsl::mul(n, 4);")
    assert lines[a_end - 1].startswith("float* a = ")
    assert "int32_t* b = reinterpret_cast<int32_t*>(kdsl_dynamic_smem + a_end);" in (
        lines
    )
    b_end = lines.index("int32_t b_end = kdsl::add(a_end, kdsl::mul(m, 4));")
    assert b_end < lines.index("n = kdsl::add(n, 1);")
    # an Int32 end is 4-aligned: Int8 needs nothing, Float64 after 2 bytes
    assert "int8_t* c = reinterpret_cast<int8_t*>(kdsl_dynamic_smem + b_end);" in lines
    assert (
        "double* d = reinterpret_cast<double*>(kdsl_dynamic_smem + "
        "(kdsl::add(b_end, 9) & (-8)));"
    ) in lines
    assert "d_end" not in src  # the last view's end: no later view needs it
    compile_to_cubin(runtime_layout.dispatch().source, "runtime_layout")


def test_the_interpreter_follows_the_same_layout(monkeypatch):
    starts = _record_starts(monkeypatch)
    x = np.arange(2, dtype=np.float32)
    n, m = 10, 3
    need = 56 + (n + 1) * 8  # d: 8-aligned after c's 2 bytes, of n + 1 elements
    runtime_layout.interpret[1, 2](x, n, m, shared_mem=need)
    assert starts == {"a": 0, "b": 40, "c": 52, "d": 56}


@kdsl.kernel
def wide_vectors(x: Pointer[Float32]):
    pad = kdsl.dynamic_shared_array(Int8, 1)
    wide = kdsl.dynamic_shared_array(kdsl.Float32x16, 2)
    pad[0] = Int8(0)
    wide[0] = wide[1]


def test_a_wide_vector_view_aligns_the_buffer_to_its_width():
    src = body(wide_vectors.dispatch())
    assert "extern __shared__ __align__(64) unsigned char kdsl_dynamic_smem[];" in src
    assert "reinterpret_cast<kdsl::vec<float, 16>*>(kdsl_dynamic_smem + 64)" in src
    compile_to_cubin(wide_vectors.dispatch().source, "wide_vectors")


@kdsl.func
def stage(tile, i, v):
    tile[i] = v
    kdsl.syncthreads()
    return tile[31 - i]


@kdsl.func
def peek(tile, i):
    return tile[i]


@kdsl.kernel
def through_functions(x: Pointer[Float32], out: Pointer[Float32]):
    tile = kdsl.dynamic_shared_array(Float32, 32)
    t = thread_idx.x
    out[t] = stage(tile, t, x[t]) + peek(tile, t)


def test_device_functions_take_views_as_pointers():
    inst = through_functions.dispatch()
    src = inst.source
    assert "static __device__ float stage__df32_i32_f32(float* tile," in src
    assert "static __device__ float peek__df32_i32(const float* tile, int32_t i)" in src
    compile_to_cubin(src, inst.name)
    x = np.arange(32, dtype=np.float32)
    out = np.zeros(32, np.float32)
    through_functions.interpret[1, 32](x, out, shared_mem=128)
    np.testing.assert_array_equal(out, x[::-1] + x)


@kdsl.kernel
def per_iteration(x: Pointer[Float32], n: Int32):
    for k in kdsl.range_constexpr(2):
        part = kdsl.dynamic_shared_array(Float32, n)
        part[thread_idx.x] = x[thread_idx.x + k * n]
        kdsl.syncthreads()
        x[thread_idx.x + k * n] = part[n - 1 - thread_idx.x]


def test_each_iteration_of_a_range_constexpr_loop_cuts_its_own_view():
    src = body(per_iteration.dispatch())
    assert "float* part = reinterpret_cast<float*>(kdsl_dynamic_smem);" in src
    assert (
        "float* part_2 = reinterpret_cast<float*>(kdsl_dynamic_smem + part_end);"
        in (src)
    )
    compile_to_cubin(per_iteration.dispatch().source, "per_iteration")
    x = np.arange(8, dtype=np.float32)
    per_iteration.interpret[1, 4](x, 4, shared_mem=32)
    np.testing.assert_array_equal(x, [3, 2, 1, 0, 7, 6, 5, 4])


@kdsl.kernel
def named_like_the_buffer(x: Pointer[Float32]):
    kdsl_dynamic_smem = kdsl.dynamic_shared_array(Float32)
    kdsl_dynamic_smem[thread_idx.x] = x[thread_idx.x]


def test_a_variable_named_like_the_buffer_is_renamed():
    src = body(named_like_the_buffer.dispatch())
    assert (
        "float* kdsl_dynamic_smem_ = reinterpret_cast<float*>(kdsl_dynamic_smem);"
        in (src)
    )
    compile_to_cubin(named_like_the_buffer.dispatch().source, "named_like_the_buffer")


@kdsl.kernel
def no_views(x: Pointer[Float32]):
    x[thread_idx.x] = x[0]


def test_a_kernel_without_views_declares_no_buffer():
    assert "kdsl_dynamic_smem" not in no_views.dispatch().source


def test_the_ir_shows_the_buffer_and_each_view():
    from kdsl.transpile.ir.printer import format_function

    text = format_function(one_view.dispatch().lowered.kernel)
    assert "  dynamic_shared_decl kdsl_dynamic_smem(align=16)\n" in text
    assert "dynamic_shared kdsl_dynamic_smem buf(0:Int32, size=None)" in text


# -- the layout against a reference ----------------------------------------------
TYPES = {"Int8": 1, "Int16": 2, "Float32": 4, "Float64": 8, "kdsl.Float32x4": 16}


def _reference(views, sizes) -> tuple[dict, int]:
    """Each view's start and the bytes they take, laid out by hand."""
    at, starts = 0, {}
    for name, t, size in views:
        nbytes = TYPES[t]
        at = -(-at // nbytes) * nbytes
        starts[name] = at
        at += nbytes * (sizes.get(size, size) if size is not None else 4)
    return starts, at


def _record_starts(monkeypatch) -> dict:
    """Each view's byte offset (thread 0's), as the interpreter computes it."""
    starts = {}
    original = simt.Batch.EXPR[ir.DynamicShared]

    def recording(self, e, m, frame):
        view = original(self, e, m, frame)
        starts[e.view] = int(view.start[0])
        return view

    monkeypatch.setitem(simt.Batch.EXPR, ir.DynamicShared, recording)
    return starts


@pytest.mark.parametrize("seed", range(12))
def test_random_layouts_match_the_reference(seed, tmp_path, monkeypatch):
    rng = random.Random(seed)
    views = []
    for k in range(rng.randint(2, 6)):
        size = rng.choice([None, "n", "m", rng.randint(1, 9)])
        views.append((f"v{k}", rng.choice(list(TYPES)), size))
    views[:-1] = [(a, t, 1 if s is None else s) for a, t, s in views[:-1]]
    lines = [
        "import kdsl",
        "from kdsl import Float32, Float64, Int8, Int16, Int32, Pointer, thread_idx",
        "",
        "",
        "@kdsl.kernel",
        "def layout(x: Pointer[Int32], n: Int32, m: Int32):",
    ]
    for name, t, size in views:
        args = t if size is None else f"{t}, {size}"
        lines.append(f"    {name} = kdsl.dynamic_shared_array({args})")
    for name, t, _ in views:  # each view's element 0, read and written
        lines.append(f"    {name}[0] = {name}[0]")
    path = tmp_path / f"layout_{seed}.py"
    path.write_text("\n".join(lines) + "\n")
    module = _load(path)
    sizes = {"n": 5, "m": 3}
    want, total = _reference(views, sizes)
    starts = _record_starts(monkeypatch)
    x = np.zeros(1, np.int32)
    module.layout.interpret[1, 1](x, sizes["n"], sizes["m"], shared_mem=total)
    assert starts == want, "\n".join(lines)
    inst = module.layout.dispatch()
    compile_to_cubin(inst.source, inst.name)


def _load(path):
    import importlib.util

    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- the shared kernels: NVRTC and goldens -----------------------------------------
@pytest.mark.parametrize(
    "kernel", [K.reverse_segments, K.swap_quads], ids=lambda k: k.name
)
def test_the_shared_kernels_compile(kernel):
    inst = kernel.dispatch()
    compile_to_cubin(inst.source, inst.name)


def test_golden(golden):
    golden.check_kernel(K.reverse_segments, GOLDEN)
    assert {p.stem for p in GOLDEN.glob("*.cu")} == {"reverse_segments"}


def test_views_appear_in_the_source_in_declaration_order():
    src = body(K.reverse_segments.dispatch())
    found = re.findall(r"(\w+)\* (\w+) =\s+reinterpret_cast", src)
    assert found == [("float", "values"), ("int8_t", "marks"), ("double", "partial")]
