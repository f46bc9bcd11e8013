# expect: E126 line 9
import kdsl
from kdsl import Int8, Pointer, thread_idx


@kdsl.kernel
def bad(out: Pointer[Int8]):
    v = Int8(thread_idx.x)
    v += 300
    out[0] = v
