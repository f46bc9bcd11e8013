# expect: E346 line 8
import kdsl
from kdsl import Float32, Int32, Pointer, Uint32, thread_idx


@kdsl.kernel
def bad(x: Pointer[Float32], y: Pointer[Uint32], out: Pointer[kdsl.Int64]):
    out[0] = x - y
