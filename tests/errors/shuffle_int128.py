# expect: E234 line 9
import kdsl
from kdsl import Int128, Pointer, thread_idx


@kdsl.kernel
def bad(x: Pointer[Int128], out: Pointer[Int128]):
    i = thread_idx.x
    out[i] = kdsl.shfl_idx(x[i], 0)
