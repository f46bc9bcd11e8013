"""The feature fuzzer on the GPU (issue 23): 1,600 random kernels mixing
today's features (tests/fuzz/feature_gen.py, seeds
``feature_gen.FEATURE_GPU_SEEDS``: device functions with pointers and
tuples, vectors and lane stores, bit intrinsics, warp collectives, dynamic
shared memory, constant tables, Int128, narrow floats, pointer arithmetic
and Array rows, structs, ``len()``/``kdsl.grid``), each launched as two
blocks of a warp and compared with the interpreter bit for bit.  Every
output is a Uint32 word, NaN bits included: the kernels make NaNs only by
Float32/Float16/BFloat16 arithmetic and by conversions, whose encodings the
interpreter gives as the GPU does (docs/types.md, "NaN payloads"); no
Float64 NaN reaches an output.

As in tests/gpu/test_fuzz_gpu.py, a process pool first transpiles, compiles
and interprets every kernel (``feature_gen.prepare``), filling a disk cache
of its own (``KDSL_CACHE_DIR``); each test then loads the same file, whose
launch finds its source and cubin there, launches it once and compares.  A
failure names its seed; tests/fuzz/test_fuzz_features.py checks the same
kernels on the CPU against folding and the models."""

import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

pytestmark = [pytest.mark.gpu, pytest.mark.fuzz]
cp = pytest.importorskip("cupy")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fuzz"))
import feature_gen  # noqa: E402
import gen  # noqa: E402

WORKERS = max(1, min(12, (os.cpu_count() or 2) - 2))


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    """``(folder, {seed: (interpreted out, error)})`` for every seed."""
    from kdsl.runtime import compile as kcompile

    folder = tmp_path_factory.mktemp("fuzz_features_gpu")
    before = os.environ.get("KDSL_CACHE_DIR")
    os.environ["KDSL_CACHE_DIR"] = str(folder / "cache")
    try:
        arch = kcompile.device_arch(cp.cuda.Device().id)
        seeds = feature_gen.FEATURE_GPU_SEEDS
        jobs = [(seed, str(folder / f"feature_{seed}.py"), arch) for seed in seeds]
        start = time.perf_counter()
        # spawn, not fork: this process has a CUDA context
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(WORKERS, mp_context=context) as pool:
            results = {
                seed: (out, err)
                for seed, out, err in pool.map(feature_gen.prepare, jobs, chunksize=8)
            }
        print(
            f"\nfeature fuzz: {len(jobs)} kernels transpiled, compiled and "
            f"interpreted by {WORKERS} processes in {time.perf_counter() - start:.1f} s"
        )
        yield folder, results
    finally:
        if before is None:
            os.environ.pop("KDSL_CACHE_DIR", None)
        else:
            os.environ["KDSL_CACHE_DIR"] = before


@pytest.mark.parametrize("seed", feature_gen.FEATURE_GPU_SEEDS)
def test_feature_kernel_on_the_gpu(prepared, seed):
    folder, results = prepared
    interpreted, err = results[seed]
    assert err is None, f"seed {seed}: transpiling, compiling or interpreting:\n{err}"
    fk = feature_gen.feature_kernel(seed)
    module = gen.load_file(folder / f"feature_{seed}.py")
    dev = [cp.asarray(a) for a in fk.inputs()]
    module.k[feature_gen.GRID, feature_gen.BLOCK](*dev, **fk.launch_kwargs())
    got = cp.asnumpy(dev[3])
    differ = fk.mismatches(got, interpreted)
    assert not differ, fk.describe(differ, "GPU", "interpreter")
