# expect: E122 line 7
import kdsl
from kdsl import Int32, Pointer, thread_idx


@kdsl.kernel
def bad(x: Pointer[kdsl.Vector[kdsl.Float32]], n: Int32):
    x[thread_idx.x] = x[0]
