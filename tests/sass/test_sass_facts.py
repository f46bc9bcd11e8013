"""Facts about values, read from the SASS (tests/sass.py, no GPU needed):
llm.c's attention permute as a grid-stride loop with ``kdsl.assume`` on its
sizes keeps none of kdsl's wrapping helpers for ``//``, ``%`` and the loop
test, and its loop has none of their branches."""

import facts_kernels as fk
from sass import sass_of

CONDITIONAL_BRANCH = r"^@!?U?P\d+ BRA\b"


def test_permute_with_facts_has_no_floordiv_mod_or_in_range_in_its_source():
    src = fk.permute.dispatch().source
    kernel = src[src.index('extern "C"') :]
    for helper in ("kdsl::floordiv(", "kdsl::mod(", "kdsl::in_range("):
        assert helper not in kernel


def test_permute_with_facts_branches_only_to_loop():
    stated = sass_of(fk.permute.dispatch())
    unstated = sass_of(fk.permute_unstated.dispatch())
    # ptxas unrolls the plain loop 4 times (its trip count is known): a
    # branch into the remainder loop and one back-edge for each loop; the
    # helpers' sign tests branch inside every division without the facts
    assert stated.count(CONDITIONAL_BRANCH) <= 3
    assert unstated.count(CONDITIONAL_BRANCH) >= 5 * stated.count(CONDITIONAL_BRANCH)
    assert stated.spills == 0


def test_a_grid_stride_loop_with_a_positive_step_tests_one_bound():
    stated = sass_of(fk.rows.dispatch())
    unstated = sass_of(fk.rows_unstated.dispatch())
    assert stated.count(CONDITIONAL_BRANCH) <= 3
    assert unstated.count(CONDITIONAL_BRANCH) > stated.count(CONDITIONAL_BRANCH)
