"""Shared test configuration: the GPU marker and golden-file refresh flag."""

import functools

import pytest


@functools.lru_cache(maxsize=None)
def gpu_available() -> bool:
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def pytest_collection_modifyitems(config, items):
    if gpu_available():
        return
    skip = pytest.mark.skip(reason="needs an NVIDIA GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def pytest_addoption(parser):
    parser.addoption(
        "--fuzz-examples",
        type=int,
        default=None,
        help="valid random kernels the fuzz tests run (and a quarter as many "
        "invalid ones; any N also checks all of the GPU fuzzer's kernels on the "
        "CPU); default: a short run; the long run is -m fuzz --fuzz-examples=20000",
    )
