# expect: E308 line 9
import kdsl
from kdsl import Int32, Pointer, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.func
def relu(a):
    if a > 0:
        return a


@kdsl.kernel(dtypes=[kdsl.Float32])
def bad(x: Pointer[D], out: Pointer[D], n: Int32):
    i = thread_idx.x
    out[i] = relu(x[i])
