"""SPEC section 2's promise: run-time results equal kdsl's own folding, bit for
bit (any NaN equals any NaN), for every operator, every type and every .to()
pair on edge values."""

import pytest

pytestmark = pytest.mark.gpu
pytest.importorskip("cupy")


def test_gpu_results_equal_static_folding():
    import semantics_cases as sc

    from kdsl.runtime.nvrtc import cuda_include_dir

    cases = sc.all_cases()
    mismatches = sc.run(cases, cuda_include_dir())
    shown = [
        f"{c}: {args!r} want {want!r} got {got}"
        for c, args, want, got in mismatches[:20]
    ]
    assert not mismatches, f"{len(mismatches)} mismatches:\n" + "\n".join(shown)
