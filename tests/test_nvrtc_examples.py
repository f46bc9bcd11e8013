"""Every example instance compiles for sm_90 through CuPy's NVRTC (no GPU needed)."""

import pytest

from examples_index import example_instances
from kdsl.runtime.nvrtc import compile_to_cubin

INSTANCES = example_instances()


@pytest.mark.parametrize("module,inst", INSTANCES, ids=[i.name for _, i in INSTANCES])
def test_example_compiles_for_sm90(module, inst):
    cubin = compile_to_cubin(inst.source, inst.name, arch="sm_90")
    assert cubin[:4] == b"\x7fELF"
