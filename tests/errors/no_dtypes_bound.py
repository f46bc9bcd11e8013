# expect: E402 line 9
import kdsl
from kdsl import Int32, Pointer, thread_idx

T = kdsl.TypeVar("T")


@kdsl.kernel
def bad(x: Pointer[T], n: Int32):
    x[thread_idx.x] = x[0]
