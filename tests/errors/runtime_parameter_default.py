# expect: E476 line 7
import kdsl
from kdsl import Float32, Int32, Pointer, thread_idx


@kdsl.kernel
def bad(x: Pointer[Float32], n: Int32 = 4):
    x[thread_idx.x] = x[0]
