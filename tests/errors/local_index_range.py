# expect: E272 line 9
import kdsl
from kdsl import Float32, Pointer, thread_idx


@kdsl.kernel
def bad(out: Pointer[Float32]):
    a = kdsl.local_array(Float32, 4)
    a[4] = out[0]
    out[thread_idx.x] = a[0]
