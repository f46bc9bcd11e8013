# expect: E347 line 8
import kdsl
from kdsl import Float32, Int32, Pointer, Uint32, thread_idx


@kdsl.kernel
def bad(x: Pointer[Float32], out: Pointer[Float32]):
    p = x * 2
    out[0] = p[0]
