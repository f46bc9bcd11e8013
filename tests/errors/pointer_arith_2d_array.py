# expect: E348 line 9
import kdsl
from kdsl import Float32, Int32, Pointer, Uint32, thread_idx


@kdsl.kernel
def bad(out: Pointer[Float32]):
    s = kdsl.shared_array(Float32, (4, 32))
    p = s + 32
    out[0] = p[0]
