# expect: E250 line 10
import kdsl
from kdsl import Int8, Int32, Pointer, thread_idx


@kdsl.kernel
def bad(x: Pointer[Int8], out: Pointer[Int8], n: Int32):
    i = thread_idx.x
    if i < n:
        out[i] = kdsl.umulhi(x[i], x[i + 1])
