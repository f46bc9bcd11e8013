# expect: E327 line 9
import kdsl
from kdsl import Int32, Int128, Pointer, thread_idx


@kdsl.kernel
def bad(x: Pointer[Int128], n: Int32):
    i = thread_idx.x
    wide = kdsl.dynamic_shared_array(Int128, 64)
    wide[i] = x[i]
