# expect: E475 line 6
import kdsl
from kdsl import Float32, Int32, Pointer, thread_idx


@kdsl.kernel(maxregcount=32)
def bad(x: Pointer[Float32], n: Int32):
    x[thread_idx.x] = x[0]
