# expect: E112 line 12
import kdsl
from kdsl import Int32, Pointer, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel(dtypes=[kdsl.Float32])
def bad(x: Pointer[D], out: Pointer[D], n: Int32):
    i = thread_idx.x
    v = x.vec(4)[i]
    if v > 0:
        out[i] = x[i]
