"""The disk caches (no GPU needed: NVRTC compiles on the CPU)."""

import os
import sys
from pathlib import Path

import pytest

from kdsl.runtime import cache, compile as kcompile, nvrtc

sys.path.insert(0, str(Path(__file__).parents[1]))
from examples_index import example_modules  # noqa: E402


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KDSL_CACHE_DIR", str(tmp_path))
    for c in (cache.SOURCES, cache.BINARIES):
        monkeypatch.setattr(c, "memory", {})
        monkeypatch.setattr(c, "writable", True)
    return tmp_path


def _new_instance():
    """The same instance as a new process would build it (nothing in memory)."""
    from kdsl.runtime.kernel import KernelInstance

    inst = example_modules()["saxpy"].saxpy.dispatch("f32")
    return KernelInstance(inst.kernel, inst.name, inst.dtypes, inst.constexprs)


def _forget_memory():
    cache.SOURCES.memory.clear()
    cache.BINARIES.memory.clear()


def test_warm_cache_neither_transpiles_nor_compiles(fresh_cache, monkeypatch):
    first = kcompile.cubin_for(_new_instance(), "sm_90")
    assert list(fresh_cache.glob("source/*.cu")) and list(
        fresh_cache.glob("cubin/*.cubin")
    )
    _forget_memory()

    def forbidden(*args, **kwargs):
        raise AssertionError("a warm cache must not transpile or compile")

    monkeypatch.setattr(nvrtc, "compile_to_cubin", forbidden)
    monkeypatch.setattr("kdsl.transpile.pipeline.Compilation.source", forbidden)
    assert kcompile.cubin_for(_new_instance(), "sm_90") == first


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty"])
def test_corrupt_entries_are_detected_and_rebuilt(fresh_cache, damage):
    first = kcompile.cubin_for(_new_instance(), "sm_90")
    for path in list(fresh_cache.glob("*/*")):
        data = path.read_bytes()
        if damage == "truncate":
            path.write_bytes(data[: len(data) // 2])
        elif damage == "flip":
            path.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
        else:
            path.write_bytes(b"")
    _forget_memory()
    assert kcompile.cubin_for(_new_instance(), "sm_90") == first
    for path in fresh_cache.glob("*/*"):  # rewritten whole
        assert cache._unwrap(path.read_bytes()) is not None


def test_unwritable_cache_dir_falls_back_to_memory(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("KDSL_CACHE_DIR", str(blocker / "cache"))
    for c in (cache.SOURCES, cache.BINARIES):
        monkeypatch.setattr(c, "memory", {})
        monkeypatch.setattr(c, "writable", True)
    cubin = kcompile.cubin_for(_new_instance(), "sm_90")
    assert cubin[:4] == b"\x7fELF"
    assert not cache.BINARIES.writable and cache.BINARIES.memory


def test_editing_the_kernel_file_changes_the_key(fresh_cache, tmp_path):
    import importlib.util

    src = tmp_path / "k.py"
    body = (
        "import kdsl\nfrom kdsl import Pointer, Int32\n"
        "@kdsl.kernel(dtypes=[kdsl.Float32])\n"
        "def k(x: Pointer[kdsl.TypeVar('D', bound=kdsl.Float)], n: Int32):\n"
        "    x[0] = x[0] + {}\n"
    )

    def load(value):
        src.write_text(body.format(value))
        spec = importlib.util.spec_from_file_location("k", src)
        m = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(m)
        return m.k.dispatch("f32")

    a = kcompile.transpiled(load("1.0")).source
    b = kcompile.transpiled(load("2.0")).source
    assert "1.0f" in a and "2.0f" in b


def test_nvrtc_errors_name_the_generated_and_python_lines():
    source = '// x[i] = y\nextern "C" __global__ void k() { undefined_name; }\n'
    with pytest.raises(nvrtc.NVRTCError) as info:
        nvrtc.compile_to_cubin(source, "k")
    text = str(info.value)
    assert "undefined_name" in text and "from Python: x[i] = y" in text


@pytest.mark.parametrize(
    "payload",
    [
        b"not json",
        b"[]",
        b'{"source": "x"}',
        b'{"source": 1, "alignment": {}}',
        b"[" * 100_000 + b"]" * 100_000,  # json.loads: RecursionError
        b'{"source": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    ],
    ids=["text", "list", "fields", "types", "deep", "deep-field"],
)
def test_an_entry_with_a_valid_checksum_but_malformed_content_is_rebuilt(
    fresh_cache, payload
):
    first = kcompile.transpiled(_new_instance()).source
    (entry,) = fresh_cache.glob("source/*.cu")
    entry.write_bytes(cache._wrap(payload))  # the checksum matches the bad payload
    _forget_memory()
    assert kcompile.transpiled(_new_instance()).source == first
    # rewritten, so that the next process reads a good entry
    assert cache._unwrap(entry.read_bytes()) != payload
    _forget_memory()
    assert kcompile.transpiled(_new_instance()).source == first


def test_a_malformed_binary_entry_is_rebuilt(fresh_cache):
    first = kcompile.cubin_for(_new_instance(), "sm_90")
    (entry,) = fresh_cache.glob("cubin/*.cubin")
    entry.write_bytes(cache._wrap(b"not an ELF image"))
    _forget_memory()
    assert kcompile.cubin_for(_new_instance(), "sm_90") == first
    assert cache._unwrap(entry.read_bytes()) == first


def _nan_module(tmp_path, name: str, bits: int):
    """A kernel reading a module constant that is a NaN computed at import
    (the file's bytes are the same whatever the payload)."""
    import importlib.util

    src = tmp_path / f"{name}.py"
    src.write_text(
        "import os, struct\nimport kdsl\nfrom kdsl import Pointer, Float32\n"
        "C = struct.unpack('<d', struct.pack('<Q', int(os.environ['KDSL_T_NAN'], 16)))[0]\n"
        "@kdsl.kernel\n"
        "def k(x: Pointer[Float32]):\n"
        "    x[0] = Float32(C)\n"
    )
    os.environ["KDSL_T_NAN"] = hex(bits)
    try:
        spec = importlib.util.spec_from_file_location(name, src)
        m = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(m)
    finally:
        del os.environ["KDSL_T_NAN"]
    return m.k.dispatch()


def test_the_key_holds_the_bits_of_a_nan_constant(fresh_cache, tmp_path):
    quiet = 0x7FF8000000000000
    a = kcompile.transpiled(_nan_module(tmp_path, "nan_a", quiet | 1 << 40)).source
    _forget_memory()
    b = kcompile.transpiled(_nan_module(tmp_path, "nan_a", quiet | 1 << 41)).source
    assert "__int_as_float(0x7fc00800)" in a
    assert "__int_as_float(0x7fc01000)" in b
    # a negative zero and a NaN's sign are bits too
    _forget_memory()
    c = kcompile.transpiled(_nan_module(tmp_path, "nan_a", 1 << 63 | quiet)).source
    assert "__int_as_float(0xffc00000)" in c


def test_nan_constexprs_with_other_payloads_are_other_instances(tmp_path):
    """A constexpr NaN's payload reaches the source: two payloads are two
    instances (names, in-memory and disk cache keys); the usual NaN keeps
    the name ``nan``."""
    import importlib.util
    import struct

    src = tmp_path / "nan_constexpr.py"
    src.write_text(
        "import kdsl\nfrom kdsl import Pointer, Float32, Constexpr\n"
        "@kdsl.kernel\n"
        "def k(x: Pointer[Float32], c: Constexpr[float]):\n"
        "    x[0] = Float32(c)\n"
    )
    spec = importlib.util.spec_from_file_location("nan_constexpr", src)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)

    def nan(bits):
        return struct.unpack("<d", struct.pack("<Q", bits))[0]

    quiet = 0x7FF8000000000000
    a, b = m.k.dispatch(c=nan(quiet | 1 << 40)), m.k.dispatch(c=nan(quiet | 1 << 41))
    assert a is not b and a.name != b.name
    assert "__int_as_float(0x7fc00800)" in a.transpiled.source
    assert "__int_as_float(0x7fc01000)" in b.transpiled.source
    assert m.k.dispatch(c=float("nan")).name == "k__nan"
    assert a.name == "k__nan7ff8010000000000"
    assert m.k.dispatch(c=-float("nan")).name == "k__nanfff8000000000000"


@pytest.mark.parametrize(
    "constant, read",
    [
        # a numpy float32 NaN
        ("np.array([BITS], np.uint32).view(np.float32)[0]", "C.bitcast(Uint32)"),
        ("kdsl.Uint32(BITS).bitcast(kdsl.Float32)", "C.bitcast(Uint32)"),  # kdsl's
        (
            "np.array([BITS & 0xFFFF], np.uint16).view(np.float16)[0]",
            "C.bitcast(kdsl.Uint16).to(Uint32)",
        ),
        (
            "(np.array([BITS], np.uint32).view(np.float32)[0],)",  # in a tuple
            "Float32(C[0]).bitcast(Uint32)",
        ),
        ("np.uint32(BITS)", "C"),  # a numpy integer
    ],
)
def test_the_key_holds_the_bits_of_a_numpy_or_kdsl_scalar_constant(
    fresh_cache, tmp_path, constant, read
):
    """Issue 23 item 10: a module constant whose value changes in a NaN
    payload only (the file's bytes the same) is another source and binary."""
    import importlib.util

    src = tmp_path / "nan_scalar.py"
    src.write_text(
        "import os\nimport numpy as np\nimport kdsl\n"
        "from kdsl import Float32, Pointer, Uint32\n"
        "BITS = int(os.environ['KDSL_T_BITS'], 16)\n"
        f"C = {constant}\n"
        "@kdsl.kernel\n"
        "def k(x: Pointer[Uint32]):\n"
        f"    x[0] = {read}\n"
    )
    sources = []
    for bits in (0x7E01, 0x7E02) if "float16" in constant else (0x7FC00001, 0x7FC00002):
        os.environ["KDSL_T_BITS"] = hex(bits)
        try:
            spec = importlib.util.spec_from_file_location("nan_scalar", src)
            m = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(m)
        finally:
            del os.environ["KDSL_T_BITS"]
        _forget_memory()
        sources.append(kcompile.transpiled(m.k.dispatch()).source)
        assert f"{bits}u;" in sources[-1] or f"{bits:#x}" in sources[-1].lower()
    assert sources[0] != sources[1]
