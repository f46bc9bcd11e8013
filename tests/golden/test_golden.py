"""Every instance of every example, byte for byte against tests/golden/.

Refresh with ``pytest --update-golden`` and review the diff like code.
"""

import pytest

from examples_index import ROOT, example_instances

INSTANCES = example_instances()


@pytest.mark.parametrize(
    "module,inst", INSTANCES, ids=[f"{m}/{i.name}" for m, i in INSTANCES]
)
def test_example_source_matches_golden(golden, module, inst):
    golden.check(inst, ROOT / "tests" / "golden" / module)


def test_no_stale_golden_files(request):
    expected = {f"{m}/{i.name}.cu" for m, i in INSTANCES}
    present = {
        f"{p.parent.name}/{p.name}" for p in (ROOT / "tests" / "golden").glob("*/*.cu")
    }
    if request.config.getoption("--update-golden"):
        for stale in present - expected:
            (ROOT / "tests" / "golden" / stale).unlink()
        return
    assert present == expected


def test_transpiling_twice_is_byte_identical():
    from kdsl.runtime.kernel import KernelInstance

    for _, inst in INSTANCES[:5]:
        again = KernelInstance(inst.kernel, inst.name, inst.dtypes, inst.constexprs)
        assert again.source == inst.source
