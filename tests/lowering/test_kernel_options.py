"""@kdsl.kernel(launch_bounds=..., maxrregcount=...): __launch_bounds__ on
the signature (and in the PTX), --maxrregcount for NVRTC (it reaches ptxas,
is written in the file's header and is part of the cubin's cache key), the
options checked when the kernel is defined, and launch_bounds checked at
launch by the interpreter (tests/runtime/test_runtime_cpu.py: on the GPU's path)."""

import re
import sys
from pathlib import Path

import numpy as np
import pytest

import kdsl
from kdsl import Constexpr, Float32, Int32, Pointer, thread_idx
from kdsl.runtime import cache, compile as kcompile, nvrtc

TESTS = Path(__file__).resolve().parents[1]
GOLDEN = TESTS / "golden" / "features" / "option_kernels"
sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(TESTS / "sass"))
import option_kernels as K  # noqa: E402
from test_ptx import ptx_of  # noqa: E402


def test_launch_bounds_are_on_the_signature_and_in_the_ptx():
    inst = K.bounded_scale.dispatch()
    head = 'extern "C" __global__ void __launch_bounds__(128, 2) bounded_scale('
    assert head in inst.source
    ptx = ptx_of(inst.source, inst.name)
    assert re.search(r"\.maxntid 128, 1, 1", ptx)
    assert re.search(r"\.minnctapersm 2", ptx)
    copy = K.bounded_copy.dispatch()
    assert "__global__ void __launch_bounds__(256) bounded_copy(" in copy.source
    ptx = ptx_of(copy.source, copy.name)
    assert re.search(r"\.maxntid 256, 1, 1", ptx) and ".minnctapersm" not in ptx


def test_a_long_name_with_launch_bounds_starts_a_line_of_its_own():
    """Where the bounds and the name pass the line width (attention_tma's
    instance names), the name starts the next line, as hand-written CUDA
    breaks it; the kernel compiles with its bounds."""

    @kdsl.kernel(launch_bounds=(384, 1))
    def a_kernel_whose_name_is_long_enough_to_pass_the_line_width_alone(
        x: Pointer[Float32],
    ):
        x[thread_idx.x] = x[0]

    inst = a_kernel_whose_name_is_long_enough_to_pass_the_line_width_alone.dispatch()
    head = 'extern "C" __global__ void __launch_bounds__(384, 1)\n' + inst.name + "("
    assert head in inst.source
    kernel = inst.source[inst.source.index('extern "C"') :]
    assert all(len(line) <= 100 for line in kernel.splitlines())
    assert re.search(r"\.maxntid 384, 1, 1", ptx_of(inst.source, inst.name))


def test_without_options_the_kernel_is_as_before():
    @kdsl.kernel
    def plain(x: Pointer[Float32]):
        x[thread_idx.x] = x[0]

    src = plain.dispatch().source
    assert '\nextern "C" __global__ void plain(float* x) {' in src
    assert "__launch_bounds__" not in src and "maxrregcount" not in src
    assert plain.options.nvrtc_options() == ()


def test_maxrregcount_is_in_the_header_and_caps_the_registers():
    inst = K.capped_registers.dispatch()
    header = inst.source.split("// ---- kdsl prelude ----")[0]
    assert (
        "// Compile with --maxrregcount=24 (nvcc: -maxrregcount=24): the kernel's "
        "maxrregcount.\n" in header
    )
    options = K.capped_registers.options.nvrtc_options()
    assert options == ("--maxrregcount=24",)
    assert _registers(_ptxas_log(inst.source, inst.name, ())) > 24
    assert _registers(_ptxas_log(inst.source, inst.name, options)) <= 24


def test_with_launch_bounds_ptxas_derives_the_register_limit_from_them():
    """CUDA's rule, documented in docs/language.md: a kernel's
    __launch_bounds__ override --maxrregcount."""
    inst = K.bounded_scale.dispatch()
    log = _ptxas_log(inst.source, inst.name, K.bounded_scale.options.nvrtc_options())
    assert "Overriding global maxrregcount 32 with entry-specific value" in log


def _registers(log: str) -> int:
    return int(re.search(r"Used (\d+) registers", log).group(1))


def _ptxas_log(source, name, options) -> str:
    from cupy.cuda import nvrtc as cupy_nvrtc

    prog = cupy_nvrtc.createProgram(source, f"{name}.cu", [], [])
    try:
        cupy_nvrtc.compileProgram(
            prog,
            [
                "-arch=sm_90",
                f"-I{nvrtc.cuda_include_dir()}",
                *nvrtc.EXACT_OPTIONS,
                *options,
                "--ptxas-options=-v",
            ],
        )
        return cupy_nvrtc.getProgramLog(prog)
    finally:
        cupy_nvrtc.destroyProgram(prog)


def test_the_options_go_to_nvrtc_and_into_the_cubin_key(tmp_path, monkeypatch):
    monkeypatch.setenv("KDSL_CACHE_DIR", str(tmp_path))
    for c in (cache.SOURCES, cache.BINARIES):
        monkeypatch.setattr(c, "memory", {})
        monkeypatch.setattr(c, "writable", True)
    keys, compiled = [], []
    digest = cache.digest

    def recording_digest(*parts):
        keys.append(parts)
        return digest(*parts)

    def fake_compile(source, name, arch="sm_90", options=()):
        compiled.append(options)
        return b"\x7fELF fake"

    monkeypatch.setattr(cache, "digest", recording_digest)
    monkeypatch.setattr(nvrtc, "compile_to_cubin", fake_compile)
    kcompile.cubin_for(K.capped_registers.dispatch(), "sm_90")
    assert compiled == [("--maxrregcount=24",)]
    cubin_key = keys[-1]
    assert cubin_key[1] == "sm_90" and cubin_key[-1] == "--maxrregcount=24"


