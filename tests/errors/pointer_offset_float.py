# expect: E345 line 8
import kdsl
from kdsl import Float32, Int32, Pointer, Uint32, thread_idx


@kdsl.kernel
def bad(x: Pointer[Float32], f: Float32):
    p = x + f
    p[thread_idx.x] = 1.0
