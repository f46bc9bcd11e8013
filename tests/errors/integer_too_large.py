# expect: E275 line 8
import kdsl
from kdsl import Int64, Pointer, thread_idx


@kdsl.kernel
def bad(out: Pointer[Int64]):
    out[thread_idx.x] = 10**5000
