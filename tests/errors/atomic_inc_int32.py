# expect: E230 line 8
import kdsl
from kdsl import Int32, Pointer, thread_idx


@kdsl.kernel
def bad(counter: Pointer[Int32], n: Int32):
    kdsl.atomic_inc(counter, 0, n)
