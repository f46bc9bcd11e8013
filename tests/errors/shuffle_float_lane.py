# expect: E273 line 8
import kdsl
from kdsl import Float32, Pointer, thread_idx


@kdsl.kernel
def bad(out: Pointer[Float32]):
    out[thread_idx.x] = kdsl.shfl_idx(out[0], Float32(1.0))
