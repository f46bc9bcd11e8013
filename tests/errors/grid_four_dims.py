# expect: E350 line 8
import kdsl
from kdsl import Float32, Int32, Pointer, Uint32, thread_idx


@kdsl.kernel
def bad(out: Pointer[Int32]):
    i, j, k, l = kdsl.grid(4)
    out[i] = 1
