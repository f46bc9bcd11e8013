# expect: E305 line 11
import kdsl
from kdsl import Float16, Float32, Pointer, thread_idx


@kdsl.kernel
def bad(x: Pointer[Float16], out: Pointer[Float16]):
    i = thread_idx.x
    s = kdsl.shared_array(kdsl.Float16x8, 32)
    s[i] = x.vec(8)[i]
    s[i][3] = x[i].to(Float32)  # a Float32 into a Float16 lane
    out[i] = s[i][3]
