# expect: E335 line 9
import kdsl
from kdsl import Int32, Pointer, thread_idx


@kdsl.kernel
def bad(c: Pointer[Int32]):
    i = thread_idx.x
    kdsl.atomic_add(c, 0, i, order="acquired")
