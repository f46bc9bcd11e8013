# expect: E270 line 8
import kdsl
from kdsl import Float32, Pointer, thread_idx


@kdsl.kernel
def bad(out: Pointer[Float32]):
    out[thread_idx.x] = (*out[0], Float32(5.0))[1]
