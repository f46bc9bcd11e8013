# expect: E314 line 10
import kdsl
from kdsl import Array, Float32, Int32, thread_idx


@kdsl.kernel
def bad(x: Array[Float32, 1], out: Array[Float32, 1], n: Int32):
    i = thread_idx.x
    if i < n:
        p = x
    else:
        p = out
    out[i] = p[i]
