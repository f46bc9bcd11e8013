# expect: E244 line 9
import kdsl
from kdsl import Boolean, Float32, Pointer, thread_idx


@kdsl.kernel
def bad(x: Pointer[Float32], out: Pointer[Boolean]):
    i = thread_idx.x
    out[i] = kdsl.any_sync(x[i])
