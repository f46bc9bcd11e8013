"""runtime/native.py: kdsl's compiled replay is built once per host with
its C compiler into the cache folder, loaded from there after, rebuilt when
the file there is broken, and left out (``module()`` None, ``why()`` saying
why) without a compiler or with ``KDSL_NATIVE=0``.  What it does is tested
in tests/pytorch/test_driver_launch.py."""

import shutil
import sysconfig

import pytest

from kdsl.runtime import native

needs_cc = pytest.mark.skipif(
    shutil.which(native.compiler()[0]) is None, reason="no C compiler"
)


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """An empty cache folder, and the module not loaded yet."""
    monkeypatch.setenv("KDSL_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("KDSL_NATIVE", raising=False)
    monkeypatch.setattr(native, "_state", {})
    return tmp_path


def built(folder) -> list:
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    return sorted((folder / "native").glob(f"kdsl_native-*{suffix}"))


@needs_cc
def test_it_is_built_once_then_loaded_from_the_cache(fresh, monkeypatch):
    module = native.module()
    assert module is not None and native.why() is None
    assert hasattr(module, "Replay") and hasattr(module, "call")
    (path,) = built(fresh)
    stamp = path.stat().st_mtime_ns
    monkeypatch.setattr(native, "_state", {})
    monkeypatch.setattr(native, "_build", lambda *a: pytest.fail("built again"))
    assert native.module() is not None
    assert path.stat().st_mtime_ns == stamp


@needs_cc
def test_a_broken_file_in_the_cache_is_built_again(fresh):
    path = native.target()[2]  # (one this process never loaded)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a shared object")
    assert native.module() is not None
    assert path.read_bytes()[:4] == b"\x7fELF"


def test_without_a_compiler_kdsl_replays_in_python(fresh, monkeypatch):
    monkeypatch.setenv("CC", "false")  # a "compiler" that fails
    assert native.module() is None
    assert "false" in native.why()
    assert built(fresh) == []  # nothing half-written left behind
    assert [p.name for p in (fresh / "native").iterdir()] == []


def test_kdsl_native_0_turns_it_off(fresh, monkeypatch):
    monkeypatch.setenv("KDSL_NATIVE", "0")
    assert native.module() is None and native.why() == "KDSL_NATIVE=0"
