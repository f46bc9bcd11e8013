"""Small kernels for the lowering tests: each exercises one variable rule."""

import kdsl
from kdsl import Constexpr, Float32, Int32, Pointer, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Float)
SCALE = 3


@kdsl.kernel(dtypes=[kdsl.Float32])
def static_then_branch(x: Pointer[D], out: Pointer[D], n: Int32):
    i = thread_idx.x
    acc = Float32(0)
    if i < n:
        acc = x[i]
    out[i] = acc


@kdsl.kernel(dtypes=[kdsl.Float32])
def loop_carried(x: Pointer[D], out: Pointer[D], n: Int32):
    acc = Float32(0)
    for k in range(n):
        acc = acc + x[k]
    out[0] = acc


@kdsl.kernel(dtypes=[kdsl.Float32])
def first_assigned_in_branches(x: Pointer[D], out: Pointer[D], n: Int32):
    i = thread_idx.x
    if i < n:
        v = x[i]
    else:
        v = Float32(0)
    out[i] = v


@kdsl.kernel(dtypes=[kdsl.Float32])
def branch_local(x: Pointer[D], out: Pointer[D], n: Int32):
    i = thread_idx.x
    if i < n:
        t = x[i] * 2
        out[i] = t


@kdsl.kernel(dtypes=[kdsl.Float32])
def static_folds(out: Pointer[D], FLAG: Constexpr[bool] = True):
    k = SCALE * 4 + 1
    if FLAG:
        out[0] = Float32(k) / 2
    else:
        out[0] = Float32(-1)
    for j in kdsl.range_constexpr(2):
        out[j + 1] = Float32(j)


@kdsl.kernel(dtypes=[kdsl.Float32])
def while_counter(out: Pointer[D], n: Int32):
    k = 0
    while k < n:
        out[k] = Float32(1)
        k += 1


@kdsl.kernel(dtypes=[kdsl.Float32])
def literal_takes_type(out: Pointer[D], n: Int32):
    acc = Float32(1)
    for k in range(n):
        acc = 2
        acc += 1
    out[0] = acc


@kdsl.kernel(dtypes=[kdsl.Float32])
def grid_stride(x: Pointer[D], n: Int32):
    for i in range(thread_idx.x, n, kdsl.block_dim.x * kdsl.grid_dim.x):
        x[i] = x[i] + x[i]


@kdsl.kernel
def local_in_both_arms(x: Pointer[Float32], out: Pointer[Float32]):
    i = thread_idx.x
    if i < 4:
        a = x[0]
        out[i] = a
    else:
        a = x[1]
        out[i] = a + 1.0
