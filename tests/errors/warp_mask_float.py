# expect: E242 line 10
import kdsl
from kdsl import Float32, Int32, Pointer, thread_idx


@kdsl.kernel
def bad(x: Pointer[Float32], out: Pointer[Int32]):
    i = thread_idx.x
    # a lane mask is a 32-bit integer, not a float
    v = kdsl.ballot(x[i] > 0, mask=x[i])
    out[i] = v.to(Int32)
