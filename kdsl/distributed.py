"""Kernels across GPUs on PyTorch's distributed runtime: the peer pointers
and signal pads of a ``torch.distributed._symmetric_memory`` buffer, as the
arguments of a kdsl kernel (docs/distributed.md).

One process per GPU, started by ``torchrun`` (or any launcher PyTorch
supports), with ``torch.distributed`` initialised (NCCL) and a symmetric
buffer made collectively::

    import torch.distributed._symmetric_memory as symm_mem
    from kdsl.distributed import peer_tables

    buf = symm_mem.empty(n, dtype=torch.float32, device="cuda")
    handle = symm_mem.rendezvous(buf, dist.group.WORLD.group_name)
    t = peer_tables(handle, torch.float32, n)
    # t.buffers / t.pads: every rank's buffer and signal pad address (Uint64),
    # t.buffer / t.pad: this rank's, typed; t.rank, t.world
    kernel[grid, block](t.buffers, t.buffer, t.pads, t.pad, out, n, t.rank, t.world)

kdsl adds no launcher and no transport: PyTorch maps the peers' memory and
gives their addresses; the kernel reaches them with ``kdsl.peer_pointer``.
NVLink multicast is never used (no multicast address is read): set
``TORCH_SYMM_MEM_DISABLE_MULTICAST=1`` and ``NCCL_NVLS_ENABLE=0``.

PyTorch is imported only when a function here is called.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["PeerTables", "peer_tables"]


@dataclass(frozen=True)
class PeerTables:
    """What a communication kernel takes for one symmetric buffer, on this
    rank's device (tensors)."""

    rank: int
    world: int
    buffer: Any  # this rank's buffer: ``numel`` elements of ``dtype``
    buffers: Any  # torch.uint64 (world,): every rank's buffer address
    pad: Any  # this rank's signal pad: ``pad_words`` torch.uint32 words
    pads: Any  # torch.uint64 (world,): every rank's signal pad address


def peer_tables(handle, dtype, numel: int, pad_words: int | None = None) -> PeerTables:
    """The tables of the symmetric-memory ``handle`` (what
    ``torch.distributed._symmetric_memory.rendezvous`` returned): this
    rank's buffer as ``numel`` elements of ``dtype``, every rank's buffer
    and signal pad address as ``torch.uint64`` tensors on the buffer's
    device, and this rank's signal pad as ``pad_words`` Uint32 words (by
    default all of it).  The signal pads start zeroed; a kernel's signals
    that only grow (``kdsl.wait_signal``) never need them cleared, but
    then PyTorch's own ``handle.barrier()``/``put_signal`` (which expect
    zeros) must not share the pad."""
    import torch

    itemsize = torch.empty((), dtype=dtype).element_size()
    if numel * itemsize > handle.buffer_size:
        raise ValueError(
            f"{numel} elements of {dtype} ({numel * itemsize} bytes) do not fit "
            f"the symmetric buffer of {handle.buffer_size} bytes"
        )
    pad_bytes = int(handle.signal_pad_size)
    words = pad_bytes // 4 if pad_words is None else pad_words
    if words * 4 > pad_bytes:
        raise ValueError(
            f"{words} signal words ({words * 4} bytes) do not fit the signal pad "
            f"of {pad_bytes} bytes: raise it with "
            "torch.distributed._symmetric_memory.set_signal_pad_size() before "
            "the buffer is made"
        )
    rank, world = int(handle.rank), int(handle.world_size)
    ptrs = [list(handle.buffer_ptrs), list(handle.signal_pad_ptrs)]
    if any(len(p) != world for p in ptrs):
        raise ValueError(f"the handle's address lists do not have {world} ranks")
    device = handle.device
    return PeerTables(
        rank=rank,
        world=world,
        buffer=handle.get_buffer(rank, (numel,), dtype),
        buffers=torch.tensor(ptrs[0], dtype=torch.uint64, device=device),
        pad=handle.get_signal_pad(rank, (words,), torch.uint32),
        pads=torch.tensor(ptrs[1], dtype=torch.uint64, device=device),
    )
