"""What the generated code compiles to (PTX through NVRTC, no GPU needed)."""

import re
import sys
from pathlib import Path

from cupy.cuda import nvrtc as _nvrtc

from kdsl.runtime.nvrtc import EXACT_OPTIONS, cuda_include_dir

sys.path.insert(0, str(Path(__file__).parent))
from examples_index import example_modules  # noqa: E402


def ptx_of(source, name):
    prog = _nvrtc.createProgram(source, f"{name}.cu", [], [])
    _nvrtc.compileProgram(
        prog, ["-arch=compute_90", f"-I{cuda_include_dir()}", *EXACT_OPTIONS]
    )
    ptx = _nvrtc.getPTX(prog)
    return ptx.decode() if isinstance(ptx, bytes) else ptx


def test_float32x4_access_is_one_128_bit_instruction():
    inst = example_modules()["vector_add"].vector_add_x4.dispatch("f32")
    ptx = ptx_of(inst.source, inst.name)
    assert len(re.findall(r"ld\.global(\.nc)?\.v4\.f32", ptx)) == 2
    assert len(re.findall(r"st\.global\.v4\.f32", ptx)) == 1
    assert not re.search(r"ld\.global(\.nc)?\.f32", ptx)  # no scalar loads


def test_no_contracted_multiply_add_in_saxpy():
    inst = example_modules()["saxpy"].saxpy.dispatch("f32")
    ptx = ptx_of(inst.source, inst.name)
    assert "fma.rn.f32" not in ptx
    assert re.search(r"mul(\.rn)?\.f32", ptx) and re.search(r"add(\.rn)?\.f32", ptx)
