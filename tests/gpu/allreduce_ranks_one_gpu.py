"""examples/allreduce.py's kernels on one GPU, ``world`` buffers standing in
for ``world`` ranks: each rank's kernel launched on its own CUDA stream, all
of them running at once (their barriers wait for each other), the peer
tables holding the addresses of buffers on the same device.  What a
multi-GPU run checks but NVLink: the barrier's system-scope signals and
fences between kernels that run concurrently, and the sums.

    python tests/gpu/allreduce_ranks_one_gpu.py [--worlds 2,4,8] [--calls 3]

Prints one line a case and ``ranks on one GPU: all equal`` at the end when
every rank's result is the rank-order sum bit for bit (Float32; BFloat16
summed in Float32, rounded once) at every call; exits 1 otherwise.  A
barrier whose ranks never all arrive spins for ever: run it under a
timeout (tests/gpu/test_allreduce_ranks_one_gpu.py does)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
import allreduce as AR  # noqa: E402

DTYPES = {  # name: (numpy's, PyTorch's; the integer of its size, for its bits)
    "f32": (np.float32, torch.float32, np.int32, torch.int32),
    "bf16": (ml_dtypes.bfloat16, torch.bfloat16, np.int16, torch.int16),
}


def run_case(kernel, dtypes, world, n, grid, calls, seed) -> list:
    """The mismatches (``(call, rank, first index)``) of ``calls`` all-reduces
    of ``world`` ranks on one GPU, each rank's kernel on its own stream."""
    dtype, tdtype, bits, tbits = dtypes
    rng = np.random.default_rng(seed)
    xs = [rng.standard_normal(n).astype(np.float32).astype(dtype) for _ in range(world)]
    want = AR.rank_order_sum(xs, dtype).view(bits)
    inputs = [torch.from_numpy(x.astype(np.float32)).to("cuda", tdtype) for x in xs]
    bufs = [torch.empty(n, dtype=tdtype, device="cuda") for _ in range(world)]
    pads = [
        torch.zeros(AR.PAD_WORDS, dtype=torch.uint32, device="cuda")
        for _ in range(world)
    ]
    buf_table = AR.address_table(bufs, torch).cuda()
    pad_table = AR.address_table(pads, torch).cuda()
    streams = [torch.cuda.Stream() for _ in range(world)]
    bad = []
    for call in range(calls):
        outs = [torch.full((n,), float("nan"), dtype=tdtype, device="cuda")]
        outs += [torch.full_like(outs[0], float("nan")) for _ in range(world - 1)]
        for r in range(world):
            bufs[r].copy_(inputs[r])
        torch.cuda.synchronize()  # inputs in place before any rank runs
        for r in range(world):
            AR.launch_all_reduce(
                kernel,
                (lambda s: lambda k, g, b: lambda *a: k[g, b](*a, stream=s))(
                    streams[r]
                ),
                buf_table, bufs[r], pad_table, pads[r], outs[r], r, world, grid,
            )  # fmt: skip
        torch.cuda.synchronize()
        for r in range(world):
            got = outs[r].view(tbits).cpu().numpy()
            wrong = np.flatnonzero(got != want)
            if wrong.size:
                bad.append((call, r, int(wrong[0])))
    return bad


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--worlds", default="2,4,8")
    parser.add_argument("--calls", type=int, default=3)
    args = parser.parse_args(argv)
    failed = 0
    for world in (int(w) for w in args.worlds.split(",")):
        # blocks of every rank resident at once: world * grid <= 64 blocks
        for n, grid in ((1000 * world + 7, 4), (1 << 20, 8)):
            for kernel in (AR.all_reduce_one_shot, AR.all_reduce_two_shot):
                for name, dtypes in DTYPES.items():
                    bad = run_case(kernel, dtypes, world, n, grid, args.calls, world)
                    failed += bool(bad)
                    print(
                        f"{kernel.name} {name} world={world} n={n} grid={grid}: "
                        + ("equal" if not bad else f"DIFFERS at {bad[:4]}"),
                        flush=True,
                    )
    print("ranks on one GPU: " + ("all equal" if not failed else f"{failed} differ"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
