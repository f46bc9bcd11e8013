# expect: E250 line 8
import kdsl
from kdsl import Float32, Int32, Pointer, thread_idx


@kdsl.kernel
def bad(x: Pointer[Float32], out: Pointer[Int32]):
    out[thread_idx.x] = kdsl.dp4a(x[thread_idx.x], 0x01010101, 0)
