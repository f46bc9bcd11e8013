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


# A name used as a range_constexpr variable and also assigned at run time
# inside a run-time loop (a FlashAttention kernel reused ``i`` so): one C++
# variable, declared once, assigned each unrolled iteration's value.
@kdsl.kernel
def unrolled_reuses_a_run_time_name(out: Pointer[Float32], n: Int32):
    acc = kdsl.local_array(Float32, (4,))
    for i in range(4):
        acc[i] = 0.0
    for t in range(n):
        if t > 0:
            for i in kdsl.range_constexpr(4):
                if t + i > thread_idx.x:
                    acc[i] = 1.0
        for c in kdsl.range_constexpr(2):
            i = 2 * c
            acc[i] = acc[i] + 1.0
    out[thread_idx.x] = acc[0] + acc[3]


@kdsl.kernel
def unrolled_reuses_a_top_level_name(out: Pointer[Float32], n: Int32):
    acc = kdsl.local_array(Float32, (4,))
    for k in kdsl.range_constexpr(4):
        acc[k] = 0.0
    i = 0  # first assigned at top level
    for t in range(n):
        if t > 0:
            for i in kdsl.range_constexpr(4):
                if t + i > thread_idx.x:
                    acc[i] = 1.0
        for c in kdsl.range_constexpr(2):
            i = 2 * c
            acc[i] = acc[i] + 1.0
    out[thread_idx.x] = acc[0] + acc[3] + Float32(i)


@kdsl.kernel
def unrolled_in_a_while_loop(out: Pointer[Float32], n: Int32):
    acc = kdsl.local_array(Float32, (4,))
    for i in range(4):
        acc[i] = 0.0
    t = 0
    while t < n:
        if t > 0:
            for i in kdsl.range_constexpr(4):
                if t + i > thread_idx.x:
                    acc[i] = 1.0
        for c in kdsl.range_constexpr(2):
            i = 2 * c
            acc[i] = acc[i] + 1.0
        t += 1
    out[thread_idx.x] = acc[0] + acc[3]


@kdsl.kernel
def unrolled_variable_read_after(out: Pointer[Float32], n: Int32):
    acc = kdsl.local_array(Float32, (4,))
    for k in kdsl.range_constexpr(4):
        acc[k] = 0.0
    i = 0
    j = 0
    for t in range(n):
        if t % 2 == 1:
            for i in kdsl.range_constexpr(3):
                acc[i] = acc[i] + 1.0
        acc[i] = acc[i] + 10.0  # i is 0, or 2 once an odd t has run
        for j in kdsl.range_constexpr(4):
            acc[j] = acc[j] + 100.0
    out[4 * thread_idx.x] = acc[0] + acc[3]
    out[4 * thread_idx.x + 1] = acc[1] + acc[2]
    out[4 * thread_idx.x + 2] = Float32(i)
    out[4 * thread_idx.x + 3] = Float32(j)  # 0 when the loop ran no iteration


@kdsl.kernel
def hoisted_name_reused_by_a_loop(out: Pointer[Float32], n: Int32):
    for t in range(n):
        i = t + 1
        for i in range(4):  # a run-time loop over the name in between
            out[8 + i] = 1.0
        i = t + 2
    out[thread_idx.x] = Float32(i)


# An unrolled loop assigning a name that run-time control flow carries:
# silently folded before (the value after the branch or loop was the
# unrolled loop's last whether or not it ran).
@kdsl.kernel
def unrolled_over_a_run_time_counter(out: Pointer[Float32], n: Int32):
    s = Float32(0)
    for i in range(n):
        if i % 2 == 1:
            for i in kdsl.range_constexpr(3):
                s += 1.0
        s += Float32(i) * 10.0  # the counter, or 2
    out[0] = s


@kdsl.kernel
def unrolled_in_one_arm(out: Pointer[Float32], n: Int32):
    k = 5
    for t in range(n):
        if t % 2 == 0:
            for k in kdsl.range_constexpr(2):
                out[1] = 1.0
        else:
            out[2] = Float32(k)
    out[0] = Float32(k)


@kdsl.kernel
def run_time_loop_in_an_unrolled_body(out: Pointer[Float32], n: Int32):
    k = 0
    s = Float32(0)
    for t in range(n):
        for k in kdsl.range_constexpr(2):
            for u in range(t):
                s += Float32(k)
                k = k + 1
    out[0] = s
    out[1] = Float32(k)


@kdsl.kernel
def unrolled_in_an_unrolled_body(out: Pointer[Float32], n: Int32):
    k = 7
    s = Float32(0)
    for t in range(n):
        for k in kdsl.range_constexpr(3):
            s += Float32(k)
            if t > 0:
                for k in kdsl.range_constexpr(2):
                    s += 100.0
            s += Float32(k) * 10.0
    out[0] = s
    out[1] = Float32(k)
