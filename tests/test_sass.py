"""Speed guards read from the SASS (tests/sass.py), no GPU needed."""

import kdsl
from examples_index import example_modules
from kdsl import Array, Constexpr, block_idx, thread_idx
from kdsl.transpile import ir
from kdsl.transpile.cuda.emit import Emitter
from kdsl.transpile.pipeline import _render
from sass import sass_of, sass_of_source

D = kdsl.TypeVar("D", bound=kdsl.Float)


def test_float32x4_add_uses_128_bit_global_accesses_and_no_spills():
    inst = example_modules()["vector_add"].vector_add_x4.dispatch("f32")
    sass = sass_of(inst)
    assert sass.count(r"^LDG\.E\.128") == 2
    assert sass.count(r"^STG\.E\.128") == 1
    assert sass.count(r"^LDG\.E(\.CONSTANT)?\s") == 0  # no 32-bit loads
    assert sass.spills == 0


@kdsl.kernel
def stencil5(u: Array[D, 2], out: Array[D, 2], BLOCK: Constexpr[int] = 16):
    i = block_idx.y * BLOCK + thread_idx.y + 1
    j = block_idx.x * BLOCK + thread_idx.x + 1
    if i < u.shape[0] - 1 and j < u.shape[1] - 1:
        out[i, j] = u[i, j] * D(0.5) + D(0.125) * (
            u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]
        )


def test_array_elements_through_kdsl_offset_compile_as_the_spelled_out_sum(
    monkeypatch,
):
    """``u[kdsl::offset(i, u_stride0, j, u_stride1)]`` and the sum of products
    it stands for (``kdsl::add(kdsl::mul(int64_t(i), u_stride0), ...)``)
    give the same SASS: as many instructions, of the same kinds, no spills."""
    inst = stencil5.dispatch("f32")
    source = inst.source
    assert source.count("kdsl::offset(") == 6 and "kdsl::mul(int64_t(" not in source
    spell_out = lambda self, e: self.expr(e.flat)  # noqa: E731
    monkeypatch.setitem(Emitter.EXPR, ir.ArrayOffset, spell_out)
    c = inst.compilation
    spelled = _render(c, c.lowered, line_directives=False)
    assert "kdsl::offset(" not in spelled.split("end of kdsl prelude")[1]
    after, before = sass_of(inst), sass_of_source(spelled, inst.name)
    assert len(after.instructions) == len(before.instructions)
    opcodes = sorted(ins.split()[0] for ins in after.instructions)
    assert opcodes == sorted(ins.split()[0] for ins in before.instructions)
    assert after.spills == before.spills == 0


def test_stencil_lines_fit_in_100_columns():
    source = stencil5.dispatch("f32").source
    lines = source[source.index('extern "C"') :].splitlines()
    assert max(len(line) for line in lines if not line.lstrip().startswith("//")) <= 100
