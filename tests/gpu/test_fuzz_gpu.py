"""The fuzzer on the GPU (issue 16): 2,000 random cases (tests/fuzz/gen.py),
200 a kernel, so ten NVRTC compiles and ten launches; the GPU gives the
interpreter's bits and folding's exactly, except that a NaN result may be
another NaN (the GPU's canonical one, 0x7FFFFFFF for Float32: docs/types.md,
"NaN payloads").  An H200 run on 2026-12-01 found no other difference."""

import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = [pytest.mark.gpu, pytest.mark.fuzz]
cp = pytest.importorskip("cupy")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fuzz"))
import gen  # noqa: E402

KERNELS, PER_KERNEL = 10, 200  # 2,000 cases


@pytest.mark.parametrize("seed", range(KERNELS))
def test_random_kernels_agree_on_the_gpu(tmp_path, seed):
    batch = gen.cases(7000 + seed, PER_KERNEL)
    module, _ = gen.load(tmp_path, gen.kernel_source(batch))
    xi, xf, out = gen.inputs(batch)
    module.k.interpret[1, 1](xi, xf, out, 1)
    dev = [cp.asarray(a) for a in (xi, xf, np.zeros_like(out))]
    module.k[1, 1](*dev, 1)
    got = cp.asnumpy(dev[2])
    differ = [
        k
        for k, c in enumerate(batch)
        if got[k] != out[k]
        and not (
            c.nan and gen.nan_bits(got[k], c.result) and gen.nan_bits(out[k], c.result)
        )
    ]
    assert not differ, "\n".join(
        f"case {k}: {batch[k]}: GPU {int(got[k]):#x}, interpreter {int(out[k]):#x}"
        for k in differ[:20]
    )
    bad = gen.mismatches(batch, got)
    assert not bad, "\n".join(
        f"case {k}: {c}: GPU {g:#x}, folding {c.bits:#x}" for k, c, g in bad[:20]
    )
