# expect: E325 line 10
import kdsl
from kdsl import Float32, Int32, Pointer, thread_idx


@kdsl.kernel
def bad(x: Pointer[Float32], n: Int32):
    i = thread_idx.x
    rest = kdsl.dynamic_shared_array(Float32)
    flags = kdsl.dynamic_shared_array(Int32, 32)
    rest[i] = x[i]
    flags[i] = n
