"""All-reduce across GPUs: examples/allreduce.py's one-shot and two-shot
kernels against torch.distributed.all_reduce (NCCL), 4 KB .. 64 MB, Float32
and BFloat16, one process per GPU, started by PyTorch's launcher::

    torchrun --standalone --nproc-per-node=8 benchmarks/allreduce_bench.py
    torchrun --standalone --nproc-per-node=2 benchmarks/allreduce_bench.py --check-only

Every size is checked first on every rank: both kernels' results equal the
sum in rank order (every rank's input gathered, summed in Float32 in rank
order, rounded once), bit for bit, and NCCL's within a tolerance (NCCL sums
in another order); a mismatch exits with status 1.  Then each is timed with
CUDA events (the mean of --iters calls after --warmup; the kdsl calls
include copying the input into the symmetric buffer, as a user's would),
and rank 0 prints one table.

NVLink multicast stays off: NCCL_NVLS_ENABLE=0 and
TORCH_SYMM_MEM_DISABLE_MULTICAST=1 are set before PyTorch is imported.
"""

import os

os.environ["NCCL_NVLS_ENABLE"] = "0"  # no NVLink SHARP (multicast) in NCCL
os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"] = "1"  # nor in symmetric memory

import argparse  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.distributed._symmetric_memory as symm_mem  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
import allreduce as ar  # noqa: E402

from kdsl.distributed import peer_tables  # noqa: E402

SIZES = [4096 * 4**k for k in range(8)]  # 4 KB .. 64 MB
DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16}
NCCL_TOL = {"f32": 1e-5, "bf16": 2e-2}  # relative, of the largest |sum|


def rank_order_sum(x, world):
    """Every rank's ``x`` summed in rank order in Float32, rounded once."""
    parts = [torch.empty_like(x) for _ in range(world)]
    dist.all_gather(parts, x)
    total = parts[0].float()
    for p in parts[1:]:
        total = total + p.float()
    return total.to(x.dtype)


def check(x, tables, world, name):
    """Both kernels bit for bit against the rank-order sum; NCCL close."""
    want = rank_order_sum(x, world)
    for kernel in (ar.all_reduce_one_shot, ar.all_reduce_two_shot):
        got = ar.torch_all_reduce(x, tables, kernel)
        if not torch.equal(got.view(torch.int8), want.view(torch.int8)):
            bad = int((got != want).sum())
            raise SystemExit(f"{kernel.name} {name}: {bad} elements differ")
    nccl = x.clone()
    dist.all_reduce(nccl)
    scale = want.float().abs().max().clamp_min(1e-30)
    err = float((nccl.float() - want.float()).abs().max() / scale)
    if err > NCCL_TOL[name.split()[0]]:
        raise SystemExit(f"NCCL {name}: relative difference {err:.3g}")


def mean_us(fn, warmup, iters):
    for _ in range(warmup):
        fn()
    dist.barrier()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(True)
    start.record()
    for _ in range(iters):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) * 1000 / iters


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check-only", action="store_true")
    parser.add_argument("--sizes", help="bytes, comma-separated (default 4 KB..64 MB)")
    parser.add_argument("--dtypes", default="f32,bf16")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--iters", type=int, default=50)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else SIZES

    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    buf = symm_mem.empty(max(sizes), dtype=torch.uint8, device="cuda")
    handle = symm_mem.rendezvous(buf, dist.group.WORLD.group_name)
    rows = []
    for short in args.dtypes.split(","):
        dtype = DTYPES[short]
        for size in sizes:
            n = size // torch.empty((), dtype=dtype).element_size()
            tables = peer_tables(handle, dtype, n, ar.PAD_WORDS)
            gen = torch.Generator(device="cuda").manual_seed(1000 + rank)
            x = torch.randn(n, device="cuda", generator=gen).to(dtype)
            check(x, tables, world, f"{short} {size} B")
            if args.check_only:
                continue
            y = x.clone()
            times = [
                mean_us(lambda: dist.all_reduce(y), args.warmup, args.iters),
                *(
                    mean_us(
                        lambda k=k: ar.torch_all_reduce(x, tables, k),
                        args.warmup,
                        args.iters,
                    )
                    for k in (ar.all_reduce_one_shot, ar.all_reduce_two_shot)
                ),
            ]
            rows.append((short, size, *times))
    if rank == 0:
        print(f"all-reduce on {world} GPUs: both kernels equal the rank-order sum "
              f"bit for bit at every size; NCCL within {NCCL_TOL}")  # fmt: skip
        if rows:
            print(f"{'dtype':>5} {'bytes':>9} {'NCCL us':>9} {'one-shot':>9} "
                  f"{'two-shot':>9} {'best/NCCL':>9}")  # fmt: skip
        for short, size, nccl, one, two in rows:
            print(f"{short:>5} {size:>9} {nccl:9.1f} {one:9.1f} {two:9.1f} "
                  f"{nccl / min(one, two):8.2f}x")  # fmt: skip
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
