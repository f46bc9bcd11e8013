# expect: E123 line 7
import kdsl
from kdsl import Int32, Pointer, thread_idx


@kdsl.kernel
def bad(x: Pointer[kdsl.Vector[int, 4]], n: Int32):
    x[thread_idx.x] = x[0]
