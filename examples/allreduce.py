"""All-reduce across GPUs over peer memory: every rank ends with the sum of
every rank's array, in rank order (rank 0's + rank 1's + ...), bit for bit
the same on every rank.

Each rank holds its input in a *symmetric* buffer (one of the same size on
every GPU, each GPU able to load and store the others' through NVLink, such
as a ``torch.distributed._symmetric_memory`` buffer) and a *signal pad*
(Uint32 words of symmetric memory, zero at first).  A kernel gets the table
of every rank's buffer address (``bufs``) and pad address (``pads``) and
reaches a peer's with ``kdsl.peer_pointer(bufs[r], buf)``.

Two kernels, for Float32 and BFloat16 (summed in Float32, rounded once):

* ``all_reduce_one_shot``: after a barrier, every rank reads every rank's
  whole buffer and sums it: one step, ``world`` times the data read per
  rank — the fastest for small messages, where latency rules;
* ``all_reduce_two_shot``: a reduce-scatter (rank r sums chunk r of every
  buffer, in place in its own), a barrier, then an all-gather (rank r reads
  chunk q, reduced, from rank q): twice the steps, but each rank reads only
  about twice its data — better for large messages.

Both sum in the same order, so they agree with each other and with a numpy
sum ``x[0] + x[1] + ...`` in Float32, bit for bit.

``rank_barrier`` is the blockwise barrier across ranks: block b of every
rank waits for block b of every other rank, which is all the kernels need,
since on every rank block b handles the same elements (the same grid-stride
loop over the same range).  Thread 0 of the block, after ``syncthreads``,
fences at system scope and raises its flag in every peer's pad (relaxed
system-scope stores: with the fence, a release), then waits for every
rank's flag in its own pad (``kdsl.wait_signal``: acquire loads), and a
second ``syncthreads`` hands what it acquired to the block.  A flag holds a
generation, the barriers this block has passed plus one: it only grows, so
the pad never needs clearing, the barrier can be used again at once, and a
fast rank's next generation never hides the one a slow rank waits for.

The pad holds, per block b < MAX_BLOCKS, the block's generation (word b)
and a flag per source rank (word ``MAX_BLOCKS + b * MAX_RANKS + r``):
``PAD_WORDS`` words (1152 bytes).  Launch at most MAX_BLOCKS blocks, the
same grid and block on every rank (``launch_all_reduce`` checks).

The memory-ordering rules and how to run this on several GPUs are in
docs/distributed.md; ``kdsl.run_ranks`` runs all ranks in the interpreter.
"""

import kdsl
from kdsl import Float32, Int32, Pointer, Uint32, Uint64, block_dim, block_idx
from kdsl import grid_dim, thread_idx

T = kdsl.TypeVar("T", bound=kdsl.Float)

MAX_RANKS = 8
MAX_BLOCKS = 32
PAD_WORDS = MAX_BLOCKS * (1 + MAX_RANKS)


@kdsl.func
def rank_barrier(pads, pad, rank, world):
    """Block ``block_idx.x`` of every rank waits here for the same block of
    every other rank (see the module's docstring); every thread calls it."""
    kdsl.syncthreads()  # the block's accesses before the barrier are done
    if thread_idx.x == 0:
        b = block_idx.x
        generation = pad[b] + Uint32(1)
        flags = MAX_BLOCKS + b * MAX_RANKS
        kdsl.threadfence_system()  # with the relaxed stores below: a release
        for r in range(world):
            peer = kdsl.peer_pointer(pads[r], pad)
            kdsl.atomic_store(
                peer, flags + rank, generation, order="relaxed", scope="system"
            )
        for r in range(world):
            kdsl.wait_signal(pad, flags + r, generation, scope="system")
        pad[b] = generation
    kdsl.syncthreads()  # what thread 0 acquired, to the whole block


@kdsl.func
def sum_of_ranks(bufs, buf, world, i):
    """``buf[i]`` of rank 0 + rank 1 + ... in Float32, in rank order."""
    acc = Float32(kdsl.peer_pointer(bufs[0], buf)[i])
    for r in range(1, world):
        acc += Float32(kdsl.peer_pointer(bufs[r], buf)[i])
    return acc


@kdsl.kernel(dtypes=[Float32, kdsl.BFloat16])
def all_reduce_one_shot(
    bufs: Pointer[Uint64],
    buf: Pointer[T],
    pads: Pointer[Uint64],
    pad: Pointer[Uint32],
    out: Pointer[T],
    n: Int32,
    rank: Int32,
    world: Int32,
):
    """``out`` = the sum of every rank's ``buf`` (n elements)."""
    rank_barrier(pads, pad, rank, world)  # every rank's input is in its buffer
    start = block_idx.x * block_dim.x + thread_idx.x
    for i in range(start, n, grid_dim.x * block_dim.x):
        out[i] = T(sum_of_ranks(bufs, buf, world, i))
    rank_barrier(pads, pad, rank, world)  # no rank reads this buffer any more


