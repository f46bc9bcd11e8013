# expect: E330 line 11
import kdsl
from kdsl import Float32, Int32, Pointer, thread_idx


@kdsl.kernel
def bad(x: Pointer[Float32], out: Pointer[Float32], k: Int32):
    i = thread_idx.x
    v = x.vec(4)[i]
    o = out.vec(4)
    v[k] = Float32(0)  # a lane chosen at run time
    o[i] = v
