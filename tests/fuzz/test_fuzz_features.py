"""Issue 23: random kernels mixing today's features (tests/fuzz/feature_gen.py:
device functions with pointers and tuples, vectors and lane stores, bit
intrinsics, warp collectives, dynamic shared memory, constant tables,
Int128, narrow floats, pointer arithmetic and Array rows, structs,
``len()``/``kdsl.grid``), each transpiled, run in the interpreter (two blocks
of a warp) and compared bit for bit with its oracles: folding for the
expressions, the bit and warp generators' models, plain Python for memory.
Every COMPILE_EVERY-th kernel is compiled for sm_90 through the runtime's
own path (``kdsl.runtime.compile.cubin_for``, NVRTC, no GPU).

The default run is short (FEATURE_KERNELS kernels and a sample of the GPU
fuzzer's, tests/gpu/test_fuzz_features_gpu.py); ``--fuzz-examples=N`` runs
N kernels and all of the GPU fuzzer's.  Rerun one seed with
``pytest 'tests/fuzz/test_fuzz_features.py::test_feature_kernel[SEED]'``."""

import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import feature_gen  # noqa: E402
import gen  # noqa: E402

pytestmark = pytest.mark.fuzz
FEATURE_KERNELS = 30  # kernels in the default run
GPU_SAMPLE = 200  # every 200th of the GPU fuzzer's kernels (8)
COMPILE_EVERY = 10


def pytest_generate_tests(metafunc):
    n = metafunc.config.getoption("--fuzz-examples")
    if "feature_seed" in metafunc.fixturenames:
        metafunc.parametrize("feature_seed", range(FEATURE_KERNELS if n is None else n))
    if "feature_gpu_seed" in metafunc.fixturenames:
        seeds = feature_gen.FEATURE_GPU_SEEDS
        metafunc.parametrize("feature_gpu_seed", seeds if n else seeds[::GPU_SAMPLE])


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """A disk cache of this module's own (the compile path writes to it)."""
    import os

    folder = tmp_path_factory.mktemp("feature_cache")
    before = os.environ.get("KDSL_CACHE_DIR")
    os.environ["KDSL_CACHE_DIR"] = str(folder)
    yield folder
    if before is None:
        os.environ.pop("KDSL_CACHE_DIR", None)
    else:
        os.environ["KDSL_CACHE_DIR"] = before


def _check(folder, seed, compile_it):
    from kdsl.runtime import compile as kcompile

    fk = feature_gen.feature_kernel(seed)
    path = folder / f"feature_{seed}.py"
    path.write_text(fk.source)
    module = gen.load_file(path)
    inst = module.k.dispatch()
    assert inst.source  # no exception at all: these kernels are valid
    if compile_it:
        assert kcompile.cubin_for(inst, "sm_90").startswith(b"\x7fELF")
    xu, xf, m, out = fk.inputs()
    module.k.interpret[feature_gen.GRID, feature_gen.BLOCK](
        xu, xf, m, out, **fk.launch_kwargs()
    )
    bad = fk.mismatches(out, fk.expected())
    assert not bad, fk.describe(bad)


def test_feature_kernel(cache, feature_seed):
    _check(cache, feature_seed, feature_seed % COMPILE_EVERY == 0)


def test_gpu_feature_fuzzer_kernel_on_the_cpu(cache, feature_gpu_seed):
    """The GPU feature fuzzer's kernels, so that a GPU failure is not the
    generator's; each compiled through the runtime's path, as the GPU test's
    workers do (feature_gen.prepare)."""
    _check(cache, feature_gpu_seed, True)


def test_prepare_is_the_gpu_tests_worker(tmp_path, monkeypatch):
    """feature_gen.prepare (run in the GPU test's process pool) returns the
    interpreter's words, equal to the oracles, and leaves the cubin in the
    cache, where the launching process finds it without compiling."""
    from kdsl.runtime import compile as kcompile
    from kdsl.runtime import nvrtc

    monkeypatch.setenv("KDSL_CACHE_DIR", str(tmp_path / "cache"))
    seed = feature_gen.FEATURE_GPU_SEEDS[1]
    path = tmp_path / f"feature_{seed}.py"
    got_seed, out, err = feature_gen.prepare((seed, str(path), "sm_90"))
    assert (got_seed, err) == (seed, None)
    fk = feature_gen.feature_kernel(seed)
    assert not fk.mismatches(out, fk.expected())

    def no_compile(*args, **kwargs):
        raise AssertionError("compiled again")

    monkeypatch.setattr(nvrtc, "compile_to_cubin", no_compile)
    module = gen.load_file(path)
    assert kcompile.cubin_for(module.k.dispatch(), "sm_90").startswith(b"\x7fELF")


def test_the_feature_generator_mixes_every_feature():
    """Every piece kind, in kernels of several pieces, and the constructs
    the issue lists appear in the first 200 kernels."""
    kinds, text, mixed = Counter(), "", 0
    for seed in range(200):
        fk = feature_gen.feature_kernel(seed)
        kinds.update(p.kind for p in fk.pieces)
        mixed += len({p.kind for p in fk.pieces}) >= 3
        text += fk.source
    assert set(kinds) == set(feature_gen.PIECES)
    assert mixed > 150
    for construct in [
        "@kdsl.func",
        "@kdsl.struct",
        "-> Uint32:",
        ", t)",  # a call returning a tuple
        ".vec(4)[t]",
        "[t][",  # a lane store through memory
        "kdsl.dynamic_shared_array(",
        "kdsl.syncthreads()",
        "np.array(",
        "kdsl.Int128",
        "kdsl.Float8E5M2",
        "kdsl.Float8E4M3FN",
        "kdsl.BFloat16",
        "kdsl.Float16",
        "kdsl.shfl_",
        "kdsl.ballot(",
        "kdsl.popc(",
        "len(m)",
        "len(row)",
        "kdsl.grid(1)",
        "kdsl.gridsize(1)",
        "(out + ",
        "+= ",
    ]:
        assert construct in text, construct
