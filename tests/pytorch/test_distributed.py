"""kdsl.distributed.peer_tables on the CPU: a stand-in for PyTorch's
symmetric-memory handle (CPU tensors, the attributes and methods
``rendezvous`` returns) gives every rank its tables, which the all-reduce
example then runs on in the interpreter, all ranks in one process.  The
real thing, several GPUs and NCCL, is tests/gpu/test_allreduce_multi_gpu.py."""

import numpy as np
import pytest

import kdsl
from examples_index import example_modules

torch = pytest.importorskip("torch")
from kdsl.distributed import PeerTables, peer_tables  # noqa: E402

AR = example_modules()["allreduce"]


class FakeSymmetricMemory:
    """What peer_tables reads of a ``_SymmetricMemory``, over CPU tensors
    (one byte buffer and signal pad per rank, shared by every rank's handle)."""

    def __init__(self, buffers, pads, rank):
        self.buffers, self.pads, self.rank = buffers, pads, rank
        self.world_size = len(buffers)
        self.buffer_size = buffers[0].numel()
        self.signal_pad_size = pads[0].numel()
        self.device = torch.device("cpu")
        self.buffer_ptrs = [b.data_ptr() for b in buffers]
        self.signal_pad_ptrs = [p.data_ptr() for p in pads]

    def get_buffer(self, rank, sizes, dtype, storage_offset=0):
        return self.buffers[rank].view(dtype)[: int(np.prod(sizes))].view(sizes)

    def get_signal_pad(self, rank, sizes, dtype=None, storage_offset=0):
        words = self.pads[rank].view(dtype)
        return words[: int(np.prod(sizes))].view(sizes)


def _handles(world, buffer_bytes=1 << 16, pad_bytes=2048):
    buffers = [torch.zeros(buffer_bytes, dtype=torch.uint8) for _ in range(world)]
    pads = [torch.zeros(pad_bytes, dtype=torch.uint8) for _ in range(world)]
    return [FakeSymmetricMemory(buffers, pads, r) for r in range(world)]


def test_peer_tables_reads_the_handle():
    handles = _handles(4)
    t = peer_tables(handles[2], torch.float32, 100)
    assert isinstance(t, PeerTables) and (t.rank, t.world) == (2, 4)
    assert t.buffers.dtype == torch.uint64 and t.pads.dtype == torch.uint64
    assert t.buffers.tolist() == handles[0].buffer_ptrs
    assert t.pads.tolist() == handles[0].signal_pad_ptrs
    assert t.buffer.shape == (100,) and t.buffer.dtype == torch.float32
    assert t.buffer.data_ptr() == handles[2].buffer_ptrs[2]
    assert t.pad.dtype == torch.uint32 and t.pad.shape == (512,)  # all 2048 bytes
    assert t.pad.data_ptr() == handles[2].signal_pad_ptrs[2]


def test_peer_tables_refuses_what_does_not_fit():
    handle = _handles(2, buffer_bytes=400, pad_bytes=1024)[0]
    with pytest.raises(ValueError, match="do not fit the symmetric buffer of 400"):
        peer_tables(handle, torch.float32, 101)
    with pytest.raises(ValueError, match="set_signal_pad_size"):
        peer_tables(handle, torch.float32, 100, pad_words=AR.PAD_WORDS)


@pytest.mark.parametrize("kernel", ["all_reduce_one_shot", "all_reduce_two_shot"])
def test_all_reduce_through_peer_tables_in_the_interpreter(kernel):
    world, n = 4, 1000
    handles = _handles(world)
    tables = [peer_tables(h, torch.float32, n, AR.PAD_WORDS) for h in handles]
    gen = torch.Generator().manual_seed(0)
    xs = [torch.randn(n, generator=gen) for _ in range(world)]
    outs = [torch.zeros(n) for _ in range(world)]
    for t, x in zip(tables, xs):
        t.buffer.copy_(x)

    def launch(r):
        t = tables[r]
        AR.launch_all_reduce(
            getattr(AR, kernel),
            lambda k, g, b: k.interpret[g, b],
            t.buffers, t.buffer, t.pads, t.pad, outs[r], t.rank, t.world, 2,
        )  # fmt: skip

    kdsl.run_ranks(world, launch)
    want = xs[0].clone()
    for x in xs[1:]:
        want = want + x
    for out in outs:
        assert torch.equal(out, want)


def test_importing_kdsl_distributed_does_not_import_torch():
    import subprocess
    import sys

    code = "import sys, kdsl.distributed; print('torch' in sys.modules)"
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert got.stdout.strip() == "False", got.stderr


def test_the_benchmark_checks_run_on_one_cpu_rank(tmp_path):
    """benchmarks/allreduce_bench.py's check (both kernels bit for bit
    against the rank-order sum, NCCL's path through torch.distributed) on a
    one-rank gloo group, the kernels interpreted (KDSL_INTERPRET=1)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    code = f"""
import os, sys
sys.path[:0] = [{str(root / "tests")!r}, {str(root / "tests" / "pytorch")!r},
                {str(root / "benchmarks")!r}]
import torch, torch.distributed as dist
dist.init_process_group("gloo", init_method="file://{tmp_path}/store", rank=0,
                        world_size=1)
import allreduce_bench as bench
from test_distributed import _handles
from kdsl.distributed import peer_tables
for short in ("f32", "bf16"):
    t = peer_tables(_handles(1)[0], bench.DTYPES[short], 300, bench.ar.PAD_WORDS)
    bench.check(torch.randn(300).to(bench.DTYPES[short]), t, 1, short + " 1200 B")
print("checked", os.environ["NCCL_NVLS_ENABLE"],
      os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"])
dist.destroy_process_group()
"""
    env = dict(os.environ, KDSL_INTERPRET="1")
    got = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env
    )
    assert got.stdout.strip() == "checked 0 1", got.stderr[-3000:]
