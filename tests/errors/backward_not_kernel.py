# expect: E408 line 10
import kdsl
from kdsl import Int32, Pointer, thread_idx


def grad(x, n):
    pass


@kdsl.kernel(backward=grad)
def bad(x: Pointer[kdsl.Float32], n: Int32):
    x[thread_idx.x] = x[0]
