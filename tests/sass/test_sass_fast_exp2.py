"""``kdsl.math.fast_exp2_ftz`` is ``MUFU.EX2`` alone, where ``fast_exp2``
(subnormals kept) tests its argument against -126 and scales around the
instruction: the reason attention's softmax asks for the flush
(docs/types.md, "Fast intrinsics")."""

import kdsl
from kdsl import Float32, Pointer, thread_idx
from sass import sass_of


@kdsl.kernel
def exp2_kept(x: Pointer[Float32]):
    x[thread_idx.x] = kdsl.math.fast_exp2(x[thread_idx.x])


@kdsl.kernel
def exp2_flushed(x: Pointer[Float32]):
    x[thread_idx.x] = kdsl.math.fast_exp2_ftz(x[thread_idx.x])


def test_the_flush_leaves_the_one_instruction():
    kept = sass_of(exp2_kept.dispatch())
    flushed = sass_of(exp2_flushed.dispatch())
    assert kept.count(r"^MUFU\.EX2") == flushed.count(r"^MUFU\.EX2") == 1
    assert kept.count(r"^FSETP") == 1 and kept.count(r"FMUL") == 2
    assert flushed.count(r"^FSETP|FMUL") == 0
