"""examples/allreduce.py on every GPU of the machine (2 or more), one
process per GPU started by PyTorch's launcher (torch.distributed.run) on
benchmarks/allreduce_bench.py --check-only: on every rank both kernels
equal the rank-order sum bit for bit and NCCL's all_reduce within a
tolerance, Float32 and BFloat16, 4 KB .. 4 MB.  Skipped with fewer than two
GPUs, without NCCL or without symmetric memory.  The same on one GPU, a
world of one rank: the benchmark's path through torch.distributed, NCCL,
symmetric memory and kdsl.distributed.peer_tables, with no peer."""

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]
GPUS = torch.cuda.device_count() if torch.cuda.is_available() else 0


def _bench_checks(world):
    import torch.distributed as dist

    if not dist.is_nccl_available():
        pytest.skip("PyTorch without NCCL")
    pytest.importorskip("torch.distributed._symmetric_memory")
    command = [
        sys.executable, "-m", "torch.distributed.run", "--standalone",
        f"--nproc-per-node={world}", str(ROOT / "benchmarks" / "allreduce_bench.py"),
        "--check-only", "--sizes", "4096,65536,262144,4194304",
    ]  # fmt: skip
    got = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert got.returncode == 0, got.stdout[-4000:] + got.stderr[-4000:]
    assert f"all-reduce on {world} GPUs: both kernels equal" in got.stdout


@pytest.mark.skipif(GPUS < 2, reason="needs two or more GPUs")
def test_all_reduce_on_every_gpu():
    _bench_checks(GPUS)


@pytest.mark.skipif(GPUS < 1, reason="needs a GPU")
def test_all_reduce_bench_on_one_gpu():
    _bench_checks(1)
