"""What the generated code compiles to (PTX through NVRTC, no GPU needed)."""

import re
import sys
from pathlib import Path

from cupy.cuda import nvrtc as _nvrtc

import kdsl
from kdsl import Float32, Pointer, thread_idx
from kdsl.runtime.nvrtc import EXACT_OPTIONS, cuda_include_dir

sys.path.insert(0, str(Path(__file__).parents[1]))
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


def _opcodes(ptx) -> list:
    """The instructions of a PTX function body, without operands, sorted."""
    body = ptx[ptx.index("{", ptx.index(".entry")) :]
    ops = re.findall(r"^\s+([a-z][\w.]*)\s", body, re.M)
    return sorted(op for op in ops if not op.startswith(".") and op != "ret")


HAND_TANH = """
extern "C" __global__ void hand(const float4* x, float4* out) {
    int i = threadIdx.x;
    float4 v = x[i];
    out[i] = make_float4(tanhf(v.x), tanhf(v.y), tanhf(v.z), tanhf(v.w));
}
"""


@kdsl.kernel
def tanh_lanes(x: Pointer[Float32], out: Pointer[Float32]):
    i = thread_idx.x
    o = out.vec(4)
    o[i] = kdsl.math.tanh(x.vec(4)[i])


def test_lane_wise_math_compiles_as_hand_written_float4_code():
    inst = tanh_lanes.dispatch()
    ours = _opcodes(ptx_of(inst.source, inst.name))
    assert ours == _opcodes(ptx_of(HAND_TANH, "hand"))
    assert "ld.global.v4.f32" in ours and "st.global.v4.f32" in ours


@kdsl.kernel
def xyz(x: Pointer[Float32], out: Pointer[Float32]):
    o = out.vec(3)
    o[thread_idx.x] = x.vec(3)[thread_idx.x] * 2.0


def test_a_three_lane_vector_moves_as_three_scalar_accesses():
    inst = xyz.dispatch()
    ptx = ptx_of(inst.source, inst.name)
    assert len(re.findall(r"ld\.global(\.nc)?\.f32", ptx)) == 3
    assert len(re.findall(r"st\.global\.f32", ptx)) == 3
    assert not re.search(r"\.v[24]\.", ptx)