@kdsl.kernel(dtypes=[Float32, kdsl.BFloat16])
def all_reduce_two_shot(
    bufs: Pointer[Uint64],
    buf: Pointer[T],
    pads: Pointer[Uint64],
    pad: Pointer[Uint32],
    out: Pointer[T],
    n: Int32,
    rank: Int32,
    world: Int32,
):
    """``out`` = the sum of every rank's ``buf`` (n elements); ``buf`` ends
    holding this rank's chunk of the sum (chunks of ``ceil(n / world)``)."""
    chunk = (n + world - 1) // world
    start = block_idx.x * block_dim.x + thread_idx.x
    stride = grid_dim.x * block_dim.x
    rank_barrier(pads, pad, rank, world)
    # reduce-scatter: this rank's chunk of every buffer, summed into its own
    first = rank * chunk
    size = min(chunk, n - first)
    for j in range(start, size, stride):
        total = T(sum_of_ranks(bufs, buf, world, first + j))
        buf[first + j] = total
        out[first + j] = total
    rank_barrier(pads, pad, rank, world)  # every chunk is reduced
    # all-gather: chunk q from rank q (block b reads what block b wrote)
    for q in range(world):
        if q != rank:
            theirs = kdsl.peer_pointer(bufs[q], buf)
            first = q * chunk
            size = min(chunk, n - first)
            for j in range(start, size, stride):
                out[first + j] = theirs[first + j]
    rank_barrier(pads, pad, rank, world)  # no rank reads this buffer any more


def address_table(arrays, xp):
    """The Uint64 table of the arrays' addresses (numpy, CuPy or PyTorch),
    as an ``xp`` array: numpy's ``ctypes.data``, a GPU array's device
    address."""
    import numpy as np

    def address(a):
        if isinstance(a, np.ndarray):
            return a.ctypes.data
        if hasattr(a, "data_ptr"):
            return a.data_ptr()
        return a.data.ptr

    return xp.asarray(np.array([address(a) for a in arrays], np.uint64))


def rank_order_sum(arrays, dtype):
    """What both kernels compute, in numpy: the arrays summed in rank order
    in Float32 (``arrays[0] + arrays[1] + ...``), rounded once to
    ``dtype``."""
    import numpy as np

    total = np.asarray(arrays[0]).astype(np.float32)
    for a in arrays[1:]:
        total = total + np.asarray(a).astype(np.float32)
    return total.astype(dtype)


def launch_all_reduce(kernel, launcher, bufs, buf, pads, pad, out, rank, world, grid):
    """Launch one rank's ``kernel`` (``launcher(kernel, grid, block)``:
    ``kernel[grid, block]`` or ``kernel.interpret[grid, block]``) with the
    checks its pad layout needs: at most MAX_BLOCKS blocks and MAX_RANKS
    ranks, a pad of PAD_WORDS words."""
    if not 1 <= world <= MAX_RANKS:
        raise ValueError(f"world of {world} ranks: 1 .. {MAX_RANKS}")
    if not 1 <= grid <= MAX_BLOCKS:
        raise ValueError(f"grid of {grid} blocks: 1 .. {MAX_BLOCKS}")
    if pad.shape[0] < PAD_WORDS:
        raise ValueError(f"the signal pad holds {pad.shape[0]} words: {PAD_WORDS}")
    n = out.shape[0]
    launcher(kernel, grid, 512)(bufs, buf, pads, pad, out, n, rank, world)


def torch_all_reduce(x, tables, kernel=None, grid=MAX_BLOCKS):
    """``x`` (this rank's CUDA tensor) summed over the ranks of ``tables``
    (``kdsl.distributed.peer_tables`` of a symmetric buffer at least as
    large): copied into the symmetric buffer, reduced by ``kernel`` (by
    default the one-shot) on the current stream; a new tensor.  Every rank
    calls it with the same shape, kernel and grid."""
    import torch

    kernel = all_reduce_one_shot if kernel is None else kernel
    n = x.numel()
    tables.buffer[:n].copy_(x.reshape(-1))
    out = torch.empty(n, dtype=x.dtype, device=x.device)
    launch_all_reduce(
        kernel,
        lambda k, g, b: k[g, b],
        tables.buffers,
        tables.buffer,
        tables.pads,
        tables.pad,
        out,
        tables.rank,
        tables.world,
        grid,
    )
    return out.view(x.shape)
