# expect: E210 line 10
import kdsl
from kdsl import Float32, Int32, Pointer, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.func
def twice(a):
    return a * D(2)


@kdsl.kernel(dtypes=[kdsl.Float32])
def bad(x: Pointer[D], out: Pointer[D], n: Int32):
    i = thread_idx.x
    out[i] = twice(x[i])
