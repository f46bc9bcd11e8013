# expect: E211 line 16
import kdsl
from kdsl import Float32, Int32, Pointer, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.func
def first(p):
    return p


@kdsl.kernel(dtypes=[kdsl.Float32])
def bad(x: Pointer[D], out: Pointer[D], n: Int32):
    i = thread_idx.x
    out[i] = first((x[i], x[i]))
