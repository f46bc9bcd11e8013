"""Shared test configuration: the GPU marker and golden-file refresh flag."""

import functools
import importlib.util
import sys

import pytest


def _no_pytorch_from_tests_torch() -> None:
    """Without PyTorch installed, ``import torch`` in a test that puts tests/
    on sys.path (to import shared kernel modules) found tests/torch, the
    folder of kdsl.torch's tests, as a namespace package, and
    ``pytest.importorskip("torch")`` returned it instead of skipping."""
    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin in (None, "namespace"):
        sys.modules["torch"] = None  # import torch: ImportError, a skip


_no_pytorch_from_tests_torch()


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
        help="random kernels (valid and invalid) the fuzz tests try, each "
        "(default: a short run; the long run is -m fuzz --fuzz-examples=20000)",
    )
