# expect: E247 line 9
import kdsl
from kdsl import Int32, Pointer, thread_idx


@kdsl.kernel
def bad(x: Pointer[Int32], out: Pointer[Int32]):
    i = thread_idx.x
    out[i] = kdsl.shfl_up(x[i], 1, width=24)
