# expect: E226 line 13
import kdsl
from kdsl import Float32, Int32, Pointer, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel(dtypes=[kdsl.Float32])
def bad(x: Pointer[D], out: Pointer[D], n: Int32):
    i = thread_idx.x
    for k in kdsl.range_constexpr(4):
        if x[k] > 0:
            break
        out[k] = x[k]
