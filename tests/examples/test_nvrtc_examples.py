"""Every example instance compiles for sm_90 (sm_90a where it calls a Hopper
built-in such as wgmma) through CuPy's NVRTC (no GPU needed), by the
runtime's own path: its binary cache then holds them for the SASS tests of
the same instances (and for `kdsl-transpile --check`)."""

import pytest

from examples_index import example_instances
from kdsl.runtime.compile import cubin_for
from kdsl.runtime.nvrtc import compile_to_cubin

INSTANCES = example_instances()


@pytest.mark.parametrize("module,inst", INSTANCES, ids=[i.name for _, i in INSTANCES])
def test_example_compiles_for_sm90(module, inst):
    cubin = cubin_for(inst, "sm_90")
    assert cubin[:4] == b"\x7fELF"


def test_threads_compile_side_by_side():
    """NVRTC loads its builtins library per compile unless kdsl holds it:
    compiles started together would then fail to open it (the autotuner
    compiles its configurations in a thread pool)."""
    from concurrent.futures import ThreadPoolExecutor

    from kdsl.runtime import nvrtc

    insts = [inst for _, inst in INSTANCES[:16]]
    with ThreadPoolExecutor(8) as pool:
        cubins = list(
            pool.map(
                lambda i: compile_to_cubin(i.source, i.name, i.lowered.arch or "sm_90"),
                insts,
            )
        )
    assert all(c[:4] == b"\x7fELF" for c in cubins)
    assert nvrtc._builtins_held()  # in parallel, not one at a time
