"""Speed guards read from the SASS (tests/sass.py), no GPU needed."""

from examples_index import example_modules
from sass import sass_of


def test_float32x4_add_uses_128_bit_global_accesses_and_no_spills():
    inst = example_modules()["vector_add"].vector_add_x4.dispatch("f32")
    sass = sass_of(inst)
    assert sass.count(r"^LDG\.E\.128") == 2
    assert sass.count(r"^STG\.E\.128") == 1
    assert sass.count(r"^LDG\.E(\.CONSTANT)?\s") == 0  # no 32-bit loads
    assert sass.spills == 0
