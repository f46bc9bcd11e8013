# expect: E336 line 9
import kdsl
from kdsl import Int32, Pointer, thread_idx


@kdsl.kernel
def bad(c: Pointer[Int32]):
    i = thread_idx.x
    kdsl.atomic_store(c, 0, i, scope="gpu")
