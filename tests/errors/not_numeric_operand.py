# expect: E106 line 11
import kdsl
from kdsl import Float32, Int32, Pointer, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel(dtypes=[kdsl.Float32])
def bad(x: Pointer[D], out: Pointer[D], n: Int32):
    i = thread_idx.x
    out[i] = thread_idx + 1
