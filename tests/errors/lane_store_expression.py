# expect: E331 line 10
import kdsl
from kdsl import Float32, Pointer, thread_idx


@kdsl.kernel
def bad(x: Pointer[Float32], out: Pointer[Float32]):
    i = thread_idx.x
    v = x.vec(4)[i]
    (v + v)[0] = Float32(1)
    out[i] = v[0]
