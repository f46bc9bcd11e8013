"""Every example, every supported dtype, run by the CPU interpreter against a
float64 numpy reference: the same checks the GPU runs (example_checks), on
small sizes."""

import numpy as np
import pytest

import example_checks

CPU = example_checks.interpreter_backend()


@pytest.mark.parametrize("case", example_checks.cases(), ids=example_checks.case_id)
def test_example_interpreted(case):
    check, t = case
    check(CPU, t, np.random.default_rng(1234))


def test_every_example_kernel_is_checked():
    assert example_checks.every_example_is_checked() == set()
