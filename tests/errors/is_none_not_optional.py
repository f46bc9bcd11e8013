# expect: E343 line 9
import kdsl
from kdsl import Float32, Pointer, thread_idx


@kdsl.kernel
def bad(x: Pointer[Float32], bias: Pointer[Float32]):
    i = thread_idx.x
    if bias is not None:
        x[i] = x[i] + bias[i]
