# expect: E720 line 10
import kdsl
from kdsl import Float32, Pointer, thread_idx


@kdsl.kernel
def bad(out: Pointer[Float32]):
    s = kdsl.shared_array(Float32, 32)
    s[thread_idx.x] = 1.0
    out[thread_idx.x] = kdsl.ldcs(s, thread_idx.x)
