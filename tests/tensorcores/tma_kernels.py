"""Small TMA and mbarrier kernels, for the CPU tests (source, SASS, errors)
and the GPU tests (tests/gpu/test_tma_gpu.py): one box through TMA into
shared memory and out again, and a box copied back to global memory by a
TMA store."""

import kdsl
from kdsl import Constexpr, Int32, Pointer, Uint64, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Float)
THREADS = 128


@kdsl.kernel(dtypes=["bf16", "f16"])
def box_copy(
    tmap: kdsl.TensorMap,
    out: Pointer[D],
    x: Int32,
    y: Int32,
    ROWS: Constexpr[int] = 64,
    CHUNKS: Constexpr[int] = 8,
):
    """The box at (x, y) of tmap's tensor (ROWS x 8 CHUNKS elements), as
    TMA lays it in shared memory (swizzled or not), copied to ``out`` byte
    for byte: chunk k of the buffer to ``out.vec(8)[k]``."""
    bar = kdsl.shared_array(Uint64, (1,))
    box = kdsl.dynamic_shared_array(D.vec(8), ROWS * CHUNKS)
    tid = thread_idx.x
    if tid == 0:
        kdsl.mbarrier_init(bar, 0, 1)
        kdsl.fence_mbarrier_init()
    kdsl.syncthreads()
    if tid == 0:
        kdsl.mbarrier_arrive_expect_tx(bar, 0, ROWS * CHUNKS * 16)
        kdsl.tma_load(box, 0, tmap, (x, y), bar, 0)
    kdsl.mbarrier_wait(bar, 0, 0)  # phase 0: the box has landed
    for k in range(tid, ROWS * CHUNKS, THREADS):
        out.vec(8)[k] = box[k]


@kdsl.kernel(dtypes=["bf16", "f16"])
def box_move(
    src: kdsl.TensorMap,
    dst: kdsl.TensorMap,
    flag: Pointer[D],
    x: Int32,
    y: Int32,
    to_x: Int32,
    to_y: Int32,
    ROUNDS: Constexpr[int] = 3,
    BYTES: Constexpr[int] = 64 * 64 * 2,
):
    """The box at (x, y) of src's tensor stored at (to_x, to_y) of dst's
    through shared memory, ROUNDS times over one mbarrier (phases 0, 1, 0 …:
    each round waits for its own parity), by TMA both ways; ``flag[0]``
    written after the last store has read shared memory."""
    bar = kdsl.shared_array(Uint64, (1,))
    box = kdsl.dynamic_shared_array(D.vec(8), BYTES // 16)
    tid = thread_idx.x
    if tid == 0:
        kdsl.mbarrier_init(bar, 0, 1)
        kdsl.fence_mbarrier_init()
    kdsl.syncthreads()
    for r in range(ROUNDS):
        if tid == 0:
            kdsl.mbarrier_arrive_expect_tx(bar, 0, BYTES)
            kdsl.tma_load(box, 0, src, (x, y), bar, 0)
        kdsl.mbarrier_wait(bar, 0, r % 2)
        if tid == 0:
            kdsl.tma_store(dst, (to_x, to_y), box, 0)
            kdsl.tma_store_commit()
            kdsl.tma_store_wait(0)  # the store has read the box: reuse it
        kdsl.syncthreads()
    if tid == 0:
        flag[0] = D(1)
