"""CPU interpreter throughput (no GPU needed; results go to RESULTS.md).

    python benchmarks/interpret_bench.py [--n N] [--repeat R]

1. saxpy (Float32) on N elements (default 1M), one Float32x4 per thread,
   256-thread blocks;
2. reduce_sum (Float32) on N elements: 256-thread blocks, one Float32x4 a
   thread, warp shuffles and shared memory with syncthreads, then the last
   block adds the blocks' partial sums (examples/reduce_sum.py).

Prints the best of R runs as elements per second, after checking the result.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

import reduce_sum  # noqa: E402
import saxpy  # noqa: E402


def _best(run, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1 << 20)
    parser.add_argument("--repeat", type=int, default=3)
    opts = parser.parse_args()
    n, block = opts.n, 256
    grid = (n + block - 1) // block
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n).astype(np.float32)
    y0 = rng.standard_normal(n).astype(np.float32)

    saxpy.saxpy.interpret[grid, block](np.float32(2), x, y0.copy(), n)  # warm up
    y = y0.copy()
    saxpy.saxpy.interpret[grid, block](np.float32(2), x, y, n)
    np.testing.assert_array_equal(y, np.float32(2) * x + y0)
    t_saxpy = _best(
        lambda: saxpy.saxpy.interpret[grid, block](np.float32(2), x, y0.copy(), n),
        opts.repeat,
    )

    blocks = (n + 4 * block - 1) // (4 * block)
    partials = np.zeros(blocks, np.float32)
    arrived = np.zeros(1, np.uint32)

    def reduce():
        out = np.zeros(1, np.float32)
        reduce_sum.reduce_sum.interpret[blocks, block](x, out, partials, arrived, n)
        return out

    np.testing.assert_allclose(reduce()[0], x.astype(np.float64).sum(), atol=1e-2)
    t_reduce = _best(reduce, opts.repeat)

    print(
        f"machine: {platform.processor() or platform.machine()}, numpy {np.__version__}"
    )
    print(
        f"saxpy      n={n}: {t_saxpy * 1e3:8.1f} ms  {n / t_saxpy / 1e6:6.1f} M elements/s"
    )
    print(
        f"reduce_sum n={n}: {t_reduce * 1e3:8.1f} ms  {n / t_reduce / 1e6:6.1f} M elements/s"
    )


if __name__ == "__main__":
    main()
