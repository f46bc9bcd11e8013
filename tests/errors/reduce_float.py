# expect: E246 line 9
import kdsl
from kdsl import Float32, Pointer, thread_idx


@kdsl.kernel
def bad(x: Pointer[Float32], out: Pointer[Float32]):
    i = thread_idx.x
    out[i] = kdsl.reduce_add_sync(x[i])
