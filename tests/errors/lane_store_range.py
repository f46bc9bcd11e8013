# expect: E117 line 10
import kdsl
from kdsl import Float32, Pointer, thread_idx


@kdsl.kernel
def bad(x: Pointer[Float32], out: Pointer[Float32]):
    i = thread_idx.x
    v = x.vec(4)[i]
    v[4] = Float32(0)
    out[i] = v[0]
