# expect: E212 line 16
import kdsl
from kdsl import Float32, Int32, Pointer, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel(dtypes=[kdsl.Float32])
def other(x: Pointer[D], out: Pointer[D], n: Int32):
    out[0] = x[0]


@kdsl.kernel(dtypes=[kdsl.Float32])
def bad(x: Pointer[D], out: Pointer[D], n: Int32):
    i = thread_idx.x
    other(x, out, n)
