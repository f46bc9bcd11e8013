# expect: E126 line 8
import kdsl
from kdsl import Int32, Pointer, thread_idx


@kdsl.kernel
def bad(out: Pointer[Int32]):
    out[thread_idx.x] = 3_000_000_000
