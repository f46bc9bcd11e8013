# expect: E243 line 10
import kdsl
from kdsl import Int32, Pointer, thread_idx


@kdsl.kernel
def bad(out: Pointer[Int32]):
    i = thread_idx.x
    out[i] = i
    kdsl.syncwarp(mask=0)
