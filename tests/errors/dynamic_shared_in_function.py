# expect: E323 line 9
import kdsl
from kdsl import Float32, Int32, Pointer, thread_idx


@kdsl.func
def stage(x, i):
    # a device function cannot cut views: the kernel owns the layout
    scratch = kdsl.dynamic_shared_array(Float32)
    scratch[i] = x[i]
    return scratch[i]


@kdsl.kernel
def bad(x: Pointer[Float32], n: Int32):
    i = thread_idx.x
    x[i] = stage(x, i)
