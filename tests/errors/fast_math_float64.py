# expect: E252 line 8
import kdsl
from kdsl import Float64, Pointer, thread_idx


@kdsl.kernel
def bad(x: Pointer[Float64], out: Pointer[Float64]):
    out[thread_idx.x] = kdsl.math.fast_exp(x[thread_idx.x])
