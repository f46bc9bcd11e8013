# expect: E303 line 16
import kdsl
from kdsl import Int32, Pointer, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.func
def bump(a):
    a = a + 1


@kdsl.kernel(dtypes=[kdsl.Float32])
def bad(x: Pointer[D], out: Pointer[D], n: Int32):
    i = thread_idx.x
    v = bump(x[i])
    out[i] = v
