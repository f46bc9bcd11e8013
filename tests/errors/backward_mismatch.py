# expect: E404 line 11
import kdsl
from kdsl import Constexpr, Int32, Pointer, thread_idx


@kdsl.kernel
def grad(x: Pointer[kdsl.Float32], n: Int32, SCALE: Constexpr[int] = 2):
    x[thread_idx.x] = x[0]


@kdsl.kernel(backward=grad)
def bad(x: Pointer[kdsl.Float32], n: Int32):
    x[thread_idx.x] = x[0]
