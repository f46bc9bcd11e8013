# expect: E344 line 12
import kdsl
from kdsl import Float32, Pointer, thread_idx

DISPATCH = {"bias": None}  # the instance where bias is None


@kdsl.kernel
def bad(x: Pointer[Float32], bias: Pointer[Float32] | None):
    i = thread_idx.x
    y = x[i]
    x[i] = y + bias[i]