@pytest.mark.parametrize(
    "options",
    [
        dict(launch_bounds=0),
        dict(launch_bounds=2048),
        dict(launch_bounds=(256, 0)),
        dict(launch_bounds=(256, 2, 1)),
        dict(launch_bounds=(256.0,)),
        dict(launch_bounds=True),
        dict(launch_bounds=[256, 2]),
        dict(maxrregcount=0),
        dict(maxrregcount=256),
        dict(maxrregcount=32.0),
        dict(maxrregcount="32"),
    ],
)
def test_bad_options_are_refused_when_the_kernel_is_defined(options):
    with pytest.raises(kdsl.DSLError) as info:

        @kdsl.kernel(**options)
        def k(x: Pointer[Float32], n: Int32):
            x[0] = x[0]

    text = str(info.value)
    option = next(iter(options))
    assert info.value.code == "E473", text
    assert f"@kdsl.kernel({option}=...) of 'k'" in text
    assert repr(options[option]) in text


@pytest.mark.parametrize(
    "given,bounds",
    [(256, (256,)), ((1024,), (1024,)), ((128, 4), (128, 4))],
)
def test_launch_bounds_take_threads_or_threads_and_min_blocks(given, bounds):
    @kdsl.kernel(launch_bounds=given)
    def k(x: Pointer[Float32]):
        x[0] = x[0]

    assert k.options.launch_bounds == bounds
    assert k.options.max_threads == bounds[0]
    spelled = ", ".join(map(str, bounds))
    assert f"__launch_bounds__({spelled}) k(" in k.dispatch().source


@pytest.mark.parametrize(
    "kernel",
    [K.bounded_scale, K.bounded_copy, K.capped_registers],
    ids=lambda k: k.name,
)
def test_the_shared_kernels_compile(kernel):
    inst = kernel.dispatch()
    nvrtc.compile_to_cubin(
        inst.source, inst.name, options=kernel.options.nvrtc_options()
    )


def test_golden(golden):
    golden.check_kernel(K.bounded_scale, GOLDEN)
    assert {p.stem for p in GOLDEN.glob("*.cu")} == {"bounded_scale"}


def test_a_block_over_the_launch_bounds_is_refused():
    x = np.zeros(512, np.float32)
    K.bounded_copy.interpret[2, 256](x, x.copy(), 512)
    with pytest.raises(kdsl.LaunchError) as info:
        K.bounded_copy.interpret[1, (16, 32)](x, x.copy(), 512)
    assert info.value.code == "E472"
    assert (
        "block (16, 32) of 'bounded_copy' has 512 threads, more than its "
        "launch_bounds allow (256)"
    ) in str(info.value)


def test_launch_bounds_may_name_a_constexpr_each_instance_has_its_own():
    """``launch_bounds=("THREADS", 1)``: each instance's __launch_bounds__
    (and the launch's check) take its THREADS (a warp-specialised kernel
    whose configurations differ in block size: examples/attention_tma.py)."""

    @kdsl.kernel(launch_bounds=("THREADS", 1))
    def fill(x: Pointer[Float32], THREADS: Constexpr[int] = 256):
        x[thread_idx.x] = Float32(THREADS)

    assert fill.options.max_threads is None  # known per instance
    assert fill.options.bounds({"THREADS": 512}) == (512, 1)
    for threads in (256, 512):
        inst = fill.dispatch(THREADS=threads)
        head = f"__launch_bounds__({threads}, 1) fill__{threads}("
        assert head in inst.source
        assert re.search(rf"\.maxntid {threads}, 1, 1", ptx_of(inst.source, inst.name))
    x = np.zeros(512, np.float32)
    fill.interpret[1, 512](x, THREADS=512)
    assert (x == 512).all()
    with pytest.raises(kdsl.LaunchError) as info:  # the default: 256
        fill.interpret[1, 512](x)
    assert info.value.code == "E472"
    assert "launch_bounds allow (256)" in str(info.value)
    with pytest.raises(kdsl.DSLError) as info:
        fill.dispatch(THREADS=2048).source
    assert info.value.code == "E473"
    assert "takes threads from 1 to 1024, got THREADS = 2048" in str(info.value)


@pytest.mark.parametrize("bounds", [("BLOCKS", 1), ("F", 1), ("n",)])
def test_named_launch_bounds_must_be_a_constexpr_int_parameter(bounds):
    with pytest.raises(kdsl.DSLError) as info:

        @kdsl.kernel(launch_bounds=bounds)
        def k(x: Pointer[Float32], n: Int32, F: Constexpr[float] = 1.0):
            x[0] = x[0]

    assert info.value.code == "E473"
    assert "the name of a Constexpr[int] parameter (it has: none)" in str(info.value)


def test_capped_registers_change_nothing_in_the_results():
    x = np.random.default_rng(11).standard_normal(32 * 64).astype(np.float32)
    out = np.zeros(64, np.float32)
    K.capped_registers.interpret[1, 64](x, out)
    rows = x.reshape(64, 32)
    want = np.zeros(64, np.float32)
    for r in range(64):
        total = np.float32(0)
        for v in rows[r]:
            total = np.float32(total + v)
        s = np.float32(0)
        for v in rows[r]:
            s = np.float32(s + np.float32(v * total))
        want[r] = s
    np.testing.assert_array_equal(out, want)
