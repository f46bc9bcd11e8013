# expect: E328 line 10
import kdsl
from kdsl import Float32, Int32, Pointer, thread_idx


@kdsl.kernel
def bad(x: Pointer[Float32], n: Int32):
    i = thread_idx.x
    if i < n:
        tile = kdsl.dynamic_shared_array(Float32, n)
        tile[i] = x[i]
