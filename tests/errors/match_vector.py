# expect: E245 line 9
import kdsl
from kdsl import Float32, Pointer, Uint32, thread_idx


@kdsl.kernel
def bad(x: Pointer[Float32], out: Pointer[Uint32]):
    i = thread_idx.x
    out[i] = kdsl.match_any(x.vec(4)[i])
