# expect: E126 line 9
import kdsl
from kdsl import Int32, Pointer, thread_idx


@kdsl.kernel
def bad(out: Pointer[Int32]):
    i = Int32(thread_idx.x)
    i = 1.5
    out[0] = i
