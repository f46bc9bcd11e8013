"""histogram: counts[b] += 1 for each x in [lo, hi), BINS equal bins."""

import kdsl
from kdsl import Constexpr, Float32, Int32, Pointer, block_idx, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel
def histogram(
    x: Pointer[D],
    counts: Pointer[Int32],
    n: Int32,
    lo: Float32,
    hi: Float32,
    BINS: Constexpr[int] = 64,
    BLOCK: Constexpr[int] = 256,
):
    i = block_idx.x * BLOCK + thread_idx.x
    if i < n:
        v = x[i].to(Float32)
        if v >= lo and v < hi:
            b = ((v - lo) / (hi - lo) * BINS).to(Int32)
            b = min(b, BINS - 1)
            kdsl.atomic_add(counts, b, 1)


if __name__ == "__main__":
    print(histogram.dispatch("f16").source)
