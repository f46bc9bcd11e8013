"""Contraction in the SASS (issue 26, item 2), no GPU needed: the n-body
inner loop of ``tests/contract_kernels.py`` compiled as the runtime compiles
it (``--fmad=false``).  Exact, ptxas fuses nothing; with ``contract=True``
each copy of the loop body (ptxas unrolls it; one ``MUFU.RSQ`` a copy)
has the five FFMAs kdsl's rule wrote: two in ``dx*dx + dy*dy + dz*dz`` and
one per accumulation ``ax += dx * s``."""

import contract_kernels as K
from sass import sass_of


def test_the_exact_n_body_loop_has_no_ffma():
    sass = sass_of(K.nbody_exact.dispatch())
    assert sass.count(r"^MUFU\.RSQ") >= 1
    assert sass.count(r"^FFMA") == 0


def test_the_contracted_n_body_loop_has_five_ffma_a_body():
    exact = sass_of(K.nbody_exact.dispatch())
    sass = sass_of(K.nbody_contracted.dispatch())
    bodies = sass.count(r"^MUFU\.RSQ")
    assert bodies >= 1
    assert sass.count(r"^FFMA") == 5 * bodies
    # each fma replaces a multiply and an add
    assert sass.count(r"^FMUL") == exact.count(r"^FMUL") - 5 * bodies
    assert sass.count(r"^FADD") == exact.count(r"^FADD") - 5 * bodies
    assert sass.spills == 0
