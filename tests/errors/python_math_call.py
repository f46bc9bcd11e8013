# expect: E124 line 10
import math

import kdsl
from kdsl import Float32, Pointer, thread_idx


@kdsl.kernel
def bad(x: Pointer[Float32]):
    x[thread_idx.x] = math.exp(x[thread_idx.x])
