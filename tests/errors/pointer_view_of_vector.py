# expect: E338 line 9
import kdsl
from kdsl import Float32, Pointer, Uint32, thread_idx


@kdsl.kernel
def bad(x: Pointer[Float32], out: Pointer[Uint32]):
    i = thread_idx.x
    words = x.vec(4).view(Uint32)
    out[i] = words[i]
