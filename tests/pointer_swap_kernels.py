"""Pointer variables assigned in run-time control flow (buffers swapped
between steps), shared by tests/lowering/test_pointer_swap.py and the GPU
test."""

import kdsl
from kdsl import Float32, Int32, Pointer, block_dim, block_idx, thread_idx


@kdsl.kernel
def ping_pong(a: Pointer[Float32], b: Pointer[Float32], n: Int32, steps: Int32):
    """``steps`` rounds of x[i] += 1 from one buffer into the other, one
    block; the last result is in ``a`` after an even number of steps."""
    i = thread_idx.x
    src = a
    dst = b
    for step in range(steps):
        if i < n:
            dst[i] = src[i] + 1.0
        kdsl.syncthreads()
        src, dst = dst, src  # swap: the next step reads what this one wrote


@kdsl.kernel
def pick_by_step(a: Pointer[Float32], b: Pointer[Float32], n: Int32, steps: Int32):
    """Numba's spelling: each step names its buffers in an if/else."""
    i = block_idx.x * block_dim.x + thread_idx.x
    for step in range(steps):
        if step % 2 == 0:
            data = a
            next_data = b
        else:
            data = b
            next_data = a
        if i < n:
            next_data[i] = data[i] * 2.0
        kdsl.syncthreads()


@kdsl.kernel
def read_either(
    a: Pointer[Float32], b: Pointer[Float32], out: Pointer[Float32], k: Int32
):
    """Both sources only read: the pointer variable is const."""
    src = a
    if k > 0:
        src = b
    out[thread_idx.x] = src[thread_idx.x]


@kdsl.kernel
def per_thread_choice(a: Pointer[Float32], b: Pointer[Float32], out: Pointer[Float32]):
    """Each thread picks its own buffer (fine in CUDA; the interpreter runs
    one array per variable and refuses it)."""
    src = a
    if thread_idx.x % 2 == 1:
        src = b
    out[thread_idx.x] = src[thread_idx.x]


@kdsl.func
def pick(a, b, k):
    """A device function choosing its own pointer variable."""
    p = a
    if k > 0:
        p = b
    return p[thread_idx.x]


@kdsl.kernel
def pick_in_a_function(
    a: Pointer[Float32], b: Pointer[Float32], out: Pointer[Float32], k: Int32
):
    """Only odd threads call ``pick``: its variable is theirs alone."""
    if thread_idx.x % 2 == 1:
        out[thread_idx.x] = pick(a, b, k)
