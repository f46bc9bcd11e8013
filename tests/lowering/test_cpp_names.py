"""Every Python name that reaches C++ is a valid C++ name that means what the
kernel means: kernels, device functions, parameters, variables, constant
tables and shared/local arrays named like a C++ keyword, a CUDA built-in
variable, type, math function or macro, kdsl's own namespace, or in the
implementation's reserved space (``__x``, ``_Pragma``) are renamed with a
trailing ``_``; non-ASCII names are transliterated (``é`` -> ``e``, ``π`` ->
``pi``); names are compared after NFKC normalisation, as Python compares
them (``ｖ`` is ``v``).  Each case transpiles and compiles with NVRTC; the
interpreter runs the renamed kernels like any other."""

import importlib.util
import itertools
import keyword
import re

import numpy as np
import pytest

from kdsl.runtime.nvrtc import compile_to_cubin
from kdsl.transpile.frontend import names

HEAD = """\
import numpy as np
import kdsl
from kdsl import Float16, Float32, Int32, Pointer, thread_idx
from kdsl import math as km
"""

_count = itertools.count()


def _module(tmp_path, body: str):
    path = tmp_path / f"names_{next(_count)}.py"
    path.write_text(HEAD + body, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _compiled(inst) -> str:
    """The instance's source, after NVRTC compiled it under its entry name."""
    source = inst.transpiled.source
    compile_to_cubin(source, inst.name)
    return source


def _entry(source: str) -> str:
    return re.search(r'extern "C" __global__ void (\w+)\(', source).group(1)


KERNEL_NAMES = ["exp", "sqrt", "max", "abs", "int", "new", "threadIdx", "size_t"]


@pytest.mark.parametrize("name", KERNEL_NAMES + ["kdsl", "NULL", "π"])
def test_a_kernel_named_like_a_cpp_or_cuda_name_compiles(tmp_path, name):
    m = _module(
        tmp_path,
        f"@kdsl.kernel\ndef {name}(x: Pointer[Float32]):\n"
        f"    x[thread_idx.x] = km.sqrt(x[thread_idx.x])\n",
    )
    inst = getattr(m, name).dispatch()
    source = _compiled(inst)
    assert _entry(source) == names.entry_name(inst.name)
    assert _entry(source) == {"π": "pi"}.get(name, name + "_")
    x = np.array([4.0, 9.0], np.float32)
    getattr(m, name).interpret[1, 2](x)
    assert x.tolist() == [2.0, 3.0]


def test_an_instance_name_that_is_not_reserved_keeps_its_spelling(tmp_path):
    m = _module(
        tmp_path,
        "D = kdsl.TypeVar('D', bound=kdsl.Float)\n"
        "@kdsl.kernel(dtypes=[Float32])\ndef exp(x: Pointer[D]):\n"
        "    x[0] = x[0]\n",
    )
    inst = m.exp.dispatch("f32")
    assert _entry(_compiled(inst)) == inst.name == "exp__f32"


def test_variables_named_like_macros_and_non_ascii_names(tmp_path):
    m = _module(
        tmp_path,
        "@kdsl.kernel\n"
        "def k(x: Pointer[Float32], é: Pointer[Float32]):\n"
        "    NULL = x[0]\n"
        "    _Pragma = NULL + Float32(1.0)\n"
        "    π = _Pragma * Float32(2.0)\n"
        "    e = π + Float32(1.0)\n"  # a different variable than é
        "    exp = km.exp(Float32(0.0))\n"
        "    x[1] = e + exp\n"
        "    é[0] = π\n",
    )
    source = _compiled(m.k.dispatch())
    for cname in ("NULL_", "_Pragma_", "pi", "e_2", "exp_"):
        assert re.search(rf"\b{cname}\b", source), cname
    assert "(float* x, float* e)" in source
    code = re.sub(r"//[^\n]*", "", source)  # comments quote the Python as it is
    assert code.isascii()
    x, y = np.array([1.0, 0.0], np.float32), np.zeros(1, np.float32)
    m.k.interpret[1, 1](x, y)
    assert x.tolist() == [1.0, 6.0] and y.tolist() == [4.0]


def test_names_are_compared_after_nfkc_normalisation(tmp_path):
    # Python reads ｖ (fullwidth) as v: one variable, assigned twice
    m = _module(
        tmp_path,
        "@kdsl.kernel\n"
        "def k(x: Pointer[Float32]):\n"
        "    v = x[0]\n"
        "    ｖ = v + Float32(1.0)\n"
        "    x[1] = v\n"
        "    x[2] = ｖ\n",
    )
    source = _compiled(m.k.dispatch())
    assert "ｖ" not in source and "v_2" not in source
    x = np.array([1.0, 0.0, 0.0], np.float32)
    m.k.interpret[1, 1](x)
    assert x.tolist() == [1.0, 2.0, 2.0]  # as Python computes it


def test_nfkc_reaches_globals_and_parameters(tmp_path):
    m = _module(
        tmp_path,
        "ＳＣＡＬＥ = 3.0\n"  # Python stores it as SCALE
        "@kdsl.kernel\n"
        "def k(ｘ: Pointer[Float32]):\n"
        "    x[0] = ｘ[0] * Float32(SCALE)\n",
    )
    source = _compiled(m.k.dispatch())
    assert "(float* x)" in source
    x = np.array([2.0], np.float32)
    m.k.interpret[1, 1](x)
    assert x.tolist() == [6.0]


def test_device_functions_constant_tables_and_arrays(tmp_path):
    m = _module(
        tmp_path,
        "exp = np.array([1.0, 2.0], np.float32)\n"
        "π = np.array([3.0, 4.0], np.float32)\n"
        "@kdsl.func\ndef sqrt(a: Float32) -> Float32:\n    return a + exp[1]\n"
        "@kdsl.func\ndef k(a: Float32) -> Float32:\n    return a * π[0]\n"
        "@kdsl.kernel\n"
        "def k2(x: Pointer[Float32]):\n"
        "    NULL = kdsl.local_array(Float32, 2)\n"
        "    é = kdsl.shared_array(Float32, 2)\n"
        "    NULL[0] = sqrt(x[0])\n"
        "    é[0] = k(NULL[0])\n"
        "    x[1] = é[0] + km.sqrt(x[0] + Float32(3.0))\n",
    )
    source = _compiled(m.k2.dispatch())
    assert "sqrtf(" in source  # not hidden by anything of the user's
    for cname in ("exp_", "pi", "sqrt__f32", "NULL_", "e"):
        assert re.search(rf"\b{cname}\b", source), cname
    x = np.array([1.0, 0.0], np.float32)
    m.k2.interpret[1, 1](x)
    assert x.tolist() == [1.0, 11.0]


def test_a_device_function_named_like_the_kernel_entry(tmp_path):
    m = _module(
        tmp_path,
        "@kdsl.func\ndef k(a: Float32) -> Float32:\n    return a + a\n"
        "@kdsl.kernel\n"
        "def k_entry(x: Pointer[Float32]):\n"
        "    x[0] = k(x[0])\n",
    )
    source = _compiled(m.k_entry.dispatch())
    assert _entry(source) == "k_entry"


def test_transliteration_is_deterministic_and_ascii():
    assert names.cpp_identifier("é") == "e"
    assert names.cpp_identifier("π") == "pi"
    assert names.cpp_identifier("Δx") == "Deltax"
    assert names.cpp_identifier("ｖ") == "v"
    assert names.cpp_identifier("ﬁle") == "file"
    assert names.cpp_identifier("数") == "u6570"
    assert names.cpp_identifier("x数y") == "xu6570y"
    for name in ("é", "π", "数", "Δx", "ab_c", "__x", "_Pragma", "exp", "new"):
        spelled = names.cpp_identifier(name)
        assert spelled.isascii() and spelled.isidentifier()
        assert names.cpp_identifier(name) == spelled


# -- the probe: every reserved name as a variable, a parameter and a device function,
# -- then used with code that needs the C++/CUDA names it might hide
def _probe_names() -> list[str]:
    used = {"kdsl", "np", "km", "Float16", "Float32", "Int32", "Pointer"}
    used |= {"thread_idx", "acc", "x", "h", "k", "a"}
    python_ok = [
        n
        for n in sorted(names.reserved_names())
        if not keyword.iskeyword(n) and n not in used
    ]
    python_ok += ["_Pragma", "_Bool", "__x", "__LINE__", "__CUDACC__", "KDSL_CORE_H"]
    return python_ok


def test_the_probe_covers_the_kinds_of_names():
    probe = set(_probe_names())
    for name in (
        "new delete int float double char auto register "
        "exp expf sqrt sqrtf max min abs fmaf rsqrtf y0 "
        "NULL threadIdx blockIdx blockDim warpSize size_t int32_t uint64_t "
        "half nv_bfloat16 float4 make_float4 atomicAdd printf malloc "
        "std cuda cooperative_groups"
    ).split():
        assert name in probe, name
    assert len(probe) > 1000


def test_every_reserved_name_as_a_variable_compiles(tmp_path):
    probe = _probe_names()
    body = "@kdsl.kernel\ndef k(x: Pointer[Float32], h: Pointer[Float16]):\n"
    body += "    acc = x[0]\n"
    for name in probe:
        body += f"    {name} = acc + Float32(1.0)\n    acc = {name}\n"
    # code that uses the CUDA names the variables could hide
    body += (
        "    x[thread_idx.x] = km.sqrt(acc) + km.exp(acc)\n"
        "    x[1] = km.fma(acc, acc, acc) + km.rsqrt(acc)\n"
        "    h[0] = Float16(acc) + h[1]\n"
    )
    m = _module(tmp_path, body)
    _compiled(m.k.dispatch())
    x, h = np.array([0.0, 0.0], np.float32), np.zeros(2, np.float16)
    m.k.interpret[1, 1](x, h)
    assert h[0] == np.float16(len(probe))


def test_reserved_names_as_parameters_and_device_functions(tmp_path):
    # every fourth name and the C++/CUDA core (transpiling a function per
    # name costs more than a variable: the variables test takes them all)
    everything = _probe_names()
    core = (names.CPP_KEYWORDS | names.CUDA_NAMES) & set(everything)
    probe = sorted(set(everything[::6]) | core)
    assert len(probe) < 400
    body = "@kdsl.func\ndef twice(a: Float32) -> Float32:\n    return a + a\n"
    for n in probe:
        body += f"@kdsl.func\ndef {n}(a: Float32) -> Float32:\n    return a + a\n"
    # functions: each called, next to the CUDA function it might hide
    body += "@kdsl.kernel\ndef k(x: Pointer[Float32]):\n"
    for n in probe:
        body += f"    x[0] = {n}(x[0]) + km.sqrt(x[1])\n"
    m = _module(tmp_path, body)
    _compiled(m.k.dispatch())
    # parameters (a kernel's parameter space holds 400 pointers)
    params = ", ".join(f"{n}: Pointer[Float32]" for n in probe)
    body = "@kdsl.func\ndef twice(a: Float32) -> Float32:\n    return a + a\n"
    body += f"@kdsl.kernel\ndef k({params}):\n"
    for n in probe:
        body += f"    {n}[0] = twice({n}[0]) + km.sqrt({n}[1])\n"
    m = _module(tmp_path, body)
    _compiled(m.k.dispatch())


def test_the_runtime_loads_the_renamed_entry(monkeypatch):
    import sys
    from pathlib import Path

    import cupy

    from kdsl.runtime import compile as kcompile

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import name_kernels as K

    asked = []

    class FakeModule:
        def load(self, cubin):
            asked.append(("load", cubin))

        def get_function(self, name):
            asked.append(("get", name))
            return name

    monkeypatch.setattr(cupy.cuda.function, "Module", FakeModule)
    monkeypatch.setattr(cupy.cuda, "Device", lambda device: _NoContext())
    monkeypatch.setattr(kcompile, "cubin_for", lambda inst, arch: b"\x7fELF")
    monkeypatch.setattr(kcompile, "device_arch", lambda device: "sm_90")
    inst = K.exp.dispatch()
    assert kcompile.load_function(inst, 0) == "exp_"
    assert asked == [("load", b"\x7fELF"), ("get", "exp_")]
    assert _entry(_compiled(inst)) == "exp_"
    x = np.array([2.0, 8.0], np.float32)
    K.exp.interpret[1, 2](x, 2)  # sqrt(π) is the user's: π + π
    f = np.float32
    expect = [(f(v) + np.sqrt(f(v))) + f(1) for v in (2.0, 8.0)]
    assert x.tobytes() == np.array(expect, np.float32).tobytes()


class _NoContext:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_errors_after_a_normalised_name_point_at_the_files_column(tmp_path):
    import kdsl

    line = "    ﬁﬁ = x[0]; ｖ = ﬁﬁ + nowhere\n"  # ﬁ is two letters (fi) in NFKC
    m = _module(tmp_path, "@kdsl.kernel\ndef k(x: Pointer[Float32]):\n" + line)
    with pytest.raises(kdsl.DSLError) as info:
        m.k.dispatch().transpiled
    col = line.index("nowhere") + 1
    assert f":{HEAD.count(chr(10)) + 3}:{col}:" in str(info.value)
    shown = str(info.value).splitlines()
    assert shown[1] == "    " + line.rstrip("\n")  # the file's text, as it is
    assert shown[2] == " " * (4 + line.index("nowhere")) + "^" * len("nowhere")


CONTEXTS = {
    "for": "@kdsl.kernel\ndef k(x: Pointer[Float32]):\n"
    "    for N in range(4):\n        x[N] = Float32(N)\n",
    "tuple": "@kdsl.kernel\ndef k(x: Pointer[Float32]):\n"
    "    N, b = x[0], x[1]\n    x[2] = N + b\n",
    "array parameter": "@kdsl.kernel\ndef k(N: kdsl.Array[Float32, 2]):\n"
    "    N[0, 1] = N[1, 0] + Float32(N.shape[0])\n",
    "scalar parameter": "@kdsl.kernel\ndef k(x: Pointer[Float32], N: Int32):\n"
    "    x[N] = Float32(N)\n",
    "device function parameter": "@kdsl.func\n"
    "def f(N: Float32, y: Pointer[Float32]) -> Float32:\n"
    "    y[0] = N\n    return N + N\n"
    "@kdsl.kernel\ndef k(x: Pointer[Float32]):\n    x[1] = f(x[0], x)\n",
    "results": "@kdsl.func\ndef f(a: Float32):\n    return a, a + a\n"
    "@kdsl.kernel\ndef k(x: Pointer[Float32]):\n    N, b = f(x[0])\n    x[1] = N * b\n",
    "both arms": "@kdsl.kernel\ndef k(x: Pointer[Float32]):\n"
    "    if x[0] > Float32(0):\n        N = x[0]\n    else:\n        N = x[1]\n"
    "    x[2] = N\n",
    "shared 2-D": "@kdsl.kernel\ndef k(x: Pointer[Float32]):\n"
    "    N = kdsl.shared_array(Float32, (4, 4))\n    N[thread_idx.x, 0] = x[0]\n"
    "    x[1] = N[0, 0]\n",
}


@pytest.mark.parametrize("name", ["NULL", "π", "int32_t"])
@pytest.mark.parametrize("context", sorted(CONTEXTS))
def test_a_reserved_or_non_ascii_name_in_every_binding_context(tmp_path, context, name):
    body = re.sub(r"\bN\b", name, CONTEXTS[context])
    m = _module(tmp_path, body)
    _compiled(m.k.dispatch())


def test_renamed_names_read_like_hand_written_cuda(golden):
    """tests/golden/features/lowering/names/exp.cu: the renamed entry (exp_), a device
    function named sqrt (sqrt__f32), NULL_, pi, e and one v for v and ｖ."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import name_kernels as K

    golden.check(
        K.exp.dispatch(),
        Path(__file__).parents[1] / "golden" / "features" / "lowering" / "names",
    )


def test_names_of_kdsls_own_file_scope_helpers_are_reserved(tmp_path):
    """narrow_floats.h defines kdsl_* functions at file scope: a user's
    function or variable of that name must not hide or redefine them."""
    m = _module(
        tmp_path,
        "@kdsl.func\ndef kdsl_f8e4m3_to_float() -> Float32:\n"  # no suffix
        "    return Float32(2.0)\n"
        "@kdsl.kernel\n"
        "def k(x: Pointer[kdsl.Float8E4M3], y: Pointer[Float32]):\n"
        "    kdsl_detail_apply_sign = Float32(x[0])\n"
        "    y[0] = kdsl_f8e4m3_to_float() + kdsl_detail_apply_sign\n"
        "    x[1] = kdsl.Float8E4M3(y[0])\n",
    )
    source = _compiled(m.k.dispatch())
    assert "float kdsl_f8e4m3_to_float_()" in source
    assert "float kdsl_detail_apply_sign_ = " in source


def test_every_file_scope_name_of_the_prelude_is_reserved():
    from importlib import resources

    folder = resources.files("kdsl.templates.prelude")
    found = set()
    for part in folder.iterdir():
        if part.name.endswith(".h"):
            found |= set(re.findall(r"^(kdsl_\w+)\(", part.read_text(), re.M))
    assert found  # narrow_floats.h's helpers
    for name in found:
        assert names.cpp_identifier(name) == name + "_"
